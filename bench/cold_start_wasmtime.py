"""Cold start of the wasip2 component under wasmtime (PyPI): compile +
instantiate + open + first context(), median of 9 fresh engines.
Run: scripts/build-component.sh && python3 bench/cold_start_wasmtime.py"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "component"))
from test_component import Host, ok  # noqa: E402

NOTES = "\n§\n".join(f"# Note {i}\nstaging server {i} listens on port {2000 + i}" for i in range(400))
blobs = {"MEMORY.md": NOTES.encode()}
times = []
for _ in range(9):
    t0 = time.perf_counter()
    host = Host(dict(blobs))
    memory = ok(host.open())
    host.call("[method]memory.context", memory, "which port does staging server 7 use?")
    times.append((time.perf_counter() - t0) * 1000)
print(f"| wasmtime (PyPI 50), wasip2 component | {statistics.median(times):.1f} ms |")
