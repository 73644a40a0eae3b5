//! The state database on Node's real file system: the SQLite VFS
//! `mnemo-nodefs`, so that the npm package under Node.js opens the very
//! file the native CLI opens, `<memories dir>/state.db`, and both share one
//! session store.
//!
//! SQLite's VFS callbacks are synchronous, so every file operation goes
//! through a synchronous `node:fs` call on a file descriptor
//! (`js/nodefs-vfs.js`): `openSync`, `readSync`/`writeSync` at an offset
//! straight from or into SQLite's buffer (a view of the wasm memory, no
//! copy), `fstatSync`, `ftruncateSync`, `fsyncSync`/`fdatasyncSync`,
//! `closeSync`, `unlinkSync`, `statSync`/`accessSync`. The file is the
//! standard SQLite format, with a rollback journal (`state.db-journal`,
//! journal mode `DELETE`, SQLite's default) that the native CLI can roll
//! back too, and the other way round.
//!
//! This module owns: the VFS (registered once, never the default VFS), the
//! durability settings of a connection it opens ([`open`]), and turning a
//! database the CLI left in WAL mode back into rollback mode.
//!
//! What it must never do:
//! - **Lock.** `xLock`/`xUnlock` do nothing and `xCheckReservedLock`
//!   reports no lock, so SQLite treats any journal it finds as hot (left by
//!   a killed writer) and rolls it back on the next access. That is right
//!   only because every access to the memories directory, from the CLI
//!   (`src/storage/dir.rs`) and from Node (`js/fs-storage.js`), happens
//!   while holding its lock file `.mnemo.lock`. Callers of [`open`] must
//!   hold that lock around every statement, and must not keep two
//!   connections to one file open in one process while either writes: the
//!   second would roll back the first one's live journal.
//! - **Use WAL.** WAL needs shared memory between connections, which wasm
//!   does not have. A database in WAL mode is converted to rollback mode
//!   when [`open`] finds one (see there); the journal mode is never set to
//!   WAL here.
//! - **Keep a page cache across transactions unchecked.** The connection
//!   stays in SQLite's normal locking mode, so each transaction re-reads
//!   the file change counter and drops its cache when another process
//!   wrote in between.
//!
//! Temporary files (sort spills, statement journals, temporary tables;
//! SQLite passes them no name) live in wasm memory: they are private to one
//! connection and need no durability.

use std::cell::RefCell;
use std::sync::OnceLock;

use rusqlite::{Connection, OpenFlags};
use sqlite_wasm_rs::vfs::{
    register_vfs, AccessMode, DeviceCharacteristics, FileKind, LockLevel, MemChunksFile,
    OpenAccess, OpenOptions, OpenRequest, OpenedFile, SQLiteIoMethods, SQLiteVfs, SectorSize,
    SyncOptions, SystemErrorCode, VfsError, VfsErrorCode, VfsFile, VfsResult, VfsStore,
};
use sqlite_wasm_rs::WasmOsCallback;
use wasm_bindgen::prelude::*;

use crate::db::sql_error;
use crate::error::{Error, ErrorKind, Result};

/// The name the VFS is registered under.
pub const VFS_NAME: &str = "mnemo-nodefs";

