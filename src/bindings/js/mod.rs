//! The npm package's API: the `Memory` class and its helpers.
//!
//! Each method converts its arguments (see [`interop`]), calls the core
//! [`Memory`](crate::Memory) and converts the result. Every instance method
//! returns a Promise and takes `&self`: calls queue on an async mutex
//! instead of failing, and a call after `close()` rejects with `closed`.

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
}

const OPTION_KEYS: [&str; 3] = ["storage", "dir", "config"];

fn open_storage(opts: &JsValue) -> Result<(JsStorage, Config), Error> {
    if opts.is_undefined() || opts.is_null() {
        return Ok((JsStorage::memory(), Config::default()));
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
    let storage = if storage.is_undefined() || storage.is_null() {
        JsStorage::memory()
    } else if let Some(name) = storage.as_string() {
        match name.as_str() {
            "memory" => JsStorage::memory(),
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
            "opfs" | "indexeddb" | "auto" => {
                return Err(Error::new(
                    ErrorKind::InvalidConfig,
                    format!(
                        "storage \"{name}\" (browser persistence) is not in this version of \
                         mnemo yet; use \"memory\", \"fs\" (Node) or a storage adapter object"
                    ),
                ))
            }
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidConfig,
                    format!(
                        "unknown storage {other:?}; expected \"memory\", \"fs\" or an adapter \
                         object with async read, write, list and delete"
                    ),
                ))
            }
        }
    } else if storage.is_object() {
        JsStorage::host(storage, "host")?
    } else {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "storage must be \"memory\", \"fs\" or an adapter object",
        ));
    };
    if !dir.is_undefined() && storage.kind() != "fs" {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "dir is only used with storage \"fs\"",
        ));
    }
    Ok((storage, config))
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
            let (storage, config) = open_storage(&opts).map_err(throw)?;
            let memory = Memory::open(storage, config).await.map_err(throw)?;
            Ok(JsMemory {
                inner: Rc::new(Mutex::new(Some(memory))),
            }
            .into())
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

    /// Closes the memory; later calls reject with `closed`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            inner.lock().await.take();
            Ok(JsValue::UNDEFINED)
        })
    }
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
