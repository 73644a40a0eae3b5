//! Memory of the note index, natively, and a checksum of its rankings.
//!
//! Builds the 100,000-note index of `bench/note-search.mjs` (note i = LoCoMo
//! turn i mod 5,882 with " (i)" appended) and prints the bytes it holds
//! after the build and the build's peak (a counting global allocator), then
//! a checksum of the top 10 (doc ids and score bits) of every LoCoMo
//! question on the per-conversation indexes and on the 100k index: a change
//! to the index's layout must leave it unchanged. `SMALL_ONLY=1`: the
//! per-conversation indexes alone (for a profiler). Usage:
//! `cargo run --release --example index_memory -- ../shared/locomo/locomo10.json`
use std::alloc::{GlobalAlloc, Layout, System};
use std::hash::Hasher;
use std::sync::atomic::{AtomicUsize, Ordering};

use mnemo::search::Index;
use mnemo::text::Analyzer;

#[path = "common/locomo.rs"]
mod locomo;

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const BIG_N: usize = 100_000;

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Folds the top 10 of `query` into `hash` (not inlined: a profiler can
/// count the queries apart, e.g. `valgrind --tool=callgrind --toggle-collect='*fold*'`).
#[inline(never)]
fn fold(hash: &mut rustc_hash::FxHasher, index: &Index, analyzer: &Analyzer, query: &str) {
    for hit in index.search(analyzer, query, 10) {
        hash.write_u64(hit.doc as u64);
        hash.write_u32(hit.score.to_bits());
    }
    hash.write_u8(0xff);
}

/// The index of `docs` (not inlined, as `fold`).
#[inline(never)]
fn build(analyzer: &Analyzer, docs: &[&str]) -> Index {
    Index::build(analyzer, docs)
}

fn main() {
    let analyzer = Analyzer::new();
    let conversations = locomo::load(&locomo::path());
    let turns: Vec<&str> = conversations
        .iter()
        .flat_map(|c| c.turns.iter().map(|t| t.document.as_str()))
        .collect();
    let questions: Vec<&str> = conversations
        .iter()
        .flat_map(|c| c.questions.iter().filter(|q| !q.evidence.is_empty()))
        .map(|q| q.text.as_str())
        .collect();

    // Per-conversation indexes: rankings only.
    let mut small = rustc_hash::FxHasher::default();
    for conv in &conversations {
        let docs: Vec<&str> = conv.turns.iter().map(|t| t.document.as_str()).collect();
        let index = build(&analyzer, &docs);
        for q in conv.questions.iter().filter(|q| !q.evidence.is_empty()) {
            fold(&mut small, &index, &analyzer, &q.text);
        }
    }

    if std::env::var_os("SMALL_ONLY").is_some() {
        println!("small indexes: checksum {:016x}", small.finish());
        return;
    }
    let notes: Vec<String> = (0..BIG_N)
        .map(|i| format!("{} ({i})", turns[i % turns.len()]))
        .collect();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let t0 = std::time::Instant::now();
    let index = Index::build(&analyzer, &notes);
    let build = t0.elapsed();
    let held = LIVE.load(Ordering::Relaxed) - base;
    let peak = PEAK.load(Ordering::Relaxed) - base;
    println!(
        "100k index: {} notes, {} terms, built in {build:.0?}; held after build {} ({held} bytes), build peak {} ({peak} bytes)",
        index.len(),
        index.term_count(),
        mib(held),
        mib(peak),
    );

    let mut big = rustc_hash::FxHasher::default();
    let t0 = std::time::Instant::now();
    for q in &questions {
        fold(&mut big, &index, &analyzer, q);
    }
    let query = t0.elapsed();
    println!(
        "rankings: {} questions; checksum small indexes {:016x}, 100k index {:016x} (queries on 100k: {:.3} ms each)",
        questions.len(),
        small.finish(),
        big.finish(),
        query.as_secs_f64() * 1000.0 / questions.len() as f64,
    );
}
