//! The WIT component binding (`wit/mnemo.wit`): the same operations as the
//! JS API, with persistence through the imported `host-storage` interface.
//! Each function converts, calls the core, converts.

use std::cell::RefCell;

use serde_json::Value;

use crate::api::{RememberOptions, SearchCall, SearchOptions, SectorsOptions, ToolRequest};
use crate::error::{Error as CoreError, ErrorKind};
use crate::sidecar::Cause;
use crate::storage::{run_ready, Storage};
use crate::store::Target as CoreTarget;
use crate::tool::{Action as CoreAction, Operation as CoreOperation, ToolCall as CoreToolCall};

#[cfg(not(feature = "component-review"))]
wit_bindgen::generate!({
    path: "wit",
    world: "mnemo",
});

// The second world: the same API, and the review over the host's model.
#[cfg(feature = "component-review")]
wit_bindgen::generate!({
    path: "wit",
    world: "mnemo-review",
});

use exports::mnemo::memory::api::{Guest, GuestMemory, Memory as MemoryHandle};
use mnemo::memory::host_storage;
use mnemo::memory::types::{
    Action, ActivityRecord, ApprovalStatus, ApproveReport, ArchivedSkill, Category, Error,
    ErrorCode, HistoryCause, HistoryItem, Journey, JourneyNode, MarkdownFiles, Marked, NodeKind,
    NotApplied, Operation, Origin, RecallHit, RecallOptions, RejectReport,
    RememberOptions as WitRememberOptions, ScanFinding, ScanVerdict, ScoreParts, SearchHit, Sector,
    SectorEntry, SectorsReport, SectorsSummary, SkillAction, SkillInfo, SkillVersion,
    SkillsApproveReport, StagedOp, StagedSkill, StagedState, StagedWrite, Status, StoreStatus,
    Target, TitleCollision, ToolCall, ToolResult,
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
        ErrorKind::Unsupported => ErrorCode::Unsupported,
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

fn target_out(t: CoreTarget) -> Target {
    match t {
        CoreTarget::Memory => Target::Memory,
        CoreTarget::User => Target::User,
    }
}

fn action_in(a: Action) -> CoreAction {
    match a {
        Action::Add => CoreAction::Add,
        Action::Replace => CoreAction::Replace,
        Action::Remove => CoreAction::Remove,
    }
}

/// A typed WIT tool call as the core's typed request, with the checks of a
/// parsed one (no JSON in between).
fn request_in(call: ToolCall) -> crate::Result<ToolRequest> {
    let op = |op: &Operation, at: &str| {
        CoreOperation::new(
            action_in(op.action),
            target_in(op.target),
            op.content.as_deref(),
            op.old_text.as_deref(),
            at,
        )
    };
    Ok(match call {
        ToolCall::Write(o) => ToolRequest::Write(CoreToolCall {
            operations: vec![op(&o, "")?],
            batch: false,
        }),
        ToolCall::Batch(ops) => {
            if ops.is_empty() {
                return Err(CoreError::new(
                    ErrorKind::Empty,
                    "operations is empty; expected at least one operation",
                ));
            }
            let operations = ops
                .iter()
                .enumerate()
                .map(|(i, o)| op(o, &format!("operations[{i}].")))
                .collect::<crate::Result<_>>()?;
            ToolRequest::Write(CoreToolCall {
                operations,
                batch: true,
            })
        }
        ToolCall::Search(q) => ToolRequest::Search(SearchCall::new(
            &q.query,
            SearchOptions::new(q.target.map(target_in), q.limit.map(u64::from))?,
        )?),
    })
}

/// Runs a core call over the host's (synchronous) storage.
fn run<T>(future: impl std::future::Future<Output = crate::Result<T>>) -> crate::Result<T> {
    run_ready(future).and_then(|r| r)
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
        code: r.code.map(code),
        target: r.target.map(target_out),
        usage: r.usage,
        entry_count: r.entry_count.map(count),
        current_entries: r.current_entries,
        done: r.done,
        results: r.results.map(hits_out),
        skipped: r.skipped,
        staged: r.staged,
        pending_id: r.pending_id,
        notification: r.notification,
    }
}

