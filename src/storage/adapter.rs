//! A storage adapter object from JS: anything with async `read(name)`,
//! `write(name, data)`, `list()` and `delete(name)` (plus optional `lock()`
//! / `unlock()`, and `end(name)` / `append(name, data, at)` for a backend
//! that can append without rewriting a blob), which is how the Node `"fs"` storage (js/fs-storage.js),
//! edge key-value stores and Durable Objects plug in; and, for every storage
//! module that calls into JS, reading what JS throws as mnemo errors and
//! writing console warnings.
//!
//! No SQLite here: the lean npm build uses it as it is.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Error as JsError, Function, JsString, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::error::{Error, ErrorKind, Result};
use crate::storage::Storage;

#[wasm_bindgen(module = "/js/fs-storage.js")]
extern "C" {
    #[wasm_bindgen(js_name = nodeFsStorage, catch)]
    fn node_fs_storage(dir: &str) -> std::result::Result<JsValue, JsValue>;
}

/// The error kind of a thrown JS value: its `code` when that is one of
/// mnemo's (an adapter or the browser glue may throw `locked`), else
/// `storage`.
pub fn kind_of(thrown: &JsValue) -> ErrorKind {
    Reflect::get(thrown, &"code".into())
        .ok()
        .and_then(|c| c.as_string())
        .and_then(|c| ErrorKind::from_code(&c))
        .unwrap_or(ErrorKind::Storage)
}

/// The message of a thrown JS value, for wrapping it.
pub fn message_of(thrown: &JsValue) -> String {
    if let Some(e) = thrown.dyn_ref::<JsError>() {
        return String::from(e.message());
    }
    thrown.as_string().unwrap_or_else(|| format!("{thrown:?}"))
}

/// A thrown JS value (a `{code, message}` from the glue or anything else)
/// as a mnemo error.
#[cfg(feature = "sqlite")]
pub fn js_error(thrown: JsValue) -> Error {
    Error::new(kind_of(&thrown), message_of(&thrown))
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}

/// Writes `message` to the console as a warning.
pub fn warn(message: &str) {
    console_warn(message);
}

fn now() -> u64 {
    js_sys::Date::now() as u64
}

/// A JS adapter object with async `read`, `write`, `list`, `delete` and
/// optional `lock` / `unlock`.
///
/// Clones share the object and its lock: a lock taken through one clone
/// (the stores) covers the others (the sessions' image), so nested locks
/// never reach an adapter whose `lock()` is not reentrant.
#[derive(Clone)]
pub struct Adapter {
    adapter: JsValue,
    /// `fs` or `host`.
    kind: &'static str,
    /// Nesting of `lock()` calls over all clones.
    depth: Rc<Cell<u32>>,
    /// What this memory's blob names are prefixed with in the adapter:
    /// `""` for the default workspace, `workspaces/<name>/` for a named
    /// one, so one adapter holds every workspace apart.
    prefix: Rc<str>,
}

/// The folder of the named workspaces' blobs in an adapter (the CLI's
/// `workspaces/<name>/` beside the default memories).
pub const WORKSPACES: &str = "workspaces/";

impl Adapter {
    /// Checks that `adapter` has the four required methods.
    pub fn new(adapter: JsValue, kind: &'static str) -> Result<Adapter> {
        for method in ["read", "write", "list", "delete"] {
            let f = Reflect::get(&adapter, &method.into()).unwrap_or(JsValue::UNDEFINED);
            if !f.is_function() {
                return Err(Error::new(
                    ErrorKind::InvalidConfig,
                    format!(
                        "the storage adapter has no {method}() method; expected an object with \
                         async read(name), write(name, data), list() and delete(name)"
                    ),
                ));
            }
        }
        Ok(Adapter {
            adapter,
            kind,
            depth: Rc::default(),
            prefix: Rc::from(""),
        })
    }

    /// This adapter with the blobs of workspace `workspace` (a checked
    /// name): each blob name `n` is `workspaces/<workspace>/n` in the
    /// adapter. The lock stays the adapter's own, shared by every
    /// workspace.
    pub fn in_workspace(mut self, workspace: &str) -> Adapter {
        self.prefix = Rc::from(format!("{WORKSPACES}{workspace}/"));
        self
    }

