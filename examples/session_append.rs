//! Records `RUNS` turns into the memories directory `DIR` the way the CLI
//! does (`Memory::record_turn` over the directory's `state.db`, under its
//! lock) and prints `{"p50": ms, "p95": ms}`. Used by
//! `bench/session-append.mjs`.
//! Usage: `cargo run --release --example session_append -- DIR [RUNS]`
use std::time::Instant;

use mnemo::api::Turn;
use mnemo::storage::{run_ready, state::directory};
use mnemo::{Config, Memory};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: session_append DIR [RUNS]");
    let runs: usize = args.next().map_or(200, |n| n.parse().expect("RUNS"));
    let mut memory = run_ready(Memory::open(directory(dir).unwrap(), Config::default()))
        .unwrap()
        .unwrap();
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        let turn = Turn {
            session: format!("native{}", i % 5),
            user: format!("how do I reach staging {i}?"),
            assistant: format!("port {i}"),
            time: Some(3_000_000_000_000 + i as i64),
            source: "bench".into(),
        };
        let t = Instant::now();
        run_ready(memory.record_turn(&turn)).unwrap().unwrap();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!("{{\"p50\": {:.4}, \"p95\": {:.4}}}", at(0.5), at(0.95));
}