fn approval_out(a: crate::approval::ApprovalStatus) -> ApprovalStatus {
    ApprovalStatus {
        enabled: a.enabled,
        source: a.source.to_string(),
        pending: count(a.pending),
        needs_review: count(a.needs_review),
    }
}

fn origin_out(o: crate::approval::Origin) -> Origin {
    use crate::approval::Origin as O;
    match o {
        O::Foreground => Origin::Foreground,
        O::Review => Origin::Review,
        O::Curation => Origin::Curation,
        O::Import => Origin::Import,
    }
}

fn state_out(s: crate::approval::State) -> StagedState {
    use crate::approval::State;
    match s {
        State::Pending => StagedState::Pending,
        State::NeedsReview => StagedState::NeedsReview,
    }
}

fn staged_out(s: crate::approval::Staged) -> StagedWrite {
    StagedWrite {
        id: s.id,
        origin: origin_out(s.origin),
        agent: s.agent,
        created: s.created,
        summary: s.summary,
        operations: s
            .operations
            .into_iter()
            .map(|op| StagedOp {
                action: match op.action.as_str() {
                    "replace" => Action::Replace,
                    "remove" => Action::Remove,
                    _ => Action::Add,
                },
                target: target_out(op.target),
                content: op.content,
                old_text: op.old_text,
            })
            .collect(),
        batch: s.batch,
        state: state_out(s.state),
        reason: s.reason,
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
        approval: approval_out(s.approval),
        recall: s.recall,
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
        #[allow(unused_mut)]
        let mut memory = run(crate::Memory::open(HostStorage, config)).map_err(error)?;
        #[cfg(feature = "component-review")]
        if let Some(model) = mnemo::memory::host_embedder::model() {
            let dimensions = mnemo::memory::host_embedder::dimensions() as usize;
            memory
                .set_embedder(Some(Box::new(HostEmbedder { model, dimensions })))
                .map_err(error)?;
        }
        Ok(MemoryHandle::new(WitMemory {
            inner: RefCell::new(memory),
        }))
    }

    fn tool(&self, call: ToolCall) -> ToolResult {
        let search = matches!(call, ToolCall::Search(_));
        let mut memory = self.inner.borrow_mut();
        let result = match request_in(call) {
            Ok(request) => run_ready(memory.run(request)),
            // A bad search is not a failed write (see `Memory::tool`).
            Err(e) if search => Ok(crate::ToolResult::failed(e.into(), None, 0)),
            Err(e) => Ok(memory.refuse(e)),
        };
        result_out(result.unwrap_or_else(|e| memory.refuse(e)))
    }

    fn tool_json(&self, args: String) -> String {
        let mut memory = self.inner.borrow_mut();
        let result = match serde_json::from_str::<Value>(&args) {
            Ok(value) => run_ready(memory.tool(&value)).unwrap_or_else(|e| memory.refuse(e)),
            Err(e) => memory.refuse(CoreError::new(
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
        let mut memory = self.inner.borrow_mut();
        run_ready(memory.context_ranked(&message)).unwrap_or_else(|_| memory.context(&message))
    }

    fn search(
        &self,
        query: String,
        target: Option<Target>,
        limit: Option<u32>,
    ) -> Result<Vec<SearchHit>, Error> {
        let options =
            SearchOptions::new(target.map(target_in), limit.map(u64::from)).map_err(error)?;
        let mut memory = self.inner.borrow_mut();
        let hits = run_ready(memory.search_ranked(&query, &options))
            .unwrap_or_else(|_| memory.search(&query, &options));
        Ok(hits_out(hits))
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

    fn shown_markdown(&self) -> Result<MarkdownFiles, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.refresh()).map_err(error)?;
        let mut files = memory.shown_markdown();
        Ok(MarkdownFiles {
            memory: files.remove("MEMORY.md").unwrap_or_default(),
            user: files.remove("USER.md").unwrap_or_default(),
        })
    }

    fn refresh(&self) -> Result<(), Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.refresh()).map_err(error)
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

    fn sectors(&self, sector: Option<String>, limit: Option<u32>) -> Result<SectorsReport, Error> {
        let options = SectorsOptions::new(sector, limit.map(u64::from)).map_err(error)?;
        Ok(sectors_out(self.inner.borrow_mut().sectors(&options)))
    }

    fn journey(&self) -> Result<Journey, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.refresh()).map_err(error)?;
        Ok(journey_out(memory.journey()))
    }

    fn history(&self) -> Result<Vec<HistoryItem>, Error> {
        let items = run(self.inner.borrow().history()).map_err(error)?;
        Ok(items.into_iter().map(history_out).collect())
    }

    fn remember(&self, fact: String, target: Option<Target>) -> ToolResult {
        let mut memory = self.inner.borrow_mut();
        let options = RememberOptions::new(target.map(target_in));
        let result = run_ready(memory.remember(&fact, options));
        result_out(result.unwrap_or_else(|e| memory.refuse(e)))
    }

    fn remember_with(&self, fact: String, options: WitRememberOptions) -> ToolResult {
        let mut memory = self.inner.borrow_mut();
        let mut core = RememberOptions::new(options.target.map(target_in));
        core.category = options.category.and_then(category_in);
        let result = match options
            .importance
            .map(|v| crate::meta::importance("importance", v))
            .transpose()
        {
            Ok(importance) => {
                core.importance = importance;
                run_ready(memory.remember(&fact, core))
            }
            Err(e) => Ok(memory.refuse(e)),
        };
        result_out(result.unwrap_or_else(|e| memory.refuse(e)))
    }

    fn recall(&self, query: String, options: RecallOptions) -> Result<Vec<RecallHit>, Error> {
        let core = crate::api::RecallOptions {
            target: options.target.map(target_in),
            limit: options
                .limit
                .map_or(SearchOptions::DEFAULT_LIMIT, |n| n as usize),
            score_threshold: options.score_threshold.unwrap_or(0.0),
            min_importance: options.min_importance.unwrap_or(0.0),
            max_importance: options.max_importance.unwrap_or(1.0),
            category: options.category.map(category_in),
            explain: options.explain,
        };
        let hits = run(self.inner.borrow_mut().recall(&query, &core)).map_err(error)?;
        Ok(hits
            .results
            .into_iter()
            .map(|h| RecallHit {
                id: h.id,
                target: target_out(h.target),
                index: count(h.index),
                content: h.content,
                relevance: h.relevance,
                importance: h.importance,
                category: category_out(h.category),
                created: h.created,
                pinned: h.pinned,
                explain: h.explain.map(|e| ScoreParts {
                    keyword: e.keyword,
                    bm25: e.bm25,
                    semantic: e.semantic,
                    relevance: e.relevance,
                    boost: e.boost,
                    decay: e.decay,
                    age_days: e.age_days,
                    pinned: e.pinned,
                    adjusted: e.adjusted,
                }),
            })
            .collect())
    }

    fn inject(&self, prompt: String) -> String {
        run_ready(self.inner.borrow_mut().inject(&prompt)).unwrap_or_default()
    }

    fn mark_important(&self, query: String, importance: f64, all: bool) -> Result<Marked, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.mark_important(&query, importance, all, None))
            .map(marked_out)
            .map_err(error)
    }

    fn pin(&self, query: String) -> Result<Marked, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.pin(&query, None)).map(marked_out).map_err(error)
    }

    fn forget(&self, query: String, all: bool) -> ToolResult {
        let mut memory = self.inner.borrow_mut();
        let result = run_ready(memory.forget(&query, all, None));
        result_out(result.unwrap_or_else(|e| memory.refuse(e)))
    }

    fn update_memory(&self, query: String, content: String, importance: Option<f64>) -> ToolResult {
        let mut memory = self.inner.borrow_mut();
        let result = run_ready(memory.update_memory(&query, &content, importance, None));
        result_out(result.unwrap_or_else(|e| memory.refuse(e)))
    }

    fn restore(&self, id: String) -> ToolResult {
        let mut memory = self.inner.borrow_mut();
        let result = run_ready(memory.restore(&id));
        result_out(result.unwrap_or_else(|e| memory.refuse(e)))
    }

    fn purge_history(&self, before: Option<u64>, id: Option<String>) -> Result<u32, Error> {
        let mut memory = self.inner.borrow_mut();
        run(memory.purge_history(before, id.as_deref()))
            .map(count)
            .map_err(error)
    }

    fn set_agent(&self, agent: Option<String>) -> Result<(), Error> {
        self.inner
            .borrow_mut()
            .set_agent(agent.as_deref())
            .map_err(error)
    }

    fn pending(&self) -> Result<Vec<StagedWrite>, Error> {
        let items = run(self.inner.borrow_mut().pending()).map_err(error)?;
        Ok(items.into_iter().map(staged_out).collect())
    }

    fn approve(&self, id: String, content: Option<String>) -> Result<ApproveReport, Error> {
        let which = crate::approval::Which::parse(&id).map_err(error)?;
        let mut memory = self.inner.borrow_mut();
        let r = run(memory.approve(&which, content.as_deref())).map_err(error)?;
        Ok(ApproveReport {
            applied: r.applied,
            failed: r
                .failed
                .into_iter()
                .map(|f| NotApplied {
                    id: f.id,
                    reason: f.reason,
                    code: code(f.code),
                })
                .collect(),
            messages: r.messages,
            notification: r.notification,
            pending: count(r.pending),
        })
    }

    fn reject(&self, id: String) -> Result<RejectReport, Error> {
        let which = crate::approval::Which::parse(&id).map_err(error)?;
        let r = run(self.inner.borrow_mut().reject(&which)).map_err(error)?;
        Ok(RejectReport {
            rejected: r.rejected,
            pending: count(r.pending),
        })
    }

    fn set_approval(&self, on: bool) -> Result<ApprovalStatus, Error> {
        let status = run(self.inner.borrow_mut().set_approval(on)).map_err(error)?;
        Ok(approval_out(status))
    }

    fn log(&self, note: String, agent: Option<String>) -> Result<ActivityRecord, Error> {
        let record = run(self.inner.borrow_mut().log(&note, agent.as_deref())).map_err(error)?;
        Ok(record_out(record))
    }

    fn read_log(&self, date: Option<String>) -> Result<Vec<ActivityRecord>, Error> {
        let records = run(self.inner.borrow().read_log(date.as_deref())).map_err(error)?;
        Ok(records.into_iter().map(record_out).collect())
    }

    fn log_days(&self) -> Result<Vec<String>, Error> {
        run(self.inner.borrow().log_days()).map_err(error)
    }

    fn curate(&self, dry_run: bool) -> Result<String, Error> {
        let report =
            run(self.inner.borrow_mut().curate(None, dry_run, &|| false)).map_err(error)?;
        Ok(serde_json::to_string(&report).unwrap_or_default())
    }

    fn stop(&self) -> Result<Option<String>, Error> {
        let report = run(self.inner.borrow_mut().stop(None)).map_err(error)?;
        Ok(report.map(|r| serde_json::to_string(&r).unwrap_or_default()))
    }

    fn skill_tool(&self, args_json: String) -> String {
        let answer = serde_json::from_str::<Value>(&args_json)
            .map_err(|e| {
                CoreError::new(
                    ErrorKind::InvalidInput,
                    format!("the skill tool arguments are not valid JSON ({e})"),
                )
            })
            .and_then(|args| run_ready(self.inner.borrow_mut().skill_tool(&args)));
        let answer = answer.unwrap_or_else(
            |e| serde_json::json!({"success": false, "error": e.message(), "code": e.kind()}),
        );
        serde_json::to_string(&answer).unwrap_or_default()
    }

    fn skills(&self) -> Result<Vec<SkillInfo>, Error> {
        let listed = run(self.inner.borrow_mut().skills()).map_err(error)?;
        Ok(listed.into_iter().map(skill_out).collect())
    }

    fn skill_used(&self, name: String) -> Result<(), Error> {
        run(self.inner.borrow_mut().skill_used(&name)).map_err(error)
    }

    fn pending_skills(&self) -> Result<Vec<StagedSkill>, Error> {
        let items = run(self.inner.borrow_mut().pending_skills()).map_err(error)?;
        Ok(items.into_iter().map(staged_skill_out).collect())
    }

    fn skill_diff(&self, id: String) -> Result<String, Error> {
        run(self.inner.borrow_mut().skill_diff(&id)).map_err(error)
    }

    fn approve_skill(&self, id: String) -> Result<SkillsApproveReport, Error> {
        let which = crate::approval::Which::parse(&id).map_err(error)?;
        let r = run(self.inner.borrow_mut().approve_skill(&which)).map_err(error)?;
        Ok(SkillsApproveReport {
            applied: r.applied,
            // Only writes whose files changed are kept (see `approve_skill`).
            failed: r
                .not_applied
                .into_iter()
                .map(|(id, reason)| NotApplied {
                    id,
                    reason,
                    code: ErrorCode::NoMatch,
                })
                .collect(),
        })
    }

    fn reject_skill(&self, id: String) -> Result<Vec<String>, Error> {
        let which = crate::approval::Which::parse(&id).map_err(error)?;
        run(self.inner.borrow_mut().reject_skill(&which)).map_err(error)
    }

    fn set_skill_approval(&self, on: bool) -> Result<bool, Error> {
        run(self.inner.borrow_mut().set_skill_approval(on)).map_err(error)
    }

    fn archive_skill(&self, name: String) -> Result<String, Error> {
        run(self.inner.borrow_mut().archive_skill(&name)).map_err(error)
    }

    fn archived_skills(&self) -> Result<Vec<ArchivedSkill>, Error> {
        let items = run(self.inner.borrow_mut().archived_skills()).map_err(error)?;
        Ok(items
            .into_iter()
            .map(|a| ArchivedSkill {
                name: a.name,
                category: a.category,
                archived: a.archived,
            })
            .collect())
    }

    fn skill_versions(&self, name: String) -> Result<Vec<SkillVersion>, Error> {
        let items = run(self.inner.borrow_mut().skill_versions(&name)).map_err(error)?;
        Ok(items
            .into_iter()
            .map(|v| SkillVersion {
                replaced: v.replaced,
                file: v.file,
                path: v.path,
                text: v.text,
            })
            .collect())
    }

    fn restore_skill(&self, name: String) -> Result<String, Error> {
        run(self.inner.borrow_mut().restore_skill(&name)).map_err(error)
    }

    fn pin_skill(&self, name: String, pinned: bool) -> Result<(), Error> {
        run(self.inner.borrow_mut().pin_skill(&name, pinned)).map_err(error)
    }

    fn archive_stale_skills(&self, days: u64) -> Result<Vec<String>, Error> {
        run(self.inner.borrow_mut().archive_stale_skills(days)).map_err(error)
    }
}

