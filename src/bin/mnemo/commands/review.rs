//! `mnemo review`: the background memory review of a conversation, run on
//! an OpenAI-compatible chat-completions endpoint ([`crate::llm`]).
//!
//! This file reads the transcript, settles the endpoint, the key and the
//! model from the command line and `auxiliary.background_review`, and
//! prints the core's report. The review itself (the request, the digest,
//! the bounds, applying or staging the model's writes) is
//! [`mnemo::Memory::review`]'s.

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::config::ReviewConfig;
use mnemo::review::{ReviewOptions, Stop};
use mnemo::storage::run_ready;
use mnemo::{Error, ErrorKind, Result};
use serde_json::Value;

use crate::flags::{ModelArgs, ReviewArgs};
use crate::input::file_or_stdin;
use crate::llm::{api_key, completions_url, insecure, ChatCompletions, Provider};
use crate::paths::Paths;
use crate::render::{self, out, pretty};

/// `mnemo review TRANSCRIPT`: exits 1 when the review stopped on an error.
pub fn review(paths: &Paths, args: ReviewArgs) -> Result<ExitCode> {
    let transcript = read_transcript(&args.transcript)?;
    let (mut memory, config_source) = paths.open()?;
    let config = memory.config().auxiliary.background_review.clone();
    let model = connect(&args.model, &config, &config_source, "the review", true)?
        .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "no model for the review"))?;
    let messages = transcript.len();
    let options = ReviewOptions {
        transcript,
        same_model: args.same_model,
    };
    let report = run_ready(memory.review(&options, &model.llm, &|| false))??;
    if args.json {
        out(&pretty(&report)?)?;
    } else {
        let header = format!(
            "Review of {} ({messages} message{}, sent {}) by {} at {}",
            args.transcript,
            if messages == 1 { "" } else { "s" },
            if report.digest {
                "as a digest"
            } else {
                "whole"
            },
            render::one_line(&model.name, 80),
            model.url
        );
        out(&render::review(&report, &header, config.max_iterations))?;
    }
    if report.stopped == Stop::Error {
        let _ = writeln!(
            io::stderr(),
            "error: the review stopped on an error: {}",
            render::one_line(report.error.as_deref().unwrap_or("unknown"), 400)
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// A model to ask: the client, its name and its URL.
pub struct Model {
    /// The client.
    pub llm: ChatCompletions,
    /// The model's name.
    pub name: String,
    /// The chat-completions URL.
    pub url: String,
}

/// The model of `args` and the config's `auxiliary.background_review`
/// (`what` names the job in errors). With `required` false, none when
/// nothing names an endpoint at all.
pub fn connect(
    args: &ModelArgs,
    config: &ReviewConfig,
    source: &str,
    what: &str,
    required: bool,
) -> Result<Option<Model>> {
    let named = args.llm.is_some()
        || args.provider.is_some()
        || config.base_url.is_some()
        || !matches!(
            config.provider.as_deref().map(str::trim),
            None | Some("") | Some("auto")
        );
    if !required && !named {
        return Ok(None);
    }
    let endpoint = endpoint(args, config, source, what)?;
    let name = model(args, config, source, what)?;
    let key = api_key(
        endpoint.key_var.as_deref(),
        args.api_key_env.is_some().then_some("--api-key-env"),
    )?;
    if key.is_some() && insecure(&endpoint.url) {
        let _ = writeln!(
            io::stderr(),
            "warning: sending the API key over plain HTTP to {}",
            endpoint.url
        );
    }
    Ok(Some(Model {
        llm: ChatCompletions::new(endpoint.url.clone(), name.clone(), key, args.timeout),
        name,
        url: endpoint.url,
    }))
}

/// Where the review's model is, and the variable its key is read from.
struct Endpoint {
    url: String,
    key_var: Option<String>,
}

/// The endpoint: `--llm`, else `--provider`, else the config's `base_url`,
/// else its `provider`. The key's variable is `--api-key-env`, else the
/// provider's that gave the URL (a bare `--llm` URL gets none, so no key
/// is sent where the user did not say to send it).
fn endpoint(args: &ModelArgs, config: &ReviewConfig, source: &str, what: &str) -> Result<Endpoint> {
    let configured = || -> Result<Option<Provider>> {
        match config.provider.as_deref().map(str::trim) {
            None | Some("") | Some("auto") => Ok(None),
            Some(name) => Provider::from_name(name).map(Some).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidConfig,
                    format!(
                        "invalid config at auxiliary.background_review.provider in {source}: \
                         {name:?} is not a provider mnemo knows (openai, openrouter, ollama); \
                         set base_url to the provider's OpenAI-compatible URL instead"
                    ),
                )
            }),
        }
    };
    let given = args
        .provider
        .map(|p| Provider::from_name(p.name()).expect("every provider flag is known"));
    let (base, provider) = match (&args.llm, given, &config.base_url) {
        (Some(url), provider, _) => (url.clone(), provider),
        (None, Some(provider), _) => (provider.base_url().to_string(), Some(provider)),
        (None, None, Some(base)) => (base.clone(), configured()?),
        (None, None, None) => match configured()? {
            Some(provider) => (provider.base_url().to_string(), Some(provider)),
            None => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "no model endpoint for {what}: pass --llm URL or --provider \
                         openai|openrouter|ollama, or set auxiliary.background_review.provider \
                         or base_url in {source}"
                    ),
                ))
            }
        },
    };
    let key_var = match &args.api_key_env {
        Some(var) => Some(var.clone()),
        None => provider.and_then(Provider::key_var).map(str::to_string),
    };
    Ok(Endpoint {
        url: completions_url(&base)?,
        key_var,
    })
}

