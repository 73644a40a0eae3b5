//! The npm package's API: the `Memory` class and its helpers.
//!
//! Each method converts its arguments (see [`interop`]), calls the core
//! [`Memory`](crate::Memory) and converts the result. Every instance method
//! returns a Promise and takes `&self`: calls queue on an async mutex
//! instead of failing, and a call after `close()` rejects with `closed`.

mod browser;
mod interop;
mod storage;

use std::rc::Rc;

use futures_util::lock::Mutex;
use js_sys::{Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::memory::{Files, Memory};
use crate::storage::Storage;
use crate::store::Target;
use browser::BrowserDb;
use interop::{from_serde, to_js_error, to_json, to_string};
use storage::JsStorage;

#[wasm_bindgen(typescript_custom_section)]
const _: &str = include_str!("types.d.ts");

#[wasm_bindgen(module = "/js/fs-storage.js")]
extern "C" {
    #[wasm_bindgen(js_name = nodeFsStorage, catch)]
    fn node_fs_storage(dir: &str) -> Result<JsValue, JsValue>;
}

type Shared = Rc<Mutex<Option<Memory<JsStorage>>>>;

/// An open agent memory (see the README for the whole API).
#[wasm_bindgen(js_name = Memory)]
pub struct JsMemory {
    inner: Shared,
    /// Keeps the listener for other tabs' changes alive.
    _listener: Option<Closure<dyn FnMut(JsValue)>>,
}

const OPTION_KEYS: [&str; 4] = ["storage", "name", "dir", "config"];

/// Name of the memory when `name` is not given.
const DEFAULT_NAME: &str = "default";

async fn open_storage(opts: &JsValue) -> Result<(JsStorage, Config), Error> {
    if opts.is_undefined() || opts.is_null() {
        return Ok((
            JsStorage::Db(BrowserDb::open(DEFAULT_NAME, "memory").await?),
            Config::default(),
        ));
    }
    if !opts.is_object() {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "Memory.open expects an options object like {storage: \"memory\", config: {...}}",
        ));
    }
    let keys: Vec<String> = Object::keys(opts.unchecked_ref::<Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    let unknown: Vec<&String> = keys
        .iter()
        .filter(|k| !OPTION_KEYS.contains(&k.as_str()))
        .collect();
    if !unknown.is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            format!(
                "unknown option(s) {}; expected only: {}",
                unknown
                    .iter()
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                OPTION_KEYS.join(", ")
            ),
        ));
    }
    let get = |key: &str| Reflect::get(opts, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let config = match get("config") {
        v if v.is_undefined() || v.is_null() => Config::default(),
        v => Config::from_json(
            &to_json(&v).map_err(|e| Error::new(ErrorKind::InvalidConfig, e.message()))?,
        )?,
    };
    let storage = get("storage");
    let dir = get("dir");
    let name = match get("name") {
        v if v.is_undefined() || v.is_null() => DEFAULT_NAME.to_string(),
        v => to_string(&v, "name")?,
    };
    let storage = if storage.is_undefined() || storage.is_null() {
        JsStorage::Db(BrowserDb::open(&name, "memory").await?)
    } else if let Some(kind) = storage.as_string() {
        match kind.as_str() {
            "memory" | "opfs" | "indexeddb" => JsStorage::Db(BrowserDb::open(&name, &kind).await?),
            "auto" => {
                let chosen = browser::auto_backend();
                match BrowserDb::open(&name, chosen).await {
                    Ok(db) if chosen != "memory" => JsStorage::Db(db),
                    outcome => {
                        let why = match &outcome {
                            Err(e) => format!("{chosen} failed: {}", e.message()),
                            Ok(_) => "neither OPFS nor IndexedDB is available here".to_string(),
                        };
                        web_warn(&format!(
                            "mnemo: storage \"auto\" fell back to \"memory\" ({why}); \
                             notes will not survive a reload"
                        ));
                        JsStorage::Db(BrowserDb::open(&name, "memory").await?)
                    }
                }
            }
            "fs" => {
                let dir = to_string(&dir, "dir").map_err(|_| {
                    Error::new(
                        ErrorKind::InvalidConfig,
                        "storage \"fs\" needs dir: the memories directory (the CLI's --dir)",
                    )
                })?;
                let adapter = node_fs_storage(&dir)
                    .map_err(|e| Error::new(ErrorKind::InvalidConfig, interop::message_of(&e)))?;
                JsStorage::host(adapter, "fs")?
            }
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidConfig,
                    format!(
                        "unknown storage {other:?}; expected \"memory\", \"opfs\", \
                         \"indexeddb\", \"auto\", \"fs\" or an adapter object with async read, \
                         write, list and delete"
                    ),
                ))
            }
        }
    } else if storage.is_object() {
        JsStorage::host(storage, "host")?
    } else {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "storage must be \"memory\", \"opfs\", \"indexeddb\", \"auto\", \"fs\" or an adapter object",
        ));
    };
    if !dir.is_undefined() && storage.kind() != "fs" {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "dir is only used with storage \"fs\"",
        ));
    }
    if matches!(storage, JsStorage::Host { .. }) && !get("name").is_undefined() {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "name is only used with storage \"memory\", \"opfs\", \"indexeddb\" or \"auto\"",
        ));
    }
    Ok((storage, config))
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn web_warn(message: &str);
}

