//! The SQLite VFS `mnemo-paged`: a database held in wasm memory, as one
//! contiguous buffer, that records which pages SQLite wrote. An IndexedDB
//! memory runs on it ([`super::idb`]), so that a commit stores exactly the
//! pages it changed without comparing the whole database with the stored
//! image (that comparison cost about 1.5 ms per MB of database on every
//! write, 50 ms at 32 MB of sessions).
//!
//! A file is made by [`open`] (with the image read back from IndexedDB, or
//! empty), and lives until SQLite closes it. Only the main database is a
//! [`PagedFile`]; journals and temporary files are private buffers of
//! their handle (the connection uses an in-memory journal; durability is
//! IndexedDB's job, and a context that dies loses its memory anyway).
//! Locks do nothing: one connection per file, in one thread.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::OnceLock;

use rusqlite::{Connection, OpenFlags};
use sqlite_wasm_rs::vfs::{
    register_vfs, AccessMode, FileKind, LockLevel, MemChunksFile, OpenRequest, OpenedFile,
    SQLiteIoMethods, SQLiteVfs, SyncOptions, VfsError, VfsErrorCode, VfsFile, VfsResult, VfsStore,
};
use sqlite_wasm_rs::WasmOsCallback;

use crate::db::sql_error;
use crate::error::{Error, ErrorKind, Result};
use crate::storage::pages::PAGE;

/// The name the VFS is registered under.
const VFS_NAME: &str = "mnemo-paged";

/// A database's bytes and the pages (of [`PAGE`] bytes) written since the
/// dirty set was last taken.
#[derive(Default)]
pub struct PagedFile {
    bytes: Vec<u8>,
    dirty: BTreeSet<u32>,
}

impl PagedFile {
    /// The database as it is now.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The pages written since the last call (pages past the end of the
    /// file left out).
    pub fn take_dirty(&mut self) -> BTreeSet<u32> {
        let pages = self.bytes.len().div_ceil(PAGE) as u32;
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.retain(|&i| i < pages);
        dirty
    }
}

/// A shared handle on an open database's file.
pub type Shared = Rc<RefCell<PagedFile>>;

thread_local! {
    /// The files [`open`] made, by name, until SQLite closes them.
    static FILES: RefCell<HashMap<String, Shared>> = RefCell::default();
    /// Numbers the files, so that a database reloaded while the old
    /// connection is still open gets a file of its own.
    static NEXT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Opens a connection on a new file holding `image` (empty: a new
/// database); returns it with the file, whose dirty set starts empty.
pub fn open(image: Vec<u8>) -> Result<(Connection, Shared)> {
    register()?;
    let n = NEXT.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    let name = format!("/mnemo-paged-{n}");
    let file = Rc::new(RefCell::new(PagedFile {
        bytes: image,
        dirty: BTreeSet::new(),
    }));
    FILES.with(|f| f.borrow_mut().insert(name.clone(), file.clone()));
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let opened = Connection::open_with_flags_and_vfs(&name, flags, VFS_NAME)
        .map_err(sql_error)
        .inspect(|conn| {
            // The rollback journal in SQLite's memory rather than in a
            // private file of this VFS (both live in wasm memory). A
            // database that does not read fails here first: the caller's
            // check reports it with what to do, so the failure is not
            // reported here.
            let _ = conn.pragma_update(None, "journal_mode", "MEMORY");
        });
    match opened {
        Ok(conn) => Ok((conn, file)),
        Err(e) => {
            FILES.with(|f| f.borrow_mut().remove(&name));
            Err(e)
        }
    }
}

fn vfs_error(what: &str) -> VfsError {
    VfsError::new(VfsErrorCode::CantOpen, what.to_string().into())
}

/// Registers the VFS on first use; later calls return the first outcome.
fn register() -> Result<()> {
    static REGISTERED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            // SAFETY: the VFS uses the default constructor, file layout and
            // callbacks of sqlite-wasm-rs's helpers with PagedStore's types
            // throughout; wasm32 without threads serialises every SQLite
            // call, and the OnceLock runs this registration once. The
            // registration is kept for the life of the process (into_raw).
            let registered =
                unsafe { register_vfs::<PagedIo, PagedVfs>(VFS_NAME, Paged::default(), false) };
            registered
                .map(|r| {
                    r.into_raw();
                })
                .map_err(|e| format!("could not register the SQLite VFS {VFS_NAME}: {e}"))
        })
        .clone()
        .map_err(|message| Error::new(ErrorKind::Internal, message))
}

/// The per-VFS data: the host services and the last error.
#[derive(Default)]
struct Paged {
    os: WasmOsCallback,
    error: RefCell<Option<VfsError>>,
}

/// An open file: a database's [`PagedFile`], or a journal or temporary
/// file of its own.
enum Handle {
    Db(Shared),
    Private(MemChunksFile),
}

