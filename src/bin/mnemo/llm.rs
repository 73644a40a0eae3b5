//! The models the CLI lends the core, over an OpenAI-compatible API on
//! HTTP or HTTPS (what hosted APIs such as OpenAI and OpenRouter and local
//! servers such as Ollama and llama.cpp's server expose): the
//! chat-completions endpoint `mnemo review` runs on ([`ChatCompletions`]),
//! and the HTTP client ([`Http`]) it shares with the embeddings endpoint of
//! hybrid recall ([`crate::embed`]).
//!
//! The core makes no network call (DESIGN, "Host callbacks"): it hands
//! [`ChatCompletions`] a [`Request`] and reads the answer strictly. This
//! module only carries the request there and the answer back; it never
//! decides what is saved. The API key is read from the environment by the
//! caller and only ever sent as the `Authorization` header to the endpoint
//! it was given for.

use std::time::Duration;

use mnemo::host::{Answer, Llm};
use mnemo::review::Request;
use mnemo::{Error, ErrorKind, Result};
use serde_json::{json, Value};

/// A provider with a known OpenAI-compatible base URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI's API.
    OpenAi,
    /// OpenRouter, many vendors' models behind one API.
    OpenRouter,
    /// A local Ollama server.
    Ollama,
}

impl Provider {
    /// The provider a name (as in the config) names.
    pub fn from_name(name: &str) -> Option<Provider> {
        match name.trim().to_ascii_lowercase().as_str() {
            "openai" => Some(Provider::OpenAi),
            "openrouter" => Some(Provider::OpenRouter),
            "ollama" => Some(Provider::Ollama),
            _ => None,
        }
    }

    /// Its base URL (the chat-completions path goes after it).
    pub fn base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::OpenRouter => "https://openrouter.ai/api/v1",
            Provider::Ollama => "http://localhost:11434/v1",
        }
    }

    /// The environment variable its API key is read from by default; a
    /// local Ollama needs none.
    pub fn key_var(self) -> Option<&'static str> {
        match self {
            Provider::OpenAi => Some("OPENAI_API_KEY"),
            Provider::OpenRouter => Some("OPENROUTER_API_KEY"),
            Provider::Ollama => None,
        }
    }
}

/// The chat-completions URL of a base URL: `{base}/chat/completions`, or
/// the URL itself when it already ends so. Only `http` and `https`.
pub fn completions_url(base: &str) -> Result<String> {
    endpoint_url(base, "/chat/completions")
}

/// The URL of `path` (like `/embeddings`) under the base URL of an
/// OpenAI-compatible API, or the URL itself when it already ends so. Only
/// `http` and `https`.
pub fn endpoint_url(base: &str, path: &str) -> Result<String> {
    let base = base.trim().trim_end_matches('/');
    let lower = base.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{base:?} is not an http:// or https:// URL; expected the base URL of an \
                 OpenAI-compatible API, like https://api.openai.com/v1"
            ),
        ));
    }
    if lower.ends_with(path) {
        Ok(base.to_string())
    } else {
        Ok(format!("{base}{path}"))
    }
}

/// Whether `url` is plain HTTP to another machine (where an API key would
/// cross the network readable).
pub fn insecure(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => rest.split(['/', ':']).next().unwrap_or(""),
    };
    !(host == "localhost" || host == "::1" || host.starts_with("127."))
}

/// The API key in the environment variable `var`; an error saying so when
/// it is named but unset (the endpoint would refuse the call anyway).
/// `flag` names the option that named the variable, when one did.
pub fn api_key(var: Option<&str>, flag: Option<&str>) -> Result<Option<String>> {
    let Some(var) = var else {
        return Ok(None);
    };
    match std::env::var(var) {
        Ok(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_string())),
        _ => Err(Error::new(
            ErrorKind::InvalidInput,
            match flag {
                Some(flag) => format!("the API key is read from ${var} ({flag}), which is not set"),
                None => format!(
                    "the API key is read from ${var}, which is not set; export it, or name \
                     another variable with --api-key-env VAR"
                ),
            },
        )),
    }
}

/// Bytes of an answer read at most (a chat completion or a batch of
/// embeddings is far smaller).
const MAX_ANSWER: u64 = 16 * 1024 * 1024;

/// Seconds allowed to connect, at most.
const CONNECT_TIMEOUT: u64 = 10;

/// One endpoint of an OpenAI-compatible API, called with JSON: the HTTP
/// client that chat completions and embeddings share.
pub struct Http {
    agent: ureq::Agent,
    url: String,
    key: Option<String>,
    timeout: u64,
    timeout_from: &'static str,
}

