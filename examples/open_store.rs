//! What opening a memory costs natively with a full 120,000-char store
//! (LoCoMo turns, as `bench/scan.mjs` builds it): importing it, opening it
//! again unchanged (the scanner's verdict cache answers), and opening it
//! after the cache was lost (every entry and pair scanned again), over
//! blobs in memory and over a directory with its `state.db` (the CLI's).
//! Usage: `cargo run --release --example open_store [locomo10.json]`
use std::collections::BTreeMap;
use std::time::Instant;

use mnemo::storage::{run_ready, state::directory};
use mnemo::{Config, Memory, MemoryStorage, Storage, Target};

#[path = "common/locomo.rs"]
mod locomo;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn time(rounds: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..rounds)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

/// Blobs in memory holding `blobs`.
fn storage_with(blobs: &BTreeMap<String, Vec<u8>>) -> MemoryStorage {
    let storage = MemoryStorage::new();
    for (name, data) in blobs {
        storage.put(name, data.clone());
    }
    storage
}

/// The sidecar blob without its verdict cache (what an older mnemo wrote).
fn without_cache(sidecar: &[u8]) -> Vec<u8> {
    let mut value: serde_json::Value = serde_json::from_slice(sidecar).unwrap();
    if let Some(o) = value.as_object_mut() {
        o.remove("scan");
    }
    serde_json::to_vec(&value).unwrap()
}

fn main() {
    let conversations = locomo::load(&locomo::path());
    let store = locomo::full_store(&conversations);
    let text = store.join("\n§\n");
    let config = Config::from_json(&serde_json::json!({
        "memory": {"recall": {"memory_char_limit": 120_000}}
    }))
    .unwrap();
    println!(
        "a full store: {} entries, {} chars",
        store.len(),
        text.chars().count()
    );

    let files: mnemo::Files = [("MEMORY.md".to_string(), text.clone())].into();
    let import = time(9, || {
        let mut m = run_ready(Memory::open(MemoryStorage::new(), config.clone()))
            .unwrap()
            .unwrap();
        run_ready(m.import_markdown(&files)).unwrap().unwrap();
    });
    let parse = time(9, || {
        let s = mnemo::Store::from_bytes(Some(text.as_bytes()), 120_000);
        assert_eq!(s.blocked().count(), 0);
    });

    // What a memory left behind after the import.
    let mut m = run_ready(Memory::open(MemoryStorage::new(), config.clone()))
        .unwrap()
        .unwrap();
    run_ready(m.import_markdown(&files)).unwrap().unwrap();
    let blobs = m.storage().snapshot();
    let sidecar =
        mnemo::sidecar::Sidecar::parse(blobs.get(mnemo::sidecar::BLOB).map(Vec::as_slice));
    let cache = sidecar.scan.clone().unwrap_or_default();
    let parse_cached = time(9, || {
        let s = mnemo::Store::load(Some(text.as_bytes()), 120_000, &cache);
        assert_eq!(s.blocked().count(), 0);
    });
    let sidecar_bytes = blobs[mnemo::sidecar::BLOB].clone();
    let read_sidecar = time(9, || {
        mnemo::sidecar::Sidecar::parse(Some(&sidecar_bytes));
    });
    let open = time(9, || {
        let m = run_ready(Memory::open(storage_with(&blobs), config.clone()))
            .unwrap()
            .unwrap();
        assert_eq!(m.store(Target::Memory).entries().len(), store.len());
    });
    let mut lost = blobs.clone();
    if let Some(sidecar) = lost.get_mut(mnemo::sidecar::BLOB) {
        *sidecar = without_cache(sidecar);
    }
    let open_cold = time(9, || {
        run_ready(Memory::open(storage_with(&lost), config.clone()))
            .unwrap()
            .unwrap();
    });

    // The CLI's storage: the files in a directory, the state in state.db.
    let dir = tempfile::tempdir().unwrap();
    let mut m = run_ready(Memory::open(directory(dir.path()).unwrap(), config.clone()))
        .unwrap()
        .unwrap();
    run_ready(m.import_markdown(&files)).unwrap().unwrap();
    drop(m);
    let open_dir = time(9, || {
        let m = run_ready(Memory::open(directory(dir.path()).unwrap(), config.clone()))
            .unwrap()
            .unwrap();
        run_ready(m.storage().list()).unwrap().unwrap();
    });

    println!("| what (native, release, median of 9) | ms |");
    println!("|---|---:|");
    println!("| parse and scan the store text (`Store::from_bytes`, no cache) | {parse:.2} |");
    println!("| the same with the verdict cache (`Store::load`) | {parse_cached:.2} |");
    println!(
        "| read the sidecar blob ({} bytes, {} cached verdicts) | {read_sidecar:.2} |",
        sidecar_bytes.len(),
        cache.len()
    );
    println!("| `import_markdown` into an empty memory (blobs in memory) | {import:.2} |");
    println!("| open it again unchanged (blobs in memory) | {open:.2} |");
    println!("| open it again without the verdict cache (an older sidecar) | {open_cold:.2} |");
    println!("| open it again unchanged (directory and `state.db`) | {open_dir:.2} |");
}
