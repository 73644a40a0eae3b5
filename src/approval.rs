//! Write approval: staged writes waiting for the user's yes or no.
//!
//! With approval in force (the config's `memory.write_approval`, or the
//! override `setApproval` keeps in the [`Queue`]), a write is checked as
//! if it were applied (scanner, format, limits, unique match) and then
//! staged instead: a durable [`Staged`] record in the queue blob
//! ([`BLOB`]), committed through the same storage as the stores, invisible
//! to every read until approved. Approving re-runs every check against the
//! stores as they are then; a write that no longer applies stays in the
//! queue as `needs_review` with the reason, never dropped or half-applied.
//! Rejected writes go to the history, restorable.
//!
//! Only the user approves: no model-facing tool can.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::store::Target;
use crate::tool::{Action, Operation, ToolCall};

/// Name of the queue blob.
pub const BLOB: &str = "mnemo-pending.json";

/// Version of the queue format this build writes.
pub const VERSION: u32 = 1;

/// Where a write came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The agent's own tool call in a turn, or the host's `remember`.
    #[default]
    Foreground,
    /// The background review after a turn.
    Review,
    /// Curation of the activity log.
    Curation,
    /// An import.
    Import,
}

impl Origin {
    /// The origin's name, as serialized.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Foreground => "foreground",
            Origin::Review => "review",
            Origin::Curation => "curation",
            Origin::Import => "import",
        }
    }
}

/// Whether a staged write waits for a first look or failed an approval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Waiting for the user.
    Pending,
    /// An approval found that it no longer applies; `reason` says why.
    NeedsReview,
}

/// One operation of a staged write, exactly as it will be applied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StagedOp {
    /// `add`, `replace` or `remove`.
    pub action: String,
    /// `memory` or `user`.
    pub target: Target,
    /// The new entry text (add, replace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The substring naming the entry (replace, remove).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_text: Option<String>,
    /// The importance the write gives its entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
    /// The category the write gives its entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<crate::meta::Category>,
}

impl StagedOp {
    /// The staged form of `op`.
    pub fn of(op: &Operation) -> StagedOp {
        StagedOp {
            action: op.action.name().to_string(),
            target: op.target,
            content: op.content.clone(),
            old_text: op.old_text.clone(),
            importance: op.importance,
            category: op.category,
        }
    }

    /// The operation to apply, checked again as a tool call's would be.
    pub fn operation(&self) -> Result<Operation> {
        let action = Action::from_name(&self.action)
            .ok_or_else(|| Error::input(format!("staged action {:?} is unknown", self.action)))?;
        let mut op = Operation::new(
            action,
            self.target,
            self.content.as_deref(),
            self.old_text.as_deref(),
            "",
        )?;
        op.importance = self.importance;
        op.category = self.category;
        Ok(op)
    }
}

/// A staged write: a durable record in the queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Staged {
    /// Short id, unique within the memory (`p1`, `p2`, …; never reused).
    pub id: String,
    /// Where the write came from.
    pub origin: Origin,
    /// The agent that wrote it, when one was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// When it was staged, ms since the Unix epoch.
    pub created: u64,
    /// One line saying what it would do.
    pub summary: String,
    /// The operations, in order, all or nothing.
    pub operations: Vec<StagedOp>,
    /// Whether the write was an atomic batch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
    /// A fact the user confirmed (`remember`): approving marks it so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confirmed: bool,
    /// `pending` or `needs_review`.
    pub state: State,
    /// Why an approval could not apply it (`needs_review`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Staged {
    /// The tool call to apply, with `content` in place of the staged text
    /// when the user edited it before approving (one add or replace only).
    pub fn call(&self, content: Option<&str>) -> Result<ToolCall> {
        let mut operations = self
            .operations
            .iter()
            .map(StagedOp::operation)
            .collect::<Result<Vec<_>>>()?;
        if let Some(content) = content {
            match operations.as_mut_slice() {
                [op] if op.action != Action::Remove && !self.batch => {
                    op.content = Some(crate::store::clean_content("content", content)?);
                }
                _ => {
                    return Err(Error::input(format!(
                        "{} is not one add or replace, so it cannot be edited before approving; \
                         approve or reject it as it is",
                        self.id
                    )))
                }
            }
        }
        Ok(ToolCall {
            operations,
            batch: self.batch,
        })
    }

    /// The texts that would have entered the stores (for the history, on
    /// reject).
    pub fn texts(&self) -> impl Iterator<Item = (Target, &str)> {
        self.operations
            .iter()
            .filter_map(|op| op.content.as_deref().map(|c| (op.target, c)))
    }
}

