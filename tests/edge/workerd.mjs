// Serving examples/cloudflare/worker.js under workerd (npm) on 127.0.0.1,
// for the edge test and the cold-start benchmark.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const web = join(root, "pkg", "web");
if (!existsSync(join(web, "mnemo_bg.wasm"))) throw new Error("pkg/web is missing: run scripts/build-js.sh first");
const workerd = join(root, "node_modules", ".bin", "workerd");

/** The worker's files and a workerd config in a fresh directory. */
export function stage() {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-workerd-"));
  cpSync(join(root, "examples", "cloudflare", "worker.js"), join(dir, "worker.js"));
  cpSync(web, join(dir, "web"), { recursive: true });
  const files = [];
  const walk = (d) =>
    readdirSync(d).forEach((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : files.push(join(d, f))));
  walk(join(dir, "web", "snippets"));
  const modules = [
    `(name = "worker.js", esModule = embed "worker.js")`,
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
  bindings = [ (name = "WORKSPACE", durableObjectNamespace = "Workspace") ],
);
`,
  );
  return dir;
}

export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Every workerd started, so a test or benchmark can stop them all. */
export const running = [];

/** Starts workerd on `dir` with its disk storage in `disk`; resolves with a client. */
export async function serve(dir, disk) {
  const port = await freePort();
  const child = spawn(
    workerd,
    ["serve", join(dir, "config.capnp"), "--experimental", `--socket-addr=http=127.0.0.1:${port}`, `--directory-path=disk=${disk}`],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  running.push(child);
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/`);
      break;
    } catch {
      if (i > 100 || child.exitCode !== null) throw new Error(`workerd did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const call = async (path, body) => {
    const r = await fetch(`${base}${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  };
  const stop = () =>
    new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  return { call, stop };
}

