//! mnemo on Fastly Compute: a thin app over the plain core (the Rust SDK
//! targets wasm32-wasip1), with each workspace's memory in the KV store
//! `mnemo` under keys `<workspace>/<blob>`. It answers the same small JSON
//! API as the Cloudflare example:
//!
//! - `POST /w/<workspace>/tool`: the memory tool's arguments → the tool result
//! - `GET  /w/<workspace>/prompt` → `{prompt}`
//! - `POST /w/<workspace>/context`: `{message}` → `{context}`
//! - `POST /w/<workspace>/search`: `{query, target?, limit?}` → hits (the
//!   options follow `mnemo::api::SearchOptions`: limit 1 to 1000, default 10)
//! - `GET  /w/<workspace>/status` → status
//!
//! Every request opens the memory from the KV store (Compute instances do
//! not outlive a request), so the prompt is the frozen snapshot of the
//! stores as they are now.
//!
//! The API is the memory's whole surface, so every request needs
//! `Authorization: Bearer <token>`, the secret `MNEMO_TOKEN` of the secret
//! store `mnemo` (`fastly secret-store-entry create --store-id=… --name
//! MNEMO_TOKEN --stdin`), compared in constant time (of SHA-256 digests, so
//! the length leaks nothing either) before the KV store is opened: a missing
//! or wrong token is 401, and with no secret set the API answers 503 (off).
//! A body over 4 MiB is 413. Nothing is read or written in any of these
//! cases.

use std::io::Read;

use fastly::http::{header, Method, StatusCode};
use fastly::kv_store::{InsertMode, KVStore, KVStoreError};
use fastly::secret_store::SecretStore;
use fastly::{Error, Request, Response};
use mnemo::api::SearchOptions;
use mnemo::storage::{run_ready, Storage};

/// Runs a core call over the (synchronous) KV store.
fn run<T>(future: impl std::future::Future<Output = mnemo::Result<T>>) -> mnemo::Result<T> {
    run_ready(future).and_then(|r| r)
}
use mnemo::{Config, ErrorKind, Memory};
use serde_json::{json, Value};

/// The KV store holding every workspace.
const STORE: &str = "mnemo";

/// The key (under the workspace prefix) of the writers' lock.
const LOCK: &str = "lock";

/// The secret store holding the API's token, and the token's name in it.
const SECRETS: &str = "mnemo";
const TOKEN: &str = "MNEMO_TOKEN";

/// The largest body accepted, in bytes (a full store is far less).
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// One workspace's blobs in the KV store.
struct KvStorage {
    store: KVStore,
    prefix: String,
}

fn kv_error(what: &str, name: &str, e: KVStoreError) -> mnemo::Error {
    mnemo::Error::new(
        ErrorKind::Storage,
        format!("KV store {what}({name}) failed: {e}"),
    )
}

impl Storage for KvStorage {
    fn kind(&self) -> &str {
        "fastly-kv"
    }

    async fn read(&self, name: &str) -> mnemo::Result<Option<Vec<u8>>> {
        match self.store.lookup(&format!("{}{name}", self.prefix)) {
            Ok(mut found) => Ok(Some(found.take_body_bytes())),
            Err(KVStoreError::ItemNotFound) => Ok(None),
            Err(e) => Err(kv_error("lookup", name, e)),
        }
    }

    async fn write(&self, name: &str, data: &[u8]) -> mnemo::Result<()> {
        self.store
            .insert(&format!("{}{name}", self.prefix), data.to_vec())
            .map_err(|e| kv_error("insert", name, e))
    }

    async fn delete(&self, name: &str) -> mnemo::Result<()> {
        match self.store.delete(&format!("{}{name}", self.prefix)) {
            Ok(()) | Err(KVStoreError::ItemNotFound) => Ok(()),
            Err(e) => Err(kv_error("delete", name, e)),
        }
    }

    async fn list(&self) -> mnemo::Result<Vec<String>> {
        let mut names = Vec::new();
        for page in self.store.build_list().prefix(&self.prefix).iter() {
            let page = page.map_err(|e| kv_error("list", &self.prefix, e))?;
            names.extend(
                page.keys()
                    .iter()
                    .filter_map(|k| k.strip_prefix(&self.prefix))
                    .filter(|k| *k != LOCK)
                    .map(str::to_string),
            );
        }
        Ok(names)
    }

    /// Writers exclude each other with a lock key inserted only if absent
    /// (`InsertMode::Add`); its time to live frees it if an instance dies.
    async fn lock(&self) -> mnemo::Result<()> {
        let key = format!("{}{LOCK}", self.prefix);
        let start = std::time::Instant::now();
        loop {
            let taken = self
                .store
                .build_insert()
                .mode(InsertMode::Add)
                .time_to_live(std::time::Duration::from_secs(30))
                .execute(&key, "locked");
            match taken {
                Ok(()) => return Ok(()),
                Err(KVStoreError::ItemPreconditionFailed) if start.elapsed().as_secs() < 10 => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(KVStoreError::ItemPreconditionFailed) => {
                    return Err(mnemo::Error::new(
                        ErrorKind::Locked,
                        "another request held the workspace lock for over 10 s",
                    ))
                }
                Err(e) => return Err(kv_error("lock", &key, e)),
            }
        }
    }

    async fn unlock(&self) -> mnemo::Result<()> {
        self.delete(LOCK).await
    }

    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
}

