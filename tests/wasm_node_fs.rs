//! The state database on Node's real file system (`mnemo::storage::nodefs`,
//! the `mnemo-nodefs` SQLite VFS), under Node.js:
//! `wasm-pack test --node --no-default-features --features js,sqlite --test wasm_node_fs`.
//!
//! The timing of one appended message with 10 and with 100,000 messages
//! stored is an ignored test, run by hand:
//! `... --test wasm_node_fs -- --include-ignored append_time`.
#![cfg(all(target_arch = "wasm32", feature = "js", feature = "sqlite"))]

use mnemo::storage::nodefs;
use mnemo::ErrorKind;
use rusqlite::Connection;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen(inline_js = r#"
const fs = process.getBuiltinModule("node:fs");
const os = process.getBuiltinModule("node:os");
const path = process.getBuiltinModule("node:path");
export function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), "mnemo-nodefs-"));
}
export function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}
export function readFile(p) {
  return new Uint8Array(fs.readFileSync(p));
}
export function writeFile(p, text) {
  fs.writeFileSync(p, text);
}
export function copyFile(from, to) {
  fs.copyFileSync(from, to);
}
export function exists(p) {
  return fs.existsSync(p);
}
export function now() {
  return performance.now();
}
export function log(text) {
  console.log(text);
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = tempDir)]
    fn temp_dir() -> String;
    #[wasm_bindgen(js_name = removeDir)]
    fn remove_dir(dir: &str);
    #[wasm_bindgen(js_name = readFile)]
    fn read_file(path: &str) -> Vec<u8>;
    #[wasm_bindgen(js_name = writeFile)]
    fn write_file(path: &str, text: &str);
    #[wasm_bindgen(js_name = copyFile)]
    fn copy_file(from: &str, to: &str);
    fn exists(path: &str) -> bool;
    fn now() -> f64;
    fn log(text: &str);
}

/// A fresh directory, removed when dropped.
struct TempDir(String);

impl TempDir {
    fn new() -> TempDir {
        TempDir(temp_dir())
    }

    fn file(&self, name: &str) -> String {
        format!("{}/{name}", self.0)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        remove_dir(&self.0);
    }
}

