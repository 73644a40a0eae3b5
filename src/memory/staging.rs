//! Write approval on a [`Memory`]: staging, approving, rejecting (see
//! [`crate::approval`]).

use super::*;
use crate::storage::Change;

impl<S: Storage> Memory<S> {
    /// Names the agent whose writes these are (every staged write and the
    /// activity carry it); `None` for none.
    pub fn set_agent(&mut self, agent: Option<&str>) -> Result<()> {
        self.agent = match agent.map(str::trim) {
            None | Some("") => None,
            Some(name) if name.chars().count() > 64 || name.chars().any(char::is_control) => {
                return Err(Error::input(
                    "the agent name must be one line of at most 64 chars",
                ))
            }
            Some(name) => Some(name.to_string()),
        };
        Ok(())
    }

    /// The agent named by [`Memory::set_agent`].
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The notification mode in force.
    pub(crate) fn notifications(&self) -> crate::config::Notifications {
        self.config.display.memory_notifications
    }

    /// Whether writes are staged: the override kept in the memory's state,
    /// else the config. A queue that cannot be read counts as on (its
    /// writes then fail with the reason, rather than skip the user).
    pub(crate) fn approval_on(&self) -> bool {
        match &self.queue {
            Ok(q) => q.approval.unwrap_or(self.config.memory.write_approval),
            Err(_) => true,
        }
    }

    /// Whether approval is in force, why, and how many writes wait (as of
    /// the last read or write).
    pub fn approval_status(&self) -> ApprovalStatus {
        let Ok(queue) = &self.queue else {
            return unreadable_queue();
        };
        ApprovalStatus {
            enabled: self.approval_on(),
            source: if queue.approval.is_some() {
                "override"
            } else {
                "config"
            },
            pending: queue.items.len(),
            needs_review: queue
                .items
                .iter()
                .filter(|s| s.state == approval::State::NeedsReview)
                .count(),
        }
    }

    fn queue(&self) -> Result<&Queue> {
        self.queue.as_ref().map_err(Clone::clone)
    }

    /// Runs `f` under the storage's lock on fresh state.
    pub(crate) async fn locked<R>(
        &mut self,
        f: impl AsyncFnOnce(&mut Self) -> Result<R>,
    ) -> Result<R> {
        self.lock().await?;
        let result = async {
            self.refresh_unlocked().await?;
            f(self).await
        }
        .await;
        let unlocked = self.storage.unlock().await;
        let value = result?;
        unlocked?;
        Ok(value)
    }

    /// Stages `call` (checked as if applied) instead of applying it.
    pub(super) async fn stage(
        &mut self,
        call: &ToolCall,
        origin: Origin,
        confirmed: bool,
    ) -> (ToolResult, Vec<Effect>, Option<String>) {
        let target = call
            .operations
            .first()
            .map_or(Target::Memory, |op| op.target);
        let outcome = self
            .locked(async |m: &mut Self| {
                let applied = match tool::applied(&m.stores, call, &m.config) {
                    Ok((_, applied)) => applied,
                    Err(rejected) => return Ok(Err(rejected)),
                };
                // A write that would change nothing (a duplicate) is
                // answered as applied: there is nothing to approve.
                if applied.effects.is_empty() {
                    return Ok(Ok((None, applied)));
                }
                let mut queue = m.queue()?.clone();
                let operations: Vec<approval::StagedOp> =
                    call.operations.iter().map(approval::StagedOp::of).collect();
                if let Some(same) = queue
                    .items
                    .iter()
                    .find(|s| s.operations == operations && s.state == approval::State::Pending)
                {
                    return Ok(Ok((Some((same.id.clone(), false)), applied)));
                }
                let id = queue.next_id();
                queue.items.push(Staged {
                    id: id.clone(),
                    origin,
                    agent: m.agent.clone(),
                    created: m.storage.now_ms(),
                    summary: crate::notify::summary(&applied.effects),
                    operations,
                    batch: call.batch,
                    confirmed,
                    state: approval::State::Pending,
                    reason: None,
                });
                m.save_queue(queue, Vec::new()).await?;
                Ok(Ok((Some((id, true)), applied)))
            })
            .await;
        let limit = self.config.storage_limit(target);
        match outcome {
            Err(e) => (
                self.failed(Rejected {
                    target: Some(target),
                    ..Rejected::from(e)
                }),
                Vec::new(),
                None,
            ),
            Ok(Err(rejected)) => (self.failed(rejected), Vec::new(), None),
            Ok(Ok((None, applied))) => {
                self.failed_writes = 0;
                let store = &self.stores[target.index()];
                (
                    ToolResult::ok(applied.message, Some(target), Some(store), limit),
                    Vec::new(),
                    None,
                )
            }
            Ok(Ok((Some((id, new)), applied))) => {
                self.failed_writes = 0;
                let store = &self.stores[target.index()];
                let mut result = ToolResult::staged(&id, Some(target), Some(store), limit);
                if !new {
                    result.message = Some(format!(
                        "Already staged for the user's approval as {id}; it is not saved yet. \
                         Do not retry it."
                    ));
                }
                result.notification = crate::notify::staged(
                    self.notifications(),
                    &applied.effects,
                    std::slice::from_ref(&id),
                );
                (result, applied.effects, Some(id))
            }
        }
    }

