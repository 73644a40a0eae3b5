//! What one note write costs natively on a full 120,000-char store
//! (LoCoMo turns, as `open_store` builds it): the memory tool's add,
//! replace and remove, over blobs in memory and over a directory with its
//! `state.db` (the CLI's storage). p50 / p95 of many writes each.
//! Usage: `cargo run --release --example write_cost [locomo10.json]`
//! (`ROUNDS=N` writes of each kind; `ONLY_MEMORY=1` skips the directory,
//! for profiling the in-memory path; `ONLY_SQLITE=1` stops after the
//! SQLite database in memory, the browser's path.)
use std::time::Instant;

use mnemo::storage::sqlite::SqliteStorage;
use mnemo::storage::{run_ready, state::directory};
use mnemo::{Config, Memory, MemoryStorage, Storage};
use serde_json::json;

#[path = "common/locomo.rs"]
mod locomo;

/// p50 and p95 of `xs`, in ms.
fn quantiles(mut xs: Vec<f64>) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

/// Times `rounds` writes of each kind on `m`, whose store is full but for
/// room for one more entry: add an entry, replace it, remove it.
fn writes<S: Storage>(m: &mut Memory<S>, rounds: usize) -> [(f64, f64); 3] {
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..rounds {
        let note = format!("Write-cost probe {i}: the kettle descaler is under the sink");
        let calls = [
            json!({"action": "add", "target": "memory", "content": note}),
            json!({"action": "replace", "target": "memory", "old_text": format!("probe {i}:"),
                   "content": format!("Write-cost probe {i}: the descaler moved to the shelf")}),
            json!({"action": "remove", "target": "memory", "old_text": format!("probe {i}:")}),
        ];
        for (call, times) in calls.iter().zip(times.iter_mut()) {
            let t = Instant::now();
            let result = run_ready(m.tool(call)).unwrap();
            times.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(result.success, "{call}: {result:?}");
        }
    }
    times.map(quantiles)
}

/// Opens a memory on `storage`, imports `files` and times `rounds` writes
/// of each kind.
fn measure<S: Storage>(
    storage: S,
    config: &Config,
    files: &mnemo::Files,
    rounds: usize,
) -> [(f64, f64); 3] {
    let mut m = run_ready(Memory::open(storage, config.clone()))
        .unwrap()
        .unwrap();
    run_ready(m.import_markdown(files)).unwrap().unwrap();
    writes(&mut m, rounds)
}

fn main() {
    let conversations = locomo::load(&locomo::path());
    let mut store = locomo::full_store(&conversations);
    // Room for the probe entry.
    store.truncate(store.len() - 2);
    let text = store.join("\n§\n");
    let config = Config::from_json(&json!({
        "memory": {"recall": {"memory_char_limit": 120_000}}
    }))
    .unwrap();
    let files: mnemo::Files = [("MEMORY.md".to_string(), text.clone())].into();
    println!(
        "a full store: {} entries, {} chars",
        store.len(),
        text.chars().count()
    );

    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(100);
    let memory = measure(MemoryStorage::new(), &config, &files, rounds);
    if std::env::var_os("ONLY_MEMORY").is_some() {
        println!("blobs in memory: {memory:?}");
        return;
    }

    // The browser's path: every blob in a SQLite database (in memory here,
    // as the package's `"memory"` storage; OPFS and IndexedDB hold the
    // same database).
    let sqlite = measure(SqliteStorage::in_memory().unwrap(), &config, &files, rounds);
    if std::env::var_os("ONLY_SQLITE").is_some() {
        println!("SQLite in memory: {sqlite:?}");
        return;
    }

    let dir = tempfile::tempdir().unwrap();
    let dir = measure(directory(dir.path()).unwrap(), &config, &files, rounds / 4);

    println!("| storage (native, release) | add | replace | remove |");
    println!("|---|---:|---:|---:|");
    for (name, row) in [
        ("blobs in memory", memory),
        ("SQLite in memory (the browser's database)", sqlite),
        ("directory + `state.db`", dir),
    ] {
        let cells: Vec<String> = row
            .iter()
            .map(|(a, b)| format!("{a:.2} / {b:.2}"))
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}