fn reply(status: StatusCode, value: &Value) -> Response {
    Response::from_status(status)
        .with_content_type(fastly::mime::APPLICATION_JSON)
        .with_body(value.to_string())
}

fn failure(status: StatusCode, error: &mnemo::Error) -> Response {
    reply(
        status,
        &json!({"error": error.message(), "code": error.code()}),
    )
}

/// The deployment's token, or none when no secret is set (the API is
/// then off).
fn token() -> Option<Vec<u8>> {
    let store = SecretStore::open(SECRETS).ok()?;
    let secret = store.try_get(TOKEN).ok()??;
    let bytes = secret.try_plaintext().ok()?.to_vec();
    (!bytes.is_empty()).then_some(bytes)
}

/// Whether the request carries the bearer token `secret`, compared in
/// constant time: the SHA-256 digests of both are compared byte for byte
/// with no early exit, so neither the token nor its length leaks.
fn authorized(req: &Request, secret: &[u8]) -> bool {
    use mnemo::skills::digest;
    // Read as bytes: `get_header_str` would panic on a value that is not
    // UTF-8, which anyone can send.
    let given = req
        .get_header(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| {
            let (scheme, token) = h.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .unwrap_or("");
    let (a, b) = (digest(given), digest(&String::from_utf8_lossy(secret)));
    let diff = a
        .bytes()
        .zip(b.bytes())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
    !given.is_empty() && diff == 0
}

/// The body, at most [`MAX_BODY_BYTES`] of it: none when it is longer.
fn bounded_body(req: &mut Request) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    req.take_body()
        .take(MAX_BODY_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() <= MAX_BODY_BYTES).then_some(bytes)
}

#[fastly::main]
fn main(mut req: Request) -> Result<Response, Error> {
    // The gate comes first: nothing is parsed, opened or read before it.
    let Some(secret) = token() else {
        return Ok(reply(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({"error": format!("the JSON API is off: set the secret {TOKEN} in the secret store {SECRETS:?}"), "code": "unsupported"}),
        ));
    };
    if !authorized(&req, &secret) {
        return Ok(reply(
            StatusCode::UNAUTHORIZED,
            &json!({"error": format!("a bearer token is required: Authorization: Bearer <{TOKEN}>"), "code": "invalid-input"}),
        )
        .with_header(header::WWW_AUTHENTICATE, "Bearer realm=\"mnemo\""));
    }
    let too_long = || {
        reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            &json!({"error": format!("the body is over {MAX_BODY_BYTES} bytes"), "code": "too-long"}),
        )
    };
    if req.get_content_length().is_some_and(|n| n > MAX_BODY_BYTES) {
        return Ok(too_long());
    }
    let path = req.get_path().to_string();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (workspace, op) = match parts.as_slice() {
        // The core's rule for workspace names (no `.`, `..` or hidden name).
        ["w", ws, op] if mnemo::api::check_workspace(ws).is_ok() => {
            (ws.to_string(), op.to_string())
        }
        _ => {
            return Ok(reply(
                StatusCode::NOT_FOUND,
                &json!({"error": "expected /w/<workspace>/<operation>", "code": "invalid-input"}),
            ))
        }
    };
    let body: Value = if req.get_method() == Method::POST {
        let Some(bytes) = bounded_body(&mut req) else {
            return Ok(too_long());
        };
        match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(_) => {
                return Ok(reply(
                    StatusCode::BAD_REQUEST,
                    &json!({"error": "the body is not JSON", "code": "invalid-input"}),
                ))
            }
        }
    } else {
        Value::Null
    };
    let store = match KVStore::open(STORE) {
        Ok(Some(store)) => store,
        _ => {
            let e = mnemo::Error::new(ErrorKind::Storage, format!("no KV store named {STORE:?}"));
            return Ok(failure(StatusCode::INTERNAL_SERVER_ERROR, &e));
        }
    };
    let storage = KvStorage {
        store,
        prefix: format!("{workspace}/"),
    };
    let mut memory = match run(Memory::open(storage, Config::default())) {
        Ok(m) => m,
        Err(e) => return Ok(failure(StatusCode::INTERNAL_SERVER_ERROR, &e)),
    };
    let text = |key: &str| {
        body.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let value = match (req.get_method().as_str(), op.as_str()) {
        ("POST", "tool") => match run_ready(memory.tool(&body)) {
            Ok(result) => json!(result),
            Err(e) => return Ok(failure(StatusCode::INTERNAL_SERVER_ERROR, &e)),
        },
        ("GET", "prompt") => json!({"prompt": memory.system_prompt()}),
        ("POST", "context") => json!({"context": memory.context(&text("message"))}),
        ("POST", "search") => {
            // `{query, target?, limit?}`: the options follow the core's rules.
            let mut options = body.clone();
            if let Some(map) = options.as_object_mut() {
                map.remove("query");
            }
            match SearchOptions::from_json(&options) {
                Ok(options) => json!(memory.search(&text("query"), &options)),
                Err(e) => return Ok(failure(StatusCode::BAD_REQUEST, &e)),
            }
        }
        ("GET", "status") => json!(memory.status()),
        (method, op) => {
            return Ok(reply(
                StatusCode::NOT_FOUND,
                &json!({"error": format!("no route {method} {op}"), "code": "invalid-input"}),
            ))
        }
    };
    Ok(reply(StatusCode::OK, &value))
}