#[wasm_bindgen(module = "/js/nodefs-vfs.js")]
extern "C" {
    #[wasm_bindgen(js_name = nodefsUnavailable)]
    fn js_unavailable() -> String;
    #[wasm_bindgen(js_name = nodefsLastError)]
    fn js_last_error() -> String;
    #[wasm_bindgen(js_name = nodefsLastErrno)]
    fn js_last_errno() -> i32;
    #[wasm_bindgen(js_name = nodefsOpen)]
    fn js_open(path: &str, flags: u32, mode_from: &str) -> f64;
    #[wasm_bindgen(js_name = nodefsRead)]
    fn js_read(fd: i32, buf: &mut [u8], offset: f64) -> f64;
    #[wasm_bindgen(js_name = nodefsWrite)]
    fn js_write(fd: i32, buf: &[u8], offset: f64) -> f64;
    #[wasm_bindgen(js_name = nodefsSize)]
    fn js_size(fd: i32) -> f64;
    #[wasm_bindgen(js_name = nodefsTruncate)]
    fn js_truncate(fd: i32, size: f64) -> f64;
    #[wasm_bindgen(js_name = nodefsSync)]
    fn js_sync(fd: i32, data_only: bool) -> f64;
    #[wasm_bindgen(js_name = nodefsSyncDir)]
    fn js_sync_dir(path: &str) -> f64;
    #[wasm_bindgen(js_name = nodefsClose)]
    fn js_close(fd: i32) -> f64;
    #[wasm_bindgen(js_name = nodefsUnlink)]
    fn js_unlink(path: &str) -> f64;
    #[wasm_bindgen(js_name = nodefsAccess)]
    fn js_access(path: &str, mode: u32) -> f64;
    #[wasm_bindgen(js_name = nodefsFullPath)]
    fn js_full_path(name: &str) -> String;
    #[wasm_bindgen(js_name = nodefsIsLink)]
    fn js_is_link(path: &str) -> bool;
}

// Failure classes returned by js/nodefs-vfs.js (negative numbers).
const NOENT: f64 = -2.0;
const FULL: f64 = -3.0;
const DENIED: f64 = -4.0;

// nodefsOpen flags (keep in step with js/nodefs-vfs.js).
const OPEN_CREATE: u32 = 1;
const OPEN_EXCLUSIVE: u32 = 2;
const OPEN_READ_ONLY: u32 = 4;
const OPEN_NO_FOLLOW: u32 = 8;

/// Opens (creating it if needed) the SQLite database file `path` on the
/// file system through the `mnemo-nodefs` VFS, in rollback-journal mode
/// (`DELETE`) with `synchronous=FULL`.
///
/// `FULL` rather than `NORMAL`: in rollback mode `NORMAL` skips the sync
/// between writing the journal's pages and writing its header, so a power
/// loss can leave a journal whose header promises pages that never reached
/// the disk, and rolling it back corrupts the database. `FULL` is also the
/// native CLI's setting (SQLite's default), so both sides give one file the
/// same guarantee. It costs one more `fsync` per transaction.
///
/// A new file gets 4096-byte pages, as the native CLI creates them (the wasm
/// build of SQLite would default to 8192).
///
/// A file in WAL mode (say, written by a CLI that used WAL) is converted to
/// rollback mode first: its `-wal` file is checkpointed into the database
/// and removed. Without shared memory SQLite reads a WAL database only in
/// exclusive locking mode (the WAL index then lives in this connection's
/// memory), which is sound because the caller holds `.mnemo.lock`; it must
/// also be sure no other process keeps a WAL connection to the file open.
///
/// The caller must hold the memories directory's `.mnemo.lock` during this
/// call (it may roll back a journal left by a killed writer, or convert a
/// WAL file) and whenever it uses the connection (see the module docs).
///
/// # Errors
///
/// `unsupported` outside Node.js 20.16+; `store-damaged` when the file is
/// not a SQLite database; `storage` for a file that cannot be opened.
pub fn open(path: &str) -> Result<Connection> {
    register()?;
    connect(path).map_err(|e| Error::new(e.kind(), format!("{} ({path})", e.message())))
}

fn connect(path: &str) -> Result<Connection> {
    // SQLite would follow a link, for the database and its journal (as
    // the native directory refuses, src/storage/dir.rs).
    for file in [path.to_string(), format!("{path}-journal")] {
        if js_is_link(&file) {
            return Err(Error::storage(format!(
                "{file} is a symbolic link: mnemo follows no link inside a memories directory \
                 (it could point at any file, which would be written); replace it with the file \
                 itself"
            )));
        }
    }
    let header = read_header(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags_and_vfs(path, flags, VFS_NAME).map_err(sql_error)?;
    match header {
        None => conn
            .pragma_update(None, "page_size", 4096)
            .map_err(sql_error)?,
        Some(h) if h.starts_with(b"SQLite format 3\0") && (h[18] == 2 || h[19] == 2) => {
            leave_wal(&conn)?
        }
        Some(_) => {}
    }
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "DELETE", |r| r.get(0))
        .map_err(sql_error)?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(Error::storage(format!(
            "state database: SQLite kept journal mode \"{mode}\" instead of \"delete\""
        )));
    }
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(sql_error)?;
    Ok(conn)
}

