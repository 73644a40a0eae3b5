//! A [`Storage`] whose blobs live in one SQLite database (the layout of
//! [`crate::db`]): the browser's memories (OPFS, IndexedDB), the npm
//! package's `"memory"` storage, the sessions of a memory kept through an
//! adapter, and the behaviour suite, natively and in wasm alike.
//!
//! Where the database lives is a [`Backing`]: three hooks around every
//! access, *acquire* (take the writers' lock, load or reload the database),
//! *persist* (make a write durable) and *release* (let go of the lock).
//! [`InMemory`] does nothing in them; [`Image`] keeps the database as a
//! serialized image in another storage; the browser backings (OPFS, an
//! IndexedDB image, with Web Locks) live with the JS binding's storage
//! modules. Every commit is one transaction, so no journal is needed.
//!
//! This module must never depend on a binding (wasm-bindgen, js-sys,
//! wit-bindgen): it is plain Rust over rusqlite.

mod image;

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::Rc;

use rusqlite::{Connection, OpenFlags};

pub use image::{Image, IMAGE_BLOB, VERSION_BLOB};

use super::{Change, Storage};
use crate::db::{self, sql_error};
use crate::error::{Error, Result};

/// The open database of a [`SqliteStorage`], or nothing while it is not
/// loaded (a backing that holds its files only under the lock closes it
/// when it lets go; a failed persist drops it so the next access reloads the
/// last durable state). Clones share the same database: a backing that must
/// close it out of band (the browser's lease, when another tab asks) keeps
/// one.
#[derive(Clone, Default)]
pub struct Slot(Rc<SlotState>);

#[derive(Default)]
struct SlotState {
    conn: RefCell<Option<Connection>>,
    /// How many databases were set: a database loaded again (perhaps
    /// another one at the same change counter) is told from the one before.
    loads: Cell<u64>,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_open() {
            "Slot(open)"
        } else {
            "Slot(closed)"
        })
    }
}

impl Slot {
    /// Holds `conn` from now on (closing any database held before), tuned
    /// with [`db::tune`].
    pub fn set(&self, conn: Connection) {
        db::tune(&conn);
        *self.0.conn.borrow_mut() = Some(conn);
        self.0.loads.set(self.0.loads.get() + 1);
    }

    /// Counts the databases set so far (see [`Storage::version`]).
    pub fn loads(&self) -> u64 {
        self.0.loads.get()
    }

    /// A slot holding a fresh in-memory database with the schema.
    pub fn in_memory() -> Result<Slot> {
        let conn = Connection::open_in_memory().map_err(sql_error)?;
        db::prepare(&conn)?;
        let slot = Slot::default();
        slot.set(conn);
        Ok(slot)
    }

    /// Closes the database (dropping the connection); the next access
    /// needs an [`Backing::acquire`] that loads it again.
    pub fn take(&self) -> Option<Connection> {
        self.0.conn.borrow_mut().take()
    }

    /// Whether a database is loaded.
    pub fn is_open(&self) -> bool {
        self.0.conn.borrow().is_some()
    }

    /// The database, or a `storage` error when it is not loaded.
    pub fn get(&self) -> Result<Ref<'_, Connection>> {
        Ref::filter_map(self.0.conn.borrow(), Option::as_ref).map_err(|_| not_loaded())
    }

    /// The database, mutably (serialize and deserialize need it).
    pub fn get_mut(&self) -> Result<RefMut<'_, Connection>> {
        RefMut::filter_map(self.0.conn.borrow_mut(), Option::as_mut).map_err(|_| not_loaded())
    }
}

fn not_loaded() -> Error {
    Error::storage("the memory's database is not loaded (an earlier write failed); try again")
}

/// Where a [`SqliteStorage`]'s database lives: the hooks run around every
/// access (see the module docs). `acquire` and `release` come in pairs and
/// never nest: the storage counts nested locks itself.
#[allow(async_fn_in_trait)]
pub trait Backing {
    /// The backend's name for `status()`: `memory`, `opfs`, `indexeddb`,
    /// or the kind of the storage an [`Image`] lives in.
    fn kind(&self) -> &str;

    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;