/// The model: `--model`, else the config's unless it is `auto`.
fn model(args: &ModelArgs, config: &ReviewConfig, source: &str, what: &str) -> Result<String> {
    if let Some(model) = args.model.as_deref().map(str::trim) {
        if model.is_empty() {
            return Err(Error::new(ErrorKind::Empty, "--model must not be empty"));
        }
        return Ok(model.to_string());
    }
    let configured = config.model.trim();
    if !configured.is_empty() && configured != "auto" {
        return Ok(configured.to_string());
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        format!(
            "no model for {what}: pass --model NAME, or set auxiliary.background_review.model \
             in {source} (it is `auto`, the main chat model, which mnemo does not know)"
        ),
    ))
}

/// The transcript: JSON Lines of chat messages, a JSON array of them, or
/// an object with a `messages` array; `-` is standard input.
fn read_transcript(file: &str) -> Result<Vec<Value>> {
    let text = file_or_stdin(file)?;
    let text = text.trim_start_matches('\u{feff}').trim();
    let bad = |why: String| Error::new(ErrorKind::InvalidInput, format!("{file}: {why}"));
    if text.is_empty() {
        return Err(Error::new(
            ErrorKind::Empty,
            format!("{file} is empty; the review needs the conversation to read"),
        ));
    }
    if text.starts_with('[') {
        return serde_json::from_str(text).map_err(|e| {
            bad(format!(
                "not a JSON array of chat messages ({e}); expected JSON Lines of {{\"role\", \
                 \"content\"}} or one array of them"
            ))
        });
    }
    let mut messages = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| {
            bad(format!(
                "line {}: not JSON ({e}); expected one chat message per line, like \
                 {{\"role\": \"user\", \"content\": \"…\"}}",
                n + 1
            ))
        })?;
        messages.push(value);
    }
    // A whole request body or a saved conversation: {messages: [...]}.
    if let [Value::Object(obj)] = messages.as_slice() {
        if !obj.contains_key("role") {
            if let Some(Value::Array(inner)) = obj.get("messages") {
                return Ok(inner.clone());
            }
        }
    }
    Ok(messages)
}
