//! The memory tool: a sequence of calls decoded from the input, run against
//! an in-memory [`Memory`], with a model of what must be there afterwards.
//!
//! - No call leaves a store over its limit.
//! - A rejected call changes nothing, byte for byte (every blob).
//! - Every acknowledged write is present afterwards, in the live store and
//!   in what a fresh open reads back, unless a later acknowledged call
//!   replaced or removed it; an entry only ever disappears through a
//!   replace or remove whose `old_text` it contains.

use std::collections::BTreeMap;

use mnemo::tool::{Action, ToolCall};
use mnemo::{Config, ErrorKind, Memory, MemoryStorage, Target};
use serde_json::{json, Value};

/// The limits of the fuzzed memory: small, so full stores are common.
pub const MEMORY_LIMIT: usize = 300;
/// See [`MEMORY_LIMIT`].
pub const USER_LIMIT: usize = 200;

fn config() -> Config {
    Config::from_json(&json!({"memory": {
        "memory_char_limit": MEMORY_LIMIT, "user_char_limit": USER_LIMIT,
        "recall": {"enabled": false}}}))
    .expect("valid config")
}

fn limit(target: Target) -> usize {
    match target {
        Target::Memory => MEMORY_LIMIT,
        Target::User => USER_LIMIT,
    }
}

/// One step decoded from a line of the input.
#[derive(Clone, Debug)]
pub enum Step {
    /// Tool arguments, as a model would send them.
    Call(Value),
    /// The turn ends (the retry counter starts again).
    EndTurn,
    /// Opens the memory again over the same storage.
    Reopen,
}

/// Decodes the input, one step per line. A line starting with `{`, `[` or
/// `"` is the tool's JSON arguments verbatim (not JSON: sent as a string);
/// otherwise a compact form: `+m text` / `+u text` add, `=m old|new`
/// replace, `-m old` remove, `?query` search, `.` ends the turn, `!`
/// reopens. Any other line is sent as a JSON string.
pub fn decode(text: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for line in text.split('\n').take(64) {
        let target = |c: Option<char>| if c == Some('u') { "user" } else { "memory" };
        let mut chars = line.chars();
        let first = chars.next();
        let second = chars.clone().next();
        let rest = line.get(2..).unwrap_or("");
        let step = match first {
            Some('{' | '[' | '"') => Step::Call(
                serde_json::from_str(line).unwrap_or_else(|_| Value::String(line.into())),
            ),
            Some('+') => {
                Step::Call(json!({"action": "add", "target": target(second), "content": rest}))
            }
            Some('=') => {
                let (old, new) = rest.split_once('|').unwrap_or((rest, ""));
                Step::Call(json!({"action": "replace", "target": target(second),
                    "old_text": old, "content": new}))
            }
            Some('-') => {
                Step::Call(json!({"action": "remove", "target": target(second), "old_text": rest}))
            }
            Some('?') => {
                Step::Call(json!({"action": "search", "query": line.get(1..).unwrap_or("")}))
            }
            Some('.') => Step::EndTurn,
            Some('!') => Step::Reopen,
            _ => Step::Call(Value::String(line.into())),
        };
        steps.push(step);
    }
    steps
}

fn open(storage: &MemoryStorage) -> Memory<MemoryStorage> {
    super::block_on(Memory::open(storage.clone(), config())).expect("an in-memory open succeeds")
}

fn entries(m: &Memory<MemoryStorage>, t: Target) -> Vec<String> {
    m.store(t).entries().to_vec()
}

/// What the model holds: per target, the entries acknowledged writes put
/// there and that no acknowledged call took away since.
type Model = BTreeMap<&'static str, Vec<String>>;

fn name(t: Target) -> &'static str {
    t.name()
}

/// The input is a sequence of steps (see [`decode`]).
pub fn check(data: &[u8]) {
    run(&decode(&super::lossy(data)));
}

