//! The state database: one SQLite schema for everything mnemo keeps beside
//! (or, in a browser, instead of) the Markdown files.
//!
//! Natively it is `state.db` in the memories directory and holds the
//! sessions. In a browser it is the whole memory: the `blobs` table holds the
//! Markdown text of both stores and the sidecar state under the same names
//! the directory backend uses as file names, so one transaction covers a
//! write and everything derived from it, and `exportMarkdown()` gives back
//! exactly the files the CLI reads. `meta.version` counts committed changes,
//! which is how another tab or worker learns that its view is stale.
//!
//! The schema version is `PRAGMA user_version`. A database written by a
//! newer mnemo is refused, never downgraded.

pub use rusqlite;
use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{Error, ErrorKind, Result};
use crate::storage::Change;

/// Schema version this build reads and writes (`PRAGMA user_version`):
/// 1 had the sessions only, 2 added `blobs` and `meta`.
pub const SCHEMA_VERSION: i64 = 2;

/// A SQLite error as a mnemo error: a full disk or quota, a corrupt file
/// and a busy database each get a message that says what happened.
pub fn sql_error(e: rusqlite::Error) -> Error {
    use rusqlite::ffi::ErrorCode;
    let code = match &e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    };
    match code {
        Some(ErrorCode::DiskFull) => Error::new(
            ErrorKind::Storage,
            format!("storage is full (disk or browser quota exceeded); nothing was changed: {e}"),
        ),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => Error::new(
            ErrorKind::StoreDamaged,
            format!(
                "the state database is damaged ({e}); it is kept as it is. Export what can \
                 be read, or recover from the Markdown text"
            ),
        ),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Error::new(
            ErrorKind::Locked,
            format!("the state database is busy with another writer: {e}"),
        ),
        _ => Error::storage(format!("state database: {e}")),
    }
}

/// Opens the SQLite file `path` natively as every opener of a `state.db`
/// must: a rollback journal (never WAL: the Node side reaches the file
/// through a VFS without shared memory, so a WAL file is converted back),
/// `synchronous=FULL`, and a busy timeout for a foreign reader (writers are
/// kept apart by the directory's lock).
pub fn open_file(path: &std::path::Path) -> Result<Connection> {
    let conn = Connection::open(path).map_err(sql_error)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(sql_error)?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
        .map_err(sql_error)?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(Error::new(
            ErrorKind::Locked,
            format!(
                "{} is in {mode} mode and another process holds it; close it and retry",
                path.display()
            ),
        ));
    }
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(sql_error)?;
    Ok(conn)
}

/// Creates the schema in `conn` when it is missing, upgrades an older one,
/// and refuses a database from a newer mnemo.
pub fn prepare(conn: &Connection) -> Result<()> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(sql_error)?;
    if version > SCHEMA_VERSION {
        return Err(Error::new(
            ErrorKind::StoreDamaged,
            format!(
                "this memory was written by a newer mnemo (schema {version}; this one knows \
                 {SCHEMA_VERSION}); it is left untouched: open it with that version"
            ),
        ));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE IF NOT EXISTS blobs (name TEXT PRIMARY KEY, data BLOB NOT NULL);
         CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
         INSERT OR IGNORE INTO meta (key, value) VALUES ('version', 0);
         CREATE TABLE IF NOT EXISTS sessions (
             id TEXT PRIMARY KEY, title TEXT NOT NULL, source TEXT NOT NULL,
             started INTEGER NOT NULL, ended INTEGER NOT NULL, messages INTEGER NOT NULL);
         CREATE TABLE IF NOT EXISTS messages (
             id INTEGER PRIMARY KEY,
             session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             seq INTEGER NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL,
             time INTEGER NOT NULL, UNIQUE (session, seq));
         CREATE INDEX IF NOT EXISTS messages_time ON messages(time);
         CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
             terms, tokenize = \"unicode61 remove_diacritics 0 tokenchars '_'\");
         CREATE VIRTUAL TABLE IF NOT EXISTS messages_vocab USING fts5vocab(messages_fts, 'row');
         PRAGMA user_version = 2;
         COMMIT;",
    )
    .map_err(|e| {
        let _ = conn.execute_batch("ROLLBACK");
        sql_error(e)
    })
}

/// Checks that the tables holding the user's text (`blobs`, `meta`) read
/// back whole (`PRAGMA quick_check` on them: fast, unlike a whole-file
/// check), after [`prepare`].
pub fn check(conn: &Connection) -> Result<()> {
    prepare(conn)?;
    for table in ["blobs", "meta"] {
        let verdict: String = conn
            .query_row(&format!("PRAGMA quick_check({table})"), [], |r| r.get(0))
            .map_err(sql_error)?;
        if verdict != "ok" {
            return Err(Error::new(
                ErrorKind::StoreDamaged,
                format!("the state database is damaged ({verdict}); it is kept as it is"),
            ));
        }
    }
    Ok(())
}

/// What can still be read of the user's blobs in a damaged database:
/// both stores and the history, each if it reads back.
pub fn salvage(conn: &Connection) -> Vec<Change> {
    [
        "MEMORY.md",
        "USER.md",
        crate::sidecar::HISTORY_BLOB,
        crate::sidecar::BLOB,
    ]
    .into_iter()
    .filter_map(|name| {
        read_blob(conn, name)
            .ok()
            .flatten()
            .map(|data| Change::write(name, &data))
    })
    .collect()
}

