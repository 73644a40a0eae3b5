//! Memories in IndexedDB: sqlite-wasm-rs 0.6 has no IndexedDB VFS, so the
//! database runs in memory and after every commit its image (SQLite's
//! `serialize`) is stored in the IndexedDB database `mnemo:<name>` with its
//! change counter, in one transaction with `"strict"` durability. The image
//! is kept in pages of [`PAGE`] bytes, one record each, and a commit stores
//! only the pages it changed: a note write costs a few small records, not
//! the whole database (which a browser would also move out to a file of its
//! own past 64 KiB). A call that finds the stored counter moved (another
//! tab committed) reloads it. Beside the counter the image has an identity
//! stamp, drawn when it is first stored whole (or found missing), so that a
//! memory deleted and made again up to the same counter is not taken for
//! the one this context keeps: a page that closes a memory keeps its
//! database in memory and, at the next open, reloads only when the counter
//! or the stamp moved.

use std::cell::{Cell, RefCell};

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
    fn idb_save(
        name: &str,
        version: f64,
        size: f64,
        count: u32,
        indices: Vec<u32>,
        pages: js_sys::Array,
        legacy: bool,
        id: Option<String>,
    ) -> Promise;
}

/// Bytes per IndexedDB record of an image: a SQLite page of mnemo's
/// databases, and well below the size at which a browser moves a value out
/// to a file of its own.
const PAGE: usize = 8192;

/// What this context knows of memory `name`'s stored image.
pub struct Stored {
    /// The change counter of the image loaded or last stored (-1: none).
    seen: Cell<i64>,
    /// That image's identity stamp (`None`: an image stored before stamps).
    id: RefCell<Option<String>>,
    /// That image's bytes, to find the pages a commit changed; `None`
    /// when the stored image is an earlier release's single record (the
    /// next commit stores every page).
    bytes: RefCell<Option<Vec<u8>>>,
}

impl Default for Stored {
    /// Nothing known yet: the first call loads.
    fn default() -> Stored {
        Stored {
            seen: Cell::new(-1),
            id: RefCell::new(None),
            bytes: RefCell::new(None),
        }
    }
}

impl Stored {
    /// Forgets the image: the next call loads it again.
    pub(super) fn forget(&self) {
        self.seen.set(-1);
        self.id.replace(None);
        self.bytes.replace(None);
    }
}

/// A commit to store: the pages of the new image that differ from the
/// stored one, by index.
struct Pages {
    size: usize,
    indices: Vec<u32>,
    pages: js_sys::Array,
    /// Whether the stored image is an earlier release's single record (or
    /// none): every page is stored and that record removed.
    legacy: bool,
}

/// The pages of `image` that differ from `kept`, the image stored now
/// (`None`: an earlier release's record, or none at all), which is
/// brought up to `image` in place.
fn changed_pages(kept: &mut Option<Vec<u8>>, image: &[u8]) -> Pages {
    let legacy = kept.is_none();
    let before = kept.get_or_insert_with(Vec::new);
    let (mut indices, pages) = (Vec::new(), js_sys::Array::new());
    for (i, page) in image.chunks(PAGE).enumerate() {
        let start = i * PAGE;
        let old = before.get(start..(start + page.len()).min(before.len()));
        if !legacy && old == Some(page) {
            continue;
        }
        indices.push(i as u32);
        pages.push(&Uint8Array::from(page));
    }
    before.resize(image.len(), 0);
    for &i in &indices {
        let start = i as usize * PAGE;
        let end = (start + PAGE).min(image.len());
        before[start..end].copy_from_slice(&image[start..end]);
    }
    Pages {
        size: image.len(),
        indices,
        pages,
        legacy,
    }
}

/// A new identity stamp for an image: the time and 53 random bits.
fn new_stamp() -> String {
    let random = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
    format!("{:x}-{random:x}", js_sys::Date::now() as u64)
}

/// Stores `pages` as memory `name`'s image at change counter `version`,
/// with `id` as its new identity stamp when given.
async fn save(name: &str, version: i64, pages: Pages, id: Option<String>) -> Result<()> {
    wait(idb_save(
        name,
        version as f64,
        pages.size as f64,
        pages.size.div_ceil(PAGE) as u32,
        pages.indices,
        pages.pages,
        pages.legacy,
        id,
    ))
    .await
    .map(|_| ())
}