/// Switches a database in WAL mode to rollback mode (see [`open`]).
fn leave_wal(conn: &Connection) -> Result<()> {
    conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
        .map_err(sql_error)?;
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "DELETE", |r| r.get(0))
        .map_err(sql_error)?;
    // Back to normal locking: the exclusive hold ends at the next access,
    // and from then on every transaction checks the file for changes.
    conn.pragma_update(None, "locking_mode", "NORMAL")
        .map_err(sql_error)?;
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
        .map_err(sql_error)?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(Error::storage(format!(
            "state database: could not leave WAL mode (still \"{mode}\")"
        )));
    }
    Ok(())
}

/// The first 100 bytes of `path` (the database header), `None` when the
/// file does not exist or is empty; fewer bytes when it is shorter.
fn read_header(path: &str) -> Result<Option<Vec<u8>>> {
    let fd = js_open(path, OPEN_READ_ONLY, "");
    if fd == NOENT {
        return Ok(None);
    }
    let fd = check(fd, VfsErrorCode::CantOpen, "open", path).map_err(vfs_error)? as i32;
    let mut header = vec![0; 100];
    let read = check(
        js_read(fd, &mut header, 0.0),
        VfsErrorCode::IoRead,
        "read",
        path,
    );
    js_close(fd);
    let n = read.map_err(vfs_error)? as usize;
    header.truncate(n);
    Ok((n > 0).then_some(header))
}

/// A failure of [`read_header`] as a mnemo error.
fn vfs_error(e: VfsError) -> Error {
    Error::storage(format!("state database: {}", e.message()))
}

/// Registers the VFS on first use; later calls return the first outcome.
fn register() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), (ErrorKind, String)>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let missing = js_unavailable();
            if !missing.is_empty() {
                return Err((ErrorKind::Unsupported, missing));
            }
            // SAFETY: the VFS uses the default constructor, file layout and
            // callbacks of sqlite-wasm-rs's helpers with NodeFsStore's types
            // throughout; wasm32 without threads serialises every SQLite
            // call, and the OnceLock runs this registration once. The
            // registration is kept for the life of the process (into_raw).
            let registered =
                unsafe { register_vfs::<NodeFsIo, NodeFsVfs>(VFS_NAME, NodeFs::default(), false) };
            match registered {
                Ok(registration) => {
                    registration.into_raw();
                    Ok(())
                }
                Err(e) => Err((
                    ErrorKind::Internal,
                    format!("could not register the SQLite VFS {VFS_NAME}: {e}"),
                )),
            }
        })
        .clone()
        .map_err(|(kind, message)| Error::new(kind, message))
}

/// `ret` when it is not a failure class, else the failure as `code` (or
/// `SQLITE_FULL` when the disk is full), with the text and errno of the
/// failing node:fs call.
fn check(ret: f64, code: VfsErrorCode, what: &str, path: &str) -> VfsResult<f64> {
    if ret >= 0.0 {
        return Ok(ret);
    }
    let code = if ret == FULL {
        VfsErrorCode::Full
    } else {
        code
    };
    let mut error = VfsError::new(code, format!("{what} {path}: {}", js_last_error()).into());
    if let Some(errno) = SystemErrorCode::from_raw(js_last_errno()) {
        error = error.with_system_error(errno);
    }
    Err(error)
}

/// The per-VFS data: the host services (clock, randomness, sleep) and the
/// last error for `xGetLastError`.
#[derive(Default)]
struct NodeFs {
    os: WasmOsCallback,
    error: RefCell<Option<VfsError>>,
}

/// An open file: on disk through a descriptor, or a temporary file in wasm
/// memory.
enum NodeFile {
    Disk(DiskFile),
    Memory(MemChunksFile),
}

struct DiskFile {
    fd: i32,
    /// For error messages and the directory sync.
    path: String,
    /// The directory must be synced after the first sync of this newly
    /// created journal, or a power loss may lose the journal's directory
    /// entry while the database already holds changed pages (as SQLite's
    /// unix VFS does).
    sync_dir: bool,
}