/// The queue blob: staged writes and the approval override.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Queue {
    /// Format version.
    pub version: u32,
    /// The next id number to hand out.
    pub next_id: u64,
    /// `setApproval`'s override of the config's `write_approval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<bool>,
    /// The staged writes, oldest first.
    pub items: Vec<Staged>,
}

impl Queue {
    /// Reads the blob; absent means empty. An unreadable blob is an error:
    /// it holds writes waiting for the user, so mnemo will not overwrite it.
    pub fn parse(bytes: Option<&[u8]>) -> Result<Queue> {
        let Some(bytes) = bytes else {
            return Ok(Queue {
                version: VERSION,
                next_id: 1,
                ..Queue::default()
            });
        };
        let queue: Queue = serde_json::from_slice(bytes).map_err(|e| {
            Error::storage(format!(
                "{BLOB} cannot be read ({e}); it holds writes waiting for approval, so mnemo will \
                 not overwrite it: move it aside or fix it, then retry"
            ))
        })?;
        if queue.version > VERSION {
            return Err(Error::storage(format!(
                "{BLOB} was written by a newer mnemo (format {}); update mnemo to read it",
                queue.version
            )));
        }
        // Approve and reject find a staged write by its id: with two of one
        // id, one write's outcome would land on the other's record.
        let mut ids: Vec<&str> = queue.items.iter().map(|i| i.id.as_str()).collect();
        crate::order::sort(&mut ids);
        if let Some(twice) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::storage(format!(
                "{BLOB} holds two staged writes with the id {:?} (edited by hand?); mnemo will not \
                 approve, reject or overwrite them: give one another id, then retry",
                twice[0]
            )));
        }
        Ok(queue)
    }

    /// The blob's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Hands out the next id, never one a staged write already has (a
    /// queue edited by hand may hold ids at or past `next_id`).
    pub fn next_id(&mut self) -> String {
        let mut n = self.next_id.max(1);
        for _ in 0..=self.items.len() {
            if !self.items.iter().any(|i| i.id == format!("p{n}")) {
                break;
            }
            n = n.saturating_add(1);
        }
        self.next_id = n.saturating_add(1);
        format!("p{n}")
    }

    /// The position of the staged write `id` (`p3`, or just `3`).
    pub fn position(&self, id: &str) -> Result<usize> {
        let id = id.trim();
        let wanted = if id.bytes().all(|b| b.is_ascii_digit()) && !id.is_empty() {
            format!("p{id}")
        } else {
            id.to_string()
        };
        self.items
            .iter()
            .position(|s| s.id == wanted)
            .ok_or_else(|| {
                let known: Vec<&str> = self.items.iter().map(|s| s.id.as_str()).collect();
                Error::new(
                    ErrorKind::NoMatch,
                    if known.is_empty() {
                        format!("no staged write {id:?}: nothing is pending")
                    } else {
                        format!("no staged write {id:?}; pending: {}", known.join(", "))
                    },
                )
            })
    }
}

/// Which staged writes an approve or reject is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Which {
    /// One, by id.
    One(String),
    /// Every one, oldest first.
    All,
}

impl Which {
    /// `"all"` or an id.
    pub fn parse(text: &str) -> Result<Which> {
        match text.trim() {
            "" => Err(Error::new(
                ErrorKind::Empty,
                "expected the id of a staged write (see pending) or \"all\"",
            )),
            "all" => Ok(Which::All),
            id => Ok(Which::One(id.to_string())),
        }
    }
}