fn record_out(r: crate::activity::Record) -> ActivityRecord {
    ActivityRecord {
        date: r.date,
        time: r.time,
        agent: r.agent,
        what: r.what,
        text: r.text,
    }
}

fn category_in(c: Category) -> Option<crate::meta::Category> {
    use crate::meta::Category as C;
    match c {
        Category::Security => Some(C::Security),
        Category::Decision => Some(C::Decision),
        Category::Knowledge => Some(C::Knowledge),
        Category::Contact => Some(C::Contact),
        Category::Project => Some(C::Project),
        Category::Event => Some(C::Event),
        Category::Preference => Some(C::Preference),
        Category::General => None,
    }
}

fn category_out(name: &str) -> Category {
    match name {
        "security" => Category::Security,
        "decision" => Category::Decision,
        "knowledge" => Category::Knowledge,
        "contact" => Category::Contact,
        "project" => Category::Project,
        "event" => Category::Event,
        "preference" => Category::Preference,
        _ => Category::General,
    }
}

fn marked_out(m: crate::memory::Marked) -> Marked {
    Marked {
        entries: m.entries,
        message: m.message,
    }
}

/// The host's model, through the `host-llm` import.
#[cfg(feature = "component-review")]
struct HostLlm;

#[cfg(feature = "component-review")]
impl crate::host::Llm for HostLlm {
    fn complete<'a>(
        &'a self,
        request: &'a crate::review::Request,
    ) -> crate::host::Answer<'a, Value> {
        Box::pin(async move {
            let body = serde_json::to_string(request).unwrap_or_default();
            let answer = mnemo::memory::host_llm::complete(&body).map_err(|e| {
                CoreError::new(ErrorKind::Storage, format!("the host's llm failed: {e}"))
            })?;
            serde_json::from_str(&answer).map_err(|e| {
                CoreError::input(format!(
                    "the host's llm answered something that is not JSON ({e})"
                ))
            })
        })
    }
}