/// Whether `conn` holds a database written by a newer mnemo (never
/// touched, never recovered).
pub fn newer(conn: &Connection) -> bool {
    conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .is_ok_and(|v| v > SCHEMA_VERSION)
}

/// Refuses to recover a database that is sound (`invalid-input`) or from a
/// newer mnemo (`store-damaged`, from [`prepare`]); `Ok` when it is damaged.
pub fn needs_recovery(conn: &Connection) -> Result<()> {
    if newer(conn) {
        return prepare(conn);
    }
    match check(conn) {
        Ok(()) => Err(Error::new(
            ErrorKind::InvalidInput,
            "this memory's database is not damaged; there is nothing to recover",
        )),
        Err(_) => Ok(()),
    }
}

/// Makes the empty database `conn` a fresh one holding the `salvaged`
/// blobs at change counter `version` (after a recovery, so that other
/// contexts see the change).
pub fn restart(conn: &Connection, salvaged: &[Change], version: i64) -> Result<()> {
    prepare(conn)?;
    commit_blobs(conn, salvaged)?;
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'version'",
        [version],
    )
    .map(|_| ())
    .map_err(sql_error)
}

/// The change counter: bumped by every commit of blobs or sessions.
pub fn version(conn: &Connection) -> Result<i64> {
    conn.query_row("SELECT value FROM meta WHERE key = 'version'", [], |r| {
        r.get(0)
    })
    .optional()
    .map_err(sql_error)
    .map(|v| v.unwrap_or(0))
}

/// Bumps the change counter (inside the caller's transaction).
pub fn bump(conn: &Connection) -> Result<()> {
    conn.execute(
        "UPDATE meta SET value = value + 1 WHERE key = 'version'",
        [],
    )
    .map(|_| ())
    .map_err(sql_error)
}

/// Reads blob `name`.
pub fn read_blob(conn: &Connection, name: &str) -> Result<Option<Vec<u8>>> {
    conn.query_row("SELECT data FROM blobs WHERE name = ?1", [name], |r| {
        r.get(0)
    })
    .optional()
    .map_err(sql_error)
}

/// Names of all blobs, sorted.
pub fn blob_names(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn
        .prepare_cached("SELECT name FROM blobs ORDER BY name")
        .map_err(sql_error)?;
    let names = stmt
        .query_map([], |r| r.get(0))
        .map_err(sql_error)?
        .collect::<std::result::Result<Vec<String>, _>>()
        .map_err(sql_error)?;
    Ok(names)
}

/// Applies `changes` in one transaction and bumps the change counter.
pub fn commit_blobs(conn: &Connection, changes: &[Change]) -> Result<()> {
    let tx = conn.unchecked_transaction().map_err(sql_error)?;
    for change in changes {
        match change {
            Change::Write { name, data } => tx
                .execute(
                    "INSERT INTO blobs (name, data) VALUES (?1, ?2)
                     ON CONFLICT(name) DO UPDATE SET data = excluded.data",
                    params![name, data],
                )
                .map_err(sql_error)?,
            Change::Delete { name } => tx
                .execute("DELETE FROM blobs WHERE name = ?1", [name])
                .map_err(sql_error)?,
        };
    }
    bump(&tx)?;
    tx.commit().map_err(sql_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{SqliteStorage, Storage};
    use pollster::block_on;

    #[test]
    fn a_newer_schema_is_refused_and_left_untouched() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("PRAGMA user_version = 99; CREATE TABLE t (x);")
            .unwrap();
        let e = prepare(&conn).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::StoreDamaged);
        assert!(e.message().contains("newer mnemo"), "{}", e.message());
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 99);
    }

    #[test]
    fn salvage_reads_what_is_left_and_check_passes_a_sound_database() {
        let s = SqliteStorage::in_memory().unwrap();
        block_on(s.commit(&[
            Change::write("MEMORY.md", b"keep"),
            Change::write("x", b"y"),
        ]))
        .unwrap();
        check(&s.connection().unwrap()).unwrap();
        assert_eq!(
            salvage(&s.connection().unwrap()),
            vec![Change::write("MEMORY.md", b"keep")]
        );
    }

    #[test]
    fn only_a_damaged_database_is_recovered_and_restarts_past_its_version() {
        let sound = Connection::open_in_memory().unwrap();
        prepare(&sound).unwrap();
        let e = needs_recovery(&sound).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        let future = Connection::open_in_memory().unwrap();
        future.execute_batch("PRAGMA user_version = 99").unwrap();
        assert!(newer(&future));
        assert_eq!(
            needs_recovery(&future).unwrap_err().kind(),
            ErrorKind::StoreDamaged
        );

        let fresh = Connection::open_in_memory().unwrap();
        restart(&fresh, &[Change::write("MEMORY.md", b"saved")], 8).unwrap();
        assert_eq!(version(&fresh).unwrap(), 8);
        assert_eq!(
            read_blob(&fresh, "MEMORY.md").unwrap().as_deref(),
            Some(&b"saved"[..])
        );
    }

    #[test]
    fn a_version_one_state_db_is_upgraded_in_place() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, source TEXT NOT NULL,
                 started INTEGER NOT NULL, ended INTEGER NOT NULL, messages INTEGER NOT NULL);
             INSERT INTO sessions VALUES ('s', 't', 'cli', 1, 1, 0);
             PRAGMA user_version = 1;",
        )
        .unwrap();
        prepare(&conn).unwrap();
        let n: i64 = conn
            .query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(version(&conn).unwrap(), 0);
    }
}
