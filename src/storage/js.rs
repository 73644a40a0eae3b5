//! The storage of a memory opened from JS, as `Memory.open` builds it from
//! its `storage` option, in both npm builds:
//!
//! | option | full build (`js` + `sqlite`) | lean build (`js` alone) |
//! |---|---|---|
//! | `"memory"` | a SQLite database in memory | [`MemoryStorage`](super::MemoryStorage) |
//! | `"opfs"`, `"indexeddb"` | a SQLite database there ([`super::browser`]) | `unsupported` |
//! | `"auto"` | OPFS, else IndexedDB, else `"memory"` with a warning | `"memory"` with a warning |
//! | `"fs"` | the directory's files through [`Adapter`], its state in `state.db` ([`StateDb`], the file the CLI opens, through [`super::nodefs`]) | [`Adapter`] |
//! | an adapter | [`Adapter`]; sessions in a database image kept through it | [`Adapter`] |
//!
//! A `workspace` keeps a memory of its own beside the default one: the
//! browser database `name@workspace` (the default workspace keeps the
//! plain `name`), the directory `<dir>/../workspaces/<workspace>/memories`
//! for `"fs"` (the CLI's layout, `dir` being the default workspace's
//! `…/memories`), and the blobs `workspaces/<workspace>/…` of an adapter.
//!
//! Also `Memory.list`, `Memory.recover` and `Memory.delete`, which are
//! `unsupported` in the lean build (it keeps nothing in the browser).

use js_sys::Function;
use wasm_bindgen::JsValue;

use super::adapter::{warn, Adapter};
#[cfg(feature = "sqlite")]
use super::browser::{self, Browser};
#[cfg(feature = "sqlite")]
use super::memory_key;
#[cfg(feature = "sqlite")]
use super::sqlite::{Backing, Image, InMemory, Slot, SqliteStorage};
#[cfg(feature = "sqlite")]
use super::state::{StateDb, STATE_DB};
#[cfg(not(feature = "sqlite"))]
use super::MemoryStorage;
use super::{check_name, Change, Storage};
use crate::error::{Error, ErrorKind, Result};

fn now() -> u64 {
    js_sys::Date::now() as u64
}

/// Where the database of a full build's memory lives.
#[cfg(feature = "sqlite")]
pub enum JsBacking {
    /// In wasm memory only (lost on reload).
    Memory(InMemory),
    /// OPFS or IndexedDB, shared by the origin's tabs and workers.
    Browser(Browser),
    /// An image kept through a storage adapter (Node's `"fs"`, edge
    /// stores): the sessions of a memory whose stores live there.
    Adapter(Image<Adapter>),
}

/// Calls `$method` on whichever backing this is.
#[cfg(feature = "sqlite")]
macro_rules! backing {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            JsBacking::Memory($b) => $call,
            JsBacking::Browser($b) => $call,
            JsBacking::Adapter($b) => $call,
        }
    };
}

#[cfg(feature = "sqlite")]
impl Backing for JsBacking {
    fn kind(&self) -> &str {
        backing!(self, b => b.kind())
    }

    fn now_ms(&self) -> u64 {
        now()
    }

    async fn acquire(&self, db: &Slot) -> Result<()> {
        backing!(self, b => b.acquire(db).await)
    }

    async fn persist(&self, db: &Slot) -> Result<()> {
        backing!(self, b => b.persist(db).await)
    }

    async fn release(&self, db: &Slot, changed: bool) -> Result<()> {
        backing!(self, b => b.release(db, changed).await)
    }
}

/// The SQLite database of a full build's memory.
#[cfg(feature = "sqlite")]
pub type Database = SqliteStorage<JsBacking>;

/// The storage of a JS-side memory; see the module docs.
pub enum JsStorage {
    /// A SQLite database: in memory (lost on reload), on OPFS or in
    /// IndexedDB. Holds the sessions too.
    #[cfg(feature = "sqlite")]
    Db(Database),
    /// Blobs in wasm memory (the lean build's `"memory"`).
    #[cfg(not(feature = "sqlite"))]
    Memory(MemoryStorage),
    /// Node's `"fs"` storage: a memories directory, its files through the
    /// adapter and its state in the directory's `state.db`, shared with
    /// the CLI.
    #[cfg(feature = "sqlite")]
    Dir(StateDb<Adapter>),
    /// A JS adapter object for the stores.
    Host {
        /// The adapter.
        adapter: Adapter,
        /// The sessions: a database image kept through the same adapter.
        #[cfg(feature = "sqlite")]
        sessions: Database,
    },
}

impl JsStorage {
    /// Storage through the adapter object `adapter`, reported by `status()`
    /// as `kind` (`fs` or `host`); a named `workspace` (checked) keeps its
    /// blobs under `workspaces/<workspace>/`.
    pub fn host(
        adapter: JsValue,
        kind: &'static str,
        workspace: Option<&str>,
    ) -> Result<JsStorage> {
        let adapter = Adapter::new(adapter, kind)?;
        JsStorage::on_adapter(match workspace {
            Some(ws) => adapter.in_workspace(ws),
            None => adapter,
        })
    }

