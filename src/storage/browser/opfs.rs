//! Memories on OPFS: one opfs-sahpool pool (sqlite-wasm-vfs) per memory, in
//! the OPFS directory `mnemo/<name>`, holding the database file
//! `/mnemo.db`. OPFS sync access handles exist only in dedicated workers.
//! A pool holds its file handles only while this context has the memory's
//! lock: it is paused when the lease lets go and resumed on the next call.

use std::cell::RefCell;

use rusqlite::{Connection, OpenFlags};
use sqlite_wasm_rs::vfs::{transfer::DbTransfer, VfsFilesManager};
use sqlite_wasm_vfs::sahpool::{install, OpfsSAHError, OpfsSAHPoolCfgBuilder, OpfsSAHPoolUtil};

use crate::db::{self, sql_error};
use crate::error::{Error, ErrorKind, Result};
use crate::storage::adapter::warn;
use crate::storage::sqlite::Slot;

/// The database file in a memory's pool.
const DB_FILE: &str = "/mnemo.db";

/// Slot files a pool keeps besides its files: the database's write-ahead
/// log while a connection is open, and one spare (SQLite's temporary files
/// are in memory). Every slot costs a file handle request, one after the
/// other, each time the pool is installed or resumed.
const SPARE_SLOTS: usize = 2;

