//! Derived-state rebuild cost on a full store, natively: the graph, the
//! BM25 index and the scanner over ~1,200 linked, tagged notes (120,000
//! chars). `bench/derive.mjs` measures the same in wasm.
//! Usage: `cargo run --release --example derive`
use std::time::Instant;

use mnemo::graph::Graph;
use mnemo::search::Index;
use mnemo::text::Analyzer;

/// ~1,200 notes: titled, 2 in 3 tagged into 30 sectors, 3 links each.
pub fn notes() -> Vec<String> {
    let words = [
        "deploy", "staging", "server", "port", "backup", "schedule", "review", "python", "rust",
        "cache", "proxy", "index", "latency", "budget", "release", "incident",
    ];
    let mut out = Vec::new();
    let mut chars = 0;
    let mut i: usize = 0;
    while chars < 118_000 {
        let tag = if i.is_multiple_of(3) {
            String::new()
        } else {
            format!(" #sector{}", i % 30)
        };
        let body: Vec<&str> = (0..8)
            .map(|k| words[(i * 7 + k * 3) % words.len()])
            .collect();
        let note = format!(
            "# Note {i}{tag}\n{} see [[Note {}]], [[Note {}]] and [[Note {}]].",
            body.join(" "),
            (i * 37 + 1) % 1200,
            (i * 91 + 7) % 1200,
            (i * 13 + 400) % 1300
        );
        chars += note.chars().count() + 3;
        out.push(note);
        i += 1;
    }
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let notes = notes();
    let chars: usize = notes.iter().map(|n| n.chars().count() + 3).sum();
    let analyzer = Analyzer::new();
    let time = |f: &mut dyn FnMut()| {
        median(
            (0..21)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect(),
        )
    };
    let graph = Graph::build(&notes, &[]);
    let g = time(&mut || {
        Graph::build(&notes, &[]);
    });
    let x = time(&mut || {
        Index::build(&analyzer, &notes);
    });
    let s = time(&mut || {
        for n in &notes {
            mnemo::scan::scan(n);
        }
    });
    println!(
        "{} notes, {} chars, {} links, {} sectors",
        notes.len(),
        chars,
        graph.link_count(None),
        graph.sector_counts(None).len()
    );
    println!("graph build   median {g:.2} ms");
    println!("BM25 index    median {x:.2} ms");
    println!("scan all      median {s:.2} ms");
}
