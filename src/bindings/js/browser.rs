//! Persistent storage in a browser: one SQLite database per memory name
//! (the layout of [`crate::db`]), kept on OPFS through the `opfs-sahpool`
//! VFS (dedicated workers only) or as a serialized image in IndexedDB; the
//! in-memory backend uses the same database without persisting it.
//!
//! Several tabs and workers of one origin share a memory through a Web Lock
//! per name: [`Storage::lock`] takes it (or finds it still leased, see
//! [`BrowserDb`]) and brings this context's database up to date (the
//! IndexedDB image is reloaded when its version moved; the OPFS pool is
//! resumed, so its file handles are held only with the lock);
//! [`BrowserDb::with`] runs every access under it and persists a write;
//! [`Storage::unlock`] tells the other contexts through a BroadcastChannel.
//! A commit's promise resolves only once SQLite (OPFS) or IndexedDB
//! ("strict" durability) has the data. With a storage adapter the same
//! database holds only the sessions, as an image kept through the adapter.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Promise, Uint8Array};
use rusqlite::{Connection, OpenFlags};
use sqlite_wasm_rs::vfs::{transfer::DbTransfer, VfsFilesManager};
use sqlite_wasm_vfs::sahpool::{install, OpfsSAHError, OpfsSAHPoolCfgBuilder, OpfsSAHPoolUtil};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::interop::{kind_of, message_of};
use super::storage::Adapter;
use crate::db::{self, sql_error};
use crate::error::{Error, ErrorKind, Result};
use crate::sessions::Sessions;
use crate::storage::{Change, Storage};

#[wasm_bindgen(module = "/js/browser-db.js")]
extern "C" {
    #[wasm_bindgen(js_name = opfsAvailable)]
    fn opfs_available() -> bool;
    #[wasm_bindgen(js_name = idbAvailable)]
    fn idb_available() -> bool;
    #[wasm_bindgen(js_name = lockAcquire)]
    fn lock_acquire(name: &str) -> Promise;
    #[wasm_bindgen(js_name = idbVersion)]
    fn idb_version(name: &str) -> Promise;
    #[wasm_bindgen(js_name = idbLoad)]
    fn idb_load(name: &str) -> Promise;
    #[wasm_bindgen(js_name = idbKeep)]
    fn idb_keep(name: &str, key: &str, bytes: &Uint8Array) -> Promise;
    #[wasm_bindgen(js_name = idbSave)]
    fn idb_save(name: &str, version: f64, bytes: &Uint8Array) -> Promise;
    #[wasm_bindgen(js_name = listMemories)]
    fn list_memories() -> Promise;
    #[wasm_bindgen(js_name = removeMemory)]
    fn remove_memory(name: &str) -> Promise;
    #[wasm_bindgen(js_name = channelOpen)]
    fn channel_open(name: &str, on_message: &Function) -> JsValue;
    #[wasm_bindgen(js_name = channelPost)]
    fn channel_post(channel: &JsValue, data: &JsValue);
    #[wasm_bindgen(js_name = channelClose)]
    fn channel_close(channel: &JsValue);
    #[wasm_bindgen(js_name = channelAnnounce)]
    fn channel_announce(name: &str, data: &JsValue);
    #[wasm_bindgen(js_name = later)]
    fn later(ms: u32, f: &JsValue);
}

/// How long a context keeps the lock and the open database after its last
/// call when nobody else asked for them: calls in a burst then skip the
/// acquisition (a Web Lock, and with OPFS the pool's file handles).
const LEASE_MS: u32 = 1_000;

/// Where the database lives.
pub enum Backend {
    /// In wasm memory only (lost on reload).
    Memory,
    /// OPFS through an opfs-sahpool pool of its own (`mnemo/<name>`).
    Opfs(OpfsSAHPoolUtil),
    /// A serialized image in IndexedDB database `mnemo:<name>`.
    IndexedDb,
    /// A serialized image kept through a storage adapter (Node's `"fs"`,
    /// edge stores): the sessions of a memory whose stores live there.
    Adapter(Adapter),
}

/// The adapter blob holding the sessions' database image.
pub const SESSIONS_BLOB: &str = "sessions.db";
/// The adapter blob holding that image's change counter.
pub const SESSIONS_VERSION_BLOB: &str = "sessions.version";

