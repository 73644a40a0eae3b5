//! Persistent memories in a browser: one SQLite database per memory name
//! (a [`SqliteStorage`] in the layout of [`crate::db`]) on OPFS
//! ([`opfs`], dedicated workers only) or as an image in IndexedDB
//! ([`idb`]), shared by the origin's tabs and workers under a leased Web
//! Lock ([`lease`]); plus what works on every memory of the origin:
//! `Memory.list`, `Memory.recover`, `Memory.delete`.
//!
//! [`Browser`] is the [`Backing`]: each call takes the lease (a Web Lock,
//! unless still held) and brings this context's database up to date (the
//! IndexedDB image is reloaded when its counter moved; the OPFS pool is
//! resumed, so its file handles are held only with the lock); a write is
//! persisted before its promise resolves (SQLite on OPFS, or IndexedDB with
//! "strict" durability); the end of a call tells the other contexts through
//! the BroadcastChannel.
//!
//! Needs the `js` and `sqlite` features; the glue JS is js/browser-db.js.

mod idb;
mod lease;
mod opfs;
mod paged;

use js_sys::Promise;
use rusqlite::Connection;
use sqlite_wasm_vfs::sahpool::OpfsSAHPoolUtil;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use lease::Lease;

use crate::db;
use crate::error::{Error, ErrorKind, Result};
use crate::storage::adapter::js_error;
use crate::storage::sqlite::{Backing, Slot, SqliteStorage};
use crate::storage::{check_key, Storage};

#[wasm_bindgen(module = "/js/browser-db.js")]
extern "C" {
    #[wasm_bindgen(js_name = opfsAvailable)]
    fn opfs_available() -> bool;
    #[wasm_bindgen(js_name = listMemories)]
    fn list_memories() -> Promise;
    #[wasm_bindgen(js_name = removeMemory)]
    fn remove_memory(name: &str) -> Promise;
}

async fn wait(promise: Promise) -> Result<JsValue> {
    JsFuture::from(promise).await.map_err(js_error)
}

/// Where a browser memory's database lives.
enum Place {
    /// OPFS, through an opfs-sahpool pool of its own (`mnemo/<name>`).
    Opfs(OpfsSAHPoolUtil),
    /// A serialized image in IndexedDB database `mnemo:<name>`.
    IndexedDb(idb::Stored),
}

/// The [`Backing`] of a memory kept on OPFS or in IndexedDB; see the
/// module docs.
pub struct Browser {
    name: String,
    place: Place,
    lease: Lease,
}

/// Which backend `storage: "auto"` resolves to here.
pub fn auto_backend() -> &'static str {
    if opfs_available() {
        "opfs"
    } else if idb::available() {
        "indexeddb"
    } else {
        "memory"
    }
}

/// Opens memory `name` on `kind` (`opfs` or `indexeddb`), loading (or
/// creating) its database now, so that a damaged or newer one is reported
/// here.
pub async fn open(name: &str, kind: &str) -> Result<SqliteStorage<Browser>> {
    check_key(name)?;
    let db = Slot::default();
    let browser = match kind {
        "indexeddb" => {
            if !idb::available() {
                return Err(Error::new(
                    ErrorKind::Storage,
                    "IndexedDB is not available in this context (private browsing, or not a browser)",
                ));
            }
            Browser {
                name: name.to_string(),
                place: Place::IndexedDb(idb::Stored::default()),
                lease: Lease::new(name, None, Box::new(|| ())),
            }
        }
        "opfs" => {
            if !opfs_available() {
                return Err(Error::new(
                    ErrorKind::InvalidConfig,
                    "storage \"opfs\" runs only in a dedicated Worker (OPFS sync access \
                     handles exist nowhere else); in a page import \"mnemo/browser\", which \
                     starts the worker itself, or use \"indexeddb\"",
                ));
            }
            // Pools are per name so that `delete(name)` removes one
            // directory and a context holds only the files it needs.
            let release = lease::acquire(name, "open", &JsValue::NULL).await?;
            let util = opfs::pool(name).await.inspect_err(|_| {
                let _ = release.call0(&JsValue::NULL);
            })?;
            let let_go = opfs::let_go(name, util.clone(), db.clone());
            Browser {
                name: name.to_string(),
                place: Place::Opfs(util),
                lease: Lease::new(name, Some(release), let_go),
            }
        }
        other => {
            return Err(Error::new(
                ErrorKind::InvalidConfig,
                format!("unknown browser storage {other:?}"),
            ))
        }
    };
    let storage = SqliteStorage::with_slot(db, browser);
    storage.lock().await?;
    storage.unlock().await?;
    Ok(storage)
}

impl Browser {
    /// Listens to the other contexts of this memory (see
    /// [`lease`]): `changed` and `deleted` are passed to `on_message`.
    pub fn subscribe(&self, on_message: js_sys::Function) {
        self.lease.subscribe(on_message);
    }

    /// Stops listening and lets go of the lock (on close).
    pub fn close(&self) {
        self.lease.close();
    }

