//! The storage seam: where the Markdown stores and sidecar state live.
//!
//! A [`Storage`] is a set of named blobs (`MEMORY.md`, `USER.md`, backups,
//! later sidecar state) that can be read one by one and changed as a set
//! with [`Storage::commit`]. The default `commit` is a write-ahead journal
//! over single-blob atomic writes, so any backend that can replace one blob
//! atomically (a directory with rename, a key-value store, a JS adapter)
//! gets all-or-nothing commits of several blobs; a database backend
//! overrides it with a transaction. The trait is async because browser and
//! edge backends are; native backends complete immediately.
//!
//! Backends: [`MemoryStorage`] (blobs in memory), `DirStorage` (a
//! directory, native); with the `sqlite` feature `SqliteStorage` (one
//! SQLite database: in memory, or on a `sqlite::Backing` that persists it)
//! and `state::StateDb` (a directory's files beside its `state.db`). With
//! the `js` feature in wasm: `adapter` (a JS object's async methods),
//! `browser` (OPFS and IndexedDB databases shared by tabs; also needs
//! `sqlite`) and `js`, the storage `Memory.open` builds from its options.
//!
//! This module must never interpret blob contents beyond the journal.

mod journal;
mod memory;
#[cfg(all(feature = "js", feature = "sqlite", target_arch = "wasm32"))]
pub mod nodefs;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "sqlite")]
pub mod state;

#[cfg(not(target_arch = "wasm32"))]
mod dir;

#[cfg(all(feature = "js", target_arch = "wasm32"))]
pub(crate) mod adapter;
#[cfg(all(feature = "js", feature = "sqlite", target_arch = "wasm32"))]
pub(crate) mod browser;
#[cfg(all(feature = "js", target_arch = "wasm32"))]
pub(crate) mod js;
#[cfg(any(test, all(feature = "js", feature = "sqlite", target_arch = "wasm32")))]
pub(crate) mod pages;

#[cfg(not(target_arch = "wasm32"))]
pub use dir::DirStorage;
pub use journal::{commit as journal_commit, recover as journal_recover, JOURNAL};
pub use memory::MemoryStorage;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStorage;

use crate::error::Result;

/// One change of a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Create or replace blob `name` with `data`.
    Write {
        /// The blob name.
        name: String,
        /// The new contents.
        data: Vec<u8>,
    },
    /// Remove blob `name` (absent is fine).
    Delete {
        /// The blob name.
        name: String,
    },
    /// Append `data` to blob `name`, which was `at` bytes long when the
    /// change was made (under the writers' lock): the blob becomes its first
    /// `at` bytes followed by `data` (created when absent). Applying it
    /// twice, as a journal's replay may, gives the same blob; a backend that
    /// can append in place writes only `data`.
    Append {
        /// The blob name.
        name: String,
        /// The blob's length before the change.
        at: u64,
        /// The bytes appended.
        data: Vec<u8>,
    },
}

/// Where a blob ends: what an append needs to know about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlobEnd {
    /// Its length in bytes.
    pub len: u64,
    /// Its last byte; none when it is empty.
    pub last: Option<u8>,
}

impl BlobEnd {
    /// The end of `bytes`.
    pub fn of(bytes: &[u8]) -> BlobEnd {
        BlobEnd {
            len: bytes.len() as u64,
            last: bytes.last().copied(),
        }
    }
}

/// `blob` cut to its first `at` bytes (kept whole when shorter), then
/// `data`: what [`Change::Append`] makes of a blob.
pub fn appended(mut blob: Vec<u8>, at: u64, data: &[u8]) -> Vec<u8> {
    blob.truncate(usize::try_from(at).unwrap_or(usize::MAX));
    blob.extend_from_slice(data);
    blob
}

impl Change {
    /// Create or replace blob `name` with `data`.
    pub fn write(name: &str, data: &[u8]) -> Change {
        Change::Write {
            name: name.to_string(),
            data: data.to_vec(),
        }
    }

    /// Remove blob `name`.
    pub fn delete(name: &str) -> Change {
        Change::Delete {
            name: name.to_string(),
        }
    }