fn be32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn count(conn: &Connection, table: &str) -> i64 {
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

fn integrity(conn: &Connection) -> String {
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

/// Checks the parts of the file format a native SQLite relies on to read
/// `file`: header fields and a b-tree page where `root` says.
fn assert_standard_layout(file: &[u8], root: u32) {
    assert_eq!(&file[..16], b"SQLite format 3\0");
    let page_size = u16::from_be_bytes([file[16], file[17]]) as usize;
    assert_eq!(page_size, 4096, "a new file gets the CLI's page size");
    assert_eq!((file[18], file[19]), (1, 1), "rollback journal, not WAL");
    assert_eq!(file[20], 0, "no reserved bytes per page");
    assert_eq!((file[21], file[22], file[23]), (64, 32, 32));
    assert_eq!(
        be32(file, 24),
        be32(file, 92),
        "the in-header size is valid"
    );
    assert_eq!(be32(file, 28) as usize * page_size, file.len());
    assert_eq!(be32(file, 44), 4, "schema format 4");
    assert_eq!(be32(file, 56), 1, "UTF-8");
    assert!(matches!(file[100], 0x05 | 0x0d), "page 1 is a table b-tree");
    let at = (root as usize - 1) * page_size;
    assert!(
        matches!(file[at], 0x05 | 0x0d),
        "root page is a table b-tree"
    );
}

#[wasm_bindgen_test]
fn a_database_round_trips_through_the_file_in_the_standard_format() {
    let dir = TempDir::new();
    let path = dir.file("state.db");
    let conn = nodefs::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete");
    let sync: i64 = conn
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 2, "synchronous=FULL");
    conn.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        .unwrap();
    let mut total = 0;
    for t in 0..50 {
        let tx = conn.unchecked_transaction().unwrap();
        for i in 0..20 {
            let body = format!("note {t}/{i} ").repeat(1 + (t * i) % 40);
            total += body.len() as i64;
            tx.execute("INSERT INTO notes (body) VALUES (?1)", [&body])
                .unwrap();
        }
        tx.commit().unwrap();
        assert!(!exists(&format!("{path}-journal")), "journal deleted");
    }
    drop(conn);

    let conn = nodefs::open(&path).unwrap();
    assert_eq!(count(&conn, "notes"), 1000);
    let bytes: i64 = conn
        .query_row("SELECT sum(length(body)) FROM notes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(bytes, total);
    assert_eq!(integrity(&conn), "ok");
    let root: u32 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'notes'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute("DELETE FROM notes WHERE id % 2 = 0", [])
        .unwrap();
    drop(conn);

    assert_standard_layout(&read_file(&path), root);
    let conn = nodefs::open(&path).unwrap();
    assert_eq!(count(&conn, "notes"), 500);
    assert_eq!(integrity(&conn), "ok");
}

#[wasm_bindgen_test]
fn an_interrupted_transaction_is_rolled_back_by_the_next_opener() {
    let dir = TempDir::new();
    let path = dir.file("state.db");
    let conn = nodefs::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
         INSERT INTO t (data) SELECT randomblob(2000) FROM n;",
    )
    .unwrap();
    let committed = read_file(&path);

    // A tiny page cache makes SQLite write changed pages into the database
    // file before the commit (after syncing the journal), as a large
    // transaction does; copying the files then is what a writer killed at
    // that moment leaves behind.
    conn.execute_batch(
        "PRAGMA cache_size = 5;
         BEGIN;
         UPDATE t SET data = randomblob(2100);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
         INSERT INTO t (data) SELECT randomblob(2000) FROM n;",
    )
    .unwrap();
    let journal = format!("{path}-journal");
    assert!(exists(&journal), "a journal during the transaction");
    let crashed = TempDir::new();
    let copy = crashed.file("state.db");
    copy_file(&path, &copy);
    copy_file(&journal, &format!("{copy}-journal"));
    assert_ne!(
        read_file(&copy),
        committed,
        "the copied database holds uncommitted pages"
    );
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);

    let conn = nodefs::open(&copy).unwrap();
    assert_eq!(count(&conn, "t"), 100);
    assert_eq!(integrity(&conn), "ok");
    assert!(!exists(&format!("{copy}-journal")), "hot journal removed");
    drop(conn);
    assert_eq!(read_file(&copy), committed, "byte for byte as committed");
}

#[wasm_bindgen_test]
fn a_database_in_wal_mode_is_opened_and_left_in_rollback_mode() {
    let dir = TempDir::new();
    let path = dir.file("state.db");
    let conn = nodefs::open(&path).unwrap();
    // Without shared memory SQLite keeps a WAL index only in exclusive
    // locking mode; the commits then stay in the -wal file until a
    // checkpoint, as a CLI in WAL mode leaves them.
    conn.execute_batch(
        "PRAGMA locking_mode = EXCLUSIVE;
         PRAGMA journal_mode = WAL;
         CREATE TABLE t (x TEXT);
         INSERT INTO t VALUES ('one'), ('two');
         INSERT INTO t VALUES ('three');",
    )
    .unwrap();
    let wal = format!("{path}-wal");
    assert!(exists(&wal));
    let other = TempDir::new();
    let copy = other.file("state.db");
    copy_file(&path, &copy);
    copy_file(&wal, &format!("{copy}-wal"));
    drop(conn);

    let conn = nodefs::open(&copy).unwrap();
    assert_eq!(
        count(&conn, "t"),
        3,
        "the commits in the -wal file are kept"
    );
    conn.execute("INSERT INTO t VALUES ('four')", []).unwrap();
    assert_eq!(integrity(&conn), "ok");
    drop(conn);
    assert!(!exists(&format!("{copy}-wal")));
    let file = read_file(&copy);
    assert_eq!((file[18], file[19]), (1, 1), "rollback mode");
    let conn = nodefs::open(&copy).unwrap();
    assert_eq!(count(&conn, "t"), 4);
}