    /// Lets go of the lock, so that the next call takes it again and
    /// checks storage as an open would: for a memory a page closed but
    /// keeps for its next open. The database stays loaded: on OPFS SQLite
    /// reads its file again where another context changed it; in
    /// IndexedDB it is reloaded when the stored change counter or identity
    /// stamp moved. Call between calls.
    pub fn suspend(&self) {
        self.lease.let_go();
    }

    async fn load(&self, db: &Slot) -> Result<()> {
        let kind = self.kind();
        let check = |conn: &Connection| checked(conn, &self.name, kind);
        match &self.place {
            Place::Opfs(util) => opfs::load(&self.name, util, db, check).await,
            Place::IndexedDb(stored) => idb::load(&self.name, stored, db, check).await,
        }
    }
}

impl Backing for Browser {
    fn kind(&self) -> &str {
        match self.place {
            Place::Opfs(_) => "opfs",
            Place::IndexedDb(_) => "indexeddb",
        }
    }

    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    async fn acquire(&self, db: &Slot) -> Result<()> {
        let fresh = self.lease.take().await?;
        // A new lease may find another context's commits; a held one keeps
        // the database as it left it.
        if fresh || !db.is_open() {
            if let Err(e) = self.load(db).await {
                self.lease.abort();
                return Err(e);
            }
        }
        Ok(())
    }

    async fn persist(&self, db: &Slot) -> Result<()> {
        match &self.place {
            // SQLite's commit on OPFS is the durable write.
            Place::Opfs(_) => Ok(()),
            Place::IndexedDb(stored) => idb::persist(&self.name, stored, db).await,
        }
    }

    async fn release(&self, _db: &Slot, changed: bool) -> Result<()> {
        self.lease.end(changed);
        Ok(())
    }
}

/// [`db::check`] for memory `name` on `kind`: a damaged database's error
/// says how to recover it.
fn checked(conn: &Connection, name: &str, kind: &str) -> Result<()> {
    if db::newer(conn) {
        return db::prepare(conn);
    }
    db::check(conn).map_err(|e| match e.kind() {
        ErrorKind::StoreDamaged => Error::new(
            ErrorKind::StoreDamaged,
            format!(
                "{} Memory.recover({name:?}, {{storage: {kind:?}}}) keeps it aside and starts a \
                 fresh memory from the Markdown text it still holds.",
                e.message()
            ),
        ),
        _ => e,
    })
}

/// What `recover` did.
#[derive(serde::Serialize)]
pub struct Recovered {
    /// The memory.
    pub name: String,
    /// The blobs read back and carried into the fresh database.
    pub salvaged: Vec<String>,
    /// Where the damaged database is kept.
    pub kept: String,
}

/// Every memory name this origin stores something for: `Memory.list()`.
pub async fn list_all() -> Result<Vec<String>> {
    let names = wait(list_memories()).await?;
    Ok(js_sys::Array::from(&names)
        .iter()
        .filter_map(|v| v.as_string())
        .collect())
}

/// Recovers memory `name` on `kind` from a damaged database: the damaged
/// file is kept (IndexedDB: the record `damaged-<ms>`; OPFS: the pool file
/// `/damaged-<ms>.db`), and a fresh database starts with the stores and
/// history that still read back. A sound database or one from a newer
/// mnemo is refused and left alone.
pub async fn recover(name: &str, kind: &str) -> Result<Recovered> {
    check_key(name)?;
    if kind == "opfs" && !opfs_available() {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "recovering an OPFS memory needs a dedicated Worker (mnemo/browser starts one)",
        ));
    }
    if !matches!(kind, "opfs" | "indexeddb") {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            "recover works on storage \"opfs\" or \"indexeddb\"",
        ));
    }
    let release = lease::acquire(name, "recover", &JsValue::NULL).await?;
    let stamp = js_sys::Date::now() as u64;
    let result = if kind == "opfs" {
        opfs::recover(name, stamp).await
    } else {
        idb::recover(name, stamp).await
    };
    let _ = release.call0(&JsValue::NULL);
    let (salvaged, kept) = result?;
    lease::announce(name, "changed:recover");
    Ok(Recovered {
        name: name.to_string(),
        salvaged,
        kept,
    })
}

/// Removes every byte of memory `name` (OPFS and IndexedDB) under its
/// lock; returns the backends that held data.
pub async fn remove_all(name: &str) -> Result<Vec<String>> {
    check_key(name)?;
    let release = lease::acquire(name, "delete", &JsValue::NULL).await?;
    // A pool of this context must let go of its files first.
    let removed = match opfs::forget(name).await {
        Ok(()) => wait(remove_memory(name)).await,
        Err(e) => Err(e),
    };
    let _ = release.call0(&JsValue::NULL);
    let removed = removed?;
    lease::announce(name, "deleted:delete");
    Ok(js_sys::Array::from(&removed)
        .iter()
        .filter_map(|v| v.as_string())
        .collect())
}
