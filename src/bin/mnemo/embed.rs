//! The embedding model the CLI lends the core for hybrid recall: an
//! OpenAI-compatible embeddings endpoint (`POST {base}/embeddings` with
//! `{model, input: [texts]}`, answered with `{data: [{embedding, index}]}`),
//! named by the config's top-level `embeddings:` section or by `--embed-*`
//! flags.
//!
//! Without either, nothing is lent and recall stays lexical: no network.
//! The core decides when to embed (new or changed entries and the query)
//! and keeps the vectors in `state.db`; this module only carries texts to
//! the endpoint and vectors back, over [`crate::llm::Http`]. An endpoint
//! that fails, or a key that is not set, makes that recall keyword-only
//! and the core says why; a section that names no usable endpoint or model
//! is an error.

use std::io::{self, Write};

use mnemo::host::{Answer, Embedder};
use mnemo::{Error, ErrorKind, Memory, Result};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::flags::EmbedArgs;
use crate::llm::{endpoint_url, insecure, Http, Provider};
use crate::paths::Dir;

/// Seconds one embeddings call may take, unless `embeddings.timeout` says.
const TIMEOUT: u64 = 30;

/// The config's `embeddings:` section, as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// A provider with a known base URL (openai, openrouter, ollama).
    pub provider: Option<String>,
    /// The base URL of the API (…/v1); wins over the provider's.
    pub base_url: Option<String>,
    /// The embedding model.
    pub model: Option<String>,
    /// The length of its vectors.
    pub dimensions: Option<usize>,
    /// The environment variable holding the API key (default: the
    /// provider's).
    pub api_key_env: Option<String>,
    /// Seconds one call may take: 1 to 3600 (default 30).
    pub timeout: Option<u64>,
}

/// An OpenAI-compatible embeddings endpoint and the model to ask.
pub struct Embeddings {
    http: Http,
    model: String,
    dimensions: usize,
    /// Why no call can be made (the key's variable is not set), if so.
    unusable: Option<String>,
}

impl Embeddings {
    /// The endpoint's URL.
    pub fn url(&self) -> &str {
        self.http.url()
    }

    /// Embeds `texts` with one call.
    fn call(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if let Some(why) = &self.unusable {
            return Err(Error::new(ErrorKind::InvalidInput, why.clone()));
        }
        let answer = self
            .http
            .post(&json!({"model": self.model, "input": texts}), "data")?;
        vectors(&answer, texts.len(), self.http.url())
    }
}

impl Embedder for Embeddings {
    fn model(&self) -> &str {
        &self.model
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> Answer<'a, Vec<Vec<f32>>> {
        // ureq blocks; the core's future is ready at its first poll.
        let answer = self.call(texts);
        Box::pin(async move { answer })
    }
}

/// The vectors of an embeddings answer, in the order of the texts: each
/// item of `data` goes where its `index` says (its position when it has
/// none). The core checks their lengths.
fn vectors(answer: &Value, texts: usize, url: &str) -> Result<Vec<Vec<f32>>> {
    let bad = |why: String| {
        Error::new(
            ErrorKind::Storage,
            format!("{url} answered with unusable embeddings: {why}"),
        )
    };
    let data = answer
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `data` list".into()))?;
    if data.len() != texts {
        return Err(bad(format!(
            "{} vectors for {texts} text{}",
            data.len(),
            if texts == 1 { "" } else { "s" }
        )));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; texts];
    for (position, item) in data.iter().enumerate() {
        let index = match item.get("index") {
            None | Some(Value::Null) => position,
            Some(v) => v
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .filter(|&i| i < texts)
                .ok_or_else(|| bad(format!("index {v} is not one of the texts")))?,
        };
        if out[index].is_some() {
            return Err(bad(format!("index {index} appears twice")));
        }
        let numbers = item
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                bad(format!(
                    "item {position} has no `embedding` list of numbers"
                ))
            })?;
        let vector = numbers
            .iter()
            .map(|n| {
                n.as_f64()
                    // Precision: the core keeps f32 vectors.
                    .map(|n| n as f32)
                    .filter(|n| n.is_finite())
            })
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| bad(format!("item {position} holds something not a number")))?;
        out[index] = Some(vector);
    }
    // Every slot is filled: as many items as texts, no index twice.
    Ok(out.into_iter().flatten().collect())
}