/// The host's embedder, through the `host-embedder` import.
#[cfg(feature = "component-review")]
struct HostEmbedder {
    model: String,
    dimensions: usize,
}

#[cfg(feature = "component-review")]
impl crate::host::Embedder for HostEmbedder {
    fn model(&self) -> &str {
        &self.model
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> crate::host::Answer<'a, Vec<Vec<f32>>> {
        Box::pin(async move {
            mnemo::memory::host_embedder::embed(texts).map_err(|e| {
                CoreError::new(
                    ErrorKind::Storage,
                    format!("the host's embedder failed: {e}"),
                )
            })
        })
    }
}

#[cfg(feature = "component-review")]
impl exports::mnemo::memory::review::Guest for Component {
    fn run(
        memory: exports::mnemo::memory::api::MemoryBorrow<'_>,
        options: String,
    ) -> Result<String, Error> {
        let options: Value = serde_json::from_str(&options).map_err(|e| {
            error(CoreError::input(format!(
                "the review options are not valid JSON ({e})"
            )))
        })?;
        let options = crate::review::ReviewOptions::from_json(&options).map_err(error)?;
        let memory = memory.get::<WitMemory>();
        let mut inner = memory.inner.borrow_mut();
        let cancelled = || mnemo::memory::host_llm::cancelled();
        let report = run(inner.review(&options, &HostLlm, &cancelled)).map_err(error)?;
        Ok(serde_json::to_string(&report).unwrap_or_default())
    }