/// Runs `f` on the open memory, queued behind earlier calls; rejects with
/// `closed` after `close()`.
fn with_open<F>(inner: &Shared, f: F) -> Promise
where
    F: AsyncFnOnce(&mut Memory<JsStorage>) -> Result<JsValue, JsValue> + 'static,
{
    let inner = inner.clone();
    future_to_promise(async move {
        let mut guard = inner.lock().await;
        let memory = guard.as_mut().ok_or_else(closed)?;
        f(memory).await
    })
}

/// A core error as the value a promise rejects with.
fn throw(e: Error) -> JsValue {
    to_js_error(&e)
}

fn closed() -> JsValue {
    to_js_error(&Error::new(
        ErrorKind::Closed,
        "this memory was closed; open it again with Memory.open",
    ))
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// Opens a memory. See `MemoryOptions` in the TypeScript types.
    #[wasm_bindgen(unchecked_return_type = "Promise<Memory>")]
    pub fn open(#[wasm_bindgen(unchecked_param_type = "MemoryOptions")] opts: JsValue) -> Promise {
        future_to_promise(async move {
            let (storage, config) = open_storage(&opts).await.map_err(throw)?;
            let memory = Memory::open(storage, config).await.map_err(throw)?;
            let inner: Shared = Rc::new(Mutex::new(Some(memory)));
            let listener = listen(&inner).await;
            Ok(JsMemory {
                inner,
                _listener: listener,
            }
            .into())
        })
    }

    /// Names of the memories kept on this origin (OPFS and IndexedDB).
    #[wasm_bindgen(unchecked_return_type = "Promise<string[]>")]
    pub fn list() -> Promise {
        future_to_promise(async move {
            let names = BrowserDb::list_all().await.map_err(throw)?;
            Ok(names
                .into_iter()
                .map(JsValue::from)
                .collect::<js_sys::Array>()
                .into())
        })
    }

    /// Recovers memory `name` from a damaged database (`{storage: "opfs" |
    /// "indexeddb"}`): keeps the damaged file aside and starts a fresh
    /// database with the stores and history that still read back; resolves
    /// to `{name, salvaged, kept}`.
    #[wasm_bindgen(
        unchecked_return_type = "Promise<{name: string, salvaged: string[], kept: string}>"
    )]
    pub fn recover(
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{storage: \"opfs\" | \"indexeddb\"}")]
        options: JsValue,
    ) -> Promise {
        future_to_promise(async move {
            let name = to_string(&name, "name").map_err(throw)?;
            let storage = Reflect::get(&options, &"storage".into())
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_default();
            let recovered = BrowserDb::recover(&name, &storage).await.map_err(throw)?;
            from_serde(&recovered)
        })
    }

    /// Removes every byte of memory `name` from this origin; resolves to
    /// `{name, removed: ["opfs" | "indexeddb", ...]}`. Open instances of it
    /// in other tabs are closed.
    #[wasm_bindgen(unchecked_return_type = "Promise<{name: string, removed: string[]}>")]
    pub fn delete(#[wasm_bindgen(unchecked_param_type = "string")] name: JsValue) -> Promise {
        future_to_promise(async move {
            let name = to_string(&name, "name").map_err(throw)?;
            let removed = BrowserDb::remove_all(&name).await.map_err(throw)?;
            from_serde(&serde_json::json!({"name": name, "removed": removed}))
        })
    }

    /// The memory tool's definition `{name, description, parameters}`.
    #[wasm_bindgen(js_name = toolSchema, unchecked_return_type = "ToolSchema")]
    pub fn tool_schema() -> Result<JsValue, JsValue> {
        from_serde(&crate::tool::tool_schema())
    }

    /// Runs a memory tool call exactly as the LLM emitted it.
    #[wasm_bindgen(unchecked_return_type = "Promise<ToolResult>")]
    pub fn tool(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ToolArgs | unknown")] args: JsValue,
    ) -> Promise {
        let decoded = to_json(&args);
        with_open(&self.inner, async move |memory| {
            let result = match decoded {
                Ok(args) => memory.tool(&args).await,
                Err(e) => memory.reject(e),
            };
            from_serde(&result)
        })
    }

    /// The frozen memory block for the system prompt.
    #[wasm_bindgen(js_name = systemPrompt, unchecked_return_type = "Promise<string>")]
    pub fn system_prompt(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            Ok(memory.system_prompt().into())
        })
    }

    /// Re-reads the stores and freezes a new system prompt.
    #[wasm_bindgen(js_name = startSession, unchecked_return_type = "Promise<string>")]
    pub fn start_session(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            let prompt = memory.start_session().await.map_err(throw)?;
            Ok(prompt.into())
        })
    }

    /// Sizes, limits and modes of both stores.
    #[wasm_bindgen(unchecked_return_type = "Promise<Status>")]
    pub fn status(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            memory.refresh().await.map_err(throw)?;
            from_serde(&memory.status())
        })
    }

    /// Both stores as Markdown: `{"MEMORY.md": string, "USER.md": string}`.
    #[wasm_bindgen(js_name = exportMarkdown, unchecked_return_type = "Promise<MarkdownFiles>")]
    pub fn export_markdown(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            memory.refresh().await.map_err(throw)?;
            from_serde(&memory.export_markdown())
        })
    }

    /// Replaces the named stores, all or nothing.
    #[wasm_bindgen(js_name = importMarkdown, unchecked_return_type = "Promise<Status>")]
    pub fn import_markdown(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Partial<MarkdownFiles>")] files: JsValue,
    ) -> Promise {
        let decoded = decode_files(&files);
        with_open(&self.inner, async move |memory| {
            let files = decoded.map_err(throw)?;
            memory.import_markdown(&files).await.map_err(throw)?;
            from_serde(&memory.status())
        })
    }

    /// The best notes for `query`, best first: `[{target, index, text,
    /// score}]`. Options: `{target?: "memory" | "user", limit?: number}`
    /// (default 10).
    #[wasm_bindgen(unchecked_return_type = "Promise<SearchHit[]>")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SearchOptions | undefined")] options: JsValue,
    ) -> Promise {
        let decoded = to_string(&query, "query").and_then(|q| Ok((q, search_options(&options)?)));
        with_open(&self.inner, async move |memory| {
            let (query, (target, limit)) = decoded.map_err(throw)?;
            from_serde(&memory.search(&query, target, limit))
        })
    }

    /// The per-turn `<memory-context>` block for the user's message, or
    /// `""`. Call it once per user turn and append the block to the
    /// message; it also ends the turn for the retry cap.
    #[wasm_bindgen(unchecked_return_type = "Promise<string>")]
    pub fn context(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] message: JsValue,
    ) -> Promise {
        let decoded = to_string(&message, "message");
        with_open(&self.inner, async move |memory| {
            let message = decoded.map_err(throw)?;
            Ok(memory.context(&message).into())
        })
    }

    /// The sectors report: `{sectors: [{name, count, links, entries, more}],
    /// summary}`. Options: `{sector?: string, limit?: number}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<SectorsReport>")]
    pub fn sectors(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SectorsOptions | undefined")] options: JsValue,
    ) -> Promise {
        let decoded = sectors_options(&options);
        with_open(&self.inner, async move |memory| {
            let options = decoded.map_err(throw)?;
            from_serde(&memory.sectors(&options))
        })
    }

    /// The learning journey: `{nodes: [{id, entry_id, target, index, title,
    /// sector, first_seen, last_changed, out, in, dangling, pinned,
    /// blocked}], links}`, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Journey>")]
    pub fn journey(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            memory.refresh().await.map_err(throw)?;
            from_serde(&memory.journey())
        })
    }

    /// Every entry text a replace, remove or import superseded, newest
    /// first: `[{time, target, entry_id, text, cause, confirmed?}]`.
    #[wasm_bindgen(unchecked_return_type = "Promise<HistoryItem[]>")]
    pub fn history(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            from_serde(&memory.history().await.map_err(throw)?)
        })
    }

    /// Adds a fact the user confirmed (default target `user`); answers like
    /// the memory tool.
    #[wasm_bindgen(unchecked_return_type = "Promise<ToolResult>")]
    pub fn remember(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] fact: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{target?: Target} | undefined")] options: JsValue,
    ) -> Promise {
        let decoded = to_string(&fact, "fact").and_then(|f| {
            let (target, _) = search_options(&options)?;
            Ok((f, target.unwrap_or(Target::User)))
        });
        with_open(&self.inner, async move |memory| {
            let result = match decoded {
                Ok((fact, target)) => memory.remember(target, &fact).await,
                Err(e) => memory.reject(e),
            };
            from_serde(&result)
        })
    }

    /// Records a completed turn: `{session, user, assistant, time?,
    /// source?}` → `{session, user, assistant}` (the two messages'
    /// sequence numbers). Also ends the turn for the retry cap.
    #[wasm_bindgen(js_name = recordTurn, unchecked_return_type = "Promise<RecordedTurn>")]
    pub fn record_turn(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TurnRecord")] turn: JsValue,
    ) -> Promise {
        let decoded = decode_turn(&turn);
        with_open(&self.inner, async move |memory| {
            let turn = decoded.map_err(throw)?;
            let db = memory.storage().db();
            let (user, assistant) = db
                .sessions(true, |s| {
                    s.record_turn(
                        &turn.session,
                        &turn.source,
                        &turn.user,
                        &turn.assistant,
                        turn.time,
                    )
                })
                .await
                .map_err(throw)?;
            memory.end_turn();
            from_serde(&serde_json::json!({
                "session": turn.session, "user": user, "assistant": assistant
            }))
        })
    }

    /// Finds past messages: `[{session, seq, role, time, snippet, score}]`,
    /// best first. Options: `{session?, role?, source?, since?, until?,
    /// limit?}`.
    #[wasm_bindgen(js_name = sessionSearch, unchecked_return_type = "Promise<SessionHit[]>")]
    pub fn session_search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SessionSearchOptions | undefined")] options: JsValue,
    ) -> Promise {
        let args = to_string(&query, "query").and_then(|q| {
            let mut args = session_args(
                &options,
                &["session", "role", "source", "since", "until", "limit"],
            )?;
            args.insert("query".into(), Value::String(q));
            Ok(args)
        });
        self.session_call(args, |answer| answer.hits)
    }

    /// Reads a session's messages, whole: `{around?, before?, after?}`
    /// (default: the first 20) → `[{session, seq, role, text, time}]`.
    #[wasm_bindgen(js_name = sessionMessages, unchecked_return_type = "Promise<SessionMessage[]>")]
    pub fn session_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{around?: number, before?: number, after?: number} | undefined"
        )]
        options: JsValue,
    ) -> Promise {
        let args = to_string(&session, "session").and_then(|id| {
            let mut args = session_args(&options, &["around", "before", "after"])?;
            args.insert("session_id".into(), Value::String(id));
            Ok(args)
        });
        self.session_call(args, |answer| answer.messages)
    }

    /// Recent sessions, newest first: `{offset?, limit?}` →
    /// `[{id, title, source, started, ended, messages}]`.
    #[wasm_bindgen(unchecked_return_type = "Promise<SessionInfo[]>")]
    pub fn sessions(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{offset?: number, limit?: number} | undefined")]
        options: JsValue,
    ) -> Promise {
        self.session_call(session_args(&options, &["offset", "limit"]), |answer| {
            answer.sessions
        })
    }

    /// Runs a `session_search` tool call exactly as a model sent it; never
    /// rejects because of what the model sent.
    #[wasm_bindgen(js_name = sessionTool, unchecked_return_type = "Promise<SessionToolResult>")]
    pub fn session_tool(&self, args: JsValue) -> Promise {
        let decoded = to_json(&args);
        with_open(&self.inner, async move |memory| {
            let db = memory.storage().db();
            let answer = match decoded {
                Ok(args) => db
                    .sessions(false, |s| Ok(s.tool(&args)))
                    .await
                    .map_err(throw)?,
                Err(e) => crate::sessions::ToolAnswer::failed(e),
            };
            from_serde(&answer)
        })
    }

    /// The `session_search` tool's definition `{name, description,
    /// parameters}`.
    #[wasm_bindgen(js_name = sessionToolSchema, unchecked_return_type = "{name: \"session_search\", description: string, parameters: Record<string, unknown>}")]
    pub fn session_tool_schema() -> Result<JsValue, JsValue> {
        from_serde(&crate::sessions::tool_schema())
    }

    /// Deletes a session and its messages; whether it existed.
    #[wasm_bindgen(js_name = deleteSession, unchecked_return_type = "Promise<boolean>")]
    pub fn delete_session(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Promise {
        let id = to_string(&id, "id");
        with_open(&self.inner, async move |memory| {
            let id = id.map_err(throw)?;
            let db = memory.storage().db();
            let existed = db
                .sessions(true, |s| s.delete_session(&id))
                .await
                .map_err(throw)?;
            Ok(existed.into())
        })
    }

    /// Deletes every session and message; how many sessions there were.
    #[wasm_bindgen(js_name = purgeSessions, unchecked_return_type = "Promise<number>")]
    pub fn purge_sessions(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            let db = memory.storage().db();
            let n = db.sessions(true, |s| s.purge()).await.map_err(throw)?;
            Ok((n as f64).into())
        })
    }

    /// Closes the memory; later calls reject with `closed`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            if let Some(memory) = inner.lock().await.take() {
                memory.storage().db().close();
            }
            Ok(JsValue::UNDEFINED)
        })
    }
}

