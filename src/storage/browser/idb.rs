//! Memories in IndexedDB: sqlite-wasm-rs 0.6 has no IndexedDB VFS, so the
//! database runs in memory and after every commit its image (SQLite's
//! `serialize`) is stored in the IndexedDB database `mnemo:<name>` with its
//! change counter, in one transaction with `"strict"` durability. A call
//! that finds the stored counter moved (another tab committed) reloads it.

use std::cell::Cell;

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::db;
use crate::error::{Error, ErrorKind, Result};
use crate::storage::adapter::js_error;
use crate::storage::sqlite::{from_image, to_image, Slot};

#[wasm_bindgen(module = "/js/browser-db.js")]
extern "C" {
    #[wasm_bindgen(js_name = idbAvailable)]
    pub fn available() -> bool;
    #[wasm_bindgen(js_name = idbVersion)]
    fn idb_version(name: &str) -> Promise;
    #[wasm_bindgen(js_name = idbLoad)]
    fn idb_load(name: &str) -> Promise;
    #[wasm_bindgen(js_name = idbKeep)]
    fn idb_keep(name: &str, key: &str, bytes: &Uint8Array) -> Promise;
    #[wasm_bindgen(js_name = idbSave)]
    fn idb_save(name: &str, version: f64, bytes: &Uint8Array) -> Promise;
}

async fn wait(promise: Promise) -> Result<JsValue> {
    JsFuture::from(promise).await.map_err(js_error)
}

/// The stored image of memory `name`: `(version, bytes)`.
async fn image(name: &str) -> Result<Option<(i64, Vec<u8>)>> {
    let image = wait(idb_load(name)).await?;
    if image.is_null() || image.is_undefined() {
        return Ok(None);
    }
    let get = |key: &str| js_sys::Reflect::get(&image, &key.into()).ok();
    let version = get("version").and_then(|v| v.as_f64()).unwrap_or(0.0) as i64;
    let bytes = get("bytes")
        .and_then(|b| b.dyn_into::<Uint8Array>().ok())
        .map(|b| b.to_vec())
        .unwrap_or_default();
    Ok(Some((version, bytes)))
}

/// Makes `db` hold memory `name`'s stored database if `check` passes it,
/// unless the one loaded is at the stored change counter (`seen`). Call
/// under the lock.
pub async fn load(
    name: &str,
    seen: &Cell<i64>,
    db: &Slot,
    check: impl FnOnce(&rusqlite::Connection) -> Result<()>,
) -> Result<()> {
    let stored = wait(idb_version(name)).await?.as_f64().unwrap_or(-1.0) as i64;
    if db.is_open() && stored == seen.get() {
        return Ok(());
    }
    let image = image(name).await?;
    let conn = from_image(image.as_ref().map(|(_, b)| &b[..]))?;
    check(&conn)?;
    seen.set(db::version(&conn)?);
    db.set(conn);
    Ok(())
}

/// Stores `db`'s image as memory `name`'s, durably. On failure the
/// in-memory copy is dropped so the next call reloads the last durable
/// state: a failed write changes nothing.
pub async fn persist(name: &str, seen: &Cell<i64>, db: &Slot) -> Result<()> {
    let (version, bytes) = {
        let mut conn = db.get_mut()?;
        (db::version(&conn)?, to_image(&mut conn)?)
    };
    match wait(idb_save(
        name,
        version as f64,
        &Uint8Array::from(&bytes[..]),
    ))
    .await
    {
        Ok(_) => {
            seen.set(version);
            Ok(())
        }
        Err(e) => {
            db.take();
            seen.set(-1);
            Err(e)
        }
    }
}

/// Recovers memory `name`'s damaged image: keeps it as the record
/// `damaged-<stamp>` and stores a fresh database with what still reads
/// back. Returns the salvaged blobs' names and where the damaged image is
/// kept.
pub async fn recover(name: &str, stamp: u64) -> Result<(Vec<String>, String)> {
    let Some((version, bytes)) = image(name).await? else {
        return Err(Error::new(
            ErrorKind::NoMatch,
            format!("there is no IndexedDB memory {name:?} to recover"),
        ));
    };
    let salvaged = match from_image(Some(&bytes)) {
        Ok(conn) => {
            db::needs_recovery(&conn)?;
            db::salvage(&conn)
        }
        Err(_) => Vec::new(),
    };
    let kept = format!("damaged-{stamp}");
    wait(idb_keep(name, &kept, &Uint8Array::from(&bytes[..]))).await?;
    let mut conn = from_image(None)?;
    db::restart(&conn, &salvaged, version + 1)?;
    let image = to_image(&mut conn)?;
    wait(idb_save(
        name,
        (version + 1) as f64,
        &Uint8Array::from(&image[..]),
    ))
    .await?;
    conn.close().map_err(|(_, e)| db::sql_error(e))?;
    Ok((
        salvaged.iter().map(|c| c.name().to_string()).collect(),
        format!("IndexedDB database mnemo:{name}, record {kept}"),
    ))
}