    /// The blob this change is about.
    pub fn name(&self) -> &str {
        match self {
            Change::Write { name, .. } | Change::Delete { name } | Change::Append { name, .. } => {
                name
            }
        }
    }
}

/// Where a memory's blobs live. See the module docs.
#[allow(async_fn_in_trait)]
pub trait Storage {
    /// A short name of the backend for `status()`: `memory`, `fs`, `host`.
    fn kind(&self) -> &str;

    /// Reads blob `name`; `None` when it does not exist.
    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>>;

    /// Replaces blob `name` atomically: after a crash it holds the old or the
    /// new data, never a mix.
    async fn write(&self, name: &str, data: &[u8]) -> Result<()>;

    /// Removes blob `name`; absent is not an error.
    async fn delete(&self, name: &str) -> Result<()>;

    /// Where blob `name` ends; `None` when it does not exist. The default
    /// reads it; a backend that can tell without reading says so.
    async fn end(&self, name: &str) -> Result<Option<BlobEnd>> {
        Ok(self.read(name).await?.map(|b| BlobEnd::of(&b)))
    }

    /// Makes blob `name` its first `at` bytes followed by `data`, creating
    /// it when absent (see [`Change::Append`]). Not atomic on its own:
    /// [`Storage::commit`] journals it. The default reads the blob and
    /// writes it whole; a backend that can append in place overrides it.
    async fn write_at(&self, name: &str, at: u64, data: &[u8]) -> Result<()> {
        let blob = self.read(name).await?.unwrap_or_default();
        self.write(name, &appended(blob, at, data)).await
    }

    /// Which database this storage holds and its change counter, which
    /// every commit moves, when the backend keeps one (a SQLite database:
    /// how many times the storage loaded one in this process, and the
    /// database's counter); `None` when blobs can change without it (files
    /// a person may edit). A memory that saw the same version last need
    /// not read its blobs again.
    async fn version(&self) -> Result<Option<(u64, i64)>> {
        Ok(None)
    }

    /// Names of all blobs.
    async fn list(&self) -> Result<Vec<String>>;

    /// Names of the blobs whose names start with `folder` (`skills/`).
    /// The default filters [`Storage::list`]; a backend that keeps such
    /// a folder apart lists only it.
    async fn list_under(&self, folder: &str) -> Result<Vec<String>> {
        let mut names = self.list().await?;
        names.retain(|n| n.starts_with(folder));
        Ok(names)
    }

    /// Applies `changes` all-or-nothing. The default journals them first.
    async fn commit(&self, changes: &[Change]) -> Result<()> {
        journal::commit(self, changes).await
    }

    /// Finishes a commit interrupted by a crash. Called under the lock each
    /// time a memory takes it, so it must be cheap when there is nothing to
    /// finish (one read of the journal).
    async fn recover(&self) -> Result<()> {
        journal::recover(self).await
    }

    /// Takes the writers' lock (other processes or tabs). Default: none.
    async fn lock(&self) -> Result<()> {
        Ok(())
    }

    /// Releases the writers' lock.
    async fn unlock(&self) -> Result<()> {
        Ok(())
    }

    /// Milliseconds since the Unix epoch, for backup names and timestamps.
    fn now_ms(&self) -> u64;

    /// Runs `f` on the memory's SQLite database (sessions, and later every
    /// durable state that is not Markdown), under the storage's lock (taken
    /// here when the caller does not hold it). With `write`, what `f`
    /// changed is made durable before this returns. The default: this
    /// storage keeps no database (`unsupported`).
    #[cfg(feature = "sqlite")]
    async fn database<R>(
        &self,
        write: bool,
        f: impl FnOnce(&rusqlite::Connection) -> Result<R>,
    ) -> Result<R> {
        let _ = (write, f);
        Err(crate::error::Error::new(
            crate::error::ErrorKind::Unsupported,
            format!(
                "storage \"{}\" keeps no database, so it has no sessions; use a memories \
                 directory, \"memory\", \"opfs\", \"indexeddb\" or \"fs\" storage",
                self.kind()
            ),
        ))
    }
}

