// The entry Cloudflare Workers get from `import { Memory } from "mnemo"` (or
// "mnemo/lean"): the package's "workerd" export condition, which wrangler and
// other Worker bundlers set, points here. A Worker may not compile wasm from
// bytes at run time and has no URL to fetch it from, so the bundler or
// workerd hands it over compiled (a `.wasm` import is a WebAssembly.Module
// there) and the web build is initialised with it before anything runs.
import wasm from "./mnemo_bg.wasm";
import { initSync } from "./mnemo.js";

initSync({ module: wasm });

export * from "./mnemo.js";
