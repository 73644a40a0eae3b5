//! Configuration: the spec's `memory:` keys, as JSON (JS) or YAML (CLI).
//!
//! The shape is `{memory: {memory_enabled, user_profile_enabled,
//! memory_char_limit, user_char_limit, write_approval, recall: {enabled,
//! memory_char_limit, user_char_limit, top_k, max_chars, hops}}, display:
//! {memory_notifications}, auxiliary: {background_review: {provider, model,
//! base_url, max_iterations, max_input_chars}}, curation: {auto,
//! log_retention_days, max_input_chars}, skills: {write_approval}}`. Every key is optional;
//! unknown keys are an error that names them.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::store::Target;

/// The whole configuration object passed to `open`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The `memory:` section.
    pub memory: MemoryConfig,
    /// The `display:` section.
    pub display: DisplayConfig,
    /// The `auxiliary:` section.
    pub auxiliary: AuxiliaryConfig,
    /// The `curation:` section.
    pub curation: CurationConfig,
    /// The `skills:` section.
    pub skills: SkillsConfig,
}

/// The `skills:` section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SkillsConfig {
    /// Stage every skill write (create, edit, patch, write_file,
    /// remove_file, delete) for the user's approval instead of applying it.
    pub write_approval: bool,
}

/// The `curation:` section: when the curation pipeline runs and what the
/// activity log keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CurationConfig {
    /// `on_stop` (the default, as in the spec) runs curation when the host
    /// calls `stop()`; `manual` only when asked.
    pub auto: CurationAuto,
    /// Days the activity log keeps a day's file; older days are deleted
    /// when curation runs.
    pub log_retention_days: u32,
    /// The most chars of log one extraction call sends; a longer log is
    /// read in several calls.
    pub max_input_chars: usize,
}

impl Default for CurationConfig {
    fn default() -> Self {
        CurationConfig {
            auto: CurationAuto::OnStop,
            log_retention_days: 90,
            max_input_chars: 24_000,
        }
    }
}

/// `curation.auto`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CurationAuto {
    /// Curation runs when the host stops the agent (`stop()`).
    #[default]
    OnStop,
    /// Curation runs only when asked (`curate()`).
    Manual,
}

/// The `display:` section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DisplayConfig {
    /// The line a write or a review announces in the chat.
    pub memory_notifications: Notifications,
}

/// `display.memory_notifications`: how chatty the line announcing a memory
/// write is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notifications {
    /// No line.
    Off,
    /// A generic line: `💾 Memory updated`.
    #[default]
    On,
    /// A compact preview of what changed: `💾 Memory ➕ User prefers terse
    /// replies`.
    Verbose,
}

/// The `auxiliary:` section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuxiliaryConfig {
    /// The model the background review runs on, and its bounds.
    pub background_review: ReviewConfig,
}

/// `auxiliary.background_review`: where the background review runs and how
/// far it may go.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReviewConfig {
    /// A known provider (`openai`, `openrouter`, `ollama`) naming a base
    /// URL; the CLI's concern (JS hosts pass their own `llm`).
    pub provider: Option<String>,
    /// The model; `auto` (the default) is the main chat model, so the
    /// review replays the whole transcript rather than a digest.
    pub model: String,
    /// An OpenAI-compatible base URL, instead of a provider's.
    pub base_url: Option<String>,
    /// The most model calls one review makes.
    pub max_iterations: usize,
    /// The most chars of messages one review sends in a call; the review
    /// stops before a call that would send more.
    pub max_input_chars: usize,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            provider: None,
            model: "auto".into(),
            base_url: None,
            max_iterations: 8,
            max_input_chars: 400_000,
        }
    }
}

/// The `memory:` section of the configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// Whether `MEMORY.md` is rendered and writable.
    pub memory_enabled: bool,
    /// Whether `USER.md` is rendered and writable.
    pub user_profile_enabled: bool,
    /// Verbatim budget of `MEMORY.md` in chars (the whole store is in the
    /// prompt while it fits).
    pub memory_char_limit: usize,
    /// Verbatim budget of `USER.md` in chars.
    pub user_char_limit: usize,
    /// Stage every write for the user's approval instead of applying it.
    /// The default; `setApproval` persists an override in the memory's
    /// state that wins until changed.
    pub write_approval: bool,
    /// Note search settings.
    pub recall: RecallConfig,
}

