//! A directory on the local file system, in the CLI's format: `MEMORY.md`
//! and `USER.md` side by side. Each blob is written atomically (temp file,
//! fsync, rename, fsync of the directory) and writers exclude each other
//! with a lock file that the npm package's Node adapter honours too.

use std::cell::Cell;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind as IoKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::Storage;
use crate::error::{Error, ErrorKind, Result};

/// Name of the lock file inside the directory. Its content is the holder's
/// process id; a lock whose process is gone, or older than
/// [`STALE_AFTER`], is broken.
pub const LOCK_FILE: &str = ".mnemo.lock";

/// The one folder blob names may name (`logs/2026-12-01.md`).
const LOGS: &str = crate::activity::DIR;

/// A lock older than this is considered abandoned.
pub const STALE_AFTER: Duration = Duration::from_secs(60);

/// How long a writer waits for the lock before giving up with `locked`.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// The folder of skill blob names (`skills/devops/deploy/SKILL.md`).
const SKILLS: &str = crate::skills::DIR;

/// The hidden folders of the skills tree: archived skills and the earlier
/// versions of files a write replaced.
const KEPT: [&str; 2] = [".archive", ".history"];

/// A memories directory.
#[derive(Debug)]
pub struct DirStorage {
    dir: PathBuf,
    skills: PathBuf,
    held: Cell<u32>,
}

impl DirStorage {
    /// Storage over `dir`, created (with parents) if missing.
    pub fn open(dir: impl Into<PathBuf>) -> Result<DirStorage> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|e| io_error("create the directory", &dir, e))?;
        Ok(DirStorage {
            skills: skills_dir(&dir),
            dir,
            held: Cell::new(0),
        })
    }

    /// The skills directory: `<scope root>/skills` beside a scope's
    /// `memories/` directory, else `skills/` inside the directory.
    pub fn skills_dir(&self) -> &Path {
        &self.skills
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of blob `name`: a file of the directory, or of its one
    /// folder, `logs/` (the activity log's days), or of the skills tree;
    /// refused when a part of it below the directory (or the skills
    /// folder) is a symbolic link.
    fn path(&self, name: &str) -> Result<PathBuf> {
        let path = self.path_unchecked(name)?;
        let root = if name.starts_with(SKILLS) {
            &self.skills
        } else {
            &self.dir
        };
        no_links(root, &path)?;
        Ok(path)
    }

    fn path_unchecked(&self, name: &str) -> Result<PathBuf> {
        if let Some(rest) = name.strip_prefix(SKILLS) {
            return skill_path(&self.skills, rest).ok_or_else(|| {
                Error::new(ErrorKind::Internal, format!("invalid blob name {name:?}"))
            });
        }
        let (folder, file) = match name.strip_prefix(LOGS) {
            Some(file) => (Some(LOGS), file),
            None => (None, name),
        };
        if file.is_empty() || file.starts_with('.') || file.contains(['/', '\\', '\0']) {
            return Err(Error::new(
                ErrorKind::Internal,
                format!("invalid blob name {name:?}"),
            ));
        }
        Ok(match folder {
            Some(folder) => self.dir.join(folder.trim_end_matches('/')).join(file),
            None => self.dir.join(file),
        })
    }

    fn try_lock(&self) -> Result<bool> {
        let path = self.dir.join(LOCK_FILE);
        match create_lock(&self.dir, &path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == IoKind::AlreadyExists => {
                if lock_is_stale(&path) {
                    // Move the stale lock aside rather than deleting it, so
                    // two breakers cannot both delete a fresh lock.
                    let aside = self
                        .dir
                        .join(format!("{LOCK_FILE}.stale.{}", std::process::id()));
                    if fs::rename(&path, &aside).is_ok() {
                        let _ = fs::remove_file(&aside);
                    }
                }
                Ok(false)
            }
            Err(e) => Err(io_error("create the lock file", &path, e)),
        }
    }
}