/// A staged write an approval could not apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotApplied {
    /// Its id; it stays in the queue as `needs_review`.
    pub id: String,
    /// Why.
    pub reason: String,
    /// The stable code of the check that failed.
    pub code: ErrorKind,
}

/// What an approve did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Approved {
    /// Ids of the writes applied.
    pub applied: Vec<String>,
    /// Writes that no longer apply, kept as `needs_review`.
    pub failed: Vec<NotApplied>,
    /// What applying said, one message per applied write.
    pub messages: Vec<String>,
    /// The notification line for the configured mode, when something was
    /// saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notification: Option<String>,
    /// Writes still in the queue.
    pub pending: usize,
}

/// What a reject did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rejected {
    /// Ids of the writes dropped (their texts are in the history).
    pub rejected: Vec<String>,
    /// Writes still in the queue.
    pub pending: usize,
}

/// Whether approval is in force, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ApprovalStatus {
    /// Whether writes are staged.
    pub enabled: bool,
    /// `config` (the config's `write_approval`) or `override` (a
    /// `setApproval` kept in the memory's state).
    pub source: &'static str,
    /// Staged writes waiting (both states).
    pub pending: usize,
    /// Of them, those an approval found no longer apply.
    pub needs_review: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn staged(id: &str, ops: Vec<StagedOp>, batch: bool) -> Staged {
        Staged {
            id: id.into(),
            origin: Origin::Review,
            agent: Some("scout".into()),
            created: 5,
            summary: "s".into(),
            operations: ops,
            batch,
            confirmed: false,
            state: State::Pending,
            reason: None,
        }
    }

    fn add(text: &str) -> StagedOp {
        StagedOp {
            action: "add".into(),
            target: Target::Memory,
            content: Some(text.into()),
            old_text: None,
            importance: None,
            category: None,
        }
    }

    #[test]
    fn the_queue_round_trips_and_ids_are_never_reused() {
        let mut q = Queue::parse(None).unwrap();
        assert_eq!(q.next_id(), "p1");
        let id = q.next_id();
        q.items.push(staged(&id, vec![add("a")], false));
        let back = Queue::parse(Some(&q.to_bytes())).unwrap();
        assert_eq!(back, q);
        assert_eq!(back.position("2").unwrap(), 0);
        assert_eq!(back.position("p2").unwrap(), 0);
        let e = back.position("p1").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoMatch);
        assert!(e.message().contains("p2"), "{e}");
        let mut q = back;
        assert_eq!(q.next_id(), "p3");
    }

    #[test]
    fn a_broken_or_newer_blob_is_never_overwritten() {
        assert_eq!(
            Queue::parse(Some(b"{nope")).unwrap_err().kind(),
            ErrorKind::Storage
        );
        let newer = br#"{"version": 99, "next_id": 1, "items": []}"#;
        assert_eq!(
            Queue::parse(Some(newer)).unwrap_err().kind(),
            ErrorKind::Storage
        );
    }

    #[test]
    fn only_one_add_or_replace_can_be_edited() {
        let one = staged("p1", vec![add("old")], false);
        let call = one.call(Some("  new text ")).unwrap();
        assert_eq!(call.operations[0].content.as_deref(), Some("new text"));
        let two = staged("p2", vec![add("a"), add("b")], true);
        assert_eq!(
            two.call(Some("x")).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert!(two.call(None).unwrap().batch);
        assert_eq!(one.call(Some("  ")).unwrap_err().kind(), ErrorKind::Empty);
    }

    #[test]
    fn which_reads_all_or_an_id() {
        assert_eq!(Which::parse("all").unwrap(), Which::All);
        assert_eq!(Which::parse(" p4 ").unwrap(), Which::One("p4".into()));
        assert!(Which::parse(" ").is_err());
    }
}
