//! # mnemo
//!
//! Agent memory that runs where the agent runs. mnemo keeps an agent's notes
//! (`MEMORY.md`) and user profile (`USER.md`) as bounded Markdown stores,
//! gives the model a memory tool to `add`, `replace` and `remove` entries,
//! and renders a frozen snapshot of both stores for the system prompt.
//!
//! The core is plain Rust with no I/O of its own; a [`Storage`] backend
//! decides where the blobs live (a directory, memory, a browser database, a
//! host's key-value store). The same core is compiled to WebAssembly for the
//! npm package and used natively by the `mnemo` CLI.
//!
//! ```
//! use mnemo::{Config, Memory, MemoryStorage};
//! use serde_json::json;
//!
//! # pollster::block_on(async {
//! let mut memory = Memory::open(MemoryStorage::new(), Config::default()).await?;
//! let result = memory
//!     .tool(&json!({"action": "add", "target": "user", "content": "Prefers concise answers"}))
//!     .await;
//! assert!(result.success);
//! assert_eq!(result.usage.as_deref(), Some("0% — 23/24,000 chars"));
//!
//! // The system prompt is frozen until the next session starts.
//! assert_eq!(memory.system_prompt(), "");
//! memory.start_session().await?;
//! assert!(memory.system_prompt().contains("USER PROFILE (who the user is)"));
//! # Ok::<(), mnemo::Error>(())
//! # }).unwrap();
//! ```
#![deny(missing_docs)]

pub mod activity;
pub mod api;
pub mod approval;
mod bytes;
pub mod config;
pub mod curate;
#[cfg(feature = "sqlite")]
pub mod db;
pub mod error;
pub mod graph;
pub mod host;
pub mod journey;
pub mod memory;
pub mod meta;
pub mod notify;
mod order;
pub mod prompt;
pub mod recall;
pub mod review;
pub mod scan;
pub mod search;
pub mod sectors;
#[cfg(feature = "sqlite")]
pub mod sessions;
pub mod sidecar;
pub mod skills;
pub mod storage;
pub mod store;
pub mod text;
pub mod time;
pub mod tool;
pub mod transcripts;
pub mod vectors;

#[cfg(all(any(feature = "js", feature = "component"), target_arch = "wasm32"))]
mod bindings;

pub use config::Config;
pub use error::{Error, ErrorKind, Result};
pub use memory::{Files, Memory, Status, StoreStatus};
#[cfg(not(target_arch = "wasm32"))]
pub use storage::DirStorage;
#[cfg(feature = "sqlite")]
pub use storage::SqliteStorage;
pub use storage::{Change, MemoryStorage, Storage};
pub use store::{Store, Target};
pub use tool::{tool_schema, ToolResult};
