//! The WIT component binding (`wit/mnemo.wit`): the same operations as the
//! JS API, with persistence through the imported `host-storage` interface.
//! Each function converts, calls the core, converts.

use std::cell::RefCell;

use serde_json::Value;

use crate::error::{Error as CoreError, ErrorKind};
use crate::storage::{run_ready as run, Storage};
use crate::store::Target as CoreTarget;

wit_bindgen::generate!({
    path: "wit",
    world: "mnemo",
});

use exports::mnemo::memory::api::{Guest, GuestMemory, Memory as MemoryHandle};
use mnemo::memory::host_storage;
use mnemo::memory::types::{
    Action, Error, ErrorCode, MarkdownFiles, Operation, ScanFinding, ScanVerdict, SearchHit,
    Status, StoreStatus, Target, ToolCall, ToolResult,
};

/// The host's storage, through the `host-storage` import.
struct HostStorage;

fn host_error(what: &str, name: &str, message: String) -> CoreError {
    CoreError::new(
        ErrorKind::Storage,
        format!("host storage {what}({name}) failed: {message}"),
    )
}

impl Storage for HostStorage {
    fn kind(&self) -> &str {
        "host"
    }

    async fn read(&self, name: &str) -> crate::Result<Option<Vec<u8>>> {
        host_storage::read(name).map_err(|e| host_error("read", name, e))
    }

    async fn write(&self, name: &str, data: &[u8]) -> crate::Result<()> {
        host_storage::write(name, data).map_err(|e| host_error("write", name, e))
    }

    async fn delete(&self, name: &str) -> crate::Result<()> {
        host_storage::delete(name).map_err(|e| host_error("delete", name, e))
    }

    async fn list(&self) -> crate::Result<Vec<String>> {
        host_storage::names().map_err(|e| host_error("names", "", e))
    }

    fn now_ms(&self) -> u64 {
        host_storage::now()
    }
}

fn code(kind: ErrorKind) -> ErrorCode {
    match kind {
        ErrorKind::InvalidInput => ErrorCode::InvalidInput,
        ErrorKind::UnknownAction => ErrorCode::UnknownAction,
        ErrorKind::UnknownTarget => ErrorCode::UnknownTarget,
        ErrorKind::Empty => ErrorCode::Empty,
        ErrorKind::InvalidText => ErrorCode::InvalidText,
        ErrorKind::TooLong => ErrorCode::TooLong,
        ErrorKind::Blocked => ErrorCode::Blocked,
        ErrorKind::NoMatch => ErrorCode::NoMatch,
        ErrorKind::AmbiguousMatch => ErrorCode::AmbiguousMatch,
        ErrorKind::StoreFull => ErrorCode::StoreFull,
        ErrorKind::StoreDisabled => ErrorCode::StoreDisabled,
        ErrorKind::StoreDamaged => ErrorCode::StoreDamaged,
        ErrorKind::RetryLimit => ErrorCode::RetryLimit,
        ErrorKind::InvalidConfig => ErrorCode::InvalidConfig,
        ErrorKind::Closed => ErrorCode::Closed,
        ErrorKind::Locked => ErrorCode::Locked,
        ErrorKind::Storage => ErrorCode::Storage,
        ErrorKind::Internal => ErrorCode::Internal,
    }
}

fn error(e: CoreError) -> Error {
    Error {
        code: code(e.kind()),
        message: e.message().to_string(),
    }
}

fn target_in(t: Target) -> CoreTarget {
    match t {
        Target::Memory => CoreTarget::Memory,
        Target::User => CoreTarget::User,
    }
}

fn target_out(name: &str) -> Target {
    if name == "user" {
        Target::User
    } else {
        Target::Memory
    }
}