/// The `memory.recall:` section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecallConfig {
    /// `false` restores the classic behaviour: the storage limit equals the
    /// verbatim budget.
    pub enabled: bool,
    /// Storage limit of `MEMORY.md` in chars while recall is on.
    pub memory_char_limit: usize,
    /// Storage limit of `USER.md` in chars while recall is on.
    pub user_char_limit: usize,
    /// Notes attached per turn.
    pub top_k: usize,
    /// Cap on the attached `<memory-context>` block, in chars.
    pub max_chars: usize,
    /// Steps followed along `[[wikilinks]]`.
    pub hops: usize,
    /// Days over which the temporal decay of a score halves its distance
    /// to the floor of 0.7.
    pub decay_half_life_days: u32,
    /// How hybrid recall mixes its parts (with a host embedder).
    pub hybrid: HybridConfig,
}

/// `memory.recall.hybrid`: the weights of the semantic and keyword parts
/// of hybrid recall, in percent, and whether the spec's bonuses apply
/// (+0.15 for two or more query words verbatim, +0.10 when both parts
/// exceed 0.5). The default, 40/60 without bonuses, is what LoCoMo
/// measured best (README, "Hybrid recall"); the spec's mix is `{semantic:
/// 60, keyword: 40, bonuses: true}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HybridConfig {
    /// Weight of the cosine, in percent.
    pub semantic: u32,
    /// Weight of the keyword relevance, in percent.
    pub keyword: u32,
    /// Whether the verbatim and agreement bonuses apply.
    pub bonuses: bool,
}

impl Default for HybridConfig {
    fn default() -> Self {
        HybridConfig {
            semantic: 40,
            keyword: 60,
            bonuses: false,
        }
    }
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            memory_enabled: true,
            user_profile_enabled: true,
            memory_char_limit: 2_200,
            user_char_limit: 1_375,
            write_approval: false,
            recall: RecallConfig::default(),
        }
    }
}

impl Default for RecallConfig {
    fn default() -> Self {
        RecallConfig {
            enabled: true,
            memory_char_limit: 120_000,
            user_char_limit: 24_000,
            top_k: 6,
            max_chars: 2_000,
            hops: 1,
            decay_half_life_days: 90,
            hybrid: HybridConfig::default(),
        }
    }
}

/// Whether `value` reads as a `T`.
fn reads_as<T: for<'de> Deserialize<'de>>(value: &serde_json::Value) -> bool {
    T::deserialize(value).is_ok()
}

/// Whether a JSON value reads as one section of the configuration.
type Reads = fn(&serde_json::Value) -> bool;

/// The reader of the section at a dotted path (`memory.recall`), `None`
/// where the path names a plain value. Every nested object of
/// [`Config`] has an entry (a unit test walks the defaults to hold that).
fn section(path: &str) -> Option<Reads> {
    Some(match path {
        "memory" => reads_as::<MemoryConfig>,
        "memory.recall" => reads_as::<RecallConfig>,
        "memory.recall.hybrid" => reads_as::<HybridConfig>,
        "display" => reads_as::<DisplayConfig>,
        "auxiliary" => reads_as::<AuxiliaryConfig>,
        "auxiliary.background_review" => reads_as::<ReviewConfig>,
        "curation" => reads_as::<CurationConfig>,
        "skills" => reads_as::<SkillsConfig>,
        _ => return None,
    })
}

/// The dotted path to where `value` stops reading as a [`Config`]
/// (`memory.recall.top_k`), for the error message; `""` when the whole
/// value is wrong. Only run on an error: each section's keys are tried one
/// at a time (every section has defaults, so one key alone reads unless it
/// is the wrong one), descending while the wrong key holds a section.
fn locate(value: &serde_json::Value) -> String {
    let mut path = String::new();
    let mut value = value;
    let mut reads: Reads = reads_as::<Config>;
    while let Some(map) = value.as_object() {
        let wrong = map.iter().find(|&(key, child)| {
            let one = serde_json::Map::from_iter([(key.clone(), child.clone())]);
            !reads(&serde_json::Value::Object(one))
        });
        let Some((key, child)) = wrong else { break };
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        let Some(next) = section(&path) else { break };
        (value, reads) = (child, next);
    }
    path
}