    /// Commits `queue` (and `extra` changes) and makes it live.
    async fn save_queue(&mut self, queue: Queue, extra: Vec<Change>) -> Result<()> {
        let bytes = queue.to_bytes();
        let mut changes = vec![Change::Write {
            name: approval::BLOB.to_string(),
            data: bytes.clone(),
        }];
        changes.extend(extra);
        self.storage.commit(&changes).await?;
        self.queue = Ok(queue);
        self.queue_raw = Some(bytes);
        Ok(())
    }

    /// The staged writes, oldest first, read again from storage (another
    /// process may have staged or approved).
    pub async fn pending(&mut self) -> Result<Vec<Staged>> {
        self.locked(async |m: &mut Self| Ok(m.queue()?.items.clone()))
            .await
    }

    /// Applies the staged write `which` names (or all of them, oldest
    /// first), each checked again against the stores as they are now:
    /// unique match, limits, duplicates, the scanner and the host's
    /// classifier. `content` replaces the text of one staged add or
    /// replace (edit before approving). A write that no longer applies
    /// stays in the queue as `needs_review` with the reason; everything
    /// that applies is committed at once with the queue.
    pub async fn approve(&mut self, which: &Which, content: Option<&str>) -> Result<Approved> {
        if content.is_some() && *which == Which::All {
            return Err(Error::input(
                "an edit applies to one staged add or replace; approve \"all\" takes no content",
            ));
        }
        // The host's classifier is asked first, outside the lock (it may
        // take its time); what it blocks is not applied.
        let chosen: Vec<Staged> = {
            self.refresh().await?;
            let queue = self.queue()?;
            match which {
                Which::All => queue.items.clone(),
                Which::One(id) => vec![queue.items[queue.position(id)?].clone()],
            }
        };
        let mut calls = Vec::new();
        for item in &chosen {
            let call = item.call(content)?;
            let (blocked, _) = self.classify(&call).await;
            calls.push((item.id.clone(), call, blocked));
        }
        let mode = self.notifications();
        let (report, confirm) = self
            .locked(async |m: &mut Self| {
                let mut queue = m.queue()?.clone();
                let mut work = m.stores.clone();
                let mut changed: Vec<Target> = Vec::new();
                let mut report = Approved::default();
                let mut effects: Vec<Effect> = Vec::new();
                let mut confirm = Vec::new();
                let mut stamps = Vec::new();
                let mut records = Vec::new();
                for (id, call, blocked) in calls {
                    // Gone meanwhile (approved or rejected elsewhere).
                    let Ok(at) = queue.position(&id) else {
                        continue;
                    };
                    let outcome = match blocked {
                        Some(rejected) => Err(rejected),
                        None => tool::apply(&mut work, &call, &m.config),
                    };
                    match outcome {
                        Ok(applied) => {
                            let item = queue.items.remove(at);
                            records.extend(m.effect_records(
                                &applied.effects,
                                item.agent.as_deref(),
                                item.origin,
                            ));
                            stamps.extend(super::Stamp::of(
                                &call,
                                item.origin,
                                item.agent.as_deref(),
                            ));
                            if item.confirmed {
                                confirm.extend(item.texts().map(|(t, c)| (t, c.to_string())));
                            }
                            for t in applied.changed {
                                if !changed.contains(&t) {
                                    changed.push(t);
                                }
                            }
                            effects.extend(applied.effects);
                            report.messages.push(applied.message);
                            report.applied.push(id);
                        }
                        Err(rejected) => {
                            let item = &mut queue.items[at];
                            item.state = approval::State::NeedsReview;
                            item.reason = Some(rejected.error.message().to_string());
                            report.failed.push(NotApplied {
                                id,
                                reason: rejected.error.message().to_string(),
                                code: rejected.error.kind(),
                            });
                        }
                    }
                }
                report.pending = queue.items.len();
                report.notification = crate::notify::saved(mode, &effects);
                let bytes = queue.to_bytes();
                let mut extra = vec![Change::Write {
                    name: approval::BLOB.to_string(),
                    data: bytes.clone(),
                }];
                extra.extend(m.log_change(&records).await?);
                let how = if !stamps.is_empty()
                    && stamps
                        .iter()
                        .all(|s: &super::Stamp| s.origin == Origin::Curation)
                {
                    super::How::Curation
                } else {
                    super::How::Write
                };
                m.commit(work, &changed, how, extra, &stamps).await?;
                m.queue = Ok(queue);
                m.queue_raw = Some(bytes);
                Ok((report, confirm))
            })
            .await?;
        if !confirm.is_empty() {
            self.confirm_facts(&confirm).await?;
        }
        Ok(report)
    }