fn operation_json(op: &Operation) -> Value {
    let action = match op.action {
        Action::Add => "add",
        Action::Replace => "replace",
        Action::Remove => "remove",
    };
    serde_json::json!({
        "action": action,
        "target": target_in(op.target).name(),
        "content": op.content,
        "old_text": op.old_text,
    })
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn hits_out(hits: Vec<crate::recall::SearchHit>) -> Vec<SearchHit> {
    hits.into_iter()
        .map(|h| SearchHit {
            target: target_out(h.target),
            index: count(h.index),
            text: h.text,
            score: h.score,
        })
        .collect()
}

fn result_out(r: crate::ToolResult) -> ToolResult {
    ToolResult {
        success: r.success,
        message: r.message,
        error: r.error,
        code: r.code.and_then(ErrorKind::from_code).map(code),
        target: r.target.map(target_out),
        usage: r.usage,
        entry_count: r.entry_count.map(count),
        current_entries: r.current_entries,
        done: r.done,
        results: r.results.map(hits_out),
    }
}

fn status_out(s: crate::Status) -> Status {
    let store = |s: crate::StoreStatus| StoreStatus {
        enabled: s.enabled,
        entries: count(s.entries),
        chars: count(s.chars),
        verbatim_budget: count(s.verbatim_budget),
        storage_limit: count(s.storage_limit),
        mode: s.mode.to_string(),
        usage: s.usage,
        damaged: s.damaged,
    };
    Status {
        storage: s.storage,
        sessions: s.sessions,
        memory: store(s.memory),
        user: store(s.user),
    }
}

/// The `memory` resource.
struct WitMemory {
    inner: RefCell<crate::Memory<HostStorage>>,
}

impl GuestMemory for WitMemory {
    fn open(config: Option<String>) -> Result<MemoryHandle, Error> {
        let config = match config {
            Some(text) => crate::Config::from_json_str(&text).map_err(error)?,
            None => crate::Config::default(),
        };
        let memory = run(crate::Memory::open(HostStorage, config)).map_err(error)?;
        Ok(MemoryHandle::new(WitMemory {
            inner: RefCell::new(memory),
        }))
    }

    fn tool(&self, call: ToolCall) -> ToolResult {
        let args = match &call {
            ToolCall::Write(op) => operation_json(op),
            ToolCall::Batch(ops) => {
                serde_json::json!({"operations": ops.iter().map(operation_json).collect::<Vec<_>>()})
            }
            ToolCall::Search(q) => serde_json::json!({
                "action": "search",
                "query": q.query,
                "target": q.target.map(|t| target_in(t).name()),
            }),
        };
        let result = run(self.inner.borrow_mut().tool(&args));
        result_out(result)
    }

    fn tool_json(&self, args: String) -> String {
        let mut memory = self.inner.borrow_mut();
        let result = match serde_json::from_str::<Value>(&args) {
            Ok(value) => run(memory.tool(&value)),
            Err(e) => memory.reject(CoreError::new(
                ErrorKind::InvalidInput,
                format!("the tool arguments are not valid JSON ({e})"),
            )),
        };
        serde_json::to_string(&result).unwrap_or_default()
    }

    fn system_prompt(&self) -> String {
        self.inner.borrow().system_prompt().to_string()
    }

    fn start_session(&self) -> Result<String, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.start_session())
            .map(str::to_string)
            .map_err(error)
    }

    fn context(&self, message: String) -> String {
        self.inner.borrow_mut().context(&message)
    }

    fn search(&self, query: String, target: Option<Target>, limit: u32) -> Vec<SearchHit> {
        let hits = self.inner.borrow_mut().search(
            &query,
            target.map(target_in),
            limit.clamp(1, 1000) as usize,
        );
        hits_out(hits)
    }

    fn status(&self) -> Result<Status, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.refresh()).map_err(error)?;
        Ok(status_out(memory.status()))
    }

    fn export_markdown(&self) -> Result<MarkdownFiles, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.refresh()).map_err(error)?;
        let mut files = memory.export_markdown();
        Ok(MarkdownFiles {
            memory: files.remove("MEMORY.md").unwrap_or_default(),
            user: files.remove("USER.md").unwrap_or_default(),
        })
    }

    fn import_markdown(
        &self,
        memory: Option<String>,
        user: Option<String>,
    ) -> Result<Status, Error> {
        let mut files = crate::Files::new();
        if let Some(text) = memory {
            files.insert("MEMORY.md".into(), text);
        }
        if let Some(text) = user {
            files.insert("USER.md".into(), text);
        }
        let mut inner = self.inner.borrow_mut();
        run(inner.import_markdown(&files)).map_err(error)?;
        Ok(status_out(inner.status()))
    }

    fn sectors_json(&self, sector: Option<String>, limit: u32) -> String {
        let report = self.inner.borrow_mut().sectors(&crate::sectors::Options {
            sector,
            limit: limit as usize,
        });
        serde_json::to_string(&report).unwrap_or_default()
    }
}

struct Component;

impl Guest for Component {
    type Memory = WitMemory;

    fn scan(text: String) -> ScanVerdict {
        let v = crate::scan::scan(&text);
        ScanVerdict {
            blocked: v.blocked,
            truncated: v.truncated,
            findings: v
                .findings
                .into_iter()
                .map(|f| ScanFinding {
                    id: f.id.to_string(),
                    category: f.category.name().to_string(),
                    start: count(f.start),
                    end: count(f.end),
                    code_point: f.code_point,
                })
                .collect(),
        }
    }

    fn tool_schema() -> String {
        crate::tool::tool_schema().to_string()
    }
}

export!(Component);
