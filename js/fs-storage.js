// The Node.js "fs" storage of mnemo: a memories directory in the CLI's format
// (MEMORY.md, USER.md, backups), written atomically (temp file, fsync,
// rename, fsync of the directory). Writers exclude each other with the same
// lock file as the native CLI (`.mnemo.lock` holding the writer's pid), so a
// Node agent and the `mnemo` CLI can share one directory.

const STALE_AFTER_MS = 60_000;
const LOCK_TIMEOUT_MS = 10_000;
const LOCK_FILE = ".mnemo.lock";

function builtin(name) {
  const p = globalThis.process;
  const get = p && p.getBuiltinModule;
  if (typeof get !== "function") {
    throw new Error(
      'storage "fs" needs Node.js 20.16 or newer (process.getBuiltinModule); ' +
        "in other runtimes pass a storage adapter object",
    );
  }
  return get.call(p, name);
}

// The one folder blob names may name: `logs/2026-12-01.md` (the activity
// log's days).
const LOGS = "logs/";

function checkName(name) {
  const file = typeof name === "string" && name.startsWith(LOGS) ? name.slice(LOGS.length) : name;
  if (!file || file.startsWith(".") || /[\\/\0]/.test(file)) {
    throw new Error(`invalid blob name ${JSON.stringify(name)}`);
  }
  return name;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function nodeFsStorage(dir) {
  const fs = builtin("node:fs");
  const path = builtin("node:path");
  fs.mkdirSync(dir, { recursive: true });
  const lockPath = path.join(dir, LOCK_FILE);
  let held = 0;

  function stale() {
    try {
      const st = fs.statSync(lockPath);
      if (Date.now() - st.mtimeMs > STALE_AFTER_MS) return true;
      const pid = Number.parseInt(fs.readFileSync(lockPath, "utf8").trim(), 10);
      if (!Number.isInteger(pid)) return false;
      try {
        process.kill(pid, 0);
        return false;
      } catch (e) {
        return e.code === "ESRCH";
      }
    } catch {
      return false;
    }
  }

  function tryLock() {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return true;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      if (stale()) {
        const aside = `${lockPath}.stale.${process.pid}`;
        try {
          fs.renameSync(lockPath, aside);
          fs.rmSync(aside, { force: true });
        } catch {}
      }
      return false;
    }
  }

  return {
    kind: "fs",
    dir,
    async read(name) {
      try {
        return new Uint8Array(fs.readFileSync(path.join(dir, checkName(name))));
      } catch (e) {
        if (e.code === "ENOENT") return null;
        throw e;
      }
    },
    async write(name, data) {
      const target = path.join(dir, checkName(name));
      const folder = path.dirname(target);
      if (folder !== path.resolve(dir) && folder !== dir) fs.mkdirSync(folder, { recursive: true });
      const tmp = path.join(folder, `.${path.basename(target)}.tmp.${process.pid}`);
      try {
        const fd = fs.openSync(tmp, "w");
        try {
          fs.writeSync(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(tmp, target);
        try {
          const dfd = fs.openSync(folder, "r");
          try {
            fs.fsyncSync(dfd);
          } finally {
            fs.closeSync(dfd);
          }
        } catch {}
      } catch (e) {
        fs.rmSync(tmp, { force: true });
        throw e;
      }
    },
    async delete(name) {
      fs.rmSync(path.join(dir, checkName(name)), { force: true });
    },
    async list() {
      const files = (at, prefix) => {
        try {
          return fs
            .readdirSync(at, { withFileTypes: true })
            .filter((d) => d.isFile() && !d.name.startsWith("."))
            .map((d) => prefix + d.name);
        } catch (e) {
          if (e.code === "ENOENT") return [];
          throw e;
        }
      };
      return [...files(dir, ""), ...files(path.join(dir, "logs"), LOGS)].sort();
    },
    async lock() {
      if (held > 0) {
        held += 1;
        return;
      }
      const start = Date.now();
      let wait = 2;
      while (!tryLock()) {
        if (Date.now() - start > LOCK_TIMEOUT_MS) {
          const e = new Error(
            `another writer has held ${lockPath} for over ${LOCK_TIMEOUT_MS / 1000} s; ` +
              "if no mnemo process is running, delete that file",
          );
          e.code = "locked";
          throw e;
        }
        await sleep(wait);
        wait = Math.min(wait * 2, 50);
      }
      held = 1;
    },
    async unlock() {
      if (held === 0) return;
      held -= 1;
      if (held === 0) fs.rmSync(lockPath, { force: true });
    },
  };
}
