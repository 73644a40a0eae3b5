//! In-memory storage: for tests, scratch memories and the `"memory"` option.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use super::{Change, Storage};
use crate::error::{Error, Result};

/// Blobs kept in memory. Clones share the same blobs, so a test can open a
/// second memory over the first one's data or inspect what was written.
#[derive(Clone)]
pub struct MemoryStorage {
    blobs: Rc<RefCell<BTreeMap<String, Vec<u8>>>>,
    /// Moved by every change of `blobs`, through any clone: the
    /// [`Storage::version`] that spares a memory reading its blobs back.
    changes: Rc<Cell<i64>>,
    fail_writes_after: Rc<Cell<Option<usize>>>,
    clock: Rc<dyn Fn() -> u64>,
}

impl std::fmt::Debug for MemoryStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStorage")
            .field("blobs", &self.blobs.borrow().keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Default for MemoryStorage {
    fn default() -> Self {
        MemoryStorage::with_clock(super::system_clock)
    }
}

impl MemoryStorage {
    /// An empty storage.
    pub fn new() -> MemoryStorage {
        MemoryStorage::default()
    }

    /// An empty storage whose [`Storage::now_ms`] is `clock` (wasm hosts
    /// pass `Date.now`; tests pass a fixed time).
    pub fn with_clock(clock: impl Fn() -> u64 + 'static) -> MemoryStorage {
        MemoryStorage {
            blobs: Rc::default(),
            changes: Rc::default(),
            fail_writes_after: Rc::default(),
            clock: Rc::new(clock),
        }
    }

    /// A copy of every blob, by name.
    pub fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        self.blobs.borrow().clone()
    }

    /// Makes every write after the next `n` fail, as a full disk would
    /// (`None` lifts it). For testing the all-or-nothing promise.
    pub fn fail_writes_after(&self, n: Option<usize>) {
        self.fail_writes_after.set(n);
    }

    /// Counts a write down for [`MemoryStorage::fail_writes_after`].
    fn may_write(&self, name: &str) -> Result<()> {
        if let Some(n) = self.fail_writes_after.get() {
            if n == 0 {
                return Err(Error::storage(format!(
                    "could not write {name}: no space left (simulated)"
                )));
            }
            self.fail_writes_after.set(Some(n - 1));
        }
        Ok(())
    }

    /// Counts a change of the blobs.
    fn changed(&self) {
        self.changes.set(self.changes.get() + 1);
    }

    /// Puts a blob directly, bypassing everything (tests, fixtures).
    pub fn put(&self, name: &str, data: impl Into<Vec<u8>>) {
        self.changed();
        self.blobs
            .borrow_mut()
            .insert(name.to_string(), data.into());
    }
}

impl Storage for MemoryStorage {
    fn kind(&self) -> &str {
        "memory"
    }

    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.blobs.borrow().get(name).cloned())
    }

    async fn write(&self, name: &str, data: &[u8]) -> Result<()> {
        self.may_write(name)?;
        self.changed();
        self.blobs
            .borrow_mut()
            .insert(name.to_string(), data.to_vec());
        Ok(())
    }

    async fn write_at(&self, name: &str, at: u64, data: &[u8]) -> Result<()> {
        self.may_write(name)?;
        self.changed();
        let mut blobs = self.blobs.borrow_mut();
        let blob = blobs.entry(name.to_string()).or_default();
        *blob = super::appended(std::mem::take(blob), at, data);
        Ok(())
    }

    async fn delete(&self, name: &str) -> Result<()> {
        self.changed();
        self.blobs.borrow_mut().remove(name);
        Ok(())
    }

    async fn list(&self) -> Result<Vec<String>> {
        Ok(self.blobs.borrow().keys().cloned().collect())
    }

    /// Applies `changes` at once: in memory nothing can stop a commit half
    /// way, so there is no journal to write. While a failure is simulated
    /// ([`MemoryStorage::fail_writes_after`]) it journals as a device does,
    /// which is what such tests exercise.
    async fn commit(&self, changes: &[Change]) -> Result<()> {
        if self.fail_writes_after.get().is_some() {
            return super::journal::commit(self, changes).await;
        }
        self.changed();
        let mut blobs = self.blobs.borrow_mut();
        for change in changes {
            match change {
                Change::Write { name, data } => {
                    blobs.insert(name.clone(), data.clone());
                }
                Change::Delete { name } => {
                    blobs.remove(name);
                }
                Change::Append { name, at, data } => {
                    let blob = blobs.entry(name.clone()).or_default();
                    *blob = super::appended(std::mem::take(blob), *at, data);
                }
            }
        }
        Ok(())
    }

    /// Every change made through this storage or a clone of it moves the
    /// counter; nothing else can reach its blobs.
    async fn version(&self) -> Result<Option<(u64, i64)>> {
        Ok(Some((0, self.changes.get())))
    }

    fn now_ms(&self) -> u64 {
        (self.clock)()
    }
}