/// Creates the lock file `lock` holding this process's id, all at once: the
/// id goes into a private file first (`.mnemo.lock.<pid>`), which is then
/// hard-linked as the lock. Created empty and then written, a lock whose
/// writer was killed in between would hold no id, and nothing could tell
/// that its holder is gone until it is [`STALE_AFTER`] old (every writer
/// meanwhile failing with `locked`). Where the file system has no hard
/// links the lock is created in place, as before.
fn create_lock(dir: &Path, lock: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let own = dir.join(format!("{LOCK_FILE}.{pid}"));
    let linked = (|| {
        let mut file = File::create(&own)?;
        write!(file, "{pid}")?;
        file.sync_all()?;
        fs::hard_link(&own, lock)
    })();
    let _ = fs::remove_file(&own);
    match linked {
        Err(e) if e.kind() != IoKind::AlreadyExists => {
            let mut file = OpenOptions::new().write(true).create_new(true).open(lock)?;
            let _ = write!(file, "{pid}");
            let _ = file.sync_all();
            Ok(())
        }
        done => done,
    }
}

/// Where skills live for a memories directory `dir`: beside it when it
/// is a scope's `memories/` (the spec's `~/.mnemo/skills`), else inside.
pub fn skills_dir(dir: &Path) -> PathBuf {
    match (dir.file_name(), dir.parent()) {
        (Some(name), Some(parent)) if name == "memories" => parent.join("skills"),
        _ => dir.join("skills"),
    }
}

/// The path of skill blob `skills/<rest>` under `root`: plain parts only
/// (no `..`, no hidden part but the top folders of [`KEPT`]).
fn skill_path(root: &Path, rest: &str) -> Option<PathBuf> {
    let mut path = root.to_path_buf();
    for (i, part) in rest.split('/').enumerate() {
        let archive = i == 0 && KEPT.contains(&part);
        if part.is_empty()
            || (part.starts_with('.') && !archive)
            || part.contains(['\\', '\0'])
            || part.len() > 255
        {
            return None;
        }
        path.push(part);
    }
    (path != root).then_some(path)
}

/// Refuses `path` when a part of it below `root` (the file itself
/// included) is a symbolic link. A memories or skills directory may come
/// with a project's sources, and a link in it could point at any file: one
/// read would go into the prompt (and be copied into the store by the next
/// write), one written would land outside. The roots themselves may be
/// links (the user's own choice of where the directory lives).
pub(crate) fn no_links(root: &Path, path: &Path) -> Result<()> {
    let Ok(rest) = path.strip_prefix(root) else {
        return Ok(());
    };
    let mut at = root.to_path_buf();
    for part in rest.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::storage(format!(
                    "{} is a symbolic link: mnemo follows no link inside a memories or skills \
                     directory (it could point at any file, which would be read into the prompt \
                     or written); replace it with the file or folder itself",
                    at.display()
                )))
            }
            Ok(_) => {}
            // Nothing further down exists yet.
            Err(_) => break,
        }
    }
    Ok(())
}

/// Every file under `at`, as `prefix` + its relative path (hidden files,
/// temp files and folders skipped, except the top folders of [`KEPT`]).
fn walk(at: &Path, prefix: &str, depth: usize, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(at) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let archive = depth == 0 && KEPT.contains(&name.as_str());
        if name.starts_with('.') && !archive {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() && depth < 8 => {
                walk(&entry.path(), &format!("{prefix}{name}/"), depth + 1, out)
            }
            Ok(t) if t.is_file() => out.push(format!("{prefix}{name}")),
            _ => {}
        }
    }
}

fn lock_is_stale(path: &Path) -> bool {
    let old = fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age > STALE_AFTER);
    if old {
        return true;
    }
    let pid = fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok());
    pid.and_then(holder_is_gone).unwrap_or(false)
}