impl JsMemory {
    /// Runs a session call given as tool arguments; the part of the answer
    /// `pick` takes is the result.
    fn session_call<T: serde::Serialize + 'static>(
        &self,
        args: Result<serde_json::Map<String, Value>, Error>,
        pick: fn(crate::sessions::ToolAnswer) -> Option<T>,
    ) -> Promise {
        with_open(&self.inner, async move |memory| {
            let args = Value::Object(args.map_err(throw)?);
            let db = memory.storage().db();
            let answer = db.sessions(false, |s| s.call(&args)).await.map_err(throw)?;
            from_serde(&pick(answer))
        })
    }
}

/// Listens for other tabs' and workers' changes to this memory: a change
/// refreshes the live state (the frozen prompt waits for startSession), a
/// deletion closes it.
async fn listen(inner: &Shared) -> Option<Closure<dyn FnMut(JsValue)>> {
    let weak = Rc::downgrade(inner);
    let listener = Closure::<dyn FnMut(JsValue)>::new(move |message: JsValue| {
        let Some(inner) = weak.upgrade() else { return };
        let deleted = message.as_string().as_deref() == Some("deleted");
        wasm_bindgen_futures::spawn_local(async move {
            let mut guard = inner.lock().await;
            if deleted {
                guard.take();
            } else if let Some(memory) = guard.as_mut() {
                // A failure here resurfaces on the next call.
                let _ = memory.refresh().await;
            }
        });
    });
    let guard = inner.lock().await;
    let db = guard.as_ref()?.storage().db();
    if !db.shared() {
        return None;
    }
    db.subscribe(
        listener
            .as_ref()
            .unchecked_ref::<js_sys::Function>()
            .clone(),
    );
    Some(listener)
}