impl VfsFile for Handle {
    fn read(&mut self, buf: &mut [u8], offset: u64) -> VfsResult<usize> {
        match self {
            Handle::Db(f) => {
                let f = f.borrow();
                let Ok(start) = usize::try_from(offset) else {
                    return Ok(0);
                };
                let Some(have) = f.bytes.get(start..) else {
                    return Ok(0);
                };
                // A short count is the end of the file: the caller
                // zero-fills the rest and reports a short read.
                let n = have.len().min(buf.len());
                buf[..n].copy_from_slice(&have[..n]);
                Ok(n)
            }
            Handle::Private(f) => f.read(buf, offset),
        }
    }

    fn write(&mut self, buf: &[u8], offset: u64) -> VfsResult<()> {
        match self {
            Handle::Db(f) => {
                if buf.is_empty() {
                    return Ok(());
                }
                let full = || VfsError::new(VfsErrorCode::Full, "database too large".into());
                let start = usize::try_from(offset).map_err(|_| full())?;
                let end = start.checked_add(buf.len()).ok_or_else(full)?;
                let mut f = f.borrow_mut();
                if end > f.bytes.len() {
                    let more = end - f.bytes.len();
                    f.bytes.try_reserve(more).map_err(|_| full())?;
                    f.bytes.resize(end, 0);
                }
                f.bytes[start..end].copy_from_slice(buf);
                let (first, last) = ((start / PAGE) as u32, ((end - 1) / PAGE) as u32);
                f.dirty.extend(first..=last);
                Ok(())
            }
            Handle::Private(f) => f.write(buf, offset),
        }
    }

    fn truncate(&mut self, size: u64) -> VfsResult<()> {
        match self {
            Handle::Db(f) => {
                let mut f = f.borrow_mut();
                let size = usize::try_from(size).unwrap_or(usize::MAX);
                if size < f.bytes.len() {
                    f.bytes.truncate(size);
                    // The page cut in two changed.
                    if size % PAGE != 0 {
                        f.dirty.insert((size / PAGE) as u32);
                    }
                }
                Ok(())
            }
            Handle::Private(f) => f.truncate(size),
        }
    }

    fn sync(&mut self, _options: SyncOptions) -> VfsResult<()> {
        Ok(())
    }

    fn size(&self) -> VfsResult<u64> {
        match self {
            Handle::Db(f) => Ok(f.borrow().bytes.len() as u64),
            Handle::Private(f) => f.size(),
        }
    }

    // One connection per file, in one thread (see the module docs).
    fn lock(&mut self, _level: LockLevel) -> VfsResult<()> {
        Ok(())
    }

    fn unlock(&mut self, _level: LockLevel) -> VfsResult<()> {
        Ok(())
    }

    fn check_reserved_lock(&self) -> VfsResult<bool> {
        Ok(false)
    }
}

struct PagedStore;

impl VfsStore for PagedStore {
    type File = Handle;
    type AppData = Paged;

    fn record_error(data: &Paged, error: VfsError) {
        data.error.replace(Some(error));
    }

    fn last_error(data: &Paged) -> Option<VfsError> {
        data.error.borrow().clone()
    }

    fn open_file(_data: &Paged, request: OpenRequest<'_>) -> VfsResult<OpenedFile<Handle>> {
        let options = request.options;
        let file = match (options.kind(), request.filename) {
            (Some(FileKind::MainDb), Some(name)) => {
                let found = FILES.with(|f| f.borrow().get(name.path()).cloned());
                // Only files `open` made: nothing else is stored here.
                Handle::Db(found.ok_or_else(|| vfs_error("no such database"))?)
            }
            _ => Handle::Private(MemChunksFile::waiting_for_write()),
        };
        Ok(OpenedFile {
            file,
            access: options.access(),
        })
    }

    fn close_file(
        _data: &Paged,
        name: Option<&str>,
        file: Handle,
        _options: sqlite_wasm_rs::vfs::OpenOptions,
    ) -> VfsResult<()> {
        if let (Handle::Db(_), Some(name)) = (&file, name) {
            FILES.with(|f| f.borrow_mut().remove(name));
        }
        Ok(())
    }

    // Journals live with their handle, so none is ever found hot.
    fn access(_data: &Paged, name: &str, _mode: AccessMode) -> VfsResult<bool> {
        Ok(FILES.with(|f| f.borrow().contains_key(name)))
    }

    fn full_pathname(_data: &Paged, name: &str) -> VfsResult<String> {
        Ok(name.to_string())
    }

    fn delete_file(_data: &Paged, _name: &str, _sync_dir: bool) -> VfsResult<()> {
        Ok(())
    }
}

struct PagedIo;

impl SQLiteIoMethods for PagedIo {
    type Store = PagedStore;
}

struct PagedVfs;

impl SQLiteVfs<PagedIo> for PagedVfs {
    type Os = WasmOsCallback;

    fn os(data: &Paged) -> &WasmOsCallback {
        &data.os
    }
}
