//! Memories in IndexedDB: IndexedDB has no synchronous access, so the
//! database runs in wasm memory on the VFS [`paged`], which records the
//! pages SQLite writes, and after every commit those pages are stored in
//! the IndexedDB database `mnemo:<name>` with the change counter, in one
//! transaction with `"strict"` durability. The image is kept in pages of
//! [`PAGE`] bytes, one record each, and a commit stores only the pages it
//! changed, joined in one log record (IndexedDB charges by the record more
//! than by the byte): a note write costs one small record, whatever the
//! size of the database. Once the log holds
//! [`LOG_RECORDS`](crate::storage::pages::LOG_RECORDS) records or
//! [`LOG_BYTES`](crate::storage::pages::LOG_BYTES) bytes, the next commit
//! folds it: it stores every page the log changed at its own key and
//! clears the log. js/browser-db.js has the layout. A call that finds the
//! stored counter moved (another tab committed) reloads it. Beside the
//! counter the image has an identity stamp, drawn when it is first stored
//! whole (or found missing), so that a memory deleted and made again up to
//! the same counter is not taken for the one this context keeps: a page
//! that closes a memory keeps its database in memory and, at the next open,
//! reloads only when the counter or the stamp moved.

use std::cell::{Cell, RefCell};

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::paged;
use crate::db;
use crate::error::{Error, ErrorKind, Result};
use crate::storage::adapter::js_error;
use crate::storage::pages::{plan, Commit, Log, Mode, PAGE};
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
        page: u32,
        indices: Vec<u32>,
        bytes: &Uint8Array,
        mode: &str,
        id: Option<String>,
    ) -> Promise;
}

/// What this context knows of memory `name`'s stored image.
pub struct Stored {
    /// The change counter of the image loaded or last stored (-1: none).
    seen: Cell<i64>,
    /// That image's identity stamp (`None`: an image stored before stamps).
    id: RefCell<Option<String>>,
    /// The file of the database loaded (see [`paged`]), which knows the
    /// pages SQLite wrote since the last commit.
    file: RefCell<Option<paged::Shared>>,
    /// The stored image is an earlier release's single record, or there is
    /// none: the next commit stores every page.
    whole: Cell<bool>,
    /// What the stored log holds: the pages it changed since the last fold,
    /// its records and their bytes.
    log: RefCell<Log>,
}

impl Default for Stored {
    /// Nothing known yet: the first call loads.
    fn default() -> Stored {
        Stored {
            seen: Cell::new(-1),
            id: RefCell::new(None),
            file: RefCell::new(None),
            whole: Cell::new(true),
            log: RefCell::default(),
        }
    }
}

impl Stored {
    /// Forgets the image: the next call loads it again.
    pub(super) fn forget(&self) {
        self.seen.set(-1);
        self.id.replace(None);
        self.file.replace(None);
        self.whole.set(true);
        self.log.take();
    }
}

/// A new identity stamp for an image: the time and 53 random bits.
fn new_stamp() -> String {
    let random = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
    format!("{:x}-{random:x}", js_sys::Date::now() as u64)
}

