//! A wasmtime host for mnemo's wasip2 component, in Rust, with the compiled
//! code cached ahead of time; and the cold-start benchmark of the README.
//!
//! ```text
//! scripts/build-component.sh                 # makes target/component/mnemo.wasip2.wasm
//! cd examples/component-host-rs && cargo build --release
//! target/release/mnemo-component-host [path/to/mnemo.wasip2.wasm]
//! ```
//!
//! It mirrors `examples/component_host.py` (the host) and
//! `bench/cold_start_wasmtime.py` (the benchmark): a cold start is a fresh
//! `Engine`, the component (compiled now, or loaded from the `.cwasm`
//! compiled ahead of time), instantiation, `memory.open` over a storage
//! holding 400 notes in `MEMORY.md`, and the first
//! `context("which port does staging server 7 use?")`; median of 9.
//!
//! The host's storage is a `HashMap` of blobs (`MEMORY.md`, `USER.md`,
//! `skills/<category>/<name>/SKILL.md`…); a real host keeps them where it
//! keeps data (files, a key-value store).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Result};
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

wasmtime::component::bindgen!({
    world: "mnemo",
    path: "../../wit",
});

use mnemo::memory::host_storage;

/// The question of the benchmark, and what its answer must mention.
const QUESTION: &str = "which port does staging server 7 use?";
const ANSWER: &str = "2007";
const RUNS: usize = 9;

/// The 400 notes of `bench/cold_start_wasmtime.py`, the same text.
fn notes() -> String {
    (0..400)
        .map(|i| {
            format!(
                "# Note {i}\nstaging server {i} listens on port {}",
                2000 + i
            )
        })
        .collect::<Vec<_>>()
        .join("\n§\n")
}

