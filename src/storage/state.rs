//! A memories directory with its state database: the Markdown stores (and
//! their backups) stay files a person can edit, everything else mnemo keeps
//! (the sidecar state, the history, the sessions) lives in one SQLite
//! database beside them, `state.db`.
//!
//! [`StateDb`] wraps the storage of the files (a native directory, Node's
//! `"fs"` adapter) and routes the state blobs to the database's `blobs`
//! table, so the CLI, a Node agent and (later) the MCP server share one
//! session store and one sidecar per directory. The database is reached
//! only under the directory's lock (the files' [`Storage::lock`]), which
//! both the CLI and the Node adapter take: that lock, not SQLite's file
//! locks, keeps writers apart (the wasm build's file access has none).
//!
//! A commit that touches only files goes to the files' storage; one that
//! touches only state is one database transaction; a mixed commit goes
//! through the journal, whose replay after a crash writes each blob where
//! it belongs. State that an older mnemo kept as files (`mnemo-state.json`,
//! `mnemo-history.json`) or as a database image (`sessions.db`) is moved
//! into the database when it is first opened; the old file is kept as
//! `<name>.migrated`.
//!
//! This module must never interpret the blobs it routes.

use std::cell::RefCell;

use rusqlite::Connection;

use super::{journal, Change, Storage};
use crate::db;
use crate::error::Result;

/// The blobs kept in the database rather than as files.
pub const STATE_BLOBS: [&str; 4] = [
    crate::sidecar::BLOB,
    crate::skills::META_BLOB,
    crate::sidecar::HISTORY_BLOB,
    crate::curate::POSITION_BLOB,
];

/// The database's file name in a memories directory.
pub const STATE_DB: &str = "state.db";

/// A database image of sessions kept by an earlier Node `"fs"` storage.
pub const OLD_SESSIONS_IMAGE: &str = "sessions.db";

/// Opens the state database (natively with rusqlite, in Node through the
/// file-system VFS).
pub type Opener = Box<dyn Fn() -> Result<Connection>>;

/// Files through `S`, state in a database. See the module docs.
pub struct StateDb<S: Storage> {
    files: S,
    opener: Opener,
    conn: RefCell<Option<Connection>>,
}

impl<S: Storage + std::fmt::Debug> std::fmt::Debug for StateDb<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateDb")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

fn is_state(name: &str) -> bool {
    STATE_BLOBS.contains(&name)
}

impl<S: Storage> StateDb<S> {
    /// Files through `files`, state in the database `opener` opens (on
    /// first use, under the lock).
    pub fn new(files: S, opener: Opener) -> StateDb<S> {
        StateDb {
            files,
            opener,
            conn: RefCell::new(None),
        }
    }

    /// The storage of the files.
    pub fn files(&self) -> &S {
        &self.files
    }

    /// Runs `f` on the database, opening and migrating it on first use.
    /// The caller holds the lock.
    async fn with_conn<R>(&self, f: impl FnOnce(&Connection) -> Result<R>) -> Result<R> {
        if self.conn.borrow().is_none() {
            let conn = (self.opener)()?;
            db::prepare(&conn)?;
            self.migrate(&conn).await?;
            *self.conn.borrow_mut() = Some(conn);
        }
        let guard = self.conn.borrow();
        f(guard.as_ref().expect("opened above"))
    }

    /// Moves state an older mnemo kept as files into `conn`.
    async fn migrate(&self, conn: &Connection) -> Result<()> {
        let names = self.files.list().await?;
        for name in STATE_BLOBS {
            if !names.iter().any(|n| n == name) {
                continue;
            }
            if let Some(data) = self.files.read(name).await? {
                let kept = db::read_blob(conn, name)?;
                let merged = match kept {
                    None => Some(data),
                    // A build without the database (the lean npm build)
                    // kept writing the file: its superseded texts join the
                    // history; the entry ids stay the database's.
                    Some(kept) if name == crate::sidecar::HISTORY_BLOB => {
                        merge_history(&kept, &data)
                    }
                    Some(_) => None,
                };
                if let Some(merged) = merged {
                    db::commit_blobs(conn, &[Change::write(name, &merged)])?;
                }
            }
            self.retire(name).await?;
        }
        if names.iter().any(|n| n == OLD_SESSIONS_IMAGE) {
            if let Some(image) = self.files.read(OLD_SESSIONS_IMAGE).await? {
                crate::sessions::merge_image(conn, &image)?;
            }
            self.retire(OLD_SESSIONS_IMAGE).await?;
        }
        Ok(())
    }