struct Turn {
    session: String,
    user: String,
    assistant: String,
    source: String,
    time: i64,
}

fn decode_turn(turn: &JsValue) -> Result<Turn, Error> {
    let Value::Object(map) = to_json(turn)? else {
        return Err(Error::input(
            "recordTurn expects {session, user, assistant, time?, source?}",
        ));
    };
    let mut out = Turn {
        session: String::new(),
        user: String::new(),
        assistant: String::new(),
        source: "js".into(),
        time: js_sys::Date::now() as i64,
    };
    for (key, v) in map {
        match (key.as_str(), v) {
            (_, Value::Null) => {}
            ("session", Value::String(s)) => out.session = s,
            ("user", Value::String(s)) => out.user = s,
            ("assistant", Value::String(s)) => out.assistant = s,
            ("source", Value::String(s)) => out.source = s,
            ("time", Value::Number(n)) if n.as_i64().is_some_and(|t| t >= 0) => {
                out.time = n.as_i64().unwrap_or(0)
            }
            ("session" | "user" | "assistant" | "source", _) => {
                return Err(Error::input(format!("recordTurn: {key} must be a string")))
            }
            ("time", _) => {
                return Err(Error::input(
                    "recordTurn: time must be ms since the Unix epoch (a non-negative integer)",
                ))
            }
            (other, _) => {
                return Err(Error::input(format!(
                    "recordTurn: unknown field {other:?}; expected session, user, assistant, time, source"
                )))
            }
        }
    }
    Ok(out)
}