impl VfsFile for NodeFile {
    fn sector_size(&self) -> SectorSize {
        // What SQLite's unix VFS reports for a POSIX file.
        SectorSize::DEFAULT
    }

    fn device_characteristics(&self) -> DeviceCharacteristics {
        match self {
            // As SQLite's unix VFS (powersafe overwrite is its default):
            // writing a sector does not disturb bytes outside it. Nothing
            // about atomic or ordered writes is promised.
            NodeFile::Disk(_) => DeviceCharacteristics::POWERSAFE_OVERWRITE,
            NodeFile::Memory(f) => f.device_characteristics(),
        }
    }

    fn read(&mut self, buf: &mut [u8], offset: u64) -> VfsResult<usize> {
        match self {
            NodeFile::Disk(f) => {
                let n = js_read(f.fd, buf, offset as f64);
                // A count below buf.len() is the end of the file: the caller
                // (sqlite-wasm-rs's xRead) zero-fills the rest and returns
                // SQLITE_IOERR_SHORT_READ.
                Ok(check(n, VfsErrorCode::IoRead, "read", &f.path)? as usize)
            }
            NodeFile::Memory(f) => f.read(buf, offset),
        }
    }

    fn write(&mut self, buf: &[u8], offset: u64) -> VfsResult<()> {
        match self {
            NodeFile::Disk(f) => {
                let ret = js_write(f.fd, buf, offset as f64);
                check(ret, VfsErrorCode::IoWrite, "write", &f.path).map(drop)
            }
            NodeFile::Memory(f) => f.write(buf, offset),
        }
    }

    fn truncate(&mut self, size: u64) -> VfsResult<()> {
        match self {
            NodeFile::Disk(f) => {
                let ret = js_truncate(f.fd, size as f64);
                check(ret, VfsErrorCode::IoTruncate, "truncate", &f.path).map(drop)
            }
            NodeFile::Memory(f) => f.truncate(size),
        }
    }

    fn sync(&mut self, options: SyncOptions) -> VfsResult<()> {
        match self {
            NodeFile::Disk(f) => {
                let ret = js_sync(f.fd, options.data_only);
                check(ret, VfsErrorCode::IoSync, "sync", &f.path)?;
                if f.sync_dir {
                    f.sync_dir = false;
                    let ret = js_sync_dir(&f.path);
                    check(
                        ret,
                        VfsErrorCode::IoDirectorySync,
                        "sync the directory of",
                        &f.path,
                    )?;
                }
                Ok(())
            }
            NodeFile::Memory(f) => f.sync(options),
        }
    }

    fn size(&self) -> VfsResult<u64> {
        match self {
            NodeFile::Disk(f) => {
                Ok(check(js_size(f.fd), VfsErrorCode::IoStat, "stat", &f.path)? as u64)
            }
            NodeFile::Memory(f) => f.size(),
        }
    }

    // Mutual exclusion comes from `.mnemo.lock` (see the module docs).
    fn lock(&mut self, _level: LockLevel) -> VfsResult<()> {
        Ok(())
    }

    fn unlock(&mut self, _level: LockLevel) -> VfsResult<()> {
        Ok(())
    }

    // No other writer can be active while we hold `.mnemo.lock`, so a
    // journal found on disk is always hot and is rolled back.
    fn check_reserved_lock(&self) -> VfsResult<bool> {
        Ok(false)
    }
}

struct NodeFsStore;

impl VfsStore for NodeFsStore {
    type File = NodeFile;
    type AppData = NodeFs;

    fn record_error(data: &NodeFs, error: VfsError) {
        data.error.replace(Some(error));
    }

    fn last_error(data: &NodeFs) -> Option<VfsError> {
        data.error.borrow().clone()
    }