thread_local! {
    /// The memories whose OPFS pool this context installed.
    static POOLS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The VFS name of memory `name`'s pool.
fn vfs_name(name: &str) -> String {
    format!("mnemo-{name}")
}

/// How long taking a pool's file handles waits for a context that just
/// died holding them (a terminated worker, a crashed tab): the browser
/// frees its Web Lock and its OPFS access handles separately, the handles
/// sometimes a moment later. Under the lock no live mnemo context holds
/// them, so until then `locked` only means "not yet"; something outside
/// mnemo that keeps them gets `locked` after this wait.
const RELEASE_WAIT_MS: u32 = 5_000;

#[wasm_bindgen::prelude::wasm_bindgen(module = "/js/browser-db.js")]
extern "C" {
    fn later(ms: u32, f: &wasm_bindgen::JsValue);
}

/// Resolves after `ms` milliseconds.
async fn sleep(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| later(ms, &resolve));
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Installs (or finds) memory `name`'s OPFS pool (the directory
/// `mnemo/<name>`) and makes sure it holds its file handles, waiting up to
/// [`RELEASE_WAIT_MS`] for handles a dead context still holds. Call under
/// the lock.
pub async fn pool(name: &str) -> Result<OpfsSAHPoolUtil> {
    let (mut waited, mut wait) = (0, 25);
    loop {
        match take_pool(name).await {
            Err(e) if e.kind() == ErrorKind::Locked && waited < RELEASE_WAIT_MS => {
                sleep(wait).await;
                waited += wait;
                wait = (wait * 2).min(250);
            }
            done => return done,
        }
    }
}

/// One attempt of [`pool`]. A pool this context installed and paused
/// earlier (the package keeps a worker after its memory closes) is resumed;
/// when that fails (its directory deleted by another context, or its files
/// still held by one that just died) it is uninstalled and installed
/// afresh, which finds or creates the directory as a first install does
/// (and reports `locked` while the files are held).
async fn take_pool(name: &str) -> Result<OpfsSAHPoolUtil> {
    let cfg = OpfsSAHPoolCfgBuilder::new()
        .vfs_name(&vfs_name(name))
        .directory(&format!("mnemo/{name}"))
        .initial_capacity(1 + SPARE_SLOTS)
        .build();
    let install = || install::<sqlite_wasm_rs::WasmOsCallback>(&cfg, false);
    let util = match install().await {
        Ok(util) if util.is_paused() => match util.resume().await {
            Ok(()) => Ok(util),
            Err(_) => {
                // SAFETY: the pool is paused (its resume failed), so no
                // connection of it is open, and it is not used again.
                let _ = unsafe { util.uninstall() };
                POOLS.with(|pools| pools.borrow_mut().retain(|n| n != name));
                install().await
            }
        },
        other => other,
    };
    let util = util.map_err(|e| opfs_error("open", e))?;
    // Pools of earlier releases kept six slots: give back the unused ones
    // beyond the spares, once (a pool that cannot count its files keeps
    // them all).
    let keep = util.len().map(|files| files.max(1) + SPARE_SLOTS);
    let extra = keep.map_or(0, |keep| util.capacity().saturating_sub(keep));
    if extra > 0 {
        let _ = util.reduce_capacity(extra).await;
    }
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
pub async fn forget(name: &str) -> Result<()> {
    let installed = POOLS.with(|pools| {
        let mut pools = pools.borrow_mut();
        let at = pools.iter().position(|n| n == name);
        at.map(|i| pools.remove(i)).is_some()
    });
    if !installed {
        return Ok(());
    }
    let util = pool(name).await?;
    POOLS.with(|pools| pools.borrow_mut().retain(|n| n != name));
    // SAFETY: no connection of this pool is open outside the lock (we hold
    // it, and every holder closes its connection before letting go), and
    // the pool is not used afterwards: a memory still open on it was told
    // it is deleted and fails with a clear error.
    unsafe { util.uninstall() }.map_err(|e| opfs_error("close", e))
}

/// Opens memory `name`'s database file in its (active) pool.
fn connection(name: &str, file: &str) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags_and_vfs(file, flags, vfs_name(name).as_str())
        .map_err(sql_error)?;
    // Larger pages mean fewer OPFS writes per commit (each costs about as
    // much as its bytes); applies to databases created from here on (a
    // page size is fixed once a database is in WAL mode).
    conn.pragma_update(None, "page_size", 16384)
        .map_err(sql_error)?;
    // Only the holder of the Web Lock has this connection open, so SQLite
    // may keep its file lock and page cache between statements instead of
    // re-checking the file. Set before WAL: in exclusive mode the WAL's
    // index lives in this connection's heap, so the pool needs no shared
    // memory.
    conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
        .map_err(sql_error)?;
    // A commit appends its pages to the write-ahead log and flushes it
    // once (`synchronous=FULL`), where a rollback journal costs three
    // flushes (journal, database, journal header), and OPFS flushes are
    // most of a commit's price. Still atomic and durable: a killed worker
    // leaves the old or the new state, and a resolved write is on disk.
    // Closing the connection (when the lease ends) checkpoints the log
    // into the database and removes it, so the next open has none to read.
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .map_err(sql_error)?;
    if !mode.eq_ignore_ascii_case("wal") {
        // The pool's files are slots: keeping the journal file (zeroing
        // its header) saves deleting and re-creating it, and a flush, on
        // every commit.
        conn.pragma_update(None, "journal_mode", "PERSIST")
            .map_err(sql_error)?;
    }
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(sql_error)?;
    // Checkpoint every 2 MB of log (128 pages of 16 KB), so a crash leaves
    // little to replay at the next open.
    conn.pragma_update(None, "wal_autocheckpoint", 128)
        .map_err(sql_error)?;
    Ok(conn)
}

/// Resumes memory `name`'s pool and opens (or creates) its database into
/// `db`, if `check` passes it; on failure the pool is paused again. Call
/// under the lock.
pub async fn load(
    name: &str,
    util: &OpfsSAHPoolUtil,
    db: &Slot,
    check: impl FnOnce(&Connection) -> Result<()>,
) -> Result<()> {
    util.resume().await.map_err(|e| opfs_error("resume", e))?;
    let opened = connection(name, DB_FILE).and_then(|conn| {
        check(&conn)?;
        Ok(conn)
    });
    match opened {
        Ok(conn) => {
            db.set(conn);
            Ok(())
        }
        Err(e) => {
            let _ = util.pause();
            Err(e)
        }
    }
}

/// What to do before the lock goes: close the database and pause the
/// pool, so the next holder can take the file handles.
pub fn let_go(name: &str, util: OpfsSAHPoolUtil, db: Slot) -> Box<dyn Fn()> {
    let name = name.to_string();
    Box::new(move || {
        db.take();
        if let Err(e) = util.pause() {
            warn(&format!(
                "mnemo: pausing the OPFS pool of {name} failed: {e}"
            ));
        }
    })
}

/// Recovers memory `name`'s damaged database: keeps it as the pool file
/// `/damaged-<stamp>.db` and starts a fresh one with what still reads back.
/// Returns the salvaged blobs' names and where the damaged file is kept.
pub async fn recover(name: &str, stamp: u64) -> Result<(Vec<String>, String)> {
    let util = pool(name).await?;
    // The damaged copy kept below takes a slot of its own for good.
    let files = util.len().unwrap_or(0);
    if let Err(e) = util.ensure_capacity(files + 1 + SPARE_SLOTS).await {
        let _ = util.pause();
        return Err(opfs_error("growing the pool", e));
    }
    let outcome = (|| {
        if !util.contains(DB_FILE).unwrap_or(false) {
            return Err(Error::new(
                ErrorKind::NoMatch,
                format!("there is no OPFS memory {name:?} to recover"),
            ));
        }
        // Opening lets SQLite roll back a hot journal first.
        let (salvaged, version) = match connection(name, DB_FILE) {
            Ok(conn) => {
                db::needs_recovery(&conn)?;
                (db::salvage(&conn), db::version(&conn).unwrap_or(0))
            }
            Err(_) => (Vec::new(), 0),
        };
        // The connection above checkpointed its log as it closed; what a
        // damaged database left in the sidecars is not exported.
        let _ = util.remove(&format!("{DB_FILE}-journal"));
        let _ = util.remove(&format!("{DB_FILE}-wal"));
        let bytes = util
            .export_db(DB_FILE)
            .map_err(|e| opfs_error("reading the damaged database", e))?;
        let kept = format!("/damaged-{stamp}.db");
        util.import_db_unchecked(&kept, &bytes)
            .map_err(|e| opfs_error("keeping the damaged database", e))?;
        util.remove(DB_FILE)
            .map_err(|e| opfs_error("moving the damaged database aside", e))?;
        let conn = connection(name, DB_FILE)?;
        db::restart(&conn, &salvaged, version + 1)?;
        drop(conn);
        Ok((
            salvaged.iter().map(|c| c.name().to_string()).collect(),
            format!("OPFS pool mnemo/{name}, file {kept}"),
        ))
    })();
    let paused = util.pause().map_err(|e| opfs_error("pause", e));
    let recovered = outcome?;
    paused?;
    Ok(recovered)
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