/// Which backend `storage: "auto"` resolves to here.
pub fn auto_backend() -> &'static str {
    if opfs_available() {
        "opfs"
    } else if idb_available() {
        "indexeddb"
    } else {
        "memory"
    }
}

/// Checks a memory name: it becomes an OPFS directory, an IndexedDB
/// database name and a lock name.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::InvalidConfig,
            format!(
                "memory name {name:?} must be 1 to 64 of A-Z a-z 0-9 - _ . (not starting with a dot)"
            ),
        ))
    }
}

const DB_FILE: &str = "/mnemo.db";

thread_local! {
    /// The memories whose OPFS pool this context installed.
    static POOLS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The VFS name of memory `name`'s pool.
fn vfs_name(name: &str) -> String {
    format!("mnemo-{name}")
}

/// Installs (or finds) memory `name`'s OPFS pool (the directory
/// `mnemo/<name>`) and makes sure it holds its file handles. Call under the
/// lock.
async fn opfs_pool(name: &str) -> Result<OpfsSAHPoolUtil> {
    let cfg = OpfsSAHPoolCfgBuilder::new()
        .vfs_name(&vfs_name(name))
        .directory(&format!("mnemo/{name}"))
        .initial_capacity(4)
        .build();
    let util = match install::<sqlite_wasm_rs::WasmOsCallback>(&cfg, false).await {
        Ok(util) if util.is_paused() => util.resume().await.map(|_| util),
        other => other,
    };
    let util = util.map_err(|e| opfs_error("open", e))?;
    POOLS.with(|pools| {
        let mut pools = pools.borrow_mut();
        if !pools.iter().any(|n| n == name) {
            pools.push(name.to_string());
        }
    });
    Ok(util)
}

/// Uninstalls memory `name`'s pool if this context installed it, so its
/// directory can go. Call under the lock.
async fn opfs_forget(name: &str) -> Result<()> {
    let installed = POOLS.with(|pools| {
        let mut pools = pools.borrow_mut();
        let at = pools.iter().position(|n| n == name);
        at.map(|i| pools.remove(i)).is_some()
    });
    if !installed {
        return Ok(());
    }
    let util = opfs_pool(name).await?;
    POOLS.with(|pools| pools.borrow_mut().retain(|n| n != name));
    // SAFETY: no connection of this pool is open outside the lock (we hold
    // it, and every holder closes its connection before letting go), and
    // the pool is not used afterwards: a memory still open on it was told
    // it is deleted and fails with a clear error.
    unsafe { util.uninstall() }.map_err(|e| opfs_error("close", e))
}

/// Opens memory `name`'s database file in its (active) pool.
fn opfs_connection(name: &str, file: &str) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags_and_vfs(file, flags, vfs_name(name).as_str())
        .map_err(sql_error)?;
    // The pool's files are slots: keeping the journal file (zeroing its
    // header) saves deleting and re-creating it, and a flush, on every
    // commit. Still atomic.
    conn.pragma_update(None, "journal_mode", "PERSIST")
        .map_err(sql_error)?;
    // Larger pages mean fewer OPFS writes per commit (each costs about as
    // much as its bytes); applies to databases created from here on.
    conn.pragma_update(None, "page_size", 16384)
        .map_err(sql_error)?;
    // Only the holder of the Web Lock has this connection open, so SQLite
    // may keep its file lock and page cache between statements instead of
    // re-checking the file.
    conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
        .map_err(sql_error)?;
    Ok(conn)
}

/// Whether `conn` holds a database written by a newer mnemo (never
/// touched, never recovered).
fn newer(conn: &Connection) -> bool {
    conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .is_ok_and(|v| v > db::SCHEMA_VERSION)
}

