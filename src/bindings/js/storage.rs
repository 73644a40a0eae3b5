//! Storage backends reachable from JS: a SQLite database in memory, on
//! OPFS or in IndexedDB ([`BrowserDb`]), and any adapter
//! object with async `read(name)`, `write(name, data)`, `list()` and
//! `delete(name)` (plus optional `lock()` / `unlock()`), which is how the
//! Node `"fs"` storage, edge key-value stores and Durable Objects plug in.

use js_sys::{Function, JsString, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::browser::BrowserDb;
use super::interop::{kind_of, message_of};
use crate::error::{Error, Result};
use crate::storage::{Change, Storage};

/// The storage of a JS-side memory.
pub enum JsStorage {
    /// A SQLite database: in memory (lost on reload), on OPFS or in
    /// IndexedDB. Holds the sessions too.
    Db(BrowserDb),
    /// A JS adapter object for the stores; the sessions are a database
    /// image kept through the same adapter.
    Host {
        /// The adapter.
        adapter: Adapter,
        /// The sessions.
        sessions: BrowserDb,
    },
}

fn now() -> u64 {
    js_sys::Date::now() as u64
}

impl JsStorage {
    /// The database holding the sessions.
    pub fn db(&self) -> &BrowserDb {
        match self {
            JsStorage::Db(db) => db,
            JsStorage::Host { sessions, .. } => sessions,
        }
    }

    /// Storage through `adapter`, reported by `status()` as `kind`.
    pub fn host(adapter: JsValue, kind: &'static str) -> Result<JsStorage> {
        let adapter = Adapter::new(adapter, kind)?;
        Ok(JsStorage::Host {
            sessions: BrowserDb::on_adapter(adapter.clone()),
            adapter,
        })
    }
}

/// A JS adapter object with async `read`, `write`, `list`, `delete` and
/// optional `lock` / `unlock`.
#[derive(Clone)]
pub struct Adapter {
    adapter: JsValue,
    /// `fs` or `host`.
    kind: &'static str,
}

impl Adapter {
    /// Checks that `adapter` has the four required methods.
    pub fn new(adapter: JsValue, kind: &'static str) -> Result<Adapter> {
        for method in ["read", "write", "list", "delete"] {
            let f = Reflect::get(&adapter, &method.into()).unwrap_or(JsValue::UNDEFINED);
            if !f.is_function() {
                return Err(Error::new(
                    crate::ErrorKind::InvalidConfig,
                    format!(
                        "the storage adapter has no {method}() method; expected an object with \
                         async read(name), write(name, data), list() and delete(name)"
                    ),
                ));
            }
        }
        Ok(Adapter { adapter, kind })
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
            _ => f.call2(adapter, &args[0], &args[1]),
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
            .call("read", &[name.into()])
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
        self.call("write", &[name.into(), value]).await.map(|_| ())
    }

    async fn delete(&self, name: &str) -> Result<()> {
        self.call("delete", &[name.into()]).await.map(|_| ())
    }

    async fn list(&self) -> Result<Vec<String>> {
        let value = self.call("list", &[]).await?.unwrap_or(JsValue::UNDEFINED);
        let Some(array) = value.dyn_ref::<js_sys::Array>() else {
            return Err(Error::storage(
                "storage adapter list() must return an array of names",
            ));
        };
        Ok(array.iter().filter_map(|v| v.as_string()).collect())
    }

    async fn lock(&self) -> Result<()> {
        self.call("lock", &[]).await.map(|_| ())
    }

    async fn unlock(&self) -> Result<()> {
        self.call("unlock", &[]).await.map(|_| ())
    }

    fn now_ms(&self) -> u64 {
        now()
    }
}

/// Calls `$method` on whichever storage this is.
macro_rules! delegate {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            JsStorage::Db($s) => $call,
            JsStorage::Host { adapter: $s, .. } => $call,
        }
    };
}

impl Storage for JsStorage {
    fn kind(&self) -> &str {
        delegate!(self, s => s.kind())
    }

    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        delegate!(self, s => s.read(name).await)
    }

    async fn write(&self, name: &str, data: &[u8]) -> Result<()> {
        delegate!(self, s => s.write(name, data).await)
    }

    async fn delete(&self, name: &str) -> Result<()> {
        delegate!(self, s => s.delete(name).await)
    }

    async fn list(&self) -> Result<Vec<String>> {
        delegate!(self, s => s.list().await)
    }

    async fn commit(&self, changes: &[Change]) -> Result<()> {
        delegate!(self, s => s.commit(changes).await)
    }

    async fn recover(&self) -> Result<()> {
        delegate!(self, s => s.recover().await)
    }

    async fn lock(&self) -> Result<()> {
        delegate!(self, s => s.lock().await)
    }

    async fn unlock(&self) -> Result<()> {
        delegate!(self, s => s.unlock().await)
    }

    fn now_ms(&self) -> u64 {
        now()
    }
}