    fn open_file(_data: &NodeFs, request: OpenRequest<'_>) -> VfsResult<OpenedFile<NodeFile>> {
        let options: OpenOptions = request.options;
        let kind = options.kind();
        let shared = matches!(
            kind,
            Some(FileKind::MainDb | FileKind::MainJournal | FileKind::SuperJournal | FileKind::Wal)
        );
        let Some(name) = request.filename.filter(|_| shared) else {
            return Ok(OpenedFile {
                file: NodeFile::Memory(MemChunksFile::waiting_for_write()),
                access: options.access(),
            });
        };
        let path = name.path();
        let mut flags = 0;
        if options.create() {
            flags |= OPEN_CREATE;
        }
        if options.exclusive() {
            flags |= OPEN_EXCLUSIVE;
        }
        if options.no_follow() {
            flags |= OPEN_NO_FOLLOW;
        }
        let mut access = options.access();
        if access == OpenAccess::ReadOnly {
            flags |= OPEN_READ_ONLY;
        }
        // A journal is created with its database's permission bits.
        let mode_from = match kind {
            Some(FileKind::MainJournal) => path.strip_suffix("-journal").unwrap_or(""),
            Some(FileKind::Wal) => path.strip_suffix("-wal").unwrap_or(""),
            _ => "",
        };
        let mut fd = js_open(path, flags, mode_from);
        if fd == DENIED && access == OpenAccess::ReadWrite && !options.exclusive() {
            // As SQLite's unix VFS: a file we may not write is opened
            // read-only, and SQLite is told so.
            fd = js_open(path, OPEN_READ_ONLY | (flags & OPEN_NO_FOLLOW), "");
            access = OpenAccess::ReadOnly;
        }
        let fd = check(fd, VfsErrorCode::CantOpen, "open", path)? as i32;
        if options.delete_on_close() {
            // POSIX keeps an unlinked file's data until its last descriptor
            // closes, which removes exactly the file opened here.
            js_unlink(path);
        }
        let created_journal = options.create()
            && matches!(
                kind,
                Some(FileKind::MainJournal | FileKind::SuperJournal | FileKind::Wal)
            );
        Ok(OpenedFile {
            file: NodeFile::Disk(DiskFile {
                fd,
                path: path.to_string(),
                sync_dir: created_journal,
            }),
            access,
        })
    }

    fn close_file(
        _data: &NodeFs,
        _name: Option<&str>,
        file: NodeFile,
        _options: OpenOptions,
    ) -> VfsResult<()> {
        match file {
            NodeFile::Disk(f) => {
                check(js_close(f.fd), VfsErrorCode::IoClose, "close", &f.path).map(drop)
            }
            NodeFile::Memory(_) => Ok(()),
        }
    }

    fn access(_data: &NodeFs, name: &str, mode: AccessMode) -> VfsResult<bool> {
        let mode = match mode {
            AccessMode::Exists => 0,
            AccessMode::Read => 1,
            AccessMode::ReadWrite => 2,
        };
        Ok(check(js_access(name, mode), VfsErrorCode::IoAccess, "check", name)? == 1.0)
    }

    fn full_pathname(_data: &NodeFs, name: &str) -> VfsResult<String> {
        Ok(js_full_path(name))
    }

    fn delete_file(_data: &NodeFs, name: &str, sync_dir: bool) -> VfsResult<()> {
        let ret = js_unlink(name);
        if ret == NOENT {
            // As SQLite's unix VFS; SQLite ignores it where absence is fine.
            return Err(VfsError::new(
                VfsErrorCode::IoDeleteNoEntry,
                format!("delete {name}: it does not exist").into(),
            ));
        }
        check(ret, VfsErrorCode::IoDelete, "delete", name)?;
        if sync_dir {
            let ret = js_sync_dir(name);
            check(
                ret,
                VfsErrorCode::IoDirectorySync,
                "sync the directory of",
                name,
            )?;
        }
        Ok(())
    }
}

struct NodeFsIo;

impl SQLiteIoMethods for NodeFsIo {
    type Store = NodeFsStore;
}

struct NodeFsVfs;

impl SQLiteVfs<NodeFsIo> for NodeFsVfs {
    type Os = WasmOsCallback;

    fn os(data: &NodeFs) -> &WasmOsCallback {
        &data.os
    }

    // PATH_MAX on Linux: memories directories can sit deep in a home.
    const MAX_PATH_SIZE: ::core::ffi::c_int = 4096;
}