/// [`db::check`] for memory `name` on `kind`: a damaged database's error
/// says how to recover it.
fn checked(conn: &Connection, name: &str, kind: &str) -> Result<()> {
    if newer(conn) {
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

/// The stored IndexedDB image of memory `name`: `(version, bytes)`.
async fn idb_image(name: &str) -> Result<Option<(i64, Vec<u8>)>> {
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

/// An in-memory database holding `image` (empty when there is none).
fn image_connection(image: Option<&[u8]>) -> Result<Connection> {
    let mut conn = Connection::open_in_memory().map_err(sql_error)?;
    if let Some(bytes) = image {
        conn.deserialize_read_exact("main", bytes, bytes.len(), false)
            .map_err(sql_error)?;
    }
    Ok(conn)
}

/// Refuses to recover a database that is sound or from a newer mnemo.
fn needs_recovery(conn: &Connection) -> Result<()> {
    if newer(conn) {
        return db::prepare(conn);
    }
    match db::check(conn) {
        Ok(()) => Err(Error::new(
            ErrorKind::InvalidInput,
            "this memory's database is not damaged; there is nothing to recover",
        )),
        Err(_) => Ok(()),
    }
}

/// A fresh database holding the salvaged blobs at change counter `version`.
fn fresh(conn: &Connection, salvaged: &[Change], version: i64) -> Result<()> {
    db::prepare(conn)?;
    db::commit_blobs(conn, salvaged)?;
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'version'",
        [version],
    )
    .map(|_| ())
    .map_err(sql_error)
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

async fn wait(promise: Promise) -> Result<JsValue> {
    JsFuture::from(promise).await.map_err(js_error)
}

/// A JS failure (a `{code, message}` from browser-db.js or anything else).
fn js_error(thrown: JsValue) -> Error {
    Error::new(kind_of(&thrown), message_of(&thrown))
}

fn opfs_error(what: &str, e: OpfsSAHError) -> Error {
    let kind = match e {
        OpfsSAHError::Opfs { .. } | OpfsSAHError::DirectoryInUse(_) | OpfsSAHError::Busy => {
            ErrorKind::Locked
        }
        _ => ErrorKind::Storage,
    };
    let hint = if kind == ErrorKind::Locked {
        " (is this memory open with OPFS by an older mnemo or another program in this origin?)"
    } else {
        ""
    };
    Error::new(kind, format!("OPFS {what} failed: {e}{hint}"))
}

/// One memory's database in this browser context.
///
/// The lock is leased: after a call the context keeps the Web Lock (and the
/// open database) for [`LEASE_MS`], so a burst of calls pays for one
/// acquisition. Any other context that needs the memory first posts `want`
/// on the memory's channel; the holder lets go as soon as its current call
/// ends. While the lease is held nobody else can write, so the database
/// needs no re-reading.
#[derive(Clone)]
pub struct BrowserDb(Rc<Inner>);

/// The channel listener of a [`BrowserDb`].
type Listener = Closure<dyn FnMut(JsValue)>;

/// The state of a [`BrowserDb`], shared with its channel listener and
/// lease timer.
pub struct Inner {
    name: String,
    /// Tells this context's messages from the others' (`want:<id>`).
    id: String,
    backend: Backend,
    /// Open while the lock is held (OPFS) or always (memory, IndexedDB).
    conn: RefCell<Option<Connection>>,
    /// The change counter this context's database was loaded at.
    seen: Cell<i64>,
    /// Releases the Web Lock while held.
    release: RefCell<Option<Function>>,
    /// Nesting of `lock()` calls.
    depth: Cell<u32>,
    /// Whether something was committed under the current lock.
    dirty: Cell<bool>,
    /// Another context asked for the lock.
    wanted: Cell<bool>,
    /// Generation of the lease timer (a newer call voids older timers).
    lease: Cell<u32>,
    channel: RefCell<JsValue>,
    listener: RefCell<Option<Listener>>,
    /// The sessions' text analysis, kept (with its stem cache) across calls.
    analyzer: crate::text::Analyzer,
}

impl std::ops::Deref for BrowserDb {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        channel_close(&self.channel.replace(JsValue::NULL));
        self.let_go();
    }
}

impl BrowserDb {
    /// Opens memory `name` on `kind` (`memory`, `opfs`, `indexeddb`).
    pub async fn open(name: &str, kind: &str) -> Result<BrowserDb> {
        check_name(name)?;
        let id = format!("{:x}", (js_sys::Math::random() * 1e15) as u64);
        let mut held = None;
        let backend = match kind {
            "memory" => Backend::Memory,
            "indexeddb" => {
                if !idb_available() {
                    return Err(Error::new(
                        ErrorKind::Storage,
                        "IndexedDB is not available in this context (private browsing, or not a browser)",
                    ));
                }
                Backend::IndexedDb
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
                let release = acquire(name, &id, &JsValue::NULL).await?;
                let util = opfs_pool(name).await.inspect_err(|_| {
                    let _ = release.call0(&JsValue::NULL);
                })?;
                held = Some(release);
                Backend::Opfs(util)
            }
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidConfig,
                    format!("unknown browser storage {other:?}"),
                ))
            }
        };
        let db = BrowserDb::new(name, id, backend, held);
        if let Backend::Memory = db.backend {
            let conn = Connection::open_in_memory().map_err(sql_error)?;
            db::prepare(&conn)?;
            *db.conn.borrow_mut() = Some(conn);
        } else {
            // Load (or create) now, so a damaged or newer database is
            // reported by open().
            db.lock().await?;
            db.unlock().await?;
        }
        Ok(db)
    }

    /// The session database of a memory kept by `adapter` (loaded on first
    /// use, under the adapter's lock).
    pub fn on_adapter(adapter: Adapter) -> BrowserDb {
        BrowserDb::new("", String::new(), Backend::Adapter(adapter), None)
    }

    fn new(name: &str, id: String, backend: Backend, held: Option<Function>) -> BrowserDb {
        BrowserDb(Rc::new(Inner {
            name: name.to_string(),
            id,
            backend,
            conn: RefCell::new(None),
            seen: Cell::new(-1),
            release: RefCell::new(held),
            depth: Cell::new(0),
            dirty: Cell::new(false),
            wanted: Cell::new(false),
            lease: Cell::new(0),
            channel: RefCell::new(JsValue::NULL),
            listener: RefCell::new(None),
            analyzer: crate::text::Analyzer::new(),
        }))
    }

    /// Whether other tabs and workers may share this database (and hear of
    /// its changes on its channel).
    pub fn shared(&self) -> bool {
        matches!(self.backend, Backend::Opfs(_) | Backend::IndexedDb)
    }

    /// Listens to the other contexts of this memory: a `want` makes this
    /// one let go of the lock; `changed` (another context committed) and
    /// `deleted` are passed to `on_message`.
    pub fn subscribe(&self, on_message: Function) {
        if !self.shared() {
            return;
        }
        let weak = Rc::downgrade(&self.0);
        let listener = Closure::<dyn FnMut(JsValue)>::new(move |message: JsValue| {
            let Some(inner) = weak.upgrade() else { return };
            let message = message.as_string().unwrap_or_default();
            let (kind, from) = message.split_once(':').unwrap_or((&message, ""));
            if from == inner.id {
                return;
            }
            if kind == "want" {
                if inner.depth.get() == 0 {
                    inner.let_go();
                } else {
                    inner.wanted.set(true);
                }
            } else {
                let _ = on_message.call1(&JsValue::NULL, &kind.into());
            }
        });
        *self.channel.borrow_mut() = channel_open(&self.name, listener.as_ref().unchecked_ref());
        *self.listener.borrow_mut() = Some(listener);
    }

    /// Stops listening and lets go of the lock (on close).
    pub fn close(&self) {
        channel_close(&self.channel.replace(JsValue::NULL));
        self.listener.borrow_mut().take();
        self.let_go();
    }

    async fn load(&self) -> Result<()> {
        match &self.backend {
            Backend::Memory => Ok(()),
            Backend::Adapter(storage) => {
                let stored = match storage.read(SESSIONS_VERSION_BLOB).await? {
                    Some(v) => String::from_utf8_lossy(&v).trim().parse().unwrap_or(-1),
                    None => -1,
                };
                if self.conn.borrow().is_some() && stored == self.seen.get() {
                    return Ok(());
                }
                let image = storage.read(SESSIONS_BLOB).await?;
                let conn = image_connection(image.as_deref()).and_then(|conn| {
                    db::prepare(&conn)?;
                    Ok(conn)
                })?;
                self.seen.set(db::version(&conn)?);
                *self.conn.borrow_mut() = Some(conn);
                Ok(())
            }
            Backend::Opfs(util) => {
                util.resume().await.map_err(|e| opfs_error("resume", e))?;
                let opened = opfs_connection(&self.name, DB_FILE).and_then(|conn| {
                    checked(&conn, &self.name, "opfs")?;
                    Ok(conn)
                });
                match opened {
                    Ok(conn) => {
                        *self.conn.borrow_mut() = Some(conn);
                        Ok(())
                    }
                    Err(e) => {
                        let _ = util.pause();
                        Err(e)
                    }
                }
            }
            Backend::IndexedDb => {
                let stored = wait(idb_version(&self.name))
                    .await?
                    .as_f64()
                    .unwrap_or(-1.0) as i64;
                let loaded = self.conn.borrow().is_some();
                if loaded && stored == self.seen.get() {
                    return Ok(());
                }
                let image = idb_image(&self.name).await?;
                let conn = image_connection(image.as_ref().map(|(_, b)| &b[..]))?;
                checked(&conn, &self.name, "indexeddb")?;
                self.seen.set(db::version(&conn)?);
                *self.conn.borrow_mut() = Some(conn);
                Ok(())
            }
        }
    }

    /// Persists after a commit (IndexedDB: the whole image, durably). On
    /// failure the in-memory copy is dropped so the next lock reloads the
    /// last durable state: a failed write changes nothing.
    async fn persist(&self) -> Result<()> {
        if !matches!(self.backend, Backend::IndexedDb | Backend::Adapter(_)) {
            return Ok(());
        }
        let (version, bytes) = {
            let mut guard = self.conn.borrow_mut();
            let conn = guard.as_mut().ok_or_else(not_loaded)?;
            let version = db::version(conn)?;
            let data = conn.serialize("main").map_err(sql_error)?;
            (version, data.to_vec())
        };
        let saved = match &self.backend {
            // Image and counter in one journaled commit.
            Backend::Adapter(storage) => {
                storage
                    .commit(&[
                        Change::write(SESSIONS_BLOB, &bytes),
                        Change::write(SESSIONS_VERSION_BLOB, version.to_string().as_bytes()),
                    ])
                    .await
            }
            _ => wait(idb_save(
                &self.name,
                version as f64,
                &Uint8Array::from(&bytes[..]),
            ))
            .await
            .map(|_| ()),
        };
        match saved {
            Ok(_) => {
                self.seen.set(version);
                Ok(())
            }
            Err(e) => {
                self.conn.borrow_mut().take();
                self.seen.set(-1);
                Err(e)
            }
        }
    }

    /// Runs `f` on the database under the lock (taken here when the caller
    /// does not hold it); `write` persists and announces the change.
    pub async fn with<R>(
        &self,
        write: bool,
        f: impl FnOnce(&Connection) -> Result<R>,
    ) -> Result<R> {
        self.lock().await?;
        let result = {
            let guard = self.conn.borrow();
            match guard.as_ref() {
                Some(conn) => f(conn),
                None => Err(not_loaded()),
            }
        };

        let result = match result {
            Ok(r) if write => {
                self.dirty.set(true);
                self.persist().await.map(|_| r)
            }
            other => other,
        };
        let unlocked = self.unlock().await;
        let r = result?;
        unlocked?;
        Ok(r)
    }

    /// Runs `f` on the session store of this database, under the lock
    /// (see [`BrowserDb::with`]); `write` persists.
    pub async fn sessions<R>(
        &self,
        write: bool,
        f: impl FnOnce(&mut Sessions<&Connection, &crate::text::Analyzer>) -> Result<R>,
    ) -> Result<R> {
        self.with(write, |c| f(&mut Sessions::prepared(c, &self.analyzer)))
            .await
    }

    /// Everything this origin stores for memory names: `list()`.
    pub async fn list_all() -> Result<Vec<String>> {
        let names = wait(list_memories()).await?;
        Ok(js_sys::Array::from(&names)
            .iter()
            .filter_map(|v| v.as_string())
            .collect())
    }

    /// Recovers memory `name` on `kind` from a damaged database: the
    /// damaged file is kept (IndexedDB: the record `damaged-<ms>`; OPFS: the
    /// pool file `/damaged-<ms>.db`), and a fresh database starts with the
    /// stores and history that still read back. A sound database or one
    /// from a newer mnemo is refused and left alone.
    pub async fn recover(name: &str, kind: &str) -> Result<Recovered> {
        check_name(name)?;
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
        let release = acquire(name, "recover", &JsValue::NULL).await?;
        let stamp = js_sys::Date::now() as u64;
        let result = if kind == "opfs" {
            recover_opfs(name, stamp).await
        } else {
            recover_idb(name, stamp).await
        };
        let _ = release.call0(&JsValue::NULL);
        if result.is_ok() {
            channel_announce(name, &"changed:recover".into());
        }
        result
    }

    /// Removes every byte of memory `name` (OPFS and IndexedDB) under its
    /// lock; returns the backends that held data.
    pub async fn remove_all(name: &str) -> Result<Vec<String>> {
        check_name(name)?;
        let release = acquire(name, "delete", &JsValue::NULL).await?;
        // A pool of this context must let go of its files first.
        let removed = match opfs_forget(name).await {
            Ok(()) => wait(remove_memory(name)).await,
            Err(e) => Err(e),
        };
        let _ = release.call0(&JsValue::NULL);
        let removed = removed?;
        channel_announce(name, &"deleted:delete".into());
        Ok(js_sys::Array::from(&removed)
            .iter()
            .filter_map(|v| v.as_string())
            .collect())
    }
}

