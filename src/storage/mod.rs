//! The storage seam: where the Markdown stores and sidecar state live.
//!
//! A [`Storage`] is a set of named blobs (`MEMORY.md`, `USER.md`, backups,
//! later sidecar state) that can be read one by one and changed as a set
//! with [`Storage::commit`]. The default `commit` is a write-ahead journal
//! over single-blob atomic writes, so any backend that can replace one blob
//! atomically (a directory with rename, a key-value store, a JS adapter)
//! gets all-or-nothing commits of several blobs; a database backend
//! overrides it with a transaction. The trait is async because browser and
//! edge backends are; native backends complete immediately.
//!
//! This module must never interpret blob contents beyond the journal.

mod journal;
mod memory;

#[cfg(not(target_arch = "wasm32"))]
mod dir;

#[cfg(not(target_arch = "wasm32"))]
pub use dir::DirStorage;
pub use journal::{commit as journal_commit, recover as journal_recover, JOURNAL};
pub use memory::MemoryStorage;

use crate::error::Result;

/// One change of a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Create or replace blob `name` with `data`.
    Write {
        /// The blob name.
        name: String,
        /// The new contents.
        data: Vec<u8>,
    },
    /// Remove blob `name` (absent is fine).
    Delete {
        /// The blob name.
        name: String,
    },
}

impl Change {
    /// Create or replace blob `name` with `data`.
    pub fn write(name: &str, data: &[u8]) -> Change {
        Change::Write {
            name: name.to_string(),
            data: data.to_vec(),
        }
    }

    /// Remove blob `name`.
    pub fn delete(name: &str) -> Change {
        Change::Delete {
            name: name.to_string(),
        }
    }

    /// The blob this change is about.
    pub fn name(&self) -> &str {
        match self {
            Change::Write { name, .. } | Change::Delete { name } => name,
        }
    }
}

/// Where a memory's blobs live. See the module docs.
#[allow(async_fn_in_trait)]
pub trait Storage {
    /// A short name of the backend for `status()`: `memory`, `fs`, `host`.
    fn kind(&self) -> &str;

    /// Reads blob `name`; `None` when it does not exist.
    async fn read(&self, name: &str) -> Result<Option<Vec<u8>>>;

    /// Replaces blob `name` atomically: after a crash it holds the old or the
    /// new data, never a mix.
    async fn write(&self, name: &str, data: &[u8]) -> Result<()>;

    /// Removes blob `name`; absent is not an error.
    async fn delete(&self, name: &str) -> Result<()>;

    /// Names of all blobs.
    async fn list(&self) -> Result<Vec<String>>;

    /// Applies `changes` all-or-nothing. The default journals them first.
    async fn commit(&self, changes: &[Change]) -> Result<()> {
        journal::commit(self, changes).await
    }

    /// Finishes a commit interrupted by a crash. Called when a memory opens.
    async fn recover(&self) -> Result<()> {
        journal::recover(self).await
    }

    /// Takes the writers' lock (other processes or tabs). Default: none.
    async fn lock(&self) -> Result<()> {
        Ok(())
    }

    /// Releases the writers' lock.
    async fn unlock(&self) -> Result<()> {
        Ok(())
    }

    /// Milliseconds since the Unix epoch, for backup names and timestamps.
    fn now_ms(&self) -> u64;
}

/// Milliseconds since the Unix epoch from the system clock; 0 where there is
/// none (wasm32 without a host clock: bindings pass their own).
pub fn system_clock() -> u64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
    #[cfg(target_arch = "wasm32")]
    {
        0
    }
}

/// Drives a future whose storage answers synchronously (a directory, a
/// component host's imports, an edge KV store) to completion: such a future
/// is ready at its first poll, and is polled again should a backend yield.
/// Browser and JS backends are truly async; their bindings await instead.
pub fn run_ready<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}