    /// Node's `"fs"` storage: the memories directory `dir`, or for a named
    /// `workspace` (checked) the workspace's directory beside it (see
    /// [`workspace_dir`]).
    pub fn fs(dir: &str, workspace: Option<&str>) -> Result<JsStorage> {
        let dir = match workspace {
            Some(ws) => workspace_dir(dir, ws)?,
            None => dir.to_string(),
        };
        let dir = dir.as_str();
        let files = Adapter::node_fs(dir)?;
        #[cfg(feature = "sqlite")]
        {
            let path = format!("{}/{STATE_DB}", dir.trim_end_matches('/'));
            Ok(JsStorage::Dir(StateDb::new(
                files,
                Box::new(move || super::nodefs::open(&path)),
            )))
        }
        #[cfg(not(feature = "sqlite"))]
        JsStorage::on_adapter(files)
    }
}

/// The memories directory of workspace `workspace` for the default
/// workspace's memories directory `dir`: `<dir>/../workspaces/<workspace>/memories`,
/// the CLI's layout (`$MNEMO_HOME/memories` and
/// `$MNEMO_HOME/workspaces/<workspace>/memories`). A `dir` not named
/// `memories` is refused (`invalid-config`): its workspaces would have no
/// place that the CLI would find too.
pub fn workspace_dir(dir: &str, workspace: &str) -> Result<String> {
    let trimmed = dir.trim_end_matches(['/', '\\']);
    let (parent, base) = match trimmed.rfind(['/', '\\']) {
        Some(i) => (&trimmed[..=i], &trimmed[i + 1..]),
        None => ("", trimmed),
    };
    if base != "memories" {
        return Err(Error::new(
            ErrorKind::InvalidConfig,
            format!(
                "workspace {workspace:?} with storage \"fs\" needs dir to be the default \
                 workspace's memories directory, a path ending in \"memories\" (as \
                 $MNEMO_HOME/memories); the workspace then lives in \
                 <dir>/../workspaces/{workspace}/memories, where the CLI finds it"
            ),
        ));
    }
    Ok(format!("{parent}workspaces/{workspace}/memories"))
}

/// Warns that storage `"auto"` fell back to `"memory"`, and `why`.
fn fell_back(why: &str) {
    warn(&format!(
        "mnemo: storage \"auto\" fell back to \"memory\" ({why}); notes will not survive a reload"
    ));
}

#[cfg(feature = "sqlite")]
impl JsStorage {
    /// Memory `name` (in `workspace`, checked; the default one when none)
    /// on storage `kind`: `"memory"`, `"opfs"`, `"indexeddb"` or `"auto"`
    /// (which warns on the console when it falls back to `"memory"`).
    pub async fn named(kind: &str, name: &str, workspace: Option<&str>) -> Result<JsStorage> {
        check_name(name)?;
        let name = &memory_key(name, workspace);
        match kind {
            "opfs" | "indexeddb" => JsStorage::browser(name, kind).await,
            "auto" => {
                let chosen = browser::auto_backend();
                let why = if chosen == "memory" {
                    "neither OPFS nor IndexedDB is available here".to_string()
                } else {
                    match JsStorage::browser(name, chosen).await {
                        Ok(storage) => return Ok(storage),
                        Err(e) => format!("{chosen} failed: {}", e.message()),
                    }
                };
                fell_back(&why);
                JsStorage::memory()
            }
            _ => JsStorage::memory(),
        }
    }

    fn memory() -> Result<JsStorage> {
        Ok(JsStorage::Db(SqliteStorage::with_slot(
            Slot::in_memory()?,
            JsBacking::Memory(InMemory::new(now)),
        )))
    }

    async fn browser(name: &str, kind: &str) -> Result<JsStorage> {
        let db = browser::open(name, kind).await?;
        Ok(JsStorage::Db(db.map_backing(JsBacking::Browser)))
    }

    fn on_adapter(adapter: Adapter) -> Result<JsStorage> {
        Ok(JsStorage::Host {
            sessions: SqliteStorage::on(JsBacking::Adapter(Image::new(adapter.clone()))),
            adapter,
        })
    }

    /// The browser backing, when other tabs and workers may share this
    /// memory.
    fn shared_with(&self) -> Option<&Browser> {
        match self {
            JsStorage::Db(db) => match db.backing() {
                JsBacking::Browser(b) => Some(b),
                _ => None,
            },
            JsStorage::Dir(_) | JsStorage::Host { .. } => None,
        }
    }

    /// Whether other tabs and workers may share this memory (and tell of
    /// their changes, see [`JsStorage::subscribe`]).
    pub fn shared(&self) -> bool {
        self.shared_with().is_some()
    }