/// Whether process `pid` is gone: `Some(true)` when it surely is, `None`
/// when this build cannot tell (then only age breaks its lock).
#[cfg(all(unix, feature = "cli"))]
fn holder_is_gone(pid: u32) -> Option<bool> {
    let pid = libc::pid_t::try_from(pid).ok().filter(|&p| p > 0)?;
    // Signal 0 asks whether the process exists without touching it (on
    // every Unix: macOS has no /proc to look in). EPERM: it exists, owned
    // by another user.
    // SAFETY: kill with signal 0 sends nothing; it only checks the pid.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    Some(!alive)
}

/// Whether process `pid` is gone, where /proc can tell (Linux).
#[cfg(not(all(unix, feature = "cli")))]
fn holder_is_gone(pid: u32) -> Option<bool> {
    Path::new("/proc/self")
        .exists()
        .then(|| !Path::new(&format!("/proc/{pid}")).exists())
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::storage(format!("could not {what} {}: {e}", path.display()))
}

impl Storage for DirStorage {
    fn kind(&self) -> &str {
        "fs"
    }

    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let path = self.path(name)?;
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == IoKind::NotFound => Ok(None),
            Err(e) => Err(io_error("read", &path, e)),
        }
    }

    async fn write(&self, name: &str, data: &[u8]) -> Result<()> {
        let path = self.path(name)?;
        let folder = path.parent().unwrap_or(&self.dir).to_path_buf();
        if folder != self.dir {
            fs::create_dir_all(&folder)
                .map_err(|e| io_error("create the directory", &folder, e))?;
        }
        let file = path.file_name().and_then(|f| f.to_str()).unwrap_or(name);
        let tmp = folder.join(format!(".{file}.tmp.{}", std::process::id()));
        let result = (|| -> std::io::Result<()> {
            let mut file = File::create(&tmp)?;
            file.write_all(data)?;
            file.sync_all()?;
            drop(file);
            fs::rename(&tmp, &path)?;
            // Make the rename itself durable.
            if let Ok(dir) = File::open(&folder) {
                let _ = dir.sync_all();
            }
            Ok(())
        })();
        result.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            io_error("write", &path, e)
        })
    }

    async fn end(&self, name: &str) -> Result<Option<super::BlobEnd>> {
        use std::io::{Read, Seek, SeekFrom};
        let path = self.path(name)?;
        let result = (|| -> std::io::Result<super::BlobEnd> {
            let mut file = File::open(&path)?;
            let len = file.metadata()?.len();
            let mut last = [0u8];
            if len > 0 {
                file.seek(SeekFrom::Start(len - 1))?;
                file.read_exact(&mut last)?;
            }
            Ok(super::BlobEnd {
                len,
                last: (len > 0).then_some(last[0]),
            })
        })();
        match result {
            Ok(end) => Ok(Some(end)),
            Err(e) if e.kind() == IoKind::NotFound => Ok(None),
            Err(e) => Err(io_error("read", &path, e)),
        }
    }

    async fn write_at(&self, name: &str, at: u64, data: &[u8]) -> Result<()> {
        use std::io::{Seek, SeekFrom};
        let path = self.path(name)?;
        let folder = path.parent().unwrap_or(&self.dir).to_path_buf();
        if folder != self.dir {
            fs::create_dir_all(&folder)
                .map_err(|e| io_error("create the directory", &folder, e))?;
        }
        let result = (|| -> std::io::Result<()> {
            let created = !path.exists();
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)?;
            let len = file.metadata()?.len();
            // A replay cuts off what a crash left of the same append.
            let from = len.min(at);
            if len > from {
                file.set_len(from)?;
            }
            file.seek(SeekFrom::Start(from))?;
            file.write_all(data)?;
            file.sync_all()?;
            if created {
                if let Ok(dir) = File::open(&folder) {
                    let _ = dir.sync_all();
                }
            }
            Ok(())
        })();
        result.map_err(|e| io_error("write", &path, e))
    }

    async fn delete(&self, name: &str) -> Result<()> {
        let path = self.path(name)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == IoKind::NotFound => Ok(()),
            Err(e) => Err(io_error("delete", &path, e)),
        }
    }

    async fn list(&self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        let entries = fs::read_dir(&self.dir).map_err(|e| io_error("list", &self.dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error("list", &self.dir, e))?;
            if let Some(name) = entry.file_name().to_str() {
                if !name.starts_with('.') && entry.file_type().is_ok_and(|t| t.is_file()) {
                    names.push(name.to_string());
                }
            }
        }
        let logs = self.dir.join(LOGS.trim_end_matches('/'));
        if let Ok(entries) = fs::read_dir(&logs) {
            for entry in entries.flatten() {
                if let Some(name) = entry.file_name().to_str() {
                    if !name.starts_with('.') && entry.file_type().is_ok_and(|t| t.is_file()) {
                        names.push(format!("{LOGS}{name}"));
                    }
                }
            }
        }
        walk(&self.skills, SKILLS, 0, &mut names);
        crate::order::sort(&mut names);
        Ok(names)
    }

    async fn list_under(&self, folder: &str) -> Result<Vec<String>> {
        if folder.starts_with(SKILLS) {
            let mut names = Vec::new();
            walk(&self.skills, SKILLS, 0, &mut names);
            names.retain(|n| n.starts_with(folder));
            crate::order::sort(&mut names);
            return Ok(names);
        }
        let mut names = self.list().await?;
        names.retain(|n| n.starts_with(folder));
        Ok(names)
    }

    async fn lock(&self) -> Result<()> {
        if self.held.get() > 0 {
            self.held.set(self.held.get() + 1);
            return Ok(());
        }
        let start = Instant::now();
        let mut wait = Duration::from_millis(2);
        loop {
            if self.try_lock()? {
                self.held.set(1);
                return Ok(());
            }
            if start.elapsed() > LOCK_TIMEOUT {
                return Err(Error::new(
                    ErrorKind::Locked,
                    format!(
                        "another writer has held {} for over {} s; if no mnemo process is \
                         running, delete that file",
                        self.dir.join(LOCK_FILE).display(),
                        LOCK_TIMEOUT.as_secs()
                    ),
                ));
            }
            std::thread::sleep(wait);
            wait = (wait * 2).min(Duration::from_millis(50));
        }
    }

    async fn unlock(&self) -> Result<()> {
        match self.held.get() {
            0 => Ok(()),
            1 => {
                self.held.set(0);
                let path = self.dir.join(LOCK_FILE);
                fs::remove_file(&path).map_err(|e| io_error("remove the lock file", &path, e))
            }
            n => {
                self.held.set(n - 1);
                Ok(())
            }
        }
    }

    fn now_ms(&self) -> u64 {
        super::system_clock()
    }
}