/// Largest limit accepted for any store, in chars (a sanity bound: larger
/// stores belong in session search, not in a prompt-adjacent file).
pub const MAX_LIMIT: usize = 10_000_000;

impl Config {
    /// Parses a JSON configuration object and validates it.
    pub fn from_json(value: &serde_json::Value) -> Result<Config> {
        let config = Config::deserialize(value).map_err(|e| {
            let path = locate(value);
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(" at {path}")
            };
            Error::new(ErrorKind::InvalidConfig, format!("invalid config{at}: {e}"))
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Parses a JSON configuration text and validates it.
    pub fn from_json_str(text: &str) -> Result<Config> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::new(ErrorKind::InvalidConfig, format!("invalid config: {e}")))?;
        Config::from_json(&value)
    }

    /// Checks that the limits make sense together.
    pub fn validate(&self) -> Result<()> {
        let m = &self.memory;
        let bad = |msg: String| Err(Error::new(ErrorKind::InvalidConfig, msg));
        for (key, value) in [
            ("memory.memory_char_limit", m.memory_char_limit),
            ("memory.user_char_limit", m.user_char_limit),
            (
                "memory.recall.memory_char_limit",
                m.recall.memory_char_limit,
            ),
            ("memory.recall.user_char_limit", m.recall.user_char_limit),
            ("memory.recall.max_chars", m.recall.max_chars),
            ("memory.recall.top_k", m.recall.top_k),
        ] {
            if value == 0 {
                return bad(format!("{key} must be at least 1"));
            }
            if value > MAX_LIMIT {
                return bad(format!("{key} must be at most {MAX_LIMIT}"));
            }
        }
        if m.recall.decay_half_life_days == 0 || m.recall.decay_half_life_days > 36_500 {
            return bad("memory.recall.decay_half_life_days must be from 1 to 36500".into());
        }
        if m.recall.hybrid.semantic + m.recall.hybrid.keyword != 100 {
            return bad(
                "memory.recall.hybrid: semantic and keyword are percents that add up to 100".into(),
            );
        }
        if m.recall.hops > 8 {
            return bad("memory.recall.hops must be at most 8".into());
        }
        if m.recall.enabled {
            if m.recall.memory_char_limit < m.memory_char_limit {
                return bad(format!(
                    "memory.recall.memory_char_limit ({}) must not be below memory.memory_char_limit ({})",
                    m.recall.memory_char_limit, m.memory_char_limit
                ));
            }
            if m.recall.user_char_limit < m.user_char_limit {
                return bad(format!(
                    "memory.recall.user_char_limit ({}) must not be below memory.user_char_limit ({})",
                    m.recall.user_char_limit, m.user_char_limit
                ));
            }
        }
        let r = &self.auxiliary.background_review;
        if r.max_iterations == 0 || r.max_iterations > 64 {
            return bad("auxiliary.background_review.max_iterations must be from 1 to 64".into());
        }
        if r.max_input_chars < 1_000 || r.max_input_chars > MAX_LIMIT {
            return bad(format!(
                "auxiliary.background_review.max_input_chars must be from 1000 to {MAX_LIMIT}"
            ));
        }
        let c = &self.curation;
        if c.log_retention_days == 0 || c.log_retention_days > 36_500 {
            return bad("curation.log_retention_days must be from 1 to 36500".into());
        }
        if c.max_input_chars < 1_000 || c.max_input_chars > MAX_LIMIT {
            return bad(format!(
                "curation.max_input_chars must be from 1000 to {MAX_LIMIT}"
            ));
        }
        if r.model.trim().is_empty() {
            return bad(
                "auxiliary.background_review.model must not be empty (auto = the main model)"
                    .into(),
            );
        }
        Ok(())
    }