impl Http {
    /// The endpoint at `url`, with `key` sent as a bearer token; one call
    /// may take `timeout` seconds in all (set by `timeout_from`, named in
    /// the error), connecting at most 10 of them.
    pub fn new(url: String, key: Option<String>, timeout: u64, timeout_from: &'static str) -> Http {
        let timeout = timeout.max(1);
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(CONNECT_TIMEOUT.min(timeout))))
            .timeout_global(Some(Duration::from_secs(timeout)))
            .http_status_as_error(false)
            .user_agent(concat!("mnemo/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Http {
            agent,
            url,
            key,
            timeout,
            timeout_from,
        }
    }

    /// The endpoint's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// POSTs `body` and returns the JSON answer; any failure is an error
    /// whose message says what the endpoint said. A success holds the
    /// field `expect` (`choices`, `data`): an answer with an `error` and
    /// without it is a failure, as some gateways answer an upstream
    /// failure with 200.
    pub fn post(&self, body: &Value, expect: &str) -> Result<Value> {
        let failed = |why: String| Error::new(ErrorKind::Storage, why);
        let body = serde_json::to_vec(body)
            .map_err(|e| failed(format!("cannot encode the request: {e}")))?;
        let mut call = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.key {
            call = call.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = call.send(&body[..]).map_err(|e| match e {
            ureq::Error::Timeout(_) => failed(format!(
                "no answer from {} within {} s ({})",
                self.url, self.timeout, self.timeout_from
            )),
            e => failed(format!("cannot reach {}: {e}", self.url)),
        })?;
        let status = response.status();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .map_err(|e| failed(format!("cannot read the answer of {}: {e}", self.url)))?;
        let value: Option<Value> = serde_json::from_str(&text).ok();
        if !status.is_success() {
            return Err(failed(format!(
                "HTTP {} from {}: {}",
                status.as_u16(),
                self.url,
                error_message(value.as_ref(), &text)
            )));
        }
        let Some(value) = value else {
            return Err(failed(format!(
                "{} answered with something that is not JSON: {}",
                self.url,
                crate::render::one_line(&text, 200)
            )));
        };
        if value.get("error").is_some_and(|e| !e.is_null()) && value.get(expect).is_none() {
            return Err(failed(format!(
                "{} answered with an error: {}",
                self.url,
                error_message(Some(&value), &text)
            )));
        }
        Ok(value)
    }
}

/// An OpenAI-compatible chat-completions endpoint and the model to ask.
pub struct ChatCompletions {
    http: Http,
    model: String,
}

impl ChatCompletions {
    /// The endpoint at `url` (see [`completions_url`]), asking `model`,
    /// with `key` sent as a bearer token; one call may take `timeout`
    /// seconds in all, connecting at most 10 of them.
    pub fn new(url: String, model: String, key: Option<String>, timeout: u64) -> ChatCompletions {
        ChatCompletions {
            http: Http::new(url, key, timeout, "--timeout"),
            model,
        }
    }

    /// POSTs `{model, messages, tools, tool_choice: "auto"}` and returns
    /// the chat completion; any failure is an error whose message says
    /// what the endpoint said.
    fn post(&self, request: &Request) -> Result<Value> {
        let body = json!({
            "model": self.model,
            "messages": request.messages,
            "tools": request.tools,
            "tool_choice": "auto",
        });
        let mut value = self.http.post(&body, "choices")?;
        // OpenRouter reports the cost as `usage.cost`, in US dollars.
        if let Some(usage) = value.get_mut("usage").and_then(Value::as_object_mut) {
            if let (None, Some(cost)) = (
                usage.get("cost_usd"),
                usage.get("cost").and_then(Value::as_f64),
            ) {
                usage.insert("cost_usd".into(), json!(cost));
            }
        }
        Ok(value)
    }
}

/// What an error answer says: `error.message`, `error`, `message` or
/// `detail` of its JSON, else its text, on one line.
fn error_message(value: Option<&Value>, text: &str) -> String {
    let said = value.and_then(|v| {
        let error = v.get("error");
        error
            .and_then(|e| e.get("message"))
            .or(error)
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))
            .and_then(Value::as_str)
    });
    match said {
        Some(message) => crate::render::one_line(message, 400),
        None if text.trim().is_empty() => "(no body)".to_string(),
        None => crate::render::one_line(text, 400),
    }
}

impl Llm for ChatCompletions {
    fn complete<'a>(&'a self, request: &'a Request) -> Answer<'a, Value> {
        // ureq blocks; the core's future is ready at its first poll.
        let answer = self.post(request);
        Box::pin(async move { answer })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_the_completions_path_once() {
        assert_eq!(
            completions_url("http://localhost:11434/v1/").unwrap(),
            "http://localhost:11434/v1/chat/completions"
        );
        assert_eq!(
            completions_url("https://x.example/v1/chat/completions").unwrap(),
            "https://x.example/v1/chat/completions"
        );
        assert!(completions_url("ftp://x").is_err());
        assert!(completions_url("localhost:8080").is_err());
        assert_eq!(
            endpoint_url("http://127.0.0.1:9/v1", "/embeddings").unwrap(),
            "http://127.0.0.1:9/v1/embeddings"
        );
    }

    #[test]
    fn plain_http_is_flagged_only_off_this_machine() {
        assert!(insecure("http://10.0.0.5:8080/v1/chat/completions"));
        assert!(!insecure("http://localhost:11434/v1/chat/completions"));
        assert!(!insecure("http://127.0.0.1:9/v1/chat/completions"));
        assert!(!insecure("http://[::1]:9/v1"));
        assert!(insecure("http://[fe80::1]:9/v1"));
        assert!(!insecure("https://api.openai.com/v1/chat/completions"));
    }

    #[test]
    fn providers_name_their_url_and_key() {
        assert_eq!(
            Provider::from_name("OpenRouter").unwrap().base_url(),
            "https://openrouter.ai/api/v1"
        );
        assert_eq!(Provider::Ollama.key_var(), None);
        assert_eq!(Provider::OpenAi.key_var(), Some("OPENAI_API_KEY"));
        assert_eq!(Provider::from_name("anthropic"), None);
    }

    #[test]
    fn error_bodies_are_read_in_their_usual_shapes() {
        let v = json!({"error": {"message": "Invalid API key", "type": "auth"}});
        assert_eq!(error_message(Some(&v), ""), "Invalid API key");
        let v = json!({"error": "model not found"});
        assert_eq!(error_message(Some(&v), ""), "model not found");
        assert_eq!(error_message(None, "Bad\nGateway"), "Bad Gateway");
        assert_eq!(error_message(None, " "), "(no body)");
    }
}