    /// Takes the writers' lock and makes `db` hold the current database
    /// (loading it, or reloading it when another writer changed it). On
    /// failure nothing stays held.
    async fn acquire(&self, db: &Slot) -> Result<()>;

    /// Makes what was just committed in `db` durable. On failure the
    /// backing closes `db`, so that a failed write changes nothing: the
    /// next access reloads the last durable state.
    async fn persist(&self, db: &Slot) -> Result<()>;

    /// Lets go of the writers' lock; `changed`: something was committed
    /// under it (others may want to hear of it).
    async fn release(&self, db: &Slot, changed: bool) -> Result<()>;
}

/// A database in memory only: no lock (one owner), nothing to persist.
#[derive(Clone, Copy, Debug)]
pub struct InMemory {
    clock: fn() -> u64,
}

impl InMemory {
    /// With `clock` for timestamps (wasm hosts pass `Date.now`, tests a
    /// fixed time).
    pub fn new(clock: fn() -> u64) -> InMemory {
        InMemory { clock }
    }
}

impl Default for InMemory {
    fn default() -> Self {
        InMemory::new(super::system_clock)
    }
}

impl Backing for InMemory {
    fn kind(&self) -> &str {
        "memory"
    }

    fn now_ms(&self) -> u64 {
        (self.clock)()
    }

    async fn acquire(&self, _db: &Slot) -> Result<()> {
        Ok(())
    }

    async fn persist(&self, _db: &Slot) -> Result<()> {
        Ok(())
    }

    async fn release(&self, _db: &Slot, _changed: bool) -> Result<()> {
        Ok(())
    }
}

/// A [`Storage`] in a SQLite database; see the module docs.
pub struct SqliteStorage<B: Backing = InMemory> {
    db: Slot,
    backing: B,
    /// Nesting of `lock()` calls: the backing is acquired by the outermost.
    depth: Cell<u32>,
    /// Whether something was committed under the current lock.
    dirty: Cell<bool>,
}

impl<B: Backing> std::fmt::Debug for SqliteStorage<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SqliteStorage({})", self.backing.kind())
    }
}

impl SqliteStorage<InMemory> {
    /// Storage in `conn` (its schema prepared first), kept in memory, with
    /// `clock` for timestamps.
    pub fn new(conn: Connection, clock: fn() -> u64) -> Result<SqliteStorage> {
        db::prepare(&conn)?;
        let db = Slot::default();
        db.set(conn);
        Ok(SqliteStorage::with_slot(db, InMemory::new(clock)))
    }

    /// Storage in a fresh in-memory database, with the system clock.
    pub fn in_memory() -> Result<SqliteStorage> {
        SqliteStorage::in_memory_with_clock(super::system_clock)
    }

    /// Storage in a fresh in-memory database, with `clock` for timestamps.
    pub fn in_memory_with_clock(clock: fn() -> u64) -> Result<SqliteStorage> {
        Ok(SqliteStorage::with_slot(
            Slot::in_memory()?,
            InMemory::new(clock),
        ))
    }
}

impl<B: Backing> SqliteStorage<B> {
    /// Storage on `backing`, whose database is loaded on first access.
    pub fn on(backing: B) -> SqliteStorage<B> {
        SqliteStorage::with_slot(Slot::default(), backing)
    }

    /// Storage on `backing` with the database `db` (open or not), for a
    /// backing that keeps a clone of the slot.
    pub fn with_slot(db: Slot, backing: B) -> SqliteStorage<B> {
        SqliteStorage {
            db,
            backing,
            depth: Cell::new(0),
            dirty: Cell::new(false),
        }
    }

    /// The backing.
    pub fn backing(&self) -> &B {
        &self.backing
    }

    /// The database's slot (open or not).
    pub fn slot(&self) -> &Slot {
        &self.db
    }

    /// The same database on the backing `f` makes of this one (a binding
    /// wraps backings of several kinds in one enum). Call it unlocked.
    pub fn map_backing<C: Backing>(self, f: impl FnOnce(B) -> C) -> SqliteStorage<C> {
        SqliteStorage {
            db: self.db,
            backing: f(self.backing),
            depth: self.depth,
            dirty: self.dirty,
        }
    }