async fn recover_idb(name: &str, stamp: u64) -> Result<Recovered> {
    let Some((version, bytes)) = idb_image(name).await? else {
        return Err(Error::new(
            ErrorKind::NoMatch,
            format!("there is no IndexedDB memory {name:?} to recover"),
        ));
    };
    let salvaged = match image_connection(Some(&bytes)) {
        Ok(conn) => {
            needs_recovery(&conn)?;
            db::salvage(&conn)
        }
        Err(_) => Vec::new(),
    };
    let kept = format!("damaged-{stamp}");
    wait(idb_keep(name, &kept, &Uint8Array::from(&bytes[..]))).await?;
    let mut conn = image_connection(None)?;
    fresh(&conn, &salvaged, version + 1)?;
    let image = conn.serialize("main").map_err(sql_error)?;
    wait(idb_save(
        name,
        (version + 1) as f64,
        &Uint8Array::from(&image[..]),
    ))
    .await?;
    drop(image);
    conn.close().map_err(|(_, e)| sql_error(e))?;
    Ok(Recovered {
        name: name.to_string(),
        salvaged: salvaged.iter().map(|c| c.name().to_string()).collect(),
        kept: format!("IndexedDB database mnemo:{name}, record {kept}"),
    })
}

async fn recover_opfs(name: &str, stamp: u64) -> Result<Recovered> {
    let util = opfs_pool(name).await?;
    let outcome = (|| {
        if !util.contains(DB_FILE).unwrap_or(false) {
            return Err(Error::new(
                ErrorKind::NoMatch,
                format!("there is no OPFS memory {name:?} to recover"),
            ));
        }
        // Opening lets SQLite roll back a hot journal first.
        let (salvaged, version) = match opfs_connection(name, DB_FILE) {
            Ok(conn) => {
                needs_recovery(&conn)?;
                (db::salvage(&conn), db::version(&conn).unwrap_or(0))
            }
            Err(_) => (Vec::new(), 0),
        };
        let _ = util.remove(&format!("{DB_FILE}-journal"));
        let bytes = util
            .export_db(DB_FILE)
            .map_err(|e| opfs_error("reading the damaged database", e))?;
        let kept = format!("/damaged-{stamp}.db");
        util.import_db_unchecked(&kept, &bytes)
            .map_err(|e| opfs_error("keeping the damaged database", e))?;
        util.remove(DB_FILE)
            .map_err(|e| opfs_error("moving the damaged database aside", e))?;
        let conn = opfs_connection(name, DB_FILE)?;
        fresh(&conn, &salvaged, version + 1)?;
        drop(conn);
        Ok(Recovered {
            name: name.to_string(),
            salvaged: salvaged.iter().map(|c| c.name().to_string()).collect(),
            kept: format!("OPFS pool mnemo/{name}, file {kept}"),
        })
    })();
    let paused = util.pause().map_err(|e| opfs_error("pause", e));
    let recovered = outcome?;
    paused?;
    Ok(recovered)
}