/// The component at `wasm` for `engine`, from the compiled `cache` when it is
/// usable; else compiled, and the cache written for next time. Returns
/// `(component, from_cache)`.
///
/// The cache is used when it is at least as new as the `.wasm`. When it is
/// missing, stale, or refused by wasmtime (written by another wasmtime
/// version, or for a CPU or engine configuration this one does not match:
/// wasmtime checks the header and returns an error, it never runs such
/// code), the component is compiled and the cache written again, atomically
/// (a temporary file beside it, then a rename). A cache that cannot be
/// written (a read-only place) only means compiling again next time.
pub fn load_component(engine: &Engine, wasm: &Path, cache: &Path) -> Result<(Component, bool)> {
    let fresh = match (modified(cache), modified(wasm)) {
        (Some(c), Some(w)) => c >= w,
        _ => false,
    };
    if fresh {
        // SAFETY: `deserialize_file` trusts the file as native code that
        // wasmtime compiled: it checks the header (wasmtime version, target,
        // engine settings) but cannot check the machine code itself, so a
        // file from anyone else could run anything. Here the only writer of
        // `cache` is this function, from `Component::serialize` of a
        // component this host compiled, and it only ever replaces the file
        // by a rename of a complete temporary file, never rewrites it in
        // place: the file is mapped (not read), so it must not change under
        // a running host. The caller keeps `cache` in a place only the host
        // writes.
        if let Ok(component) = unsafe { Component::deserialize_file(engine, cache) } {
            return Ok((component, true));
        }
        // Refused: another wasmtime, CPU or configuration. Compile.
    }
    let component = Component::from_file(engine, wasm)
        .map_err(|e| anyhow!("compiling {}: {e:?}", wasm.display()))?;
    if let Err(e) = write_atomically(cache, &component.serialize()?) {
        eprintln!(
            "note: the compiled cache {} was not written: {e}",
            cache.display()
        );
    }
    Ok((component, false))
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over
/// `path`: a reader sees the old file or the new one, never half of one.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp.{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// What a store holds: WASI p2 (nothing shared: no files, no environment,
/// no inherited stdio) and the blobs of `host-storage`.
pub struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub blobs: HashMap<String, Vec<u8>>,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

// `types` holds only types: nothing to implement.
impl mnemo::memory::types::Host for HostState {}

impl host_storage::Host for HostState {
    fn read(&mut self, name: String) -> Result<Option<Vec<u8>>, String> {
        Ok(self.blobs.get(&name).cloned())
    }
    fn write(&mut self, name: String, data: Vec<u8>) -> Result<(), String> {
        self.blobs.insert(name, data);
        Ok(())
    }
    fn delete(&mut self, name: String) -> Result<(), String> {
        self.blobs.remove(&name);
        Ok(())
    }
    fn names(&mut self) -> Result<Vec<String>, String> {
        let mut names: Vec<String> = self.blobs.keys().cloned().collect();
        names.sort();
        Ok(names)
    }
    fn now(&mut self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }
}

/// What one cold start measured, and what `context()` answered.
struct Cold {
    total: Duration,
    /// The process's CPU time over the same span (all threads: Cranelift
    /// compiles on several).
    cpu: Duration,
    stages: [Duration; 5], // engine, linker + load, instantiate, open, context
    from_cache: bool,
    context: String,
    /// The storage as the run left it.
    blobs: HashMap<String, Vec<u8>>,
}

/// One cold start: a fresh engine, the linker (WASI p2 and `host-storage`),
/// the component, an instance over `blobs`, `memory.open`, the first
/// `context()`. This is the whole host: a long-lived one keeps the engine,
/// linker and component, and makes a store and an instance per memory.
fn cold_start(wasm: &Path, cache: &Path, blobs: &HashMap<String, Vec<u8>>) -> Result<Cold> {
    let c0 = cpu_time();
    let t0 = Instant::now();
    let engine = Engine::default();
    let t1 = Instant::now();
    let mut linker = Linker::<HostState>::new(&engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    Mnemo::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)?;
    let (component, from_cache) = load_component(&engine, wasm, cache)?;
    let t2 = Instant::now();
    let state = HostState {
        wasi: WasiCtx::builder().build(),
        table: ResourceTable::new(),
        blobs: blobs.clone(),
    };
    let mut store = Store::new(&engine, state);
    let bindings = Mnemo::instantiate(&mut store, &component, &linker)?;
    let t3 = Instant::now();
    let memory = bindings.mnemo_memory_api().memory();
    let handle = memory
        .call_open(&mut store, None)?
        .map_err(|e| anyhow!("open: {:?}: {}", e.code, e.message))?;
    let t4 = Instant::now();
    let context = memory.call_context(&mut store, handle, QUESTION)?;
    let t5 = Instant::now();
    let c5 = cpu_time();
    handle.resource_drop(&mut store)?;
    let blobs = std::mem::take(&mut store.data_mut().blobs);
    Ok(Cold {
        total: t5 - t0,
        cpu: c5.saturating_sub(c0),
        stages: [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4],
        from_cache,
        context,
        blobs,
    })
}

/// CPU time used by this process so far.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

struct Row {
    total: f64,
    cpu: f64,
    stages: [f64; 5],
    last: Cold,
}

/// Median of `RUNS` cold starts, each with a fresh engine; with
/// `want_cached` false the cache is removed before each, so Cranelift
/// compiles the component every time.
fn bench(
    wasm: &Path,
    cache: &Path,
    want_cached: bool,
    blobs: &HashMap<String, Vec<u8>>,
) -> Result<Row> {
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        if !want_cached {
            let _ = std::fs::remove_file(cache);
        }
        let cold = cold_start(wasm, cache, blobs)?;
        if cold.from_cache != want_cached {
            return Err(anyhow!("expected from_cache == {want_cached}"));
        }
        runs.push(cold);
    }
    let total = median(runs.iter().map(|c| ms(c.total)).collect());
    let cpu = median(runs.iter().map(|c| ms(c.cpu)).collect());
    let stages = std::array::from_fn(|i| median(runs.iter().map(|c| ms(c.stages[i])).collect()));
    Ok(Row {
        total,
        cpu,
        stages,
        last: runs.pop().unwrap(),
    })
}

/// `load_component`'s ways back to compiling, on a copy of the `.wasm` in
/// `dir`: a cache wasmtime refuses (not its own: here bytes of garbage,
/// newer than the `.wasm`) and a stale one (older than the `.wasm`) are
/// both compiled again and rewritten, and the rewritten cache loads.
fn check_cache_fallbacks(wasm: &Path, dir: &Path) -> Result<()> {
    let engine = Engine::default();
    let copy = dir.join("check.wasm");
    let cache = dir.join("check.cwasm");
    std::fs::copy(wasm, &copy)?;
    std::fs::write(&cache, b"not a compiled component")?;
    let (_, from_cache) = load_component(&engine, &copy, &cache)?;
    if from_cache {
        return Err(anyhow!("a refused cache was used"));
    }
    if !load_component(&engine, &copy, &cache)?.1 {
        return Err(anyhow!("the rewritten cache was not used"));
    }
    // A cache older than the .wasm (as when the .wasm is rebuilt) is stale.
    let earlier = modified(&copy).unwrap() - Duration::from_secs(2);
    std::fs::File::options()
        .write(true)
        .open(&cache)?
        .set_modified(earlier)?;
    if load_component(&engine, &copy, &cache)?.1 {
        return Err(anyhow!("a stale cache was used"));
    }
    if !load_component(&engine, &copy, &cache)?.1 {
        return Err(anyhow!(
            "the cache rewritten after the stale one was not used"
        ));
    }
    Ok(())
}