impl Drop for DirStorage {
    fn drop(&mut self) {
        if self.held.get() > 0 {
            let _ = fs::remove_file(self.dir.join(LOCK_FILE));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_atomic_replacements_and_leave_no_temp_files() {
        let tmp = tempfile::tempdir().unwrap();
        let s = DirStorage::open(tmp.path().join("m")).unwrap();
        pollster::block_on(async {
            assert_eq!(s.read("MEMORY.md").await.unwrap(), None);
            s.write("MEMORY.md", b"one").await.unwrap();
            s.write("MEMORY.md", b"two").await.unwrap();
            assert_eq!(s.read("MEMORY.md").await.unwrap().unwrap(), b"two");
            assert_eq!(s.list().await.unwrap(), ["MEMORY.md"]);
            s.delete("MEMORY.md").await.unwrap();
            s.delete("MEMORY.md").await.unwrap();
            assert!(s.list().await.unwrap().is_empty());
        });
        let leftovers: Vec<_> = fs::read_dir(s.dir()).unwrap().collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn a_stale_lock_of_a_dead_process_is_broken() {
        let tmp = tempfile::tempdir().unwrap();
        let s = DirStorage::open(tmp.path()).unwrap();
        // A pid above the kernel's pid_max never names a live process.
        fs::write(tmp.path().join(LOCK_FILE), "4294967").unwrap();
        pollster::block_on(async {
            s.lock().await.unwrap();
            s.unlock().await.unwrap();
        });
        assert!(!tmp.path().join(LOCK_FILE).exists());
    }

    #[test]
    fn a_lock_whose_holder_runs_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let s = DirStorage::open(tmp.path()).unwrap();
        // This test's own process: alive, so its lock is not broken.
        let pid = std::process::id().to_string();
        fs::write(tmp.path().join(LOCK_FILE), &pid).unwrap();
        assert!(!s.try_lock().unwrap());
        assert_eq!(fs::read_to_string(tmp.path().join(LOCK_FILE)).unwrap(), pid);
    }

    #[test]
    fn the_lock_holds_its_writers_id_from_the_moment_it_exists() {
        let tmp = tempfile::tempdir().unwrap();
        let s = DirStorage::open(tmp.path()).unwrap();
        pollster::block_on(s.lock()).unwrap();
        let held = fs::read_to_string(tmp.path().join(LOCK_FILE)).unwrap();
        assert_eq!(held, std::process::id().to_string());
        // The private file the lock was linked from is gone.
        let names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [LOCK_FILE]);
        pollster::block_on(s.unlock()).unwrap();
        assert!(!tmp.path().join(LOCK_FILE).exists());
    }

    #[test]
    fn blob_names_cannot_escape_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let s = DirStorage::open(tmp.path()).unwrap();
        for bad in [
            "../x",
            ".hidden",
            "a/b",
            "",
            "logs/",
            "logs/../x",
            "logs/a/b",
            "logs/.x",
        ] {
            assert!(pollster::block_on(s.read(bad)).is_err(), "{bad}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_the_directory_are_never_followed() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.txt");
        fs::write(&secret, "TOP SECRET").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let memories = tmp.path().join("memories");
        let s = DirStorage::open(&memories).unwrap();
        symlink(&secret, memories.join("MEMORY.md")).unwrap();
        symlink(outside.path(), memories.join("logs")).unwrap();
        fs::create_dir_all(tmp.path().join("skills/devops")).unwrap();
        symlink(outside.path(), tmp.path().join("skills/devops/leak")).unwrap();
        pollster::block_on(async {
            for name in [
                "MEMORY.md",
                "logs/2026-12-01.md",
                "skills/devops/leak/secret.txt",
            ] {
                let e = s.read(name).await.unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Storage, "{name}");
                assert!(e.message().contains("symbolic link"), "{e}");
                let e = s.write(name, b"x").await.unwrap_err();
                assert!(e.message().contains("symbolic link"), "{e}");
            }
            // A skill behind a link is not listed either.
            assert!(s.list().await.unwrap().iter().all(|n| !n.contains("leak")));
        });
        assert_eq!(fs::read_to_string(&secret).unwrap(), "TOP SECRET");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
        // The directory itself may be a link.
        let linked = tmp.path().join("linked");
        symlink(&memories, &linked).unwrap();
        let via = DirStorage::open(&linked).unwrap();
        pollster::block_on(via.write("USER.md", b"Name: Ada")).unwrap();
        assert_eq!(fs::read(memories.join("USER.md")).unwrap(), b"Name: Ada");
    }

    #[test]
    fn day_logs_live_in_the_logs_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let s = DirStorage::open(tmp.path()).unwrap();
        pollster::block_on(async {
            s.write("logs/2026-12-01.md", b"# Activity").await.unwrap();
            s.write("MEMORY.md", b"x").await.unwrap();
            assert_eq!(s.list().await.unwrap(), ["MEMORY.md", "logs/2026-12-01.md"]);
            assert_eq!(
                s.read("logs/2026-12-01.md").await.unwrap().unwrap(),
                b"# Activity"
            );
            s.delete("logs/2026-12-01.md").await.unwrap();
        });
        assert!(tmp.path().join("logs").is_dir());
        assert_eq!(fs::read_dir(tmp.path().join("logs")).unwrap().count(), 0);
    }
}