async fn wait(promise: Promise) -> Result<JsValue> {
    JsFuture::from(promise).await.map_err(js_error)
}

/// A string property of `value`, if it has one.
fn string_at(value: &JsValue, key: &str) -> Option<String> {
    js_sys::Reflect::get(value, &key.into())
        .ok()
        .and_then(|v| v.as_string())
}

/// A number property of `value`, if it has one.
fn number_at(value: &JsValue, key: &str) -> Option<f64> {
    js_sys::Reflect::get(value, &key.into())
        .ok()
        .and_then(|v| v.as_f64())
}

/// The stored image of memory `name`: `(version, id, bytes, paged)`,
/// `paged` false for an earlier release's single record.
async fn image(name: &str) -> Result<Option<(i64, Option<String>, Vec<u8>, bool)>> {
    let image = wait(idb_load(name)).await?;
    if image.is_null() || image.is_undefined() {
        return Ok(None);
    }
    let get = |key: &str| js_sys::Reflect::get(&image, &key.into()).ok();
    let version = number_at(&image, "version").unwrap_or(0.0) as i64;
    let bytes = get("bytes")
        .and_then(|b| b.dyn_into::<Uint8Array>().ok())
        .map(|b| b.to_vec())
        .unwrap_or_default();
    let paged = get("paged").is_some_and(|p| p.is_truthy());
    Ok(Some((version, string_at(&image, "id"), bytes, paged)))
}

/// Makes `db` hold memory `name`'s stored database if `check` passes it,
/// unless the one loaded is the stored image at its change counter (`seen`,
/// and the same identity stamp). Call under the lock.
pub async fn load(
    name: &str,
    stored: &Stored,
    db: &Slot,
    check: impl FnOnce(&rusqlite::Connection) -> Result<()>,
) -> Result<()> {
    let now = wait(idb_version(name)).await?;
    let version = number_at(&now, "version").unwrap_or(-1.0) as i64;
    if db.is_open() && version == stored.seen.get() && string_at(&now, "id") == *stored.id.borrow()
    {
        return Ok(());
    }
    stored.forget();
    let image = image(name).await?;
    let conn = from_image(image.as_ref().map(|(_, _, b, _)| &b[..]))?;
    check(&conn)?;
    stored.seen.set(db::version(&conn)?);
    let (id, bytes) = match image {
        Some((_, id, bytes, paged)) => (id, paged.then_some(bytes)),
        None => (None, None),
    };
    stored.id.replace(id);
    // With nothing stored yet, the first commit stores every page.
    stored.bytes.replace(bytes);
    db.set(conn);
    Ok(())
}

/// Stores `db`'s image as memory `name`'s, durably. On failure the
/// in-memory copy is dropped so the next call reloads the last durable
/// state: a failed write changes nothing.
pub async fn persist(name: &str, stored: &Stored, db: &Slot) -> Result<()> {
    // The database as SQLite holds it (no copy when it was deserialized),
    // compared with the image kept from the last load or commit.
    let (version, pages) = {
        let mut conn = db.get_mut()?;
        let version = db::version(&conn)?;
        let image = conn.serialize("main").map_err(db::sql_error)?;
        (
            version,
            changed_pages(&mut stored.bytes.borrow_mut(), &image),
        )
    };
    // A whole image, or one stored before stamps, gets a new stamp.
    let id = (pages.legacy || stored.id.borrow().is_none()).then(new_stamp);
    match save(name, version, pages, id.clone()).await {
        Ok(()) => {
            stored.seen.set(version);
            if id.is_some() {
                stored.id.replace(id);
            }
            Ok(())
        }
        Err(e) => {
            db.take();
            stored.forget();
            Err(e)
        }
    }
}

/// Recovers memory `name`'s damaged image: keeps it as the record
/// `damaged-<stamp>` and stores a fresh database with what still reads
/// back. Returns the salvaged blobs' names and where the damaged image is
/// kept.
pub async fn recover(name: &str, stamp: u64) -> Result<(Vec<String>, String)> {
    let Some((version, _, bytes, _)) = image(name).await? else {
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
    save(
        name,
        version + 1,
        changed_pages(&mut None, &image),
        Some(new_stamp()),
    )
    .await?;
    conn.close().map_err(|(_, e)| db::sql_error(e))?;
    Ok((
        salvaged.iter().map(|c| c.name().to_string()).collect(),
        format!("IndexedDB database mnemo:{name}, record {kept}"),
    ))
}