/// Checks a memory name (the JS `name` option): it becomes an OPFS
/// directory, an IndexedDB database name and a lock name, so every build
/// holds it to the same portable form.
#[cfg(all(feature = "js", target_arch = "wasm32"))]
pub(crate) fn check_name(name: &str) -> Result<()> {
    if portable(name) {
        Ok(())
    } else {
        Err(crate::error::Error::new(
            crate::error::ErrorKind::InvalidConfig,
            format!(
                "memory name {name:?} must be 1 to 64 of A-Z a-z 0-9 - _ . (not starting with a dot)"
            ),
        ))
    }
}

/// The form a name (a memory's, a workspace's) must have to become a
/// directory, an IndexedDB database or a lock name: 1 to 64 of `A-Z a-z
/// 0-9 - _ .`, not starting with a dot (so never `.`, `..` or hidden).
pub(crate) fn portable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.')
}

/// The key a browser memory is kept under: its name for the default
/// workspace (the layout of every earlier version), `name@workspace` for
/// a named one. `@` cannot appear in a name, so keys never collide.
#[cfg(all(feature = "js", feature = "sqlite", target_arch = "wasm32"))]
pub(crate) fn memory_key(name: &str, workspace: Option<&str>) -> String {
    match workspace {
        None => name.to_string(),
        Some(ws) => format!("{name}@{ws}"),
    }
}

/// Checks a browser memory key (see [`memory_key`]): what `Memory.list()`
/// answers and `Memory.delete()` / `Memory.recover()` take.
#[cfg(all(feature = "js", feature = "sqlite", target_arch = "wasm32"))]
pub(crate) fn check_key(key: &str) -> Result<()> {
    match key.split_once('@') {
        Some((name, workspace)) => {
            check_name(name)?;
            crate::api::check_workspace(workspace).map_err(|e| {
                crate::error::Error::new(crate::error::ErrorKind::InvalidConfig, e.message())
            })
        }
        None => check_name(key),
    }
}

/// Milliseconds since the Unix epoch from the system clock; 0 where there is
/// none (wasm32 without a host clock: bindings pass their own).
pub fn system_clock() -> u64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
    #[cfg(target_arch = "wasm32")]
    {
        0
    }
}

/// Drives a future whose storage answers synchronously (a directory, a
/// component host's imports, an edge KV store) to completion: such a future
/// is ready at its first poll. A future still pending after a few polls is
/// waiting for something that will never come here (nothing can wake it),
/// so it is dropped and the answer is an `internal` error instead of a
/// spin. Browser and JS backends are truly async; their bindings await.
pub fn run_ready<F: std::future::Future>(future: F) -> Result<F::Output> {
    /// Polls allowed: a backend may yield once or twice, never for real.
    const POLLS: u32 = 64;
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    for _ in 0..POLLS {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Ok(out);
        }
    }
    Err(crate::error::Error::new(
        crate::error::ErrorKind::Internal,
        "a storage call did not complete: this storage answers asynchronously, so await the \
         future instead of running it with run_ready",
    ))
}

#[cfg(test)]
mod tests {
    use super::{BlobEnd, Change, Storage};
    use pollster::block_on;

