// The dedicated worker that `mnemo/browser` starts for OPFS storage: it
// opens one memory and answers the page's calls `{id, method, args}` with
// `{id, ok, result | error}`.
import init, { Memory } from "./mnemo.js";

// The first message carries the page's compiled module (when it has one),
// so the worker instantiates it instead of fetching and compiling again.
let ready = null;
let memory = null;

self.onmessage = async ({ data: { id, method, args, module } }) => {
  try {
    ready ??= init(module instanceof WebAssembly.Module ? { module_or_path: module } : undefined);
    await ready;
    let result;
    if (method === "open") {
      memory = await Memory.open(args[0]);
      result = null;
    } else if (method === "recover") {
      result = await Memory.recover(...args);
    } else if (!memory) {
      throw Object.assign(new Error("this memory is not open"), { name: "MnemoError", code: "closed" });
    } else {
      result = await memory[method](...args);
    }
    self.postMessage({ id, ok: true, result });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e?.name, code: e?.code, message: e?.message ?? String(e) } });
  }
};
