"""Cold start of the wasip2 component under wasmtime (PyPI): instantiate +
open + first context(), median of 9 fresh engines, with Cranelift compiling
the component, and with the code compiled ahead of time
(`scripts/precompile-component.py`, `examples/component_host.py`).
Run: scripts/build-component.sh && python3 bench/cold_start_wasmtime.py"""
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
from component_host import WASM, MnemoHost, value  # noqa: E402

NOTES = "\n§\n".join(f"# Note {i}\nstaging server {i} listens on port {2000 + i}" for i in range(400))
blobs = {"MEMORY.md": NOTES.encode()}


def cold(cache, want_cached, blobs=blobs):
    times = []
    for _ in range(9):
        if not want_cached and os.path.exists(cache):
            os.remove(cache)
        t0 = time.perf_counter()
        host = MnemoHost(dict(blobs), WASM, cache)
        memory = value(host.call("[static]memory.open", None))
        host.call("[method]memory.context", memory, "which port does staging server 7 use?")
        times.append((time.perf_counter() - t0) * 1000)
        assert host.from_cache == want_cached
    return statistics.median(times)


with tempfile.TemporaryDirectory() as d:
    cache = os.path.join(d, "mnemo.wasip2.cwasm")
    compiled = cold(cache, False)
    MnemoHost({}, WASM, cache)  # writes the cache
    cached = cold(cache, True)
    # A new memory: what the component itself costs to start, without the
    # host handing it 400 notes (wasmtime-py lifts a `list<u8>` element by
    # element in Python, which is most of the 400-note row).
    empty = cold(cache, True, {})
print(f"| wasip2 component under wasmtime (PyPI 50), Cranelift compile included | {compiled:.1f} ms |")
print(f"| wasip2 component under wasmtime (PyPI 50), compiled ahead of time (`.cwasm`) | {cached:.1f} ms |")
print(f"| the same, a new memory (no notes to hand over) | {empty:.1f} ms |")
print(f"ratio (compile included / ahead of time): {compiled / cached:.1f}x")