/// The embeddings endpoint the flags and the config's section name, if
/// any: `--embed-url`, else `embeddings.base_url`, else the base URL of
/// `embeddings.provider`; the model and dimensions from the flags, else the
/// section. The key's variable is `--embed-key-env`, else (unless the URL
/// came from `--embed-url`, so no key goes where the config did not say)
/// `embeddings.api_key_env`, else the provider's. `source` names the config
/// file in errors.
pub fn embedder(
    flags: &EmbedArgs,
    section: Option<&Section>,
    source: &str,
) -> Result<Option<Embeddings>> {
    let config = |key: &str, why: String| {
        Error::new(
            ErrorKind::InvalidConfig,
            format!("invalid config at embeddings.{key} in {source}: {why}"),
        )
    };
    let flagged = flags.embed_url.is_some()
        || flags.embed_model.is_some()
        || flags.embed_dimensions.is_some()
        || flags.embed_key_env.is_some();
    if section.is_none() && !flagged {
        return Ok(None);
    }
    let empty = Section::default();
    let section = section.unwrap_or(&empty);
    let provider = match section.provider.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(name) => Some(Provider::from_name(name).ok_or_else(|| {
            config(
                "provider",
                format!(
                    "{name:?} is not a provider mnemo knows (openai, openrouter, ollama); set \
                     base_url to the provider's OpenAI-compatible URL instead"
                ),
            )
        })?),
    };
    let (base, provider, from_flag) = match (&flags.embed_url, &section.base_url, provider) {
        (Some(url), _, _) => (url.clone(), None, true),
        (None, Some(base), provider) => (base.clone(), provider, false),
        (None, None, Some(provider)) => (provider.base_url().to_string(), Some(provider), false),
        (None, None, None) => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "no embeddings endpoint: pass --embed-url URL, or set embeddings.base_url or \
                     embeddings.provider in {source}"
                ),
            ))
        }
    };
    let url = endpoint_url(&base, "/embeddings")?;
    let model = flags
        .embed_model
        .as_deref()
        .or(section.model.as_deref())
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "no embedding model: pass --embed-model NAME, or set embeddings.model in \
                     {source}"
                ),
            )
        })?
        .to_string();
    let dimensions = flags
        .embed_dimensions
        .or(section.dimensions)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "the length of {model}'s vectors is not known: pass --embed-dimensions N, or \
                     set embeddings.dimensions in {source}"
                ),
            )
        })?;
    let timeout = match section.timeout {
        None => TIMEOUT,
        Some(t @ 1..=3600) => t,
        Some(t) => {
            return Err(config(
                "timeout",
                format!("{t} is not from 1 to 3600 seconds"),
            ))
        }
    };
    let key_var = match (&flags.embed_key_env, from_flag) {
        (Some(var), _) => Some(var.clone()),
        (None, true) => None,
        (None, false) => section
            .api_key_env
            .clone()
            .or_else(|| provider.and_then(Provider::key_var).map(str::to_string)),
    };
    let flag = flags.embed_key_env.is_some().then_some("--embed-key-env");
    let (key, unusable) = match key_var.as_deref() {
        None => (None, None),
        Some(var) => match std::env::var(var) {
            Ok(key) if !key.trim().is_empty() => (Some(key.trim().to_string()), None),
            _ => (
                None,
                Some(format!(
                    "the embeddings API key is read from ${var}{}, which is not set",
                    flag.map_or(String::new(), |f| format!(" ({f})"))
                )),
            ),
        },
    };
    if key.is_some() && insecure(&url) {
        let _ = writeln!(
            io::stderr(),
            "warning: sending the embeddings API key over plain HTTP to {url}"
        );
    }
    Ok(Some(Embeddings {
        http: Http::new(url, key, timeout, "embeddings.timeout"),
        model,
        dimensions,
        unusable,
    }))
}

