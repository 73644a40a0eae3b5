//! The npm package's API: the `Memory` class and its helpers.
//!
//! Each method converts its arguments (see [`interop`]), calls the core
//! [`Memory`](crate::Memory) and converts the result. Every instance method
//! returns a Promise and takes `&self`: calls queue on an async mutex
//! instead of failing, and a call after `close()` rejects with `closed`.

mod approval;
mod curation;
mod entries;
mod interop;
mod skills;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_util::lock::Mutex;
use js_sys::{Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[cfg(feature = "sqlite")]
use crate::api::{ListOptions, ScrollOptions, SessionSearchOptions, TranscriptOptions, Turn};
use crate::api::{RememberOptions, SearchOptions, SectorsOptions};
use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::memory::{Files, Memory};
use crate::storage::js::JsStorage;
use crate::storage::Storage;
use interop::{from_serde, to_js_error, to_json, to_string};

#[wasm_bindgen(typescript_custom_section)]
const _: &str = include_str!("types.d.ts");

/// An open memory (`None` once closed), and how many staged writes it had
/// after the last call: `pendingCount()` answers from it while a call (a
/// long review) holds the memory.
struct Open {
    memory: Mutex<Option<Memory<JsStorage>>>,
    pending: Cell<usize>,
    /// The named workspace (none: the default one), for `status()`.
    workspace: Option<String>,
    /// The `AbortSignal` of the call running now, when its caller gave one.
    signal: CallSignal,
}

/// The `AbortSignal` of the call running now (calls run one at a time):
/// the host's embedder and classifier race their answers against it, so a
/// callback that never answers cannot hold the memory, and every call
/// queued behind it, for ever. An aborted callback counts as a failed one:
/// recall falls back to keywords and says why, the rules' verdict stands.
pub(crate) type CallSignal = Rc<RefCell<Option<JsValue>>>;

/// `promise`, raced against the running call's signal (if any); `who`
/// names the host's callback in the cancellation's message.
pub(crate) async fn host_answer(
    promise: Promise,
    signal: &CallSignal,
    who: &'static str,
) -> Result<JsValue, JsValue> {
    let signal = signal.borrow().clone();
    match signal {
        Some(signal) => approval::until_aborted_by(promise, &signal, "call", who).await,
        None => wasm_bindgen_futures::JsFuture::from(promise).await,
    }
}

/// The options object `value` without its `signal`, and the signal: an
/// `AbortSignal`, or an `invalid-input` error.
fn split_signal(value: &JsValue) -> Result<(JsValue, Option<JsValue>), Error> {
    if !value.is_object() || !Reflect::has(value, &"signal".into()).unwrap_or(false) {
        return Ok((value.clone(), None));
    }
    let signal = Reflect::get(value, &"signal".into()).unwrap_or(JsValue::UNDEFINED);
    let rest = Object::assign(&Object::new(), value.unchecked_ref::<Object>());
    let _ = Reflect::delete_property(&rest, &"signal".into());
    match signal {
        v if v.is_undefined() || v.is_null() => Ok((rest.into(), None)),
        v if approval::is_signal(&v) => Ok((rest.into(), Some(v))),
        _ => Err(Error::input("signal must be an AbortSignal")),
    }
}

/// The options `{signal?}` of a call that takes no other option.
fn signal_only(value: &JsValue, what: &str) -> Result<Option<JsValue>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let (rest, signal) = split_signal(value)?;
    crate::api::fields(&to_json(&rest)?, what, &["signal"])?;
    Ok(signal)
}

type Shared = Rc<Open>;

/// An open agent memory (see the README for the whole API).
#[wasm_bindgen(js_name = Memory)]
pub struct JsMemory {
    inner: Shared,
    /// Keeps the listener for other tabs' changes alive.
    _listener: Option<Closure<dyn FnMut(JsValue)>>,
}

const OPTION_KEYS: [&str; 8] = [
    "storage",
    "name",
    "dir",
    "config",
    "classifier",
    "embedder",
    "agent",
    "workspace",
];

/// Name of the memory when `name` is not given.
const DEFAULT_NAME: &str = "default";