    /// Marks the entries holding `facts` as confirmed by the user.
    async fn confirm_facts(&mut self, facts: &[(Target, String)]) -> Result<()> {
        self.locked(async |m: &mut Self| {
            let mut any = false;
            for (target, text) in facts {
                if let Some(i) = m.stores[target.index()]
                    .entries()
                    .iter()
                    .position(|e| e == text)
                {
                    m.sidecar.confirm(*target, i);
                    any = true;
                }
            }
            if any {
                let bytes = m.sidecar.to_bytes();
                m.storage.write(sidecar::BLOB, &bytes).await?;
                m.sidecar_raw = Some(bytes);
            }
            Ok(())
        })
        .await
    }

    /// Drops the staged write `which` names (or all of them). Their texts
    /// go to the history (cause `rejected`), restorable, in the same
    /// commit.
    pub async fn reject(&mut self, which: &Which) -> Result<approval::Rejected> {
        self.locked(async |m: &mut Self| {
            let mut queue = m.queue()?.clone();
            let dropped: Vec<Staged> = match which {
                Which::All => std::mem::take(&mut queue.items),
                Which::One(id) => {
                    let at = queue.position(id)?;
                    vec![queue.items.remove(at)]
                }
            };
            let now = m.storage.now_ms();
            let mut history = m.read_history().await?;
            let before = history.items.len();
            for item in &dropped {
                for (target, text) in item.texts() {
                    history.push(HistoryItem {
                        id: String::new(),
                        time: now,
                        target,
                        entry_id: item.id.clone(),
                        text: text.to_string(),
                        cause: Cause::Rejected,
                        confirmed: false,
                        agent: item.agent.clone(),
                    });
                }
            }
            let extra = if history.items.len() > before {
                vec![Change::Write {
                    name: sidecar::HISTORY_BLOB.to_string(),
                    data: history.to_bytes(),
                }]
            } else {
                Vec::new()
            };
            let report = approval::Rejected {
                rejected: dropped.iter().map(|s| s.id.clone()).collect(),
                pending: queue.items.len(),
            };
            m.save_queue(queue, extra).await?;
            Ok(report)
        })
        .await
    }

    /// Switches write approval on or off for this memory, overriding the
    /// config's `write_approval` until changed again; kept in the memory's
    /// state. Staged writes stay staged either way.
    pub async fn set_approval(&mut self, on: bool) -> Result<ApprovalStatus> {
        self.locked(async |m: &mut Self| {
            let mut queue = m.queue()?.clone();
            queue.approval = Some(on);
            m.save_queue(queue, Vec::new()).await?;
            Ok(m.approval_status())
        })
        .await
    }
}