    /// The name blob `name` has in the adapter.
    fn stored(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// Node's `"fs"` storage: the memories directory `dir` in the CLI's
    /// format, through js/fs-storage.js.
    pub fn node_fs(dir: &str) -> Result<Adapter> {
        let adapter = node_fs_storage(dir)
            .map_err(|e| Error::new(ErrorKind::InvalidConfig, message_of(&e)))?;
        Adapter::new(adapter, "fs")
    }

    async fn call(&self, method: &str, args: &[JsValue]) -> Result<Option<JsValue>> {
        let adapter = &self.adapter;
        let f = Reflect::get(adapter, &method.into()).unwrap_or(JsValue::UNDEFINED);
        let Some(f) = f.dyn_ref::<Function>() else {
            return Ok(None);
        };
        let this_call = match args.len() {
            0 => f.call0(adapter),
            1 => f.call1(adapter, &args[0]),
            2 => f.call2(adapter, &args[0], &args[1]),
            _ => f.call3(adapter, &args[0], &args[1], &args[2]),
        };
        let value = this_call.map_err(|e| fail(method, args, &e))?;
        let value = match value.dyn_into::<Promise>() {
            Ok(promise) => JsFuture::from(promise)
                .await
                .map_err(|e| fail(method, args, &e))?,
            Err(value) => value,
        };
        Ok(Some(value))
    }
}

fn fail(method: &str, args: &[JsValue], thrown: &JsValue) -> Error {
    let name = args
        .first()
        .and_then(JsValue::as_string)
        .map(|n| format!("({n})"))
        .unwrap_or_default();
    Error::new(
        kind_of(thrown),
        format!(
            "storage adapter {method}{name} failed: {}",
            message_of(thrown)
        ),
    )
}

/// A JS string as bytes. Lone surrogates are kept as their (invalid)
/// three-byte encodings so the core sees a damaged file rather than text
/// silently repaired with U+FFFD.
fn string_bytes(s: &JsString) -> Vec<u8> {
    let units: Vec<u16> = s.iter().collect();
    let mut out = Vec::with_capacity(units.len());
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Err(e) => {
                let u = e.unpaired_surrogate();
                out.extend_from_slice(&[
                    0xE0 | (u >> 12) as u8,
                    0x80 | ((u >> 6) & 0x3F) as u8,
                    0x80 | (u & 0x3F) as u8,
                ]);
            }
        }
    }
    out
}

impl Storage for Adapter {
    fn kind(&self) -> &str {
        self.kind
    }

    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let value = self
            .call("read", &[self.stored(name).into()])
            .await?
            .unwrap_or(JsValue::NULL);
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        if let Some(s) = value.dyn_ref::<JsString>() {
            return Ok(Some(string_bytes(s)));
        }
        if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
            return Ok(Some(bytes.to_vec()));
        }
        if let Some(buffer) = value.dyn_ref::<js_sys::ArrayBuffer>() {
            return Ok(Some(Uint8Array::new(buffer).to_vec()));
        }
        Err(Error::storage(format!(
            "storage adapter read({name}) returned neither a string, a Uint8Array nor null"
        )))
    }

    async fn write(&self, name: &str, data: &[u8]) -> Result<()> {
        let value: JsValue = match std::str::from_utf8(data) {
            Ok(text) => text.into(),
            Err(_) => Uint8Array::from(data).into(),
        };
        self.call("write", &[self.stored(name).into(), value])
            .await
            .map(|_| ())
    }

    async fn delete(&self, name: &str) -> Result<()> {
        self.call("delete", &[self.stored(name).into()])
            .await
            .map(|_| ())
    }

    async fn end(&self, name: &str) -> Result<Option<super::BlobEnd>> {
        let Some(value) = self.call("end", &[self.stored(name).into()]).await? else {
            // No end(): read the blob.
            return Ok(self.read(name).await?.map(|b| super::BlobEnd::of(&b)));
        };
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        let field = |key: &str| {
            Reflect::get(&value, &key.into())
                .ok()
                .and_then(|v| v.as_f64())
        };
        match field("length") {
            Some(len) if len >= 0.0 && len.fract() == 0.0 => Ok(Some(super::BlobEnd {
                len: len as u64,
                last: field("last")
                    .filter(|b| (0.0..256.0).contains(b))
                    .map(|b| b as u8),
            })),
            _ => Err(Error::storage(format!(
                "storage adapter end({name}) returned neither null nor {{length, last}}"
            ))),
        }
    }

    async fn write_at(&self, name: &str, at: u64, data: &[u8]) -> Result<()> {
        let has_append =
            Reflect::get(&self.adapter, &"append".into()).is_ok_and(|f| f.is_function());
        if !has_append {
            let blob = self.read(name).await?.unwrap_or_default();
            return self.write(name, &super::appended(blob, at, data)).await;
        }
        let args = [
            self.stored(name).into(),
            Uint8Array::from(data).into(),
            JsValue::from_f64(at as f64),
        ];
        self.call("append", &args).await.map(|_| ())
    }

    async fn list(&self) -> Result<Vec<String>> {
        let value = self.call("list", &[]).await?.unwrap_or(JsValue::UNDEFINED);
        let Some(array) = value.dyn_ref::<js_sys::Array>() else {
            return Err(Error::storage(
                "storage adapter list() must return an array of names",
            ));
        };
        let names = array.iter().filter_map(|v| v.as_string());
        Ok(if self.prefix.is_empty() {
            // The named workspaces' blobs are not the default memory's.
            names.filter(|n| !n.starts_with(WORKSPACES)).collect()
        } else {
            names
                .filter_map(|n| n.strip_prefix(&*self.prefix).map(str::to_string))
                .collect()
        })
    }

    async fn lock(&self) -> Result<()> {
        if self.depth.get() == 0 {
            self.call("lock", &[]).await?;
        }
        self.depth.set(self.depth.get() + 1);
        Ok(())
    }

    async fn unlock(&self) -> Result<()> {
        match self.depth.get() {
            0 => Ok(()),
            1 => {
                self.depth.set(0);
                self.call("unlock", &[]).await.map(|_| ())
            }
            n => {
                self.depth.set(n - 1);
                Ok(())
            }
        }
    }

    fn now_ms(&self) -> u64 {
        now()
    }
}