/// The `workspace` option of `Memory.open`, when given (none: the default
/// workspace), checked before anything is created: `invalid-input` for a
/// name that cannot be a directory.
fn workspace_option(opts: &JsValue) -> Result<Option<String>, Error> {
    if !opts.is_object() {
        return Ok(None);
    }
    match Reflect::get(opts, &"workspace".into()).unwrap_or(JsValue::UNDEFINED) {
        v if v.is_undefined() || v.is_null() => Ok(None),
        v => {
            let workspace = to_string(&v, "workspace").map_err(|e| {
                Error::input(format!(
                    "{}; a workspace is named by 1 to 64 of A-Z a-z 0-9 - _ .",
                    e.message()
                ))
            })?;
            crate::api::check_workspace(&workspace)?;
            Ok(Some(workspace))
        }
    }
}

async fn open_storage(
    opts: &JsValue,
    workspace: Option<&str>,
) -> Result<(JsStorage, Config), Error> {
    if opts.is_undefined() || opts.is_null() {
        return Ok((
            JsStorage::named("memory", DEFAULT_NAME, None).await?,
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
        JsStorage::named("memory", &name, workspace).await?
    } else if let Some(kind) = storage.as_string() {
        match kind.as_str() {
            "memory" | "opfs" | "indexeddb" | "auto" => {
                JsStorage::named(&kind, &name, workspace).await?
            }
            "fs" => {
                let dir = to_string(&dir, "dir").map_err(|_| {
                    Error::new(
                        ErrorKind::InvalidConfig,
                        "storage \"fs\" needs dir: the memories directory (the CLI's --dir)",
                    )
                })?;
                JsStorage::fs(&dir, workspace)?
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
        JsStorage::host(storage, "host", workspace)?
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

/// A host's classifier given to `Memory.open` as `classifier: async (text)
/// => score`, raced against the running call's signal.
struct JsClassifier(js_sys::Function, CallSignal);

impl crate::host::Classifier for JsClassifier {
    fn score<'a>(&'a self, text: &'a str) -> crate::host::Answer<'a, f64> {
        Box::pin(async move {
            let value = self
                .0
                .call1(&JsValue::NULL, &JsValue::from_str(text))
                .map_err(|e| {
                    Error::new(ErrorKind::Internal, crate::storage::adapter::message_of(&e))
                })?;
            let value = match value.dyn_into::<Promise>() {
                Ok(promise) => host_answer(promise, &self.1, "classifier")
                    .await
                    .map_err(|e| {
                        Error::new(ErrorKind::Internal, crate::storage::adapter::message_of(&e))
                    })?,
                Err(value) => value,
            };
            value
                .as_f64()
                .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "it did not answer a number"))
        })
    }
}

/// The `classifier` option of `Memory.open`, when given.
fn classifier_option(
    opts: &JsValue,
    signal: &CallSignal,
) -> Result<Option<Box<dyn crate::host::Classifier>>, Error> {
    if !opts.is_object() {
        return Ok(None);
    }
    match Reflect::get(opts, &"classifier".into()).unwrap_or(JsValue::UNDEFINED) {
        v if v.is_undefined() || v.is_null() => Ok(None),
        v => match v.dyn_into::<js_sys::Function>() {
            Ok(f) => Ok(Some(Box::new(JsClassifier(f, signal.clone())))),
            Err(_) => Err(Error::new(
                ErrorKind::InvalidConfig,
                "classifier must be a function: async (text) => score from 0 to 1",
            )),
        },
    }
}

/// The `agent` option of `Memory.open`, when given: the name every write
/// and staged write carries.
fn agent_option(opts: &JsValue) -> Result<Option<String>, Error> {
    if !opts.is_object() {
        return Ok(None);
    }
    match Reflect::get(opts, &"agent".into()).unwrap_or(JsValue::UNDEFINED) {
        v if v.is_undefined() || v.is_null() => Ok(None),
        v => to_string(&v, "agent")
            .map(Some)
            .map_err(|e| Error::new(ErrorKind::InvalidConfig, e.message())),
    }
}

/// Runs `f` on the open memory, queued behind earlier calls; rejects with
/// `closed` after `close()`.
fn with_open<F>(inner: &Shared, f: F) -> Promise
where
    F: AsyncFnOnce(&mut Memory<JsStorage>) -> Result<JsValue, JsValue> + 'static,
{
    let inner = inner.clone();
    future_to_promise(async move {
        let mut guard = inner.memory.lock().await;
        let memory = guard.as_mut().ok_or_else(closed)?;
        let result = f(memory).await;
        inner.pending.set(memory.approval_status().pending);
        result
    })
}

/// [`with_open`] with `signal` as the running call's signal while `f`
/// runs.
fn with_signal<F>(inner: &Shared, signal: Option<JsValue>, f: F) -> Promise
where
    F: AsyncFnOnce(&mut Memory<JsStorage>) -> Result<JsValue, JsValue> + 'static,
{
    let cell = inner.signal.clone();
    with_open(inner, async move |memory| {
        cell.replace(signal);
        let result = f(memory).await;
        cell.replace(None);
        result
    })
}

/// `status()` as JS: the core's status and the workspace (`null` for the
/// default one), which is the binding's: the core sees only its storage.
fn status_of(memory: &Memory<JsStorage>, workspace: Option<&str>) -> Result<JsValue, JsValue> {
    let status = from_serde(&memory.status())?;
    Reflect::set(
        &status,
        &"workspace".into(),
        &workspace.map_or(JsValue::NULL, JsValue::from),
    )?;
    Ok(status)
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
    pub fn open(
        #[wasm_bindgen(unchecked_optional_param_type = "MemoryOptions")] opts: JsValue,
    ) -> Promise {
        future_to_promise(async move {
            let signal = CallSignal::default();
            let classifier = classifier_option(&opts, &signal).map_err(throw)?;
            let agent = agent_option(&opts).map_err(throw)?;
            let embedder = entries::embedder_option(&opts)
                .map_err(throw)?
                .map(|e| e.racing(&signal));
            let workspace = workspace_option(&opts).map_err(throw)?;
            let (storage, config) = open_storage(&opts, workspace.as_deref())
                .await
                .map_err(throw)?;
            let mut memory = Memory::open(storage, config).await.map_err(throw)?;
            memory.set_classifier(classifier);
            if let Err(e) = memory.set_embedder(embedder.map(|e| Box::new(e) as _)) {
                memory.storage().close();
                return Err(throw(Error::new(ErrorKind::InvalidConfig, e.message())));
            }
            if let Err(e) = memory.set_agent(agent.as_deref()) {
                memory.storage().close();
                return Err(throw(Error::new(ErrorKind::InvalidConfig, e.message())));
            }
            let inner: Shared = Rc::new(Open {
                pending: Cell::new(memory.approval_status().pending),
                memory: Mutex::new(Some(memory)),
                workspace,
                signal,
            });
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
            let names = JsStorage::list_all().await.map_err(throw)?;
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
            from_serde(&JsStorage::recover(&name, &storage).await.map_err(throw)?)
        })
    }

    /// Removes every byte of memory `name` from this origin; resolves to
    /// `{name, removed: ["opfs" | "indexeddb", ...]}`. Open instances of it
    /// in other tabs are closed.
    #[wasm_bindgen(unchecked_return_type = "Promise<{name: string, removed: string[]}>")]
    pub fn delete(#[wasm_bindgen(unchecked_param_type = "string")] name: JsValue) -> Promise {
        future_to_promise(async move {
            let name = to_string(&name, "name").map_err(throw)?;
            let removed = JsStorage::remove_all(&name).await.map_err(throw)?;
            from_serde(&serde_json::json!({"name": name, "removed": removed}))
        })
    }

    /// The memory tool's definition `{name, description, parameters}`.
    #[wasm_bindgen(js_name = toolSchema, unchecked_return_type = "ToolSchema")]
    pub fn tool_schema() -> Result<JsValue, JsValue> {
        from_serde(&crate::tool::tool_schema())
    }

    /// Runs a memory tool call exactly as the LLM emitted it. Options:
    /// `{signal?}`, an `AbortSignal` that gives up on the host's
    /// classifier if it has not answered (the rules' verdict stands).
    #[wasm_bindgen(unchecked_return_type = "Promise<ToolResult>")]
    pub fn tool(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ToolArgs | unknown")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: JsValue,
    ) -> Promise {
        let signal = match signal_only(&options, "tool options") {
            Ok(signal) => signal,
            Err(e) => return Promise::reject(&throw(e)),
        };
        let decoded = to_json(&args);
        with_signal(&self.inner, signal, async move |memory| {
            let result = match decoded {
                Ok(args) => memory.tool(&args).await,
                Err(e) => memory.refuse(e),
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

    /// Sizes, limits and modes of both stores, and the workspace.
    #[wasm_bindgen(unchecked_return_type = "Promise<Status>")]
    pub fn status(&self) -> Promise {
        let workspace = self.inner.workspace.clone();
        with_open(&self.inner, async move |memory| {
            memory.refresh().await.map_err(throw)?;
            status_of(memory, workspace.as_deref())
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

    /// Both stores as they may be shown to a model or to anyone who did
    /// not write them: `{"MEMORY.md": string, "USER.md": string}`, each
    /// entry the scanner blocks replaced by its `[BLOCKED: …]` placeholder
    /// (as in the system prompt). Re-reads the stores first. For hosts that
    /// hand the stores on (the MCP server's resources); `exportMarkdown`
    /// keeps the text itself, for backups.
    #[wasm_bindgen(js_name = shownMarkdown, unchecked_return_type = "Promise<MarkdownFiles>")]
    pub fn shown_markdown(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            memory.refresh().await.map_err(throw)?;
            from_serde(&memory.shown_markdown())
        })
    }

    /// For `mnemo/browser` only: what `close()` does, except that the
    /// memory stays open: writes what it counted and lets go of its lock,
    /// so that its next call checks storage as an open would and reloads
    /// what another context changed (a memory the page closed but keeps for
    /// its next open).
    #[wasm_bindgen(js_name = "__suspend", unchecked_return_type = "Promise<void>")]
    pub fn suspend(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            let _ = memory.save_counts().await;
            memory.storage().suspend();
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Builds the search indexes and the graph now (the first call that
    /// reads them builds them otherwise), so that the first `context()`
    /// answers at once. Changes nothing; for a host that opens a memory
    /// ahead of its first turn.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn prepare(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            memory.prepare();
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Re-reads the stores from storage, picking up what other processes,
    /// tabs or workers wrote since this memory last looked (writes always
    /// do this themselves; reads such as `search`, `recall` and `sectors`
    /// answer from the state of the last call). The frozen system prompt is
    /// unchanged until `startSession()`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn refresh(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            memory.refresh().await.map_err(throw)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Replaces the named stores, all or nothing.
    #[wasm_bindgen(js_name = importMarkdown, unchecked_return_type = "Promise<Status>")]
    pub fn import_markdown(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Partial<MarkdownFiles>")] files: JsValue,
    ) -> Promise {
        let decoded = decode_files(&files);
        let workspace = self.inner.workspace.clone();
        with_open(&self.inner, async move |memory| {
            let files = decoded.map_err(throw)?;
            memory.import_markdown(&files).await.map_err(throw)?;
            status_of(memory, workspace.as_deref())
        })
    }

    /// The best notes for `query`, best first: `[{target, index, text,
    /// score}]`. Options: `{target?: "memory" | "user", limit?: number}`
    /// (default 10).
    #[wasm_bindgen(unchecked_return_type = "Promise<SearchHit[]>")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SearchOptions & CallOptions")]
        options: JsValue,
    ) -> Promise {
        let (options, signal) = match split_signal(&options) {
            Ok(split) => split,
            Err(e) => return Promise::reject(&throw(e)),
        };
        let decoded = to_string(&query, "query")
            .and_then(|q| Ok((q, SearchOptions::from_json(&to_json(&options)?)?)));
        with_signal(&self.inner, signal, async move |memory| {
            let (query, options) = decoded.map_err(throw)?;
            from_serde(&memory.search_ranked(&query, &options).await)
        })
    }

    /// The per-turn `<memory-context>` block for the user's message, or
    /// `""`. Call it once per user turn and append the block to the
    /// message; it also ends the turn for the retry cap.
    #[wasm_bindgen(unchecked_return_type = "Promise<string>")]
    pub fn context(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] message: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: JsValue,
    ) -> Promise {
        let signal = match signal_only(&options, "context options") {
            Ok(signal) => signal,
            Err(e) => return Promise::reject(&throw(e)),
        };
        let decoded = to_string(&message, "message");
        with_signal(&self.inner, signal, async move |memory| {
            let message = decoded.map_err(throw)?;
            Ok(memory.context_ranked(&message).await.into())
        })
    }

    /// The sectors report over the notes and the skills: `{sectors: [{name,
    /// count, skills, links, entries, more}], summary}`, each entry with its
    /// `kind` (`note` or `skill`). Options: `{sector?: string, limit?:
    /// number}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<SectorsReport>")]
    pub fn sectors(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "SectorsOptions")] options: JsValue,
    ) -> Promise {
        let decoded = to_json(&options).and_then(|v| SectorsOptions::from_json(&v));
        with_open(&self.inner, async move |memory| {
            let options = decoded.map_err(throw)?;
            from_serde(&memory.sectors(&options))
        })
    }

    /// The learning journey: `{nodes: [{id, kind, entry_id, target?, index,
    /// title, sector, first_seen, last_changed, out, in, dangling, pinned,
    /// blocked}], links, skill_links}`, oldest first; a skill's node has
    /// `kind: "skill"`, its name as `id` and no `target`.
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

    /// Names the agent whose writes, notes and staged writes these are from
    /// now on (`null` for none): one line of at most 64 chars, else
    /// `invalid-input` and nothing changes. For a host serving several
    /// agents over one memory (a Durable Object); queued like every call,
    /// so a write made after it carries the name.
    #[wasm_bindgen(js_name = setAgent, unchecked_return_type = "Promise<void>")]
    pub fn set_agent(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | null")] agent: JsValue,
    ) -> Promise {
        let agent = if agent.is_null() || agent.is_undefined() {
            Ok(None)
        } else {
            to_string(&agent, "agent").map(Some)
        };
        with_open(&self.inner, async move |memory| {
            memory
                .set_agent(agent.map_err(throw)?.as_deref())
                .map_err(throw)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Adds a fact the user confirmed (default target `user`); answers like
    /// the memory tool.
    #[wasm_bindgen(unchecked_return_type = "Promise<ToolResult>")]
    pub fn remember(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] fact: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RememberOptions")] options: JsValue,
    ) -> Promise {
        // Bad options are the host's mistake (a MnemoError); a fact that
        // cannot be stored is answered like a tool write.
        let options = to_json(&options).and_then(|v| RememberOptions::from_json(&v));
        let fact = to_string(&fact, "fact");
        with_open(&self.inner, async move |memory| {
            let options = options.map_err(throw)?;
            let result = match fact {
                Ok(fact) => memory.remember(&fact, options).await,
                Err(e) => memory.refuse(e),
            };
            from_serde(&result)
        })
    }

    #[cfg(feature = "sqlite")]
    /// Records a completed turn: `{session, user, assistant, time?,
    /// source?}` → `{session, user, assistant}` (the two messages'
    /// sequence numbers). Also ends the turn for the retry cap.
    #[wasm_bindgen(js_name = recordTurn, unchecked_return_type = "Promise<RecordedTurn>")]
    pub fn record_turn(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TurnRecord")] turn: JsValue,
    ) -> Promise {
        let decoded = to_json(&turn).and_then(|v| Turn::from_json(&v));
        with_open(&self.inner, async move |memory| {
            let turn = decoded.map_err(throw)?;
            from_serde(&memory.record_turn(&turn).await.map_err(throw)?)
        })
    }

    #[cfg(feature = "sqlite")]
    /// Imports a transcript an agent keeps, given as its text: `format` is
    /// `"claude-code"`, `"codex"` or `"mnemo"`; `{name?}` the file's name
    /// (the session id when the text does not say it). Idempotent for the
    /// agents' formats. → `{files, sessions, messages, present, skipped,
    /// too_long, ignored}`.
    #[wasm_bindgen(js_name = importTranscript, unchecked_return_type = "Promise<TranscriptImport>")]
    pub fn import_transcript(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TranscriptFormat")] format: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "TranscriptOptions")] options: JsValue,
    ) -> Promise {
        let decoded = to_string(&format, "format").and_then(|format| {
            Ok((
                format,
                to_string(&text, "text")?,
                TranscriptOptions::from_json(&to_json(&options)?)?,
            ))
        });
        with_open(&self.inner, async move |memory| {
            let (format, text, options) = decoded.map_err(throw)?;
            let report = memory.import_transcript(&format, &text, &options).await;
            from_serde(&report.map_err(throw)?)
        })
    }

    #[cfg(feature = "sqlite")]
    /// Finds past messages: `[{session, seq, role, time, snippet, score}]`,
    /// best first. Options: `{session?, role?, source?, since?, until?,
    /// limit?}`.
    #[wasm_bindgen(js_name = sessionSearch, unchecked_return_type = "Promise<SessionHit[]>")]
    pub fn session_search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SessionSearchOptions")] options: JsValue,
    ) -> Promise {
        let decoded = to_string(&query, "query")
            .and_then(|q| Ok((q, SessionSearchOptions::from_json(&to_json(&options)?)?)));
        with_open(&self.inner, async move |memory| {
            let (query, options) = decoded.map_err(throw)?;
            from_serde(
                &memory
                    .session_search(&query, &options)
                    .await
                    .map_err(throw)?,
            )
        })
    }

    #[cfg(feature = "sqlite")]
    /// Reads a session's messages, whole: `{around?, before?, after?}`
    /// (default: the first 20) → `[{session, seq, role, text, time}]`.
    #[wasm_bindgen(js_name = sessionMessages, unchecked_return_type = "Promise<SessionMessage[]>")]
    pub fn session_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{around?: number, before?: number, after?: number}"
        )]
        options: JsValue,
    ) -> Promise {
        let decoded = to_string(&session, "session")
            .and_then(|id| Ok((id, ScrollOptions::from_json(&to_json(&options)?)?)));
        with_open(&self.inner, async move |memory| {
            let (session, options) = decoded.map_err(throw)?;
            let messages = memory.session_messages(&session, &options).await;
            from_serde(&messages.map_err(throw)?)
        })
    }

    #[cfg(feature = "sqlite")]
    /// Recent sessions, newest first: `{offset?, limit?}` →
    /// `[{id, title, source, started, ended, messages}]`.
    #[wasm_bindgen(unchecked_return_type = "Promise<SessionInfo[]>")]
    pub fn sessions(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{offset?: number, limit?: number}")]
        options: JsValue,
    ) -> Promise {
        let decoded = to_json(&options).and_then(|v| ListOptions::from_json(&v));
        with_open(&self.inner, async move |memory| {
            let options = decoded.map_err(throw)?;
            from_serde(&memory.sessions(&options).await.map_err(throw)?)
        })
    }

    #[cfg(feature = "sqlite")]
    /// Runs a `session_search` tool call exactly as a model sent it; never
    /// rejects because of what the model sent.
    #[wasm_bindgen(js_name = sessionTool, unchecked_return_type = "Promise<SessionToolResult>")]
    pub fn session_tool(&self, args: JsValue) -> Promise {
        let decoded = to_json(&args);
        with_open(&self.inner, async move |memory| {
            let answer = match decoded {
                Ok(args) => memory.session_tool(&args).await,
                Err(e) => crate::sessions::ToolAnswer::failed(e),
            };
            from_serde(&answer)
        })
    }

    #[cfg(feature = "sqlite")]
    /// The `session_search` tool's definition `{name, description,
    /// parameters}`.
    #[wasm_bindgen(js_name = sessionToolSchema, unchecked_return_type = "{name: \"session_search\", description: string, parameters: Record<string, unknown>}")]
    pub fn session_tool_schema() -> Result<JsValue, JsValue> {
        from_serde(&crate::sessions::tool_schema())
    }

    #[cfg(feature = "sqlite")]
    /// Deletes a session and its messages; whether it existed.
    #[wasm_bindgen(js_name = deleteSession, unchecked_return_type = "Promise<boolean>")]
    pub fn delete_session(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Promise {
        let id = to_string(&id, "id");
        with_open(&self.inner, async move |memory| {
            let id = id.map_err(throw)?;
            Ok(memory.delete_session(&id).await.map_err(throw)?.into())
        })
    }

    #[cfg(feature = "sqlite")]
    /// Deletes every session and message; how many sessions there were.
    #[wasm_bindgen(js_name = purgeSessions, unchecked_return_type = "Promise<number>")]
    pub fn purge_sessions(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            let n = memory.purge_sessions().await.map_err(throw)?;
            Ok((n as f64).into())
        })
    }

    /// Closes the memory (writing the skill views counted since the last
    /// write); later calls reject with `closed`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            if let Some(mut memory) = inner.memory.lock().await.take() {
                // Counts are advisory: a failure to write them is not the
                // caller's.
                let _ = memory.save_counts().await;
                memory.storage().close();
            }
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// The session methods of the lean build (no SQLite): each rejects with
/// `unsupported` (after `closed`), so code written for the full build
/// learns why instead of meeting a `TypeError`. Same names and types as the
/// full build's.
#[cfg(not(feature = "sqlite"))]
#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(js_name = recordTurn, unchecked_return_type = "Promise<RecordedTurn>")]
    pub fn record_turn(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TurnRecord")] turn: JsValue,
    ) -> Promise {
        let _ = turn;
        self.no_sessions("recordTurn")
    }

    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(js_name = importTranscript, unchecked_return_type = "Promise<TranscriptImport>")]
    pub fn import_transcript(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TranscriptFormat")] format: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "TranscriptOptions")] options: JsValue,
    ) -> Promise {
        let _ = (format, text, options);
        self.no_sessions("importTranscript")
    }

    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(js_name = sessionSearch, unchecked_return_type = "Promise<SessionHit[]>")]
    pub fn session_search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SessionSearchOptions")] options: JsValue,
    ) -> Promise {
        let _ = (query, options);
        self.no_sessions("sessionSearch")
    }

    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(js_name = sessionMessages, unchecked_return_type = "Promise<SessionMessage[]>")]
    pub fn session_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{around?: number, before?: number, after?: number}"
        )]
        options: JsValue,
    ) -> Promise {
        let _ = (session, options);
        self.no_sessions("sessionMessages")
    }

    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(unchecked_return_type = "Promise<SessionInfo[]>")]
    pub fn sessions(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{offset?: number, limit?: number}")]
        options: JsValue,
    ) -> Promise {
        let _ = options;
        self.no_sessions("sessions")
    }

    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(js_name = sessionTool, unchecked_return_type = "Promise<SessionToolResult>")]
    pub fn session_tool(&self, args: JsValue) -> Promise {
        let _ = args;
        self.no_sessions("sessionTool")
    }

    /// Not in the lean build: throws `unsupported`.
    #[wasm_bindgen(js_name = sessionToolSchema, unchecked_return_type = "{name: \"session_search\", description: string, parameters: Record<string, unknown>}")]
    pub fn session_tool_schema() -> Result<JsValue, JsValue> {
        Err(throw(no_sessions("Memory.sessionToolSchema")))
    }

    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(js_name = deleteSession, unchecked_return_type = "Promise<boolean>")]
    pub fn delete_session(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Promise {
        let _ = id;
        self.no_sessions("deleteSession")
    }

    /// Not in the lean build: rejects with `unsupported`.
    #[wasm_bindgen(js_name = purgeSessions, unchecked_return_type = "Promise<number>")]
    pub fn purge_sessions(&self) -> Promise {
        self.no_sessions("purgeSessions")
    }
}

