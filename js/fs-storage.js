// The Node.js "fs" storage of mnemo: a memories directory in the CLI's format
// (MEMORY.md, USER.md, backups), written atomically (temp file, fsync,
// rename, fsync of the directory). Writers exclude each other with the same
// lock file as the native CLI (`.mnemo.lock` holding the writer's pid), so a
// Node agent and the `mnemo` CLI can share one directory.
//
// Learned skills live where the CLI keeps them (src/storage/dir.rs, whose
// rules this file repeats exactly): the blob `skills/<category>/<name>/SKILL.md`
// is the file `<scope root>/skills/<category>/<name>/SKILL.md` when the
// memories directory is a scope's `memories/` (`<root>/memories`), else
// `<dir>/skills/...`; archived skills are under the skills folder's `.archive/`.

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

// The folder of skill blob names (`skills/devops/deploy/SKILL.md`), and the
// two hidden folders under it: the archive's and the earlier versions'.
const SKILLS = "skills/";
const ARCHIVE = ".archive";
// ...and the earlier versions of skill files a write replaced.
const HISTORY = ".history";
const KEPT = new Set([ARCHIVE, HISTORY]);
// How deep the skills tree is walked (folders below the skills folder).
const MAX_SKILL_DEPTH = 8;

/** Where the skills of memories directory `dir` live: beside a scope's `memories/`, else inside `dir`. */
function skillsDir(path, dir) {
  const normal = path.normalize(dir);
  return path.basename(normal) === "memories" ? path.join(path.dirname(normal), "skills") : path.join(dir, "skills");
}

/**
 * The path of skill blob `skills/<rest>` under `root`: plain parts only (no
 * empty part, no `.`, `..` or hidden part but the top folders .archive and .history, no
 * backslash or NUL, at most 255 bytes each).
 */
function skillPath(path, root, name) {
  const parts = name.slice(SKILLS.length).split("/");
  parts.forEach((part, i) => {
    const archive = i === 0 && KEPT.has(part);
    if (part === "" || (part.startsWith(".") && !archive) || /[\\\0]/.test(part) || Buffer.byteLength(part, "utf8") > 255) {
      throw new Error(`invalid blob name ${JSON.stringify(name)}`);
    }
  });
  return path.join(root, ...parts);
}

/**
 * Every file under `at` as `prefix` + its relative path: hidden files and
 * folders (temp files among them) skipped, except the top folders .archive and .history;
 * symbolic links and unreadable folders too.
 */
function walk(fs, path, at, prefix, depth, out) {
  let entries;
  try {
    entries = fs.readdirSync(at, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const archive = depth === 0 && KEPT.has(entry.name);
    if (entry.name.startsWith(".") && !archive) continue;
    if (entry.isDirectory() && depth < MAX_SKILL_DEPTH) {
      walk(fs, path, path.join(at, entry.name), `${prefix}${entry.name}/`, depth + 1, out);
    } else if (entry.isFile()) {
      out.push(prefix + entry.name);
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `file`, unless a part of it below `root` (the file itself included) is a
 * symbolic link: a memories or skills directory may come with a project's
 * sources, and a link could point at any file (read into the prompt, or
 * written). The roots themselves may be links. Repeats src/storage/dir.rs.
 */
function noLinks(fs, path, root, file) {
  const rest = path.relative(root, file);
  if (rest.startsWith("..") || path.isAbsolute(rest)) return file;
  let at = root;
  for (const part of rest.split(path.sep)) {
    at = path.join(at, part);
    let st;
    try {
      st = fs.lstatSync(at);
    } catch {
      break;
    }
    if (st.isSymbolicLink()) {
      throw new Error(
        `${at} is a symbolic link: mnemo follows no link inside a memories or skills directory ` +
          "(it could point at any file, which would be read into the prompt or written); " +
          "replace it with the file or folder itself",
      );
    }
  }
  return file;
}

export function nodeFsStorage(dir) {
  const fs = builtin("node:fs");
  const path = builtin("node:path");
  fs.mkdirSync(dir, { recursive: true });
  const lockPath = path.join(dir, LOCK_FILE);
  const skills = skillsDir(path, dir);
  let held = 0;

  /** Makes a folder's new or renamed entries durable (best effort: not every system can fsync a folder). */
  function syncFolder(folder) {
    try {
      const dfd = fs.openSync(folder, "r");
      try {
        fs.fsyncSync(dfd);
      } finally {
        fs.closeSync(dfd);
      }
    } catch {}
  }

  /** The file of blob `name`: in the skills folder, in `logs/`, or in the directory; never behind a link. */
  const fileOf = (name) =>
    typeof name === "string" && name.startsWith(SKILLS)
      ? noLinks(fs, path, skills, skillPath(path, skills, name))
      : noLinks(fs, path, dir, path.join(dir, checkName(name)));

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

  // The lock holds its writer's pid from the moment it exists: the pid goes
  // into a private file first, which is then hard-linked as the lock (as the
  // CLI does, src/storage/dir.rs). Created empty and then written, a lock
  // whose writer was killed in between would name no process, and only its
  // age (a minute) could break it. Without hard links: created in place.
  function createLock() {
    const own = `${lockPath}.${process.pid}`;
    let linked;
    try {
      const fd = fs.openSync(own, "w");
      try {
        fs.writeSync(fd, String(process.pid));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.linkSync(own, lockPath);
      linked = true;
    } catch (e) {
      if (e.code === "EEXIST") throw e;
      linked = false;
    } finally {
      fs.rmSync(own, { force: true });
    }
    if (!linked) {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
  }

  function tryLock() {
    try {
      createLock();
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
        return new Uint8Array(fs.readFileSync(fileOf(name)));
      } catch (e) {
        if (e.code === "ENOENT") return null;
        throw e;
      }
    },
    async write(name, data) {
      const target = fileOf(name);
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
        syncFolder(folder);
      } catch (e) {
        fs.rmSync(tmp, { force: true });
        throw e;
      }
    },
    async delete(name) {
      fs.rmSync(fileOf(name), { force: true });
    },
    // Where blob `name` ends ({length, last byte}), without reading it.
    async end(name) {
      let fd;
      try {
        fd = fs.openSync(fileOf(name), "r");
      } catch (e) {
        if (e.code === "ENOENT") return null;
        throw e;
      }
      try {
        const length = fs.fstatSync(fd).size;
        if (length === 0) return { length, last: null };
        const byte = Buffer.alloc(1);
        fs.readSync(fd, byte, 0, 1, length - 1);
        return { length, last: byte[0] };
      } finally {
        fs.closeSync(fd);
      }
    },
    // Blob `name` becomes its first `at` bytes then `data`, written in place
    // (an append; a replayed one cuts off what a crash left of it first).
    async append(name, data, at) {
      const target = fileOf(name);
      const folder = path.dirname(target);
      if (folder !== path.resolve(dir) && folder !== dir) fs.mkdirSync(folder, { recursive: true });
      const created = !fs.existsSync(target);
      const fd = fs.openSync(target, fs.constants.O_WRONLY | fs.constants.O_CREAT);
      try {
        const length = fs.fstatSync(fd).size;
        const from = Math.min(length, at);
        if (length > from) fs.ftruncateSync(fd, from);
        const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
        let done = 0;
        while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, from + done);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      if (created) syncFolder(folder);
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
      const skillFiles = [];
      walk(fs, path, skills, SKILLS, 0, skillFiles);
      return [...files(dir, ""), ...files(path.join(dir, "logs"), LOGS), ...skillFiles].sort();
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
