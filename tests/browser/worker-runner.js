// A dedicated worker for tests/browser: imports mnemo/browser (so memories
// run inside this worker) and runs the async function body it is sent. The
// handler is installed before the import so no message is lost while the
// wasm loads.
const AsyncFunction = (async () => {}).constructor;
const loaded = import("/pkg/web/browser.js");

self.onmessage = async ({ data: body }) => {
  try {
    const mnemo = await loaded;
    const result = await new AsyncFunction("mnemo", body)(mnemo);
    self.postMessage({ ok: true, result });
  } catch (e) {
    self.postMessage({ ok: false, error: `${e?.code ?? ""} ${e?.message ?? e}` });
  }
};