/// Removes the folder when dropped, error or not.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn main() -> Result<()> {
    let wasm = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/component/mnemo.wasip2.wasm")
        });
    if !wasm.exists() {
        return Err(anyhow!(
            "{} is missing: run scripts/build-component.sh",
            wasm.display()
        ));
    }
    // The cache goes to a folder of this run's own, never beside the .wasm.
    let dir = std::env::temp_dir().join(format!("mnemo-component-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let _remove = RemoveOnDrop(dir.clone());
    let cache = dir.join("mnemo.wasip2.cwasm");

    let with_notes = HashMap::from([("MEMORY.md".to_string(), notes().into_bytes())]);
    let empty = HashMap::new();

    check_cache_fallbacks(&wasm, &dir)?;
    println!("cache fallbacks (refused, stale) compile and rewrite the cache: ok");
    let compiled = bench(&wasm, &cache, false, &with_notes)?;
    // The last run of `compiled` left the cache written.
    let cached = bench(&wasm, &cache, true, &with_notes)?;
    let new_memory = bench(&wasm, &cache, true, &empty)?;
    // The 400 notes as a host that keeps its storage hands them over the
    // next time: with what the first open wrote beside MEMORY.md.
    let kept = cached.last.blobs.clone();
    let kept_row = bench(&wasm, &cache, true, &kept)?;

    let v = wasmtime_version();
    println!("| wasip2 component under wasmtime {v} (Rust host), Cranelift compile included | {:.1} ms |", compiled.total);
    println!("| wasip2 component under wasmtime {v} (Rust host), compiled ahead of time (`.cwasm`) | {:.1} ms |", cached.total);
    println!(
        "| the same, a new memory (no notes to hand over) | {:.1} ms |",
        new_memory.total
    );
    println!("| the same, 400 notes with the storage the first open left (a host that keeps its blobs) | {:.1} ms |", kept_row.total);
    println!(
        "ratio (compile included / ahead of time): {:.1}x",
        compiled.total / cached.total
    );
    println!();
    println!(
        "medians of {RUNS} (ms): wall by stage (engine, linker + load, instantiate, open, first context), wall in all, process CPU"
    );
    for (name, row) in [
        ("compile included", &compiled),
        ("ahead of time, 400 notes", &cached),
        ("ahead of time, new memory", &new_memory),
        ("ahead of time, kept blobs", &kept_row),
    ] {
        let s = row.stages;
        println!(
            "  {name:<26} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} | {:>8.2} | {:>8.2}",
            s[0], s[1], s[2], s[3], s[4], row.total, row.cpu
        );
    }
    let mut names: Vec<_> = kept
        .iter()
        .map(|(k, v)| format!("{k} ({} B)", v.len()))
        .collect();
    names.sort();
    println!(
        "blobs after the first open + context(): {}",
        names.join(", ")
    );
    println!();
    for (name, row) in [
        ("compile included", &compiled),
        ("ahead of time, 400 notes", &cached),
        ("ahead of time, kept blobs", &kept_row),
    ] {
        let ok = row.last.context.contains(ANSWER);
        println!(
            "check ({name}): context() returned {} chars, {} port {ANSWER}",
            row.last.context.len(),
            if ok { "mentioning" } else { "NOT mentioning" }
        );
        if !ok {
            return Err(anyhow!(
                "context() did not mention port {ANSWER}: {}",
                row.last.context
            ));
        }
    }
    if let Some(line) = cached.last.context.lines().find(|l| l.contains(ANSWER)) {
        println!("  the line: {}", line.trim());
    }
    Ok(())
}

/// The wasmtime version this host is built with: Cargo.toml pins it
/// (`=48.0.8`), as cargo sets no variable for a dependency's version.
fn wasmtime_version() -> &'static str {
    "48.0.8"
}