/// Runs `steps` and checks every property after each.
pub fn run(steps: &[Step]) {
    let storage = MemoryStorage::with_clock(|| 1_795_980_426_000);
    let mut m = open(&storage);
    let mut model: Model = BTreeMap::new();
    for step in steps {
        match step {
            Step::EndTurn => m.end_turn(),
            Step::Reopen => {
                let live = [entries(&m, Target::Memory), entries(&m, Target::User)];
                m = open(&storage);
                assert_eq!(
                    [entries(&m, Target::Memory), entries(&m, Target::User)],
                    live,
                    "what a fresh open reads is what was live"
                );
            }
            Step::Call(args) => call(&storage, &mut m, &mut model, args),
        }
        for t in [Target::Memory, Target::User] {
            let now = entries(&m, t);
            assert!(m.store(t).chars() <= limit(t), "{t:?} over its limit");
            for kept in model.get(name(t)).into_iter().flatten() {
                assert!(
                    now.contains(kept),
                    "acknowledged write {kept:?} lost from {t:?}"
                );
            }
        }
    }
    // Everything acknowledged is also in what a fresh open reads.
    let fresh = open(&storage);
    for t in [Target::Memory, Target::User] {
        assert_eq!(
            entries(&fresh, t),
            entries(&m, t),
            "stored = live for {t:?}"
        );
    }
}

fn call(storage: &MemoryStorage, m: &mut Memory<MemoryStorage>, model: &mut Model, args: &Value) {
    let before_blobs = storage.snapshot();
    let before = [entries(m, Target::Memory), entries(m, Target::User)];
    let result = super::block_on(m.tool(args));
    let after = [entries(m, Target::Memory), entries(m, Target::User)];
    if !result.success {
        let code = result.code.expect("a failure has a code");
        assert_eq!(ErrorKind::from_code(code.code()), Some(code));
        assert!(result.error.as_deref().is_some_and(|e| !e.is_empty()));
        assert_eq!(
            after, before,
            "a rejected call changed the live stores: {args}"
        );
        assert!(
            storage.snapshot() == before_blobs,
            "a rejected call changed the stored blobs: {args}"
        );
        return;
    }
    let json = result.to_json();
    assert!(json.is_object(), "a result is an object");
    let Ok(parsed) = ToolCall::parse(args) else {
        // A search: it writes no entry.
        assert_eq!(after, before, "a search changed the stores: {args}");
        return;
    };
    if result.staged == Some(true) {
        assert_eq!(after, before);
        return;
    }
    let message = result.message.clone().unwrap_or_default();
    for t in [Target::Memory, Target::User] {
        let i = t.index_for_tests();
        let ops: Vec<_> = parsed
            .operations
            .iter()
            .filter(|op| op.target == t)
            .collect();
        // Every entry that disappeared was taken by a replace or remove of
        // this call whose old_text it contains.
        for gone in before[i].iter().filter(|e| !after[i].contains(e)) {
            assert!(
                ops.iter().any(|op| op.action != Action::Add
                    && op.old_text.as_deref().is_some_and(|o| gone.contains(o))),
                "{gone:?} disappeared from {t:?} without a replace or remove naming it: {args}"
            );
            if let Some(kept) = model.get_mut(name(t)) {
                kept.retain(|k| k != gone);
            }
        }
        // Every entry that appeared is the content of one of its operations.
        for new in after[i].iter().filter(|e| !before[i].contains(e)) {
            assert!(
                ops.iter()
                    .any(|op| op.content.as_deref() == Some(new.as_str())),
                "{new:?} appeared in {t:?} from nowhere: {args}"
            );
        }
        // The written contents are acknowledged: present now, unless a later
        // operation of the same batch took them, or the store kept a
        // near-duplicate instead.
        for (k, op) in ops.iter().enumerate() {
            let Some(content) = op.content.as_deref() else {
                continue;
            };
            if op.action == Action::Remove || message.contains("near-duplicate") {
                continue;
            }
            let taken_later = ops[k + 1..].iter().any(|later| {
                later.action != Action::Add
                    && later
                        .old_text
                        .as_deref()
                        .is_some_and(|o| content.contains(o))
            });
            if taken_later {
                continue;
            }
            assert!(
                after[i].iter().any(|e| e == content),
                "acknowledged {content:?} is not in {t:?}: {args}"
            );
            let kept = model.entry(name(t)).or_default();
            if !kept.iter().any(|k| k == content) {
                kept.push(content.to_string());
            }
        }
    }
}

/// Index of a target in the arrays above.
trait IndexForTests {
    fn index_for_tests(self) -> usize;
}

impl IndexForTests for Target {
    fn index_for_tests(self) -> usize {
        match self {
            Target::Memory => 0,
            Target::User => 1,
        }
    }
}