#[cfg(not(feature = "sqlite"))]
impl JsMemory {
    /// Rejects session call `method` with `unsupported` (or `closed`).
    fn no_sessions(&self, method: &'static str) -> Promise {
        with_open(&self.inner, async move |_| Err(throw(no_sessions(method))))
    }
}

/// Session call `method` is not in the lean build.
#[cfg(not(feature = "sqlite"))]
fn no_sessions(method: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!(
            "{method}: this lean build of mnemo has no SQLite, so it keeps no sessions \
             (status().sessions says so); import \"mnemo\" (the full build) for session search"
        ),
    )
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
            let mut guard = inner.memory.lock().await;
            if deleted {
                guard.take();
            } else if let Some(memory) = guard.as_mut() {
                // A failure here resurfaces on the next call.
                let _ = memory.refresh().await;
                inner.pending.set(memory.approval_status().pending);
            }
        });
    });
    let guard = inner.memory.lock().await;
    let storage = guard.as_ref()?.storage();
    if !storage.shared() {
        return None;
    }
    storage.subscribe(
        listener
            .as_ref()
            .unchecked_ref::<js_sys::Function>()
            .clone(),
    );
    Some(listener)
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
        let analyzer = crate::text::Analyzer::new();
        // One note at a time into the builder: the texts are never all in
        // wasm memory beside the index (which never gives memory back).
        let mut builder = crate::search::IndexBuilder::new(&analyzer);
        for (i, v) in array.iter().enumerate() {
            builder.add(&to_string(&v, &format!("notes[{i}]")).map_err(throw)?);
        }
        let index = builder.finish();
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
        // The limit follows the rule of every note search (1 to 1000).
        let options = SearchOptions::new(None, limit.map(|n| n as u64)).map_err(throw)?;
        let hits: Vec<Ranked> = self
            .index
            .search(&self.analyzer, query, options.limit())
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
        Value::Object(map) => {
            // Inserted one by one: a `collect` into the map compiles a sort
            // of its own for each iterator type.
            let mut files = Files::new();
            for (name, text) in map {
                let Value::String(text) = text else {
                    return Err(Error::input(format!("{name} must be a string of Markdown")));
                };
                files.insert(name, text);
            }
            Ok(files)
        }
        _ => Err(Error::input(
            "importMarkdown expects {\"MEMORY.md\": string, \"USER.md\": string}",
        )),
    }
}