/// Stores `commit` as memory `name`'s image at change counter `version`,
/// with `id` as its new identity stamp when given.
async fn save(name: &str, version: i64, commit: Commit, id: Option<String>) -> Result<()> {
    wait(idb_save(
        name,
        version as f64,
        commit.size as f64,
        PAGE as u32,
        commit.indices,
        &Uint8Array::from(&commit.bytes[..]),
        commit.mode.as_str(),
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

/// A stored image as read back.
struct Image {
    version: i64,
    /// Its identity stamp.
    id: Option<String>,
    /// The database, the log applied.
    bytes: Vec<u8>,
    /// `false` for an earlier release's single record.
    paged: bool,
    /// What its log holds.
    log: Log,
    /// A log record did not read as one; `bytes` has the log applied up
    /// to it.
    damaged: bool,
}

/// The stored image of memory `name`, if there is one.
async fn image(name: &str) -> Result<Option<Image>> {
    let image = wait(idb_load(name)).await?;
    if image.is_null() || image.is_undefined() {
        return Ok(None);
    }
    let get = |key: &str| js_sys::Reflect::get(&image, &key.into()).ok();
    let bytes = get("bytes")
        .and_then(|b| b.dyn_into::<Uint8Array>().ok())
        .map(|b| b.to_vec())
        .unwrap_or_default();
    let pages = get("logged")
        .map(|l| js_sys::Array::from(&l))
        .into_iter()
        .flat_map(|l| l.iter().filter_map(|i| i.as_f64()).collect::<Vec<_>>())
        .map(|i| i as u32)
        .collect();
    let count = |key| number_at(&image, key).unwrap_or(0.0) as usize;
    Ok(Some(Image {
        version: number_at(&image, "version").unwrap_or(0.0) as i64,
        id: string_at(&image, "id"),
        bytes,
        paged: get("paged").is_some_and(|p| p.is_truthy()),
        log: Log {
            pages,
            records: count("logs"),
            bytes: count("logBytes"),
        },
        damaged: get("damaged").is_some_and(|d| d.is_truthy()),
    }))
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
    if image.as_ref().is_some_and(|i| i.damaged) {
        return Err(Error::new(
            ErrorKind::StoreDamaged,
            format!(
                "the IndexedDB log of memory {name:?} is damaged (a record that is not a \
                 commit). Memory.recover({name:?}, {{storage: \"indexeddb\"}}) keeps it aside \
                 and starts a fresh memory from the Markdown text the commits before it hold."
            ),
        ));
    }
    let (bytes, whole, id, log) = match image {
        Some(i) => (i.bytes, !i.paged, i.id, i.log),
        None => (Vec::new(), true, None, Log::default()),
    };
    let (conn, file) = paged::open(bytes)?;
    check(&conn)?;
    stored.seen.set(db::version(&conn)?);
    stored.id.replace(id);
    stored.file.replace(Some(file));
    stored.whole.set(whole);
    stored.log.replace(log);
    db.set(conn);
    Ok(())
}

/// Stores `db`'s image as memory `name`'s, durably. On failure the
/// in-memory copy is dropped so the next call reloads the last durable
/// state: a failed write changes nothing.
pub async fn persist(name: &str, stored: &Stored, db: &Slot) -> Result<()> {
    // The pages SQLite wrote since the last commit, from the database's
    // own file: nothing is compared or copied whole.
    let version = db::version(&*db.get_mut()?)?;
    let commit = {
        let file = stored.file.borrow();
        let Some(file) = file.as_ref() else {
            return Err(Error::new(
                ErrorKind::Internal,
                "an IndexedDB memory committed without a loaded database",
            ));
        };
        let mut file = file.borrow_mut();
        let dirty = file.take_dirty();
        if stored.whole.get() {
            Commit::whole(file.bytes())
        } else {
            plan(&mut stored.log.borrow_mut(), dirty, file.bytes())
        }
    };
    // A whole image, or one stored before stamps, gets a new stamp.
    let id = (commit.mode == Mode::Whole || stored.id.borrow().is_none()).then(new_stamp);
    match save(name, version, commit, id.clone()).await {
        Ok(()) => {
            stored.seen.set(version);
            stored.whole.set(false);
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
    let Some(Image {
        version,
        bytes,
        damaged,
        ..
    }) = image(name).await?
    else {
        return Err(Error::new(
            ErrorKind::NoMatch,
            format!("there is no IndexedDB memory {name:?} to recover"),
        ));
    };
    let salvaged = match from_image(Some(&bytes)) {
        Ok(conn) => {
            // A damaged log leaves a sound database of the commits before
            // it: that is what is salvaged.
            if !damaged {
                db::needs_recovery(&conn)?;
            }
            db::salvage(&conn)
        }
        Err(_) => Vec::new(),
    };
    let kept = format!("damaged-{stamp}");
    wait(idb_keep(name, &kept, &Uint8Array::from(&bytes[..]))).await?;
    let mut conn = from_image(None)?;
    db::restart(&conn, &salvaged, version + 1)?;
    let image = to_image(&mut conn)?;
    save(name, version + 1, Commit::whole(&image), Some(new_stamp())).await?;
    conn.close().map_err(|(_, e)| db::sql_error(e))?;
    Ok((
        salvaged.iter().map(|c| c.name().to_string()).collect(),
        format!("IndexedDB database mnemo:{name}, record {kept}"),
    ))
}