    /// The database as it is loaded now (no lock taken), for tests and
    /// snapshots.
    pub fn connection(&self) -> Result<Ref<'_, Connection>> {
        self.db.get()
    }

    /// The database, mutably (serialize and deserialize need it).
    pub fn connection_mut(&self) -> Result<RefMut<'_, Connection>> {
        self.db.get_mut()
    }

    /// Runs `f` on the database under the lock (taken here when the caller
    /// does not hold it); with `write`, what `f` changed is persisted before
    /// this returns (and others hear of it when the lock goes).
    pub async fn with<R>(
        &self,
        write: bool,
        f: impl FnOnce(&Connection) -> Result<R>,
    ) -> Result<R> {
        self.lock().await?;
        let result = self.db.get().and_then(|conn| f(&conn));
        let result = match result {
            Ok(r) if write => {
                self.dirty.set(true);
                self.backing.persist(&self.db).await.map(|_| r)
            }
            other => other,
        };
        let unlocked = self.unlock().await;
        let r = result?;
        unlocked?;
        Ok(r)
    }
}

impl<B: Backing> Storage for SqliteStorage<B> {
    fn kind(&self) -> &str {
        self.backing.kind()
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

    async fn version(&self) -> Result<Option<(u64, i64)>> {
        let counter = self.with(false, db::version).await?;
        Ok(Some((self.db.loads(), counter)))
    }

    async fn end(&self, name: &str) -> Result<Option<super::BlobEnd>> {
        self.with(false, |c| db::blob_end(c, name)).await
    }

    async fn write_at(&self, name: &str, at: u64, data: &[u8]) -> Result<()> {
        self.commit(&[Change::Append {
            name: name.to_string(),
            at,
            data: data.to_vec(),
        }])
        .await
    }

    async fn commit(&self, changes: &[Change]) -> Result<()> {
        self.with(true, |c| db::commit_blobs(c, changes)).await
    }

    async fn recover(&self) -> Result<()> {
        // SQLite's own journal finishes or rolls back an interrupted write.
        Ok(())
    }

    async fn lock(&self) -> Result<()> {
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        if depth > 0 {
            return Ok(());
        }
        self.backing
            .acquire(&self.db)
            .await
            .inspect_err(|_| self.depth.set(0))
    }

    async fn unlock(&self) -> Result<()> {
        let depth = self.depth.get().saturating_sub(1);
        self.depth.set(depth);
        if depth > 0 {
            return Ok(());
        }
        self.backing
            .release(&self.db, self.dirty.replace(false))
            .await
    }

    fn now_ms(&self) -> u64 {
        self.backing.now_ms()
    }

    async fn database<R>(
        &self,
        write: bool,
        f: impl FnOnce(&Connection) -> Result<R>,
    ) -> Result<R> {
        self.with(write, f).await
    }
}

/// An in-memory database holding `image` (a serialized database; empty
/// when there is none). Either way SQLite keeps it in one buffer (its
/// `memdb` VFS), which `serialize` hands out without a copy.
pub fn from_image(image: Option<&[u8]>) -> Result<Connection> {
    let Some(bytes) = image else {
        // A private memdb database (a name not starting with `/`).
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        return Connection::open_with_flags("file:mnemo?vfs=memdb", flags).map_err(sql_error);
    };
    let mut conn = Connection::open_in_memory().map_err(sql_error)?;
    conn.deserialize_read_exact("main", bytes, bytes.len(), false)
        .map_err(sql_error)?;
    Ok(conn)
}

/// `conn`'s main database as an image (SQLite's `serialize`).
pub fn to_image(conn: &mut Connection) -> Result<Vec<u8>> {
    Ok(conn.serialize("main").map_err(sql_error)?.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use pollster::block_on;

    #[test]
    fn blobs_commit_atomically_and_count_versions() {
        let s = SqliteStorage::in_memory().unwrap();
        assert_eq!(db::version(&s.connection().unwrap()).unwrap(), 0);
        block_on(s.commit(&[
            Change::write("MEMORY.md", b"a"),
            Change::write("USER.md", b"b"),
        ]))
        .unwrap();
        assert_eq!(db::version(&s.connection().unwrap()).unwrap(), 1);
        assert_eq!(
            block_on(s.list()).unwrap(),
            vec!["MEMORY.md".to_string(), "USER.md".to_string()]
        );
        block_on(s.delete("USER.md")).unwrap();
        assert_eq!(block_on(s.read("USER.md")).unwrap(), None);
        assert_eq!(
            block_on(s.read("MEMORY.md")).unwrap().as_deref(),
            Some(&b"a"[..])
        );
        assert_eq!(db::version(&s.connection().unwrap()).unwrap(), 2);
        assert_eq!(s.kind(), "memory");
    }

    /// A backing that counts its hooks and fails persist on demand.
    #[derive(Default)]
    struct Counting {
        acquired: Cell<u32>,
        persisted: Cell<u32>,
        released: RefCell<Vec<bool>>,
        fail_persist: Cell<bool>,
    }

    impl Backing for Counting {
        fn kind(&self) -> &str {
            "counting"
        }
        fn now_ms(&self) -> u64 {
            7
        }
        async fn acquire(&self, db: &Slot) -> Result<()> {
            self.acquired.set(self.acquired.get() + 1);
            if !db.is_open() {
                let conn = Connection::open_in_memory().map_err(sql_error)?;
                db::prepare(&conn)?;
                db.set(conn);
            }
            Ok(())
        }
        async fn persist(&self, db: &Slot) -> Result<()> {
            self.persisted.set(self.persisted.get() + 1);
            if self.fail_persist.get() {
                db.take();
                return Err(Error::storage("quota"));
            }
            Ok(())
        }
        async fn release(&self, _db: &Slot, changed: bool) -> Result<()> {
            self.released.borrow_mut().push(changed);
            Ok(())
        }
    }

    #[test]
    fn the_outermost_lock_runs_the_hooks_and_a_write_persists() {
        let s = SqliteStorage::on(Counting::default());
        block_on(async {
            s.lock().await.unwrap();
            s.write("MEMORY.md", b"x").await.unwrap();
            assert_eq!(
                s.read("MEMORY.md").await.unwrap().as_deref(),
                Some(&b"x"[..])
            );
            s.unlock().await.unwrap();
            s.read("MEMORY.md").await.unwrap();
            let n = s
                .database(false, |c| {
                    c.query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get::<_, i64>(0))
                        .map_err(sql_error)
                })
                .await
                .unwrap();
            assert_eq!(n, 1);
        });
        let b = s.backing();
        assert_eq!(b.acquired.get(), 3);
        assert_eq!(b.persisted.get(), 1);
        assert_eq!(*b.released.borrow(), vec![true, false, false]);
        assert_eq!(s.now_ms(), 7);
    }

    #[test]
    fn a_failed_persist_changes_nothing() {
        let s = SqliteStorage::on(Counting::default());
        block_on(s.write("MEMORY.md", b"kept")).unwrap();
        s.backing().fail_persist.set(true);
        let e = block_on(s.write("MEMORY.md", b"lost")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Storage);
        assert!(!s.db.is_open(), "the database is dropped for a reload");
        assert!(s.connection().is_err());
    }

    #[test]
    fn a_newer_schema_is_refused_and_left_untouched() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("PRAGMA user_version = 99; CREATE TABLE t (x);")
            .unwrap();
        let e = SqliteStorage::new(conn, || 0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::StoreDamaged);
        assert!(e.message().contains("newer mnemo"), "{}", e.message());
    }

    #[test]
    fn images_round_trip() {
        let s = SqliteStorage::in_memory().unwrap();
        block_on(s.write("MEMORY.md", b"a")).unwrap();
        let image = to_image(&mut s.connection_mut().unwrap()).unwrap();
        let conn = from_image(Some(&image)).unwrap();
        assert_eq!(
            db::read_blob(&conn, "MEMORY.md").unwrap().as_deref(),
            Some(&b"a"[..])
        );
        let empty = from_image(None).unwrap();
        db::prepare(&empty).unwrap();
        assert_eq!(db::version(&empty).unwrap(), 0);
    }
}