    /// Keeps a migrated file as `<name>.migrated` and removes it.
    async fn retire(&self, name: &str) -> Result<()> {
        if let Some(data) = self.files.read(name).await? {
            self.files.write(&format!("{name}.migrated"), &data).await?;
        }
        self.files.delete(name).await
    }

    /// Commits changes of state blobs in one transaction.
    async fn commit_state(&self, changes: &[Change]) -> Result<()> {
        self.locked(async || self.with_conn(|c| db::commit_blobs(c, changes)).await)
            .await
    }

    async fn locked<R>(&self, f: impl AsyncFnOnce() -> Result<R>) -> Result<R> {
        self.files.lock().await?;
        let result = f().await;
        let unlocked = self.files.unlock().await;
        let r = result?;
        unlocked?;
        Ok(r)
    }
}

/// The history `kept` with the items of `other` it lacks, when there are
/// any (both must parse: a history that does not is never rewritten).
fn merge_history(kept: &[u8], other: &[u8]) -> Option<Vec<u8>> {
    let mut history = crate::sidecar::History::parse(Some(kept)).ok()?;
    let other = crate::sidecar::History::parse(Some(other)).ok()?;
    let before = history.items.len();
    for item in other.items {
        if !history.items.contains(&item) {
            history.items.push(item);
        }
    }
    if history.items.len() == before {
        return None;
    }
    crate::order::sort_by_key(&mut history.items, |i| i.time);
    Some(history.to_bytes())
}

impl<S: Storage> Storage for StateDb<S> {
    fn kind(&self) -> &str {
        self.files.kind()
    }

    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        if is_state(name) {
            self.locked(async || self.with_conn(|c| db::read_blob(c, name)).await)
                .await
        } else {
            self.files.read(name).await
        }
    }

    async fn write(&self, name: &str, data: &[u8]) -> Result<()> {
        if is_state(name) {
            self.commit_state(&[Change::write(name, data)]).await
        } else {
            self.files.write(name, data).await
        }
    }

    async fn delete(&self, name: &str) -> Result<()> {
        if is_state(name) {
            self.commit_state(&[Change::delete(name)]).await
        } else {
            self.files.delete(name).await
        }
    }

    async fn end(&self, name: &str) -> Result<Option<super::BlobEnd>> {
        if is_state(name) {
            Ok(self.read(name).await?.map(|b| super::BlobEnd::of(&b)))
        } else {
            self.files.end(name).await
        }
    }

    async fn write_at(&self, name: &str, at: u64, data: &[u8]) -> Result<()> {
        if is_state(name) {
            self.commit_state(&[Change::Append {
                name: name.to_string(),
                at,
                data: data.to_vec(),
            }])
            .await
        } else {
            self.files.write_at(name, at, data).await
        }
    }

    async fn list(&self) -> Result<Vec<String>> {
        let mut names = self.files.list().await?;
        let state = self
            .locked(async || self.with_conn(db::blob_names).await)
            .await?;
        names.retain(|n| !is_state(n));
        names.extend(state);
        crate::order::sort(&mut names);
        Ok(names)
    }

    async fn list_under(&self, folder: &str) -> Result<Vec<String>> {
        if STATE_BLOBS.iter().any(|n| n.starts_with(folder)) {
            let mut names = self.list().await?;
            names.retain(|n| n.starts_with(folder));
            return Ok(names);
        }
        self.files.list_under(folder).await
    }

    async fn commit(&self, changes: &[Change]) -> Result<()> {
        let state = changes.iter().filter(|c| is_state(c.name())).count();
        if state == 0 {
            self.files.commit(changes).await
        } else if state == changes.len() {
            self.commit_state(changes).await
        } else {
            journal::commit(self, changes).await
        }
    }

    async fn recover(&self) -> Result<()> {
        journal::recover(self).await
    }

    async fn lock(&self) -> Result<()> {
        self.files.lock().await
    }

    async fn unlock(&self) -> Result<()> {
        self.files.unlock().await
    }

    fn now_ms(&self) -> u64 {
        self.files.now_ms()
    }

    async fn database<R>(
        &self,
        _write: bool,
        f: impl FnOnce(&Connection) -> Result<R>,
    ) -> Result<R> {
        // Every statement commits on its own or in the transaction `f`
        // opens: the database file is durable when `f` returns.
        self.locked(async || self.with_conn(f).await).await
    }
}