/// Options of a session call as `session_search` tool arguments (the JS
/// `session` option is the tool's `session_id`).
fn session_args(
    options: &JsValue,
    allowed: &[&str],
) -> Result<serde_json::Map<String, Value>, Error> {
    let map = match to_json(options)? {
        Value::Null => return Ok(Default::default()),
        Value::Object(map) => map,
        _ => return Err(Error::input("options must be an object")),
    };
    let mut out = serde_json::Map::new();
    for (key, v) in map {
        if !allowed.contains(&key.as_str()) {
            return Err(Error::input(format!(
                "unknown option {key:?}; expected {}",
                allowed.join(", ")
            )));
        }
        let key = if key == "session" {
            "session_id".into()
        } else {
            key
        };
        out.insert(key, v);
    }
    Ok(out)
}

/// Default number of results of `search`.
const SEARCH_LIMIT: usize = 10;

fn search_options(options: &JsValue) -> Result<(Option<Target>, usize), Error> {
    let value = to_json(options)?;
    let map = match value {
        Value::Null => return Ok((None, SEARCH_LIMIT)),
        Value::Object(map) => map,
        _ => {
            return Err(Error::input(
                "search options must be an object like {target, limit}",
            ))
        }
    };
    let mut target = None;
    let mut limit = SEARCH_LIMIT;
    for (key, v) in map {
        match (key.as_str(), v) {
            (_, Value::Null) => {}
            ("target", Value::String(name)) => {
                target = Some(Target::from_name(&name).ok_or_else(|| {
                    Error::new(
                        ErrorKind::UnknownTarget,
                        format!("unknown target {name:?}; expected \"memory\" or \"user\""),
                    )
                })?)
            }
            ("limit", Value::Number(n)) if n.as_u64().is_some_and(|n| (1..=1000).contains(&n)) => {
                limit = n.as_u64().unwrap_or(10) as usize
            }
            ("target" | "limit", _) => {
                return Err(Error::input(format!(
                    "search option {key} must be {}",
                    if key == "target" {
                        "\"memory\" or \"user\""
                    } else {
                        "an integer from 1 to 1000"
                    }
                )))
            }
            (other, _) => {
                return Err(Error::input(format!(
                    "unknown search option {other:?}; expected target and/or limit"
                )))
            }
        }
    }
    Ok((target, limit))
}