    fn curate(
        memory: exports::mnemo::memory::api::MemoryBorrow<'_>,
        dry_run: bool,
    ) -> Result<String, Error> {
        let memory = memory.get::<WitMemory>();
        let mut inner = memory.inner.borrow_mut();
        let cancelled = || mnemo::memory::host_llm::cancelled();
        let report = run(inner.curate(Some(&HostLlm), dry_run, &cancelled)).map_err(error)?;
        Ok(serde_json::to_string(&report).unwrap_or_default())
    }

    fn stop(
        memory: exports::mnemo::memory::api::MemoryBorrow<'_>,
    ) -> Result<Option<String>, Error> {
        let memory = memory.get::<WitMemory>();
        let report = run(memory.inner.borrow_mut().stop(Some(&HostLlm))).map_err(error)?;
        Ok(report.map(|r| serde_json::to_string(&r).unwrap_or_default()))
    }
}

fn kind_out(k: crate::journey::Kind) -> NodeKind {
    match k {
        crate::journey::Kind::Note => NodeKind::Note,
        crate::journey::Kind::Skill => NodeKind::Skill,
    }
}

fn skill_out(s: crate::skills::Listed) -> SkillInfo {
    SkillInfo {
        name: s.name,
        category: s.category,
        description: s.description,
        tags: s.tags,
        files: s.files,
        created: s.usage.created,
        changed: s.usage.changed,
        views: s.usage.views,
        uses: s.usage.uses,
        patches: s.usage.patches,
        last_used: s.usage.last_used,
        pinned: s.usage.pinned,
        agent: s.usage.agent,
        blocked: s.blocked,
        problem: s.problem,
    }
}

