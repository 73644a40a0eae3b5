//! The model `mnemo review` lends the core: an OpenAI-compatible
//! chat-completions endpoint over HTTP or HTTPS (what hosted APIs such as
//! OpenAI and OpenRouter and local servers such as Ollama and llama.cpp's
//! server expose).
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
    if lower.ends_with("/chat/completions") {
        Ok(base.to_string())
    } else {
        Ok(format!("{base}/chat/completions"))
    }
}

/// Bytes of an answer read at most (a chat completion is far smaller).
const MAX_ANSWER: u64 = 16 * 1024 * 1024;

/// Seconds allowed to connect, at most.
const CONNECT_TIMEOUT: u64 = 10;

/// An OpenAI-compatible chat-completions endpoint and the model to ask.
pub struct ChatCompletions {
    agent: ureq::Agent,
    url: String,
    model: String,
    key: Option<String>,
    timeout: u64,
}

impl ChatCompletions {
    /// The endpoint at `url` (see [`completions_url`]), asking `model`,
    /// with `key` sent as a bearer token; one call may take `timeout`
    /// seconds in all, connecting at most 10 of them.
    pub fn new(url: String, model: String, key: Option<String>, timeout: u64) -> ChatCompletions {
        let timeout = timeout.max(1);
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(CONNECT_TIMEOUT.min(timeout))))
            .timeout_global(Some(Duration::from_secs(timeout)))
            .http_status_as_error(false)
            .user_agent(concat!("mnemo/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        ChatCompletions {
            agent,
            url,
            model,
            key,
            timeout,
        }
    }

    /// POSTs `{model, messages, tools, tool_choice: "auto"}` and returns
    /// the chat completion; any failure is an error whose message says
    /// what the endpoint said.
    fn post(&self, request: &Request) -> Result<Value> {
        let failed = |why: String| Error::new(ErrorKind::Storage, why);
        let body = json!({
            "model": self.model,
            "messages": request.messages,
            "tools": request.tools,
            "tool_choice": "auto",
        });
        let body = serde_json::to_vec(&body)
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
                "no answer from {} within {} s (--timeout)",
                self.url, self.timeout
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
        let Some(mut value) = value else {
            return Err(failed(format!(
                "{} answered with something that is not JSON: {}",
                self.url,
                crate::render::one_line(&text, 200)
            )));
        };
        // Some gateways answer an upstream failure with 200 and an error.
        if value.get("error").is_some_and(|e| !e.is_null()) && value.get("choices").is_none() {
            return Err(failed(format!(
                "{} answered with an error: {}",
                self.url,
                error_message(Some(&value), &text)
            )));
        }
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
