// Serving the edge examples on 127.0.0.1 for their tests and the cold-start
// benchmark: examples/cloudflare under workerd (npm), examples/fastly under
// Viceroy (when installed).
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// The Cloudflare example records no sessions, so it runs the lean build
// (no SQLite: a third of the size), as its README tells deployers to.
const web = join(root, "pkg", "lean", "web");
if (!existsSync(join(web, "mnemo_bg.wasm"))) throw new Error("pkg/lean/web is missing: run scripts/build-js.sh first");
const workerd = join(root, "node_modules", ".bin", "workerd");

/** The JSON API's secret the tests' workers get unless told otherwise. */
export const API_TOKEN = "json-api-test-token";

/**
 * The worker's files and a workerd config in a fresh directory; `token`
 * becomes the MNEMO_MCP_TOKEN secret (none: the MCP endpoint is off),
 * `apiToken` the MNEMO_TOKEN secret of the JSON API (default
 * [`API_TOKEN`]; `null`: none, the JSON API is off). `serve` sends it.
 */
export function stage({ token, apiToken = API_TOKEN } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-workerd-"));
  cpSync(join(root, "examples", "cloudflare", "worker.js"), join(dir, "worker.js"));
  // The MCP tools the worker shares with `npx mnemo mcp`.
  cpSync(join(root, "js", "mcp-tools.mjs"), join(dir, "mcp-tools.mjs"));
  cpSync(web, join(dir, "web"), { recursive: true });
  const files = [];
  const walk = (d) =>
    readdirSync(d).forEach((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : files.push(join(d, f))));
  walk(join(dir, "web", "snippets"));
  const modules = [
    `(name = "worker.js", esModule = embed "worker.js")`,
    `(name = "mcp-tools.mjs", esModule = embed "mcp-tools.mjs")`,
    `(name = "mnemo.js", esModule = embed "web/mnemo.js")`,
    `(name = "mnemo_bg.wasm", wasm = embed "web/mnemo_bg.wasm")`,
    ...files.map((f) => {
      const name = relative(join(dir, "web"), f);
      return `(name = "${name}", esModule = embed "web/${name}")`;
    }),
  ];
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker), (name = "disk", disk = (writable = true)) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules.join(",\n    ")} ],
  compatibilityDate = "2026-11-01",
  durableObjectNamespaces = [ (className = "Workspace", uniqueKey = "mnemo-workspace") ],
  durableObjectStorage = (localDisk = "disk"),
  bindings = [ (name = "WORKSPACE", durableObjectNamespace = "Workspace")${
    token === undefined ? "" : `, (name = "MNEMO_MCP_TOKEN", text = ${JSON.stringify(token)})`
  }${apiToken == null ? "" : `, (name = "MNEMO_TOKEN", text = ${JSON.stringify(apiToken)})`} ],
);
`,
  );
  if (apiToken != null) writeFileSync(join(dir, "api-token"), apiToken);
  return dir;
}

export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Every server started, so a test or benchmark can stop them all. */
export const running = [];

/**
 * Runs `command args…` (with `{port}` in an argument replaced by a free
 * port), waits until it answers HTTP on 127.0.0.1 and resolves with
 * `{call(path, body?), stop(), kill()}`; `call` POSTs `body` as JSON when
 * given.
 */
async function start(name, command, args, headers = {}) {
  const port = await freePort();
  const child = spawn(command, args.map((a) => a.replaceAll("{port}", port)), { stdio: ["ignore", "pipe", "pipe"] });
  running.push(child);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/`);
      break;
    } catch {
      if (i > 200 || child.exitCode !== null) throw new Error(`${name} did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const call = async (path, body) => {
    const r = await fetch(`${base}${path}`, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  };
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  // SIGKILL, as a crash would: requests in flight get no answer.
  const kill = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGKILL");
    });
  return { base, call, stop, kill };
}

/**
 * workerd serving the staged `dir`, Durable Object storage in `disk`;
 * `call` sends the JSON API's token the stage wrote (if any).
 */
export function serve(dir, disk) {
  const tokenFile = join(dir, "api-token");
  const headers = existsSync(tokenFile) ? { authorization: `Bearer ${readFileSync(tokenFile, "utf8")}` } : {};
  return start(
    "workerd",
    workerd,
    ["serve", join(dir, "config.capnp"), "--experimental", "--socket-addr=http=127.0.0.1:{port}", `--directory-path=disk=${disk}`],
    headers,
  );
}

/** The built Fastly app. */
export const fastlyApp = join(root, "target", "fastly", "wasm32-wasip1", "release", "mnemo-fastly.wasm");

/** The `viceroy` binary, or null when it is not installed. */
export const viceroy = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v viceroy"], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
})();

/**
 * Viceroy serving the Fastly app with the local KV store of its fastly.toml
 * and, unless `apiToken` is null, the secret `MNEMO_TOKEN` (default
 * [`API_TOKEN`]) in a local secret store `mnemo`; `call` sends it.
 */
export function serveFastly({ apiToken = API_TOKEN } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-viceroy-"));
  const manifest = readFileSync(join(root, "examples", "fastly", "fastly.toml"), "utf8");
  const secrets =
    apiToken == null
      ? ""
      : `\n  [local_server.secret_stores]\n    [[local_server.secret_stores.mnemo]]\n      key = "MNEMO_TOKEN"\n      data = ${JSON.stringify(apiToken)}\n`;
  writeFileSync(join(dir, "fastly.toml"), manifest + secrets);
  const headers = apiToken == null ? {} : { authorization: `Bearer ${apiToken}` };
  return start("viceroy", viceroy, ["serve", "--addr", "127.0.0.1:{port}", fastlyApp, "-C", join(dir, "fastly.toml")], headers);
}
