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

/// Runs `f` on the open memory, queued behind earlier calls.
fn with_memory<F, Fut>(inner: &Shared, f: F) -> Promise
where
    F: FnOnce(Shared) -> Fut + 'static,
    Fut: std::future::Future<Output = Result<JsValue, JsValue>> + 'static,
{
    let inner = inner.clone();
    future_to_promise(async move { f(inner).await })
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
            let (storage, config) = open_storage(&opts).map_err(|e| to_js_error(&e))?;
            let memory = Memory::open(storage, config)
                .await
                .map_err(|e| to_js_error(&e))?;
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
        with_memory(&self.inner, move |inner| async move {
            let mut guard = inner.lock().await;
            let memory = guard.as_mut().ok_or_else(closed)?;
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
        with_memory(&self.inner, |inner| async move {
            let guard = inner.lock().await;
            let memory = guard.as_ref().ok_or_else(closed)?;
            Ok(memory.system_prompt().into())
        })
    }

    /// Re-reads the stores and freezes a new system prompt.
    #[wasm_bindgen(js_name = startSession, unchecked_return_type = "Promise<string>")]
    pub fn start_session(&self) -> Promise {
        with_memory(&self.inner, |inner| async move {
            let mut guard = inner.lock().await;
            let memory = guard.as_mut().ok_or_else(closed)?;
            let prompt = memory.start_session().await.map_err(|e| to_js_error(&e))?;
            Ok(prompt.into())
        })
    }

    /// Sizes, limits and modes of both stores.
    #[wasm_bindgen(unchecked_return_type = "Promise<Status>")]
    pub fn status(&self) -> Promise {
        with_memory(&self.inner, |inner| async move {
            let mut guard = inner.lock().await;
            let memory = guard.as_mut().ok_or_else(closed)?;
            memory.refresh().await.map_err(|e| to_js_error(&e))?;
            from_serde(&memory.status())
        })
    }

    /// Both stores as Markdown: `{"MEMORY.md": string, "USER.md": string}`.
    #[wasm_bindgen(js_name = exportMarkdown, unchecked_return_type = "Promise<MarkdownFiles>")]
    pub fn export_markdown(&self) -> Promise {
        with_memory(&self.inner, |inner| async move {
            let mut guard = inner.lock().await;
            let memory = guard.as_mut().ok_or_else(closed)?;
            memory.refresh().await.map_err(|e| to_js_error(&e))?;
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
        with_memory(&self.inner, move |inner| async move {
            let mut guard = inner.lock().await;
            let memory = guard.as_mut().ok_or_else(closed)?;
            let files = decoded.map_err(|e| to_js_error(&e))?;
            memory
                .import_markdown(&files)
                .await
                .map_err(|e| to_js_error(&e))?;
            from_serde(&memory.status())
        })
    }

    /// Closes the memory; later calls reject with `closed`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        with_memory(&self.inner, |inner| async move {
            inner.lock().await.take();
            Ok(JsValue::UNDEFINED)
        })
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

/// Every error code, for `switch` statements and docs.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "ErrorCode[]")]
pub fn error_codes() -> Vec<JsValue> {
    ErrorKind::ALL.iter().map(|k| k.code().into()).collect()
}