#[wasm_bindgen_test]
fn failures_come_with_a_code() {
    let dir = TempDir::new();
    let missing = dir.file("no/such/dir/state.db");
    let err = nodefs::open(&missing).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Storage, "{err}");

    let text = dir.file("notes.txt");
    write_file(&text, &"not a database at all. ".repeat(40));
    let err = nodefs::open(&text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::StoreDamaged, "{err}");
    assert_eq!(
        read_file(&text),
        "not a database at all. ".repeat(40).as_bytes(),
        "left untouched"
    );
}

#[wasm_bindgen_test]
fn relative_paths_and_reopening_name_one_file() {
    let dir = TempDir::new();
    let path = dir.file("state.db");
    let conn = nodefs::open(&path).unwrap();
    let file: String = conn
        .query_row(
            "SELECT file FROM pragma_database_list WHERE name = 'main'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        file.ends_with("/state.db") && file.starts_with('/'),
        "{file}"
    );
    conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(conn);
    let conn = nodefs::open(&format!("{}/./state.db", dir.0)).unwrap();
    assert_eq!(count(&conn, "t"), 1);
}

/// Median milliseconds of one appended message (the sessions table row, its
/// FTS5 row and the session counters, one transaction) with `stored`
/// messages already in the file.
fn append_time(stored: usize, synchronous: &str) -> f64 {
    use mnemo::sessions::{NewMessage, Sessions};
    let dir = TempDir::new();
    let path = dir.file("state.db");
    let conn = nodefs::open(&path).unwrap();
    let mut sessions = Sessions::on(conn).unwrap();
    let words = [
        "the", "build", "failed", "because", "wasm", "linker", "memory", "agent", "search",
        "index", "sqlite", "journal", "node", "file", "system", "commit", "query", "token",
    ];
    let text = |i: usize| -> String {
        (0..24)
            .map(|k| words[(i * 7 + k * 13 + k * k) % words.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut seeded = 0;
    while seeded < stored {
        let n = (stored - seeded).min(2000);
        let texts: Vec<String> = (seeded..seeded + n).map(text).collect();
        let batch: Vec<NewMessage<'_>> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| NewMessage {
                session: if (seeded + i) % 50 == 0 { "s-a" } else { "s-b" },
                source: "bench",
                role: if i % 2 == 0 { "user" } else { "assistant" },
                text: t,
                time: (seeded + i) as i64,
            })
            .collect();
        sessions.append_all(&batch).unwrap();
        seeded += n;
    }
    drop(sessions);
    let conn = nodefs::open(&path).unwrap();
    conn.pragma_update(None, "synchronous", synchronous)
        .unwrap();
    let mut sessions = Sessions::on(conn).unwrap();
    let mut times = Vec::new();
    for i in 0..200 {
        let t = text(stored + i);
        let start = now();
        sessions
            .append(&format!("s-{}", i % 5), "bench", "user", &t, i as i64)
            .unwrap();
        times.push(now() - start);
    }
    times.sort_by(f64::total_cmp);
    let size = read_file(&path).len();
    log(&format!(
        "append_time: {stored} stored, synchronous={synchronous}: median {:.3} ms, p90 {:.3} ms, file {size} bytes",
        times[times.len() / 2],
        times[times.len() * 9 / 10]
    ));
    times[times.len() / 2]
}

#[wasm_bindgen_test]
#[ignore]
fn append_time_does_not_grow_with_the_file() {
    let small = append_time(10, "FULL");
    let large = append_time(100_000, "FULL");
    append_time(10, "NORMAL");
    append_time(100_000, "NORMAL");
    assert!(large < small * 3.0 + 1.0, "{small} ms vs {large} ms");
}
