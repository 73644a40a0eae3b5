#!/usr/bin/env python3
"""Compiles mnemo's wasip2 component ahead of time for wasmtime.

    python3 scripts/precompile-component.py [COMPONENT] [OUT]

COMPONENT defaults to target/component/mnemo.wasip2.wasm, OUT to the same
path with `.cwasm`. The result is native code for this machine's CPU and
this wasmtime version (PyPI `wasmtime`, whose engine this script uses;
`wasmtime compile` of the same version writes the same kind of file): a
host loads it with `Component.deserialize_file(engine, OUT)` and skips
Cranelift, which is most of a cold start. A file made by another wasmtime
version or for another CPU is refused by `deserialize_file` (an error, never
wrong code), so a host falls back to compiling (see
`examples/component_host.py`). Only ever load a file you made: deserializing
trusts it as native code.
"""
import os
import sys

import wasmtime
import wasmtime.component as wc

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def precompile(component, out):
    engine = wasmtime.Engine()
    compiled = wc.Component.from_file(engine, component)
    data = compiled.serialize()
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out)
    return len(data)


def main(argv):
    component = argv[1] if len(argv) > 1 else os.path.join(ROOT, "target", "component", "mnemo.wasip2.wasm")
    out = argv[2] if len(argv) > 2 else os.path.splitext(component)[0] + ".cwasm"
    if not os.path.exists(component):
        sys.exit(f"{component} is missing: run scripts/build-component.sh first")
    size = precompile(component, out)
    print(f"{out}: {size} bytes (wasmtime {wasmtime_version()}, this CPU)")


def wasmtime_version():
    try:
        from importlib.metadata import version

        return version("wasmtime")
    except Exception:  # noqa: BLE001 - the version is only printed
        return "?"


if __name__ == "__main__":
    main(sys.argv)