fn staged_skill_out(s: crate::skills::Staged) -> StagedSkill {
    use crate::skills::Action as A;
    StagedSkill {
        id: s.id,
        created: s.created,
        agent: s.agent,
        origin: origin_out(s.origin),
        state: state_out(s.state),
        reason: s.reason,
        gist: s.gist,
        action: match s.plan.action {
            A::Create => SkillAction::Create,
            A::Edit => SkillAction::Edit,
            A::Patch => SkillAction::Patch,
            A::WriteFile => SkillAction::WriteFile,
            A::RemoveFile => SkillAction::RemoveFile,
            A::Delete => SkillAction::Delete,
        },
        name: s.plan.name,
        category: s.plan.category,
        paths: s.plan.changes.into_iter().map(|c| c.path).collect(),
        findings: s.plan.findings,
    }
}

fn sectors_out(r: crate::sectors::Report) -> SectorsReport {
    let entry = |e: crate::sectors::Entry| SectorEntry {
        node: e.node,
        kind: kind_out(e.kind),
        target: e.target.map(target_out),
        index: count(e.index),
        title: e.title,
        out: count(e.out),
        in_: count(e.r#in),
        dangling: e.dangling,
        inherited: e.inherited,
        pinned: e.pinned,
    };
    SectorsReport {
        sectors: r
            .sectors
            .into_iter()
            .map(|s| Sector {
                name: s.name,
                count: count(s.count),
                skills: count(s.skills),
                links: count(s.links),
                entries: s.entries.into_iter().map(entry).collect(),
                more: count(s.more),
            })
            .collect(),
        summary: SectorsSummary {
            sectors: count(r.summary.sectors),
            memories: count(r.summary.memories),
            skills: count(r.summary.skills),
            links: count(r.summary.links),
            skill_links: count(r.summary.skill_links),
            linked: count(r.summary.linked),
            dangling: count(r.summary.dangling),
            collisions: r
                .summary
                .collisions
                .into_iter()
                .map(|c| TitleCollision {
                    title: c.title,
                    nodes: c.nodes,
                })
                .collect(),
        },
    }
}

fn journey_out(j: crate::journey::Journey) -> Journey {
    Journey {
        nodes: j
            .nodes
            .into_iter()
            .map(|n| JourneyNode {
                id: n.id,
                kind: kind_out(n.kind),
                entry_id: n.entry_id,
                target: n.target.map(target_out),
                index: count(n.index),
                title: n.title,
                sector: n.sector,
                first_seen: n.first_seen,
                last_changed: n.last_changed,
                out: n.out,
                in_: n.r#in,
                dangling: n.dangling,
                pinned: n.pinned,
                blocked: n.blocked,
                agent: n.agent,
            })
            .collect(),
        links: count(j.links),
        skill_links: count(j.skill_links),
    }
}

fn history_out(h: crate::sidecar::HistoryItem) -> HistoryItem {
    HistoryItem {
        id: h.id,
        time: h.time,
        target: target_out(h.target),
        entry_id: h.entry_id,
        text: h.text,
        cause: match h.cause {
            Cause::Replace => HistoryCause::Replace,
            Cause::Remove => HistoryCause::Remove,
            Cause::Import => HistoryCause::Import,
            Cause::Rejected => HistoryCause::Rejected,
            Cause::Supersede => HistoryCause::Supersede,
            Cause::Prune => HistoryCause::Prune,
            Cause::Merge => HistoryCause::Merge,
        },
        confirmed: h.confirmed,
        agent: h.agent,
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

    fn skill_tool_schema() -> String {
        crate::skills::tool_schema().to_string()
    }
}

export!(Component);