    /// Whether `target` is switched on.
    pub fn enabled(&self, target: Target) -> bool {
        match target {
            Target::Memory => self.memory.memory_enabled,
            Target::User => self.memory.user_profile_enabled,
        }
    }

    /// The verbatim budget of `target`: while the store fits it, the whole
    /// store is in the system prompt.
    pub fn verbatim_budget(&self, target: Target) -> usize {
        match target {
            Target::Memory => self.memory.memory_char_limit,
            Target::User => self.memory.user_char_limit,
        }
    }

    /// The storage limit in force for `target`: every write is judged
    /// against it.
    pub fn storage_limit(&self, target: Target) -> usize {
        if !self.memory.recall.enabled {
            return self.verbatim_budget(target);
        }
        match target {
            Target::Memory => self.memory.recall.memory_char_limit,
            Target::User => self.memory.recall.user_char_limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_match_the_spec() {
        let c = Config::default();
        assert_eq!(c.storage_limit(Target::Memory), 120_000);
        assert_eq!(c.storage_limit(Target::User), 24_000);
        assert_eq!(c.verbatim_budget(Target::Memory), 2_200);
        assert_eq!(c.verbatim_budget(Target::User), 1_375);
        assert_eq!(c.memory.recall.top_k, 6);
        assert_eq!(c.memory.recall.max_chars, 2_000);
        assert_eq!(c.memory.recall.hops, 1);
    }

    /// `locate` descends only through the sections `section` names: a
    /// section added to [`Config`] without its entry would make error
    /// paths stop short of the wrong key.
    #[test]
    fn every_nested_section_has_a_reader() {
        fn walk(path: &str, value: &serde_json::Value, seen: &mut Vec<String>) {
            let Some(map) = value.as_object() else { return };
            for (key, child) in map {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match section(&at) {
                    Some(reads) if child.is_object() => {
                        assert!(reads(child), "{at}: its defaults do not read");
                        seen.push(at.clone());
                        walk(&at, child, seen);
                    }
                    Some(_) => panic!("{at} is a plain value but has a section reader"),
                    None => assert!(!child.is_object(), "{at} is a section without a reader"),
                }
            }
        }
        let mut seen = Vec::new();
        walk(
            "",
            &serde_json::to_value(Config::default()).unwrap(),
            &mut seen,
        );
        assert_eq!(seen.len(), 8, "{seen:?}");
    }

    #[test]
    fn recall_off_makes_the_budget_the_limit() {
        let c = Config::from_json(&json!({"memory": {"recall": {"enabled": false}}})).unwrap();
        assert_eq!(c.storage_limit(Target::Memory), 2_200);
        assert_eq!(c.storage_limit(Target::User), 1_375);
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = Config::from_json(&json!({"memory": {"memroy_char_limit": 5}})).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidConfig);
        assert!(e.message().contains("memroy_char_limit"), "{e}");
        let e = Config::from_json(&json!({"memory": {"recall": {"topk": 5}}})).unwrap_err();
        assert!(e.message().contains("topk"), "{e}");
        assert!(e.message().contains("memory.recall"), "{e}");
        let e = Config::from_json(&json!({"memory": {"recall": {"top_k": "six"}}})).unwrap_err();
        assert!(e.message().contains("at memory.recall.top_k:"), "{e}");
        let e =
            Config::from_json(&json!({"display": {"memory_notifications": "loud"}, "skills": {}}))
                .unwrap_err();
        assert!(
            e.message().contains("at display.memory_notifications:"),
            "{e}"
        );
        let e = Config::from_json(&json!([1, 2])).unwrap_err();
        assert!(e.message().starts_with("invalid config: "), "{e}");
    }

    #[test]
    fn nonsense_limits_are_refused() {
        for bad in [
            json!({"memory": {"memory_char_limit": 0}}),
            json!({"memory": {"memory_char_limit": "big"}}),
            json!({"memory": {"recall": {"memory_char_limit": 100}}}),
            json!({"display": {"memory_notifications": "loud"}}),
            json!({"auxiliary": {"background_review": {"max_iterations": 0}}}),
            json!([1, 2]),
        ] {
            let e = Config::from_json(&bad).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidConfig, "{bad}");
        }
    }
}