fn not_loaded() -> Error {
    Error::storage("the memory's database is not loaded (an earlier write failed); try again")
}

impl Storage for BrowserDb {
    fn kind(&self) -> &str {
        match &self.backend {
            Backend::Memory => "memory",
            Backend::Opfs(_) => "opfs",
            Backend::IndexedDb => "indexeddb",
            Backend::Adapter(storage) => storage.kind(),
        }
    }

    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        self.with(false, |c| db::read_blob(c, name)).await
    }

    async fn write(&self, name: &str, data: &[u8]) -> Result<()> {
        self.commit(&[Change::write(name, data)]).await
    }

    async fn delete(&self, name: &str) -> Result<()> {
        self.commit(&[Change::delete(name)]).await
    }

    async fn list(&self) -> Result<Vec<String>> {
        self.with(false, db::blob_names).await
    }

    async fn commit(&self, changes: &[Change]) -> Result<()> {
        self.with(true, |c| db::commit_blobs(c, changes)).await
    }

    async fn recover(&self) -> Result<()> {
        // SQLite's own journal finishes or rolls back an interrupted write.
        Ok(())
    }

    async fn lock(&self) -> Result<()> {
        if matches!(self.backend, Backend::Memory) {
            return Ok(());
        }
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        if depth > 0 {
            return Ok(());
        }
        if let Backend::Adapter(storage) = &self.backend {
            // The adapter's own writers' lock (the CLI's lock file for
            // "fs"), then the image if another writer changed it.
            let taken = storage.lock().await;
            let loaded = match taken {
                Ok(()) => self.load().await,
                Err(e) => {
                    self.depth.set(0);
                    return Err(e);
                }
            };
            if let Err(e) = loaded {
                self.depth.set(0);
                // The load failed: give the adapter's lock back.
                let _ = storage.unlock().await;
                return Err(e);
            }
            return Ok(());
        }
        // A call voids the pending lease timer.
        self.lease.set(self.lease.get().wrapping_add(1));
        let fresh = self.release.borrow().is_none();
        let taken = async {
            if fresh {
                let channel = self.channel.borrow().clone();
                let release = acquire(&self.name, &self.id, &channel).await?;
                *self.release.borrow_mut() = Some(release);
            }
            // A new lease may find another context's commits; a held one
            // keeps the database as it left it.
            if fresh || self.conn.borrow().is_none() {
                self.load().await?;
            }
            Ok(())
        }
        .await;
        if let Err(e) = taken {
            self.depth.set(0);
            self.let_go();
            return Err(e);
        }
        Ok(())
    }

    async fn unlock(&self) -> Result<()> {
        if matches!(self.backend, Backend::Memory) {
            return Ok(());
        }
        let depth = self.depth.get().saturating_sub(1);
        self.depth.set(depth);
        if depth > 0 {
            return Ok(());
        }
        if let Backend::Adapter(storage) = &self.backend {
            self.dirty.set(false);
            return storage.unlock().await;
        }
        if self.dirty.replace(false) {
            channel_post(
                &self.channel.borrow(),
                &format!("changed:{}", self.id).into(),
            );
        }
        if self.wanted.get() {
            self.let_go();
            return Ok(());
        }
        // Keep the lease a moment; a later call voids this timer.
        let generation = self.lease.get().wrapping_add(1);
        self.lease.set(generation);
        let weak = Rc::downgrade(&self.0);
        let expire = Closure::once_into_js(move || {
            if let Some(inner) = weak.upgrade() {
                if inner.lease.get() == generation && inner.depth.get() == 0 {
                    inner.let_go();
                }
            }
        });
        later(LEASE_MS, &expire);
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }
}

impl Inner {
    /// Gives the lock back (closing an OPFS database and pausing its pool
    /// first, so the next holder can take the file handles).
    fn let_go(&self) {
        self.wanted.set(false);
        let Some(release) = self.release.borrow_mut().take() else {
            return;
        };
        if let Backend::Opfs(util) = &self.backend {
            self.conn.borrow_mut().take();
            if let Err(e) = util.pause() {
                web_warn(&format!(
                    "mnemo: pausing the OPFS pool of {} failed: {e}",
                    self.name
                ));
            }
        }
        let _ = release.call0(&JsValue::NULL);
    }
}

/// Asks the other contexts of memory `name` to let go (`want:<id>` on
/// `channel`, or a temporary one), then waits for its Web Lock; resolves to
/// the release function.
async fn acquire(name: &str, id: &str, channel: &JsValue) -> Result<Function> {
    let want = JsValue::from(format!("want:{id}"));
    if channel.is_null() || channel.is_undefined() {
        channel_announce(name, &want);
    } else {
        channel_post(channel, &want);
    }
    let release = wait(lock_acquire(name)).await?;
    release
        .dyn_into::<Function>()
        .map_err(|_| Error::storage("the Web Lock gave no release function"))
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn web_warn(message: &str);
}