    /// Listens to the other contexts sharing this memory: `changed` (one
    /// committed) and `deleted` are passed to `on_message`.
    pub fn subscribe(&self, on_message: Function) {
        if let Some(b) = self.shared_with() {
            b.subscribe(on_message);
        }
    }

    /// Stops listening and lets go of the lock (on close).
    pub fn close(&self) {
        if let Some(b) = self.shared_with() {
            b.close();
        }
    }

    /// Lets go of the lock, so that the next call checks storage as an
    /// open would (see [`Browser::suspend`]); nothing for other storages.
    pub fn suspend(&self) {
        if let Some(b) = self.shared_with() {
            b.suspend();
        }
    }

    /// Every memory name this origin keeps: `Memory.list()`.
    pub async fn list_all() -> Result<Vec<String>> {
        browser::list_all().await
    }

    /// Recovers memory `name` on `kind` from a damaged database:
    /// `Memory.recover()`, resolving to `{name, salvaged, kept}`.
    pub async fn recover(name: &str, kind: &str) -> Result<impl serde::Serialize> {
        browser::recover(name, kind).await
    }

    /// Removes every byte of memory `name` from this origin:
    /// `Memory.delete()`, resolving to the backends that held data.
    pub async fn remove_all(name: &str) -> Result<Vec<String>> {
        browser::remove_all(name).await
    }
}

/// The lean build: the same calls, without SQLite.
#[cfg(not(feature = "sqlite"))]
impl JsStorage {
    /// Memory `name` on storage `kind`: `"memory"` (and `"auto"`, with a
    /// console warning) are blobs in memory, one set per instance whatever
    /// the workspace; `"opfs"` and `"indexeddb"` are `unsupported`.
    pub async fn named(kind: &str, name: &str, _workspace: Option<&str>) -> Result<JsStorage> {
        check_name(name)?;
        match kind {
            "opfs" | "indexeddb" => Err(lean(&format!("storage {kind:?}"))),
            "auto" => {
                fell_back("this lean build has no OPFS or IndexedDB storage");
                Ok(JsStorage::Memory(MemoryStorage::with_clock(now)))
            }
            _ => Ok(JsStorage::Memory(MemoryStorage::with_clock(now))),
        }
    }

    fn on_adapter(adapter: Adapter) -> Result<JsStorage> {
        Ok(JsStorage::Host { adapter })
    }

    /// Never: nothing is shared between contexts here.
    pub fn shared(&self) -> bool {
        false
    }

    /// Nothing to listen to.
    pub fn subscribe(&self, _on_message: Function) {}

    /// Nothing to let go of.
    pub fn close(&self) {}

    /// Nothing to let go of.
    pub fn suspend(&self) {}

    /// `unsupported`: this build keeps no memories in the browser.
    pub async fn list_all() -> Result<Vec<String>> {
        Err(lean("Memory.list"))
    }

    /// `unsupported`: this build keeps no memories in the browser.
    pub async fn recover(_name: &str, _kind: &str) -> Result<()> {
        Err(lean("Memory.recover"))
    }

    /// `unsupported`: this build keeps no memories in the browser.
    pub async fn remove_all(_name: &str) -> Result<Vec<String>> {
        Err(lean("Memory.delete"))
    }
}

/// `what` is not in the lean build.
#[cfg(not(feature = "sqlite"))]
fn lean(what: &str) -> crate::error::Error {
    Error::new(
        ErrorKind::Unsupported,
        format!(
            "{what} needs the full build of mnemo (\"mnemo\", \"mnemo/web\" or \
             \"mnemo/browser\"): this lean build has no SQLite and keeps nothing in the browser"
        ),
    )
}

/// Calls `$method` on whichever storage holds the stores.
macro_rules! delegate {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            #[cfg(feature = "sqlite")]
            JsStorage::Db($s) => $call,
            #[cfg(not(feature = "sqlite"))]
            JsStorage::Memory($s) => $call,
            #[cfg(feature = "sqlite")]
            JsStorage::Dir($s) => $call,
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

    async fn version(&self) -> Result<Option<(u64, i64)>> {
        delegate!(self, s => s.version().await)
    }

    async fn end(&self, name: &str) -> Result<Option<super::BlobEnd>> {
        delegate!(self, s => s.end(name).await)
    }

    async fn write_at(&self, name: &str, at: u64, data: &[u8]) -> Result<()> {
        delegate!(self, s => s.write_at(name, at, data).await)
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

    #[cfg(feature = "sqlite")]
    async fn database<R>(
        &self,
        write: bool,
        f: impl FnOnce(&rusqlite::Connection) -> Result<R>,
    ) -> Result<R> {
        match self {
            JsStorage::Db(db) => db.with(write, f).await,
            JsStorage::Dir(dir) => dir.database(write, f).await,
            JsStorage::Host { sessions, .. } => sessions.with(write, f).await,
        }
    }
}