    /// What every backend promises about appends: `end` without reading,
    /// an append that writes only its bytes, a replay that cuts back to
    /// where the append started, and `write`/`delete` that drop what was
    /// appended.
    fn appends_keep_their_promises(s: &impl Storage) {
        let log = "logs/2026-12-01.md";
        let append = |at: u64, data: &str| Change::Append {
            name: log.into(),
            at,
            data: data.as_bytes().to_vec(),
        };
        assert_eq!(block_on(s.end(log)).unwrap(), None);
        block_on(s.commit(&[append(0, "# A\n")])).unwrap();
        let mut expected = String::from("# A\n");
        for i in 0..300 {
            let line = format!("- {i}\n");
            let at = block_on(s.end(log)).unwrap().unwrap().len;
            assert_eq!(at, expected.len() as u64);
            block_on(s.commit(&[append(at, &line), Change::write("MEMORY.md", b"m")])).unwrap();
            expected.push_str(&line);
        }
        assert_eq!(block_on(s.read(log)).unwrap().unwrap(), expected.as_bytes());
        assert_eq!(
            block_on(s.end(log)).unwrap(),
            Some(BlobEnd {
                len: expected.len() as u64,
                last: Some(b'\n')
            })
        );
        // A replay of the last append (its bytes are there already).
        let at = (expected.len() - "- 299\n".len()) as u64;
        block_on(s.write_at(log, at, b"- 299\n")).unwrap();
        assert_eq!(block_on(s.read(log)).unwrap().unwrap(), expected.as_bytes());
        // An append at a stale length cuts what followed it.
        block_on(s.write_at(log, 4, b"x")).unwrap();
        assert_eq!(block_on(s.read(log)).unwrap().unwrap(), b"# A\nx");
        block_on(s.write(log, b"whole")).unwrap();
        assert_eq!(block_on(s.read(log)).unwrap().unwrap(), b"whole");
        block_on(s.commit(&[append(5, "!")])).unwrap();
        assert_eq!(block_on(s.read(log)).unwrap().unwrap(), b"whole!");
        block_on(s.delete(log)).unwrap();
        assert_eq!(block_on(s.read(log)).unwrap(), None);
        block_on(s.commit(&[append(0, "new")])).unwrap();
        assert_eq!(block_on(s.read(log)).unwrap().unwrap(), b"new");
        assert!(!block_on(s.list())
            .unwrap()
            .contains(&super::JOURNAL.to_string()));
    }

    #[test]
    fn every_backend_appends_in_place_and_replays_exactly() {
        appends_keep_their_promises(&super::MemoryStorage::new());
        #[cfg(not(target_arch = "wasm32"))]
        {
            let dir = tempfile::tempdir().unwrap();
            appends_keep_their_promises(&super::DirStorage::open(dir.path()).unwrap());
        }
        #[cfg(feature = "sqlite")]
        appends_keep_their_promises(&super::SqliteStorage::in_memory().unwrap());
        #[cfg(all(feature = "sqlite", not(target_arch = "wasm32")))]
        {
            let dir = tempfile::tempdir().unwrap();
            appends_keep_their_promises(&super::state::directory(dir.path()).unwrap());
        }
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn appended_parts_are_rows_and_fold_into_the_blob() {
        let s = super::SqliteStorage::in_memory().unwrap();
        let mut at = 0;
        for i in 0..600u32 {
            let data = format!("{i},");
            block_on(s.commit(&[Change::Append {
                name: "log".into(),
                at,
                data: data.clone().into_bytes(),
            }]))
            .unwrap();
            at += data.len() as u64;
        }
        let parts: i64 = s
            .connection()
            .unwrap()
            .query_row("SELECT count(*) FROM blob_parts", [], |r| r.get(0))
            .unwrap();
        assert!(parts < 256, "{parts} parts");
        let text = String::from_utf8(block_on(s.read("log")).unwrap().unwrap()).unwrap();
        let expected: String = (0..600).map(|i| format!("{i},")).collect();
        assert_eq!(text, expected);
        assert_eq!(block_on(s.list()).unwrap(), ["log"]);
    }

    #[test]
    fn run_ready_gives_up_on_a_future_that_is_really_pending() {
        let e = super::run_ready(std::future::pending::<()>()).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Internal);
        assert_eq!(super::run_ready(async { 7 }).unwrap(), 7);
    }

    #[test]
    fn memory_and_workspace_names_cannot_name_another_place() {
        // They become OPFS directories, IndexedDB names, lock names, KV key
        // prefixes and folders of the CLI's layout.
        for good in ["a", "team-1_v2.0", &"x".repeat(64)] {
            assert!(super::portable(good), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "a/b",
            "a\\b",
            ".hidden",
            "a@b",
            "a b",
            "a\0",
            "é",
            "ｘ",
            "%2e%2e",
            &"x".repeat(65),
        ] {
            assert!(!super::portable(bad), "{bad:?}");
            assert!(crate::api::check_workspace(bad).is_err(), "{bad:?}");
        }
    }
}