/// Screens `text` with the security scanner (synchronous): `{blocked,
/// findings: [{id, category, start, end, code_point?}], truncated}`.
/// `start` and `end` are UTF-16 offsets into `text`, ready for
/// `text.slice(start, end)`. Any string gets a verdict: a lone UTF-16
/// surrogate (broken text, which no other call accepts) is itself a
/// finding, `unicode.lone-surrogate` (`invisible-unicode`), and blocks the
/// text; the rest is scanned with each lone surrogate read as U+FFFD.
#[wasm_bindgen(unchecked_return_type = "ScanVerdict")]
pub fn scan(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsValue> {
    let (text, lone) = match to_string(&text, "text") {
        Ok(text) => (text, None),
        Err(e) if e.kind() == ErrorKind::InvalidText => match text.dyn_ref::<js_sys::JsString>() {
            Some(js) => with_lone_surrogates(js),
            None => return Err(throw(e)),
        },
        Err(e) => return Err(throw(e)),
    };
    let mut verdict = crate::scan::scan(&text);
    if let Some((at, unit)) = lone {
        // Like the scanner's own invisible characters: the first one, and
        // only in what was scanned.
        if !verdict.truncated || at + '\u{FFFD}'.len_utf8() <= crate::scan::MAX_SCAN_BYTES {
            verdict.findings.push(crate::scan::Finding {
                id: "unicode.lone-surrogate",
                category: crate::scan::Category::InvisibleUnicode,
                start: at,
                end: at + '\u{FFFD}'.len_utf8(),
                code_point: Some(format!("U+{unit:04X}")),
            });
            verdict.findings.sort_by_key(|f| (f.start, f.end));
            verdict.blocked = true;
        }
    }
    // Byte offsets become UTF-16 offsets, the unit of JS strings, in one
    // pass over the text.
    let mut offsets: Vec<usize> = verdict
        .findings
        .iter()
        .flat_map(|f| [f.start, f.end])
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut utf16 = Vec::with_capacity(offsets.len());
    let (mut byte, mut unit) = (0, 0);
    let mut chars = text.chars();
    for &target in &offsets {
        while byte < target {
            let Some(c) = chars.next() else { break };
            byte += c.len_utf8();
            unit += c.len_utf16();
        }
        utf16.push(unit);
    }
    let at = |byte: usize| utf16[offsets.binary_search(&byte).unwrap_or(0)];
    for f in &mut verdict.findings {
        f.start = at(f.start);
        f.end = at(f.end);
    }
    from_serde(&verdict)
}

/// The text of a JS string holding lone surrogates, each read as U+FFFD
/// (one UTF-16 unit for one, so UTF-16 offsets stay those of the string),
/// and the byte offset in that text and the value of the first one.
fn with_lone_surrogates(js: &js_sys::JsString) -> (String, Option<(usize, u16)>) {
    let mut text = String::with_capacity(js.length() as usize);
    let mut first = None;
    for unit in char::decode_utf16(js.iter()) {
        match unit {
            Ok(c) => text.push(c),
            Err(e) => {
                first = first.or(Some((text.len(), e.unpaired_surrogate())));
                text.push('\u{FFFD}');
            }
        }
    }
    (text, first)
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