/// Lends `memory` the embedder the flags and the section name, if any;
/// the endpoint's URL when one was lent.
pub fn lend(
    memory: &mut Memory<Dir>,
    flags: &EmbedArgs,
    section: Option<&Section>,
    source: &str,
) -> Result<Option<String>> {
    let Some(embeddings) = embedder(flags, section, source)? else {
        return Ok(None);
    };
    let url = embeddings.url().to_string();
    memory.set_embedder(Some(Box::new(embeddings)))?;
    Ok(Some(url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_put_in_order_by_index() {
        let answer = json!({"data": [
            {"index": 1, "embedding": [0.0, 1.0]},
            {"index": 0, "embedding": [1.0, 0.0]},
        ]});
        assert_eq!(
            vectors(&answer, 2, "u").unwrap(),
            vec![vec![1.0, 0.0], vec![0.0, 1.0]]
        );
        let positional = json!({"data": [{"embedding": [1]}, {"embedding": [2]}]});
        assert_eq!(
            vectors(&positional, 2, "u").unwrap(),
            vec![vec![1.0], vec![2.0]]
        );
    }

    #[test]
    fn malformed_answers_say_what_is_wrong() {
        for (answer, why) in [
            (json!({"object": "list"}), "no `data`"),
            (
                json!({"data": [{"embedding": [1]}]}),
                "1 vectors for 2 texts",
            ),
            (
                json!({"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]}),
                "appears twice",
            ),
            (
                json!({"data": [{"index": 5, "embedding": [1]}, {"index": 0, "embedding": [1]}]}),
                "index 5",
            ),
            (
                json!({"data": [{"embedding": "AAAA"}, {"embedding": [1]}]}),
                "no `embedding`",
            ),
            (
                json!({"data": [{"embedding": ["x"]}, {"embedding": [1]}]}),
                "not a number",
            ),
        ] {
            let e = vectors(&answer, 2, "http://x/v1/embeddings").unwrap_err();
            assert!(e.message().contains(why), "{answer}: {e}");
        }
    }

    #[test]
    fn nothing_configured_lends_nothing() {
        assert!(embedder(&EmbedArgs::default(), None, "c")
            .unwrap()
            .is_none());
        let e = embedder(
            &EmbedArgs {
                embed_model: Some("m".into()),
                ..EmbedArgs::default()
            },
            None,
            "c",
        )
        .err()
        .unwrap();
        assert!(e.message().contains("--embed-url"), "{e}");
        let section = Section {
            provider: Some("acme".into()),
            ..Section::default()
        };
        let e = embedder(&EmbedArgs::default(), Some(&section), "c")
            .err()
            .unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidConfig);
    }

    #[test]
    fn a_flagged_url_gets_no_configured_key() {
        let section = Section {
            provider: Some("openai".into()),
            model: Some("text-embedding-3-small".into()),
            dimensions: Some(1536),
            api_key_env: Some("MNEMO_TEST_SURELY_UNSET_KEY".into()),
            ..Section::default()
        };
        let configured = embedder(&EmbedArgs::default(), Some(&section), "c")
            .unwrap()
            .unwrap();
        assert_eq!(configured.url(), "https://api.openai.com/v1/embeddings");
        assert!(configured
            .unusable
            .as_deref()
            .is_some_and(|w| w.contains("$MNEMO_TEST_SURELY_UNSET_KEY")));
        let flagged = embedder(
            &EmbedArgs {
                embed_url: Some("http://127.0.0.1:9/v1".into()),
                ..EmbedArgs::default()
            },
            Some(&section),
            "c",
        )
        .unwrap()
        .unwrap();
        assert_eq!(flagged.url(), "http://127.0.0.1:9/v1/embeddings");
        assert!(flagged.unusable.is_none());
        assert_eq!(flagged.dimensions, 1536);
    }
}