fn sectors_options(options: &JsValue) -> Result<crate::sectors::Options, Error> {
    let mut out = crate::sectors::Options::default();
    let map = match to_json(options)? {
        Value::Null => return Ok(out),
        Value::Object(map) => map,
        _ => {
            return Err(Error::input(
                "sectors options must be an object like {sector, limit}",
            ))
        }
    };
    for (key, v) in map {
        match (key.as_str(), v) {
            (_, Value::Null) => {}
            ("sector", Value::String(name)) => out.sector = Some(name),
            ("limit", Value::Number(n)) if n.as_u64().is_some_and(|n| n <= 100_000) => {
                out.limit = n.as_u64().unwrap_or(12) as usize
            }
            (other, _) => {
                return Err(Error::input(format!(
                    "bad sectors option {other:?}; expected sector (a string) and/or limit (an integer)"
                )))
            }
        }
    }
    Ok(out)
}

/// A BM25 index over any list of notes, with mnemo's analysis and ranking:
/// for ranking text that is not in a memory store (and for benchmarks).
#[wasm_bindgen]
pub struct NoteIndex {
    analyzer: crate::text::Analyzer,
    index: crate::search::Index,
}

#[wasm_bindgen]
impl NoteIndex {
    /// Indexes `notes` (an array of strings).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string[]")] notes: JsValue,
    ) -> Result<NoteIndex, JsValue> {
        let array = notes
            .dyn_ref::<js_sys::Array>()
            .ok_or_else(|| to_js_error(&Error::input("NoteIndex expects an array of strings")))?;
        let mut texts = Vec::with_capacity(array.length() as usize);
        for (i, v) in array.iter().enumerate() {
            texts.push(to_string(&v, &format!("notes[{i}]")).map_err(throw)?);
        }
        let analyzer = crate::text::Analyzer::new();
        let index = crate::search::Index::build(&analyzer, &texts);
        Ok(NoteIndex { analyzer, index })
    }

    /// Number of notes.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.index.len()
    }

    /// The best `limit` notes for `query`: `[{index, score}]`, best first.
    #[wasm_bindgen(unchecked_return_type = "{index: number, score: number}[]")]
    pub fn search(&self, query: &str, limit: Option<usize>) -> Result<JsValue, JsValue> {
        #[derive(serde::Serialize)]
        struct Ranked {
            index: usize,
            score: f32,
        }
        let hits: Vec<Ranked> = self
            .index
            .search(&self.analyzer, query, limit.unwrap_or(SEARCH_LIMIT))
            .into_iter()
            .map(|h| Ranked {
                index: h.doc,
                score: h.score,
            })
            .collect();
        // One JSON.parse is cheaper than building each object through
        // Reflect calls across the boundary.
        from_serde(&hits)
    }
}