/// A memories directory on this machine with its `state.db`: what the CLI
/// opens.
#[cfg(not(target_arch = "wasm32"))]
pub fn directory(dir: impl Into<std::path::PathBuf>) -> Result<StateDb<super::DirStorage>> {
    let files = super::DirStorage::open(dir)?;
    let root = files.dir().to_path_buf();
    let path = root.join(STATE_DB);
    Ok(StateDb::new(
        files,
        Box::new(move || {
            // SQLite would follow a link, for the database and its journal.
            for suffix in ["", "-journal", "-wal", "-shm"] {
                super::dir::no_links(&root, &root.join(format!("{STATE_DB}{suffix}")))?;
            }
            db::open_file(&path)
        }),
    ))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::api::{ListOptions, SessionSearchOptions, Turn};
    use crate::{Config, Memory};
    use pollster::block_on;

    fn turn(session: &str, user: &str) -> Turn {
        Turn {
            session: session.into(),
            user: user.into(),
            assistant: "ok".into(),
            time: Some(1),
            source: "test".into(),
        }
    }

    #[test]
    fn state_lives_in_the_database_and_the_stores_stay_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        let args = serde_json::json!({"action": "add", "target": "user", "content": "Likes tea"});
        assert!(block_on(m.tool(&args)).success);
        block_on(m.record_turn(&turn("s1", "where is the staging server?"))).unwrap();
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.contains(&"USER.md".to_string()), "{names:?}");
        assert!(names.contains(&STATE_DB.to_string()), "{names:?}");
        assert!(!names.iter().any(|n| is_state(n)), "{names:?}");
        let conn = Connection::open(dir.path().join(STATE_DB)).unwrap();
        assert!(db::read_blob(&conn, crate::sidecar::BLOB)
            .unwrap()
            .is_some());
        // A second process (here: a second storage) sees the same sessions.
        let other = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        let hits =
            block_on(other.session_search("staging", &SessionSearchOptions::default())).unwrap();
        assert_eq!(hits.len(), 1);
    }

    #[test]
    fn old_state_files_and_a_sessions_image_are_migrated_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        // What an earlier mnemo left: sidecar and history as files, and
        // Node's sessions as a database image.
        let mut plain = block_on(Memory::open(
            crate::storage::DirStorage::open(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        for (action, content, old) in [
            ("add", "Port 8080", None),
            ("replace", "Port 9090", Some("8080")),
        ] {
            let args = serde_json::json!({"action": action, "target": "memory", "content": content, "old_text": old});
            assert!(block_on(plain.tool(&args)).success);
        }
        let sidecar = std::fs::read(dir.path().join(crate::sidecar::BLOB)).unwrap();
        let history = std::fs::read(dir.path().join(crate::sidecar::HISTORY_BLOB)).unwrap();
        let image = {
            let mut conn = Connection::open_in_memory().unwrap();
            db::prepare(&conn).unwrap();
            crate::sessions::Sessions::prepared(&conn, crate::text::Analyzer::new())
                .record_turn("old", "node", "the deploy key rotates monthly", "noted", 5)
                .unwrap();
            conn.serialize("main").unwrap().to_vec()
        };
        std::fs::write(dir.path().join(OLD_SESSIONS_IMAGE), &image).unwrap();

        let m = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        assert_eq!(m.sidecar().to_bytes(), sidecar);
        let items = block_on(m.history()).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].text, "Port 8080");
        let hits =
            block_on(m.session_search("deploy key", &SessionSearchOptions::default())).unwrap();
        assert_eq!(hits.len(), 1);
        for name in [
            crate::sidecar::BLOB,
            crate::sidecar::HISTORY_BLOB,
            OLD_SESSIONS_IMAGE,
        ] {
            assert!(!dir.path().join(name).exists(), "{name}");
            assert!(
                dir.path().join(format!("{name}.migrated")).exists(),
                "{name}"
            );
        }
        assert_eq!(
            std::fs::read(
                dir.path()
                    .join(format!("{}.migrated", crate::sidecar::HISTORY_BLOB))
            )
            .unwrap(),
            history
        );
    }

    #[test]
    fn two_writers_on_one_directory_lose_no_turn() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        let mut b = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        for i in 0..20 {
            let m = if i % 2 == 0 { &mut a } else { &mut b };
            block_on(m.record_turn(&turn(&format!("s{}", i % 3), &format!("message {i}"))))
                .unwrap();
        }
        let sessions = block_on(a.sessions(&ListOptions::default())).unwrap();
        assert_eq!(sessions.iter().map(|s| s.messages).sum::<i64>(), 40);
    }

    #[test]
    fn a_mixed_commit_interrupted_after_its_journal_is_replayed_into_both_places() {
        let dir = tempfile::tempdir().unwrap();
        let storage = directory(dir.path()).unwrap();
        let changes = [
            Change::write("MEMORY.md", b"new text"),
            Change::write(crate::sidecar::BLOB, b"{\"new\": true}"),
        ];
        // The crash: the journal is written, nothing applied.
        block_on(
            storage
                .files()
                .write(journal::JOURNAL, &journal::encode(&changes)),
        )
        .unwrap();
        block_on(storage.recover()).unwrap();
        assert_eq!(
            block_on(storage.read("MEMORY.md")).unwrap().unwrap(),
            b"new text"
        );
        assert_eq!(
            block_on(storage.read(crate::sidecar::BLOB))
                .unwrap()
                .unwrap(),
            b"{\"new\": true}"
        );
        assert!(block_on(storage.files().read(journal::JOURNAL))
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_journal_a_killed_writer_left_is_finished_before_a_live_memory_writes() {
        let dir = tempfile::tempdir().unwrap();
        // A long-lived writer (an MCP server, a Node agent) with one note.
        let mut live = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        let add = serde_json::json!({"action": "add", "target": "memory", "content": "Deploys run on Fridays"});
        assert!(block_on(live.tool(&add)).success);
        // Another process was killed between writing its commit's journal
        // and applying it: a second note and the sidecar as it knew it.
        let files = directory(dir.path()).unwrap();
        let sidecar = block_on(files.read(crate::sidecar::BLOB)).unwrap().unwrap();
        let changes = [
            Change::write(
                "MEMORY.md",
                b"Deploys run on Fridays\n\xc2\xa7\nStaging is 10.0.1.50",
            ),
            Change::write(crate::sidecar::BLOB, &sidecar),
        ];
        block_on(
            files
                .files()
                .write(journal::JOURNAL, &journal::encode(&changes)),
        )
        .unwrap();
        // The live writer pins its note: metadata only, a commit of one
        // blob with no journal of its own.
        block_on(live.pin("Fridays", None)).unwrap();
        // The next process to open must not replay the old journal over
        // the pin.
        let mut next = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        let index = next
            .store(crate::Target::Memory)
            .entries()
            .iter()
            .position(|e| e == "Deploys run on Fridays")
            .unwrap();
        assert!(next.pinned(crate::Target::Memory, index));
        assert_eq!(next.store(crate::Target::Memory).entries().len(), 2);
    }

    #[test]
    fn a_history_file_written_beside_the_database_is_merged_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        for (action, content, old) in [("add", "A1", None), ("replace", "A2", Some("A1"))] {
            let args = serde_json::json!({"action": action, "target": "memory", "content": content, "old_text": old});
            assert!(block_on(m.tool(&args)).success);
        }
        drop(m);
        // A build without the database writes its own history file.
        let mut lean = block_on(Memory::open(
            crate::storage::DirStorage::open(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        let args = serde_json::json!({"action": "replace", "target": "memory", "content": "A3", "old_text": "A2"});
        assert!(block_on(lean.tool(&args)).success);
        drop(lean);
        let m = block_on(Memory::open(
            directory(dir.path()).unwrap(),
            Config::default(),
        ))
        .unwrap();
        let texts: Vec<String> = block_on(m.history())
            .unwrap()
            .into_iter()
            .map(|i| i.text)
            .collect();
        assert_eq!(texts, ["A2", "A1"]);
    }
}
