// The Node.js side of mnemo's `mnemo-nodefs` SQLite VFS
// (src/storage/nodefs.rs): synchronous file-descriptor calls of node:fs,
// which SQLite's VFS callbacks need (they cannot await).
//
// No function here throws. Failures return a negative class (below) and
// leave the error's text and errno for nodefsLastError/nodefsLastErrno, so
// the Rust side picks the SQLite error code without catching exceptions.
// Buffers arrive as Uint8Array views of the wasm memory: reads land directly
// in SQLite's page buffer and writes leave from it, with no copy here.

const OTHER = -1; // any other failure
const NOENT = -2; // ENOENT, ENOTDIR
const FULL = -3; // ENOSPC, EDQUOT, EFBIG
const DENIED = -4; // EACCES, EPERM, EROFS
const EXISTS = -5; // EEXIST

// nodefsOpen flags (keep in step with src/storage/nodefs.rs).
const CREATE = 1;
const EXCLUSIVE = 2;
const READ_ONLY = 4;
const NO_FOLLOW = 8;

let mods = null;
let lastMessage = "";
let lastErrno = 0;

function builtins() {
  if (mods === null) {
    const p = globalThis.process;
    const get = p && p.getBuiltinModule;
    if (typeof get !== "function") {
      throw new Error(
        "the state database on the file system needs Node.js 20.16 or newer " +
          "(process.getBuiltinModule)",
      );
    }
    mods = { fs: get.call(p, "node:fs"), path: get.call(p, "node:path") };
  }
  return mods;
}

function fail(e) {
  lastMessage = e && e.message ? String(e.message) : String(e);
  lastErrno = e && typeof e.errno === "number" ? Math.abs(e.errno) : 0;
  switch (e && e.code) {
    case "ENOENT":
    case "ENOTDIR":
      return NOENT;
    case "ENOSPC":
    case "EDQUOT":
    case "EFBIG":
      return FULL;
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return DENIED;
    case "EEXIST":
      return EXISTS;
    default:
      return OTHER;
  }
}

/** Whether node:fs can be reached (Node.js 20.16+); the message otherwise. */
export function nodefsUnavailable() {
  try {
    builtins();
    return "";
  } catch (e) {
    return String(e.message);
  }
}

/** Text of the last failure. */
export function nodefsLastError() {
  return lastMessage;
}

/** errno of the last failure (0 when unknown). */
export function nodefsLastErrno() {
  return lastErrno;
}

/**
 * Opens `path`; returns its descriptor or a negative class. A created file
 * takes the permission bits of `modeFrom` when that exists (a journal gets
 * its database's, as SQLite's unix VFS does), else 0644 before the umask.
 */
export function nodefsOpen(path, flags, modeFrom) {
  try {
    const { fs } = builtins();
    const c = fs.constants;
    let how = flags & READ_ONLY ? c.O_RDONLY : c.O_RDWR;
    if (flags & CREATE) how |= c.O_CREAT;
    if (flags & EXCLUSIVE) how |= c.O_EXCL;
    if (flags & NO_FOLLOW && c.O_NOFOLLOW !== undefined) how |= c.O_NOFOLLOW;
    let mode = 0o644;
    if (flags & CREATE && modeFrom) {
      try {
        mode = fs.statSync(modeFrom).mode & 0o777;
      } catch {}
    }
    return fs.openSync(path, how, mode);
  } catch (e) {
    return fail(e);
  }
}

/**
 * Reads into `buf` from `offset` until it is full or the file ends; returns
 * the count read (less than buf.length only at the end of the file).
 */
export function nodefsRead(fd, buf, offset) {
  try {
    const { fs } = builtins();
    let done = 0;
    while (done < buf.length) {
      const n = fs.readSync(fd, buf, done, buf.length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  } catch (e) {
    return fail(e);
  }
}

/** Writes all of `buf` at `offset`; returns 0. */
export function nodefsWrite(fd, buf, offset) {
  try {
    const { fs } = builtins();
    let done = 0;
    while (done < buf.length) {
      done += fs.writeSync(fd, buf, done, buf.length - done, offset + done);
    }
    return 0;
  } catch (e) {
    return fail(e);
  }
}

/** The file's size in bytes. */
export function nodefsSize(fd) {
  try {
    return builtins().fs.fstatSync(fd).size;
  } catch (e) {
    return fail(e);
  }
}

/** Sets the file's size to `size` bytes. */
export function nodefsTruncate(fd, size) {
  try {
    builtins().fs.ftruncateSync(fd, size);
    return 0;
  } catch (e) {
    return fail(e);
  }
}

/** fsync, or fdatasync when only the data must reach the disk. */
export function nodefsSync(fd, dataOnly) {
  try {
    const { fs } = builtins();
    if (dataOnly) fs.fdatasyncSync(fd);
    else fs.fsyncSync(fd);
    return 0;
  } catch (e) {
    return fail(e);
  }
}

/**
 * fsync of the directory holding `path`, so that a file's creation or
 * removal survives a power loss. A directory that cannot be opened (a
 * platform without directory descriptors) is skipped, as SQLite's unix VFS
 * does, and so is a file system that cannot sync directories (EINVAL,
 * ENOTSUP); any other failing fsync is an error.
 */
export function nodefsSyncDir(path) {
  let fd;
  try {
    const { fs, path: p } = builtins();
    fd = fs.openSync(p.dirname(path), "r");
  } catch {
    return 0;
  }
  try {
    builtins().fs.fsyncSync(fd);
    return 0;
  } catch (e) {
    // A file system that cannot sync directories says so; skip it there.
    if (e.code === "EINVAL" || e.code === "ENOTSUP") return 0;
    return fail(e);
  } finally {
    try {
      builtins().fs.closeSync(fd);
    } catch {}
  }
}

/** Closes the descriptor. */
export function nodefsClose(fd) {
  try {
    builtins().fs.closeSync(fd);
    return 0;
  } catch (e) {
    return fail(e);
  }
}

/** Removes the file. */
export function nodefsUnlink(path) {
  try {
    builtins().fs.unlinkSync(path);
    return 0;
  } catch (e) {
    return fail(e);
  }
}

/**
 * 1 or 0: mode 0 asks whether `path` exists (an empty regular file counts
 * as absent, as in SQLite's unix VFS: an empty journal is not hot), 1
 * whether it is readable, 2 whether it is readable and writable.
 */
export function nodefsAccess(path, mode) {
  try {
    const { fs } = builtins();
    if (mode === 0) {
      const st = fs.statSync(path, { throwIfNoEntry: false });
      return st !== undefined && (!st.isFile() || st.size > 0) ? 1 : 0;
    }
    const c = fs.constants;
    fs.accessSync(path, mode === 1 ? c.R_OK : c.R_OK | c.W_OK);
    return 1;
  } catch (e) {
    const cls = fail(e);
    return cls === NOENT || cls === DENIED ? 0 : cls;
  }
}

/**
 * The canonical name of `name`: relative names resolve against the current
 * directory; symbolic links resolve (of the file, or of its directory when
 * the file does not exist yet), so that this process and the native CLI
 * name the same journal file for one database.
 */
/** Whether `path` is a symbolic link (false when it does not exist). */
export function nodefsIsLink(path) {
  try {
    return builtins().fs.lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export function nodefsFullPath(name) {
  let fs, path;
  try {
    ({ fs, path } = builtins());
  } catch {
    return name;
  }
  const abs = path.isAbsolute(name) ? name : path.resolve(name);
  try {
    return fs.realpathSync(abs);
  } catch {}
  try {
    return path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
  } catch {}
  return abs;
}