fn decode_files(files: &JsValue) -> Result<Files, Error> {
    match to_json(files)? {
        Value::Object(map) => map
            .into_iter()
            .map(|(name, text)| match text {
                Value::String(text) => Ok((name, text)),
                _ => Err(Error::input(format!("{name} must be a string of Markdown"))),
            })
            .collect(),
        _ => Err(Error::input(
            "importMarkdown expects {\"MEMORY.md\": string, \"USER.md\": string}",
        )),
    }
}

/// Screens `text` with the security scanner (synchronous): `{blocked,
/// findings: [{id, category, start, end, code_point?}], truncated}`.
/// `start` and `end` are UTF-16 offsets into `text`, ready for
/// `text.slice(start, end)`.
#[wasm_bindgen(unchecked_return_type = "ScanVerdict")]
pub fn scan(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsValue> {
    let text = to_string(&text, "text").map_err(throw)?;
    let mut verdict = crate::scan::scan(&text);
    // Byte offsets become UTF-16 offsets, the unit of JS strings.
    let utf16 = |byte: usize| text.get(..byte).map_or(0, |s| s.encode_utf16().count());
    for f in &mut verdict.findings {
        f.start = utf16(f.start);
        f.end = utf16(f.end);
    }
    from_serde(&verdict)
}

/// Bytes of wasm linear memory in use by this instance (it only grows):
/// for measuring what an index costs.
#[wasm_bindgen(js_name = wasmMemoryBytes)]
pub fn wasm_memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size(0) * 65_536) as f64
}

/// Every error code, for `switch` statements and docs.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "ErrorCode[]")]
pub fn error_codes() -> Vec<JsValue> {
    ErrorKind::ALL.iter().map(|k| k.code().into()).collect()
}
