//! Curation on a [`Memory`]: the pipeline of [`crate::curate`] run over
//! the memory's log and stores.

use super::*;
use crate::curate::{
    self, classify, Class, Decision, Extraction, Fact, FactReport, Line, Outcome, Position, Pruned,
    Report, Similarity,
};
use crate::host::Llm;
use crate::review::{Reply, Request, Usage};
use crate::tool::{Action, Operation};

/// The similarity machinery of one run.
struct Comparer {
    similarity: Similarity,
    embedder_error: Option<String>,
}

impl<S: Storage> Memory<S> {
    /// Curates the memory (see [`crate::curate`]): reads the activity log
    /// since the last curation, has the host's `llm` extract durable facts
    /// and stores them as new, duplicate, superseding or kept-beside
    /// entries (every write checked like any other, and staged under write
    /// approval), consolidates the stores by category, prunes stale
    /// entries into the history and applies the log retention. Without an
    /// `llm`, extraction is skipped (the report says so) and the log
    /// stays unread for the next curation; the other steps run. With
    /// `dry_run`, nothing is written: the report says what would be done.
    /// `cancelled` is asked between steps. The host's model failing never
    /// fails the curation: the report says what happened.
    pub async fn curate(
        &mut self,
        llm: Option<&dyn Llm>,
        dry_run: bool,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Report> {
        self.refresh().await?;
        self.end_turn();
        let mut position =
            Position::parse(self.storage.read(curate::POSITION_BLOB).await?.as_deref());
        let mut report = Report {
            facts_extracted: 0,
            facts_added: 0,
            memories_updated: 0,
            memories_pruned: 0,
            existing_memories: 0,
            cost_usd: 0.0,
            dry_run,
            extraction: Extraction {
                status: "done",
                reason: None,
                records_read: 0,
                chunks: 0,
            },
            similarity: Similarity::Lexical,
            embedder_error: None,
            facts: Vec::new(),
            staged: Vec::new(),
            refused: 0,
            pruned: Vec::new(),
            consolidated: Vec::new(),
            merged: 0,
            expired_logs: Vec::new(),
            usage: Usage::default(),
            errors: Vec::new(),
        };
        let mut comparer = Comparer {
            similarity: if self.embedder.is_some() {
                Similarity::Cosine
            } else {
                Similarity::Lexical
            },
            embedder_error: None,
        };
        // Facts a dry run would have added, for the facts after them.
        let mut virtual_adds: Vec<(Target, String)> = Vec::new();

        // 1. Read the log since the position.
        let (lines, end) = self.unread_log(&position).await?;
        report.extraction.records_read = lines.len();
        match llm {
            None => {
                report.extraction.status = "skipped";
                report.extraction.reason = Some(
                    "no llm was given: facts were not extracted, and the log stays unread for \
                     the next curation with one; duplicates, consolidation and pruning ran"
                        .into(),
                );
            }
            Some(_) if lines.is_empty() => {
                report.extraction.status = "skipped";
                report.extraction.reason =
                    Some("nothing new in the activity log since the last curation".into());
                if !dry_run {
                    position.date = end.0.clone();
                    position.records = end.1;
                }
            }
            Some(llm) => {
                let chunks = curate::chunks(lines, self.config.curation.max_input_chars);
                let n = chunks.len();
                for (k, chunk) in chunks.into_iter().enumerate() {
                    if cancelled() {
                        report.extraction.status = "cancelled";
                        break;
                    }
                    report.extraction.chunks += 1;
                    let facts = match self.extract(llm, &chunk, &mut report.usage).await {
                        Ok(facts) => facts,
                        // A host that interrupts its model on a cancel
                        // fails the call: that is the cancel.
                        Err(_) if cancelled() => {
                            report.extraction.status = "cancelled";
                            break;
                        }
                        Err(e) => {
                            report.extraction.status = "failed";
                            report.extraction.reason = Some(format!(
                                "{} (the log from {} {} on stays unread for the next curation)",
                                e.message(),
                                chunk[0].record.date,
                                chunk[0].record.time
                            ));
                            break;
                        }
                    };
                    report.facts_extracted += facts.len();
                    for fact in facts {
                        // A cancel leaves the chunk unread: the facts
                        // written so far are duplicates next time.
                        if cancelled() {
                            report.extraction.status = "cancelled";
                            break;
                        }
                        let done = self
                            .place(
                                fact,
                                llm,
                                dry_run,
                                &mut comparer,
                                &mut virtual_adds,
                                &mut report,
                            )
                            .await;
                        report.facts.push(done);
                    }
                    if report.extraction.status == "cancelled" {
                        break;
                    }
                    if !dry_run {
                        // After the chunk's writes: a crash before this
                        // re-reads the chunk (its facts are then duplicates).
                        if k + 1 == n {
                            position.date = end.0.clone();
                            position.records = end.1;
                        } else if let Some(last) = chunk.last() {
                            position.date = Some(last.record.date.clone());
                            position.records = last.index + 1;
                        }
                        self.save_position(&position).await?;
                    }
                }
            }
        }
        report.similarity = comparer.similarity;
        report.embedder_error = comparer.embedder_error;

        // 4. Consolidate, 5. prune.
        if !cancelled() {
            self.consolidate(dry_run, &mut report).await?;
        }
        if !cancelled() {
            self.prune(dry_run, &mut report).await?;
        }

        // The retention, the position and the curation's own log line.
        if !dry_run {
            report.expired_logs = self.expire_logs().await?;
            self.save_access().await?;
            position.last_run = Some(self.storage.now_ms());
            self.save_position(&position).await?;
            let summary = format!(
                "extracted {}, added {}, updated {}, pruned {}, staged {}, refused {}; extraction {}",
                report.facts_extracted,
                report.facts_added,
                report.memories_updated,
                report.memories_pruned,
                report.staged.len(),
                report.refused,
                report.extraction.status
            );
            let record = crate::activity::Record::new(
                self.storage.now_ms(),
                self.agent.as_deref(),
                "curation",
                &summary,
            );
            self.append_log(&[record]).await?;
        }
        report.cost_usd = report.usage.cost_usd.unwrap_or(0.0);
        let live: usize = Target::ALL
            .iter()
            .map(|&t| self.stores[t.index()].entries().len())
            .sum();
        report.existing_memories = if dry_run {
            // Every would-be write is in `virtual_adds`; a supersede also
            // takes an entry out.
            (live + virtual_adds.len())
                .saturating_sub(report.memories_updated + report.pruned.len() + report.merged)
        } else {
            live
        };
        self.end_turn();
        Ok(report)
    }

    /// Ends the agent's run: counts pending accesses and, when
    /// `curation.auto` is `on_stop`, curates with `llm` (the report; none
    /// when curation is manual).
    pub async fn stop(&mut self, llm: Option<&dyn Llm>) -> Result<Option<Report>> {
        self.save_access().await?;
        if self.config.curation.auto != crate::config::CurationAuto::OnStop {
            return Ok(None);
        }
        Ok(Some(self.curate(llm, false, &|| false).await?))
    }

    /// The curation position, as stored.
    pub async fn curation_position(&self) -> Result<Position> {
        Ok(Position::parse(
            self.storage.read(curate::POSITION_BLOB).await?.as_deref(),
        ))
    }

    /// The activity records after `position` (notes and turns), and the
    /// end of the log (its last day and that day's record count).
    async fn unread_log(
        &self,
        position: &Position,
    ) -> Result<(Vec<Line>, (Option<String>, usize))> {
        let mut lines = Vec::new();
        let mut end = (position.date.clone(), position.records);
        for day in self.log_days().await? {
            let skip = position.read_of(&day);
            if skip == usize::MAX {
                continue;
            }
            let records = self.read_log(Some(&day)).await?;
            end = (Some(day.clone()), records.len().max(skip));
            for (index, record) in records.into_iter().enumerate().skip(skip) {
                if curate::is_activity(&record) && !record.text.trim().is_empty() {
                    lines.push(Line { record, index });
                }
            }
        }
        Ok((lines, end))
    }

    async fn save_position(&mut self, position: &Position) -> Result<()> {
        self.lock().await?;
        let written = self
            .storage
            .write(curate::POSITION_BLOB, &position.to_bytes())
            .await;
        let unlocked = self.storage.unlock().await;
        written?;
        unlocked
    }

    /// Asks `llm` for the facts of one chunk.
    async fn extract(&self, llm: &dyn Llm, chunk: &[Line], usage: &mut Usage) -> Result<Vec<Fact>> {
        let mut stored = String::new();
        for (t, i) in self.clean_entries() {
            let entry = &self.stores[t.index()].entries()[i];
            stored.push_str(&format!("- [{}] {}\n", t.name(), entry.replace('\n', " ")));
        }
        if stored.is_empty() {
            stored.push_str("(empty)\n");
        }
        let request = Request {
            messages: vec![
                serde_json::json!({"role": "system", "content": curate::EXTRACT_PROMPT}),
                serde_json::json!({"role": "user", "content": format!(
                    "ALREADY IN MEMORY\n{stored}\nACTIVITY LOG\n{}",
                    curate::render_lines(chunk)
                )}),
            ],
            tools: Vec::new(),
        };
        let text = ask(llm, &request, usage).await?;
        curate::parse_facts(&text, chunk)
    }

    /// The best similarity of `content` among the clean entries of
    /// `target` (and a dry run's would-be entries): the score and the
    /// entry's index (none for a would-be entry).
    async fn most_similar(
        &mut self,
        target: Target,
        content: &str,
        comparer: &mut Comparer,
        virtual_adds: &[(Target, String)],
    ) -> (f64, Option<usize>, String) {
        let mut best = (0.0, None, String::new());
        let vector = if comparer.similarity == Similarity::Cosine {
            match self.query_vector(content).await {
                Some(Ok(v)) => Some::<Vec<f32>>(v),
                Some(Err(e)) => {
                    comparer.similarity = Similarity::Lexical;
                    comparer.embedder_error = Some(e);
                    None
                }
                None => {
                    comparer.similarity = Similarity::Lexical;
                    None
                }
            }
        } else {
            None
        };
        let store = &self.stores[target.index()];
        let folded = content.trim().to_lowercase();
        for (i, entry) in store.entries().iter().enumerate() {
            if store.verdict(i).is_some() {
                continue;
            }
            let score = if entry.trim().to_lowercase() == folded {
                1.0
            } else {
                match (&vector, store.key(i).and_then(|k| self.vectors.get(k))) {
                    (Some(v), Some(e)) => crate::vectors::cosine(v, e),
                    _ => curate::dice(&self.analyzer, content, entry),
                }
            };
            if score > best.0 {
                best = (score, Some(i), entry.clone());
            }
        }
        for (t, text) in virtual_adds {
            if *t == target {
                let score = curate::dice(&self.analyzer, content, text);
                if score > best.0 {
                    best = (score, None, text.clone());
                }
            }
        }
        best
    }

    /// Classifies one fact and stores it (or says what would be done).
    async fn place(
        &mut self,
        fact: Fact,
        llm: &dyn Llm,
        dry_run: bool,
        comparer: &mut Comparer,
        virtual_adds: &mut Vec<(Target, String)>,
        report: &mut Report,
    ) -> FactReport {
        let t = fact.target;
        let (similarity, index, existing) = self
            .most_similar(t, &fact.content, comparer, virtual_adds)
            .await;
        let similarity = crate::meta::round(similarity);
        let done = |outcome| FactReport {
            fact: fact.clone(),
            similarity,
            outcome,
        };
        let op = |action: Action, old: Option<&str>| {
            Operation::new(action, t, Some(&fact.content), old, "").map(|mut op| {
                op.importance = Some(fact.importance);
                op.category = fact.category;
                op
            })
        };
        let (operation, planned) = match classify(similarity) {
            Class::Duplicate => {
                if let (false, Some(i)) = (dry_run, index) {
                    self.note_access(std::iter::once((t, i)));
                }
                return done(Outcome::Duplicate { existing });
            }
            Class::Gray => {
                let decision = self
                    .resolve(llm, &existing, &fact.content, &mut report.usage)
                    .await;
                match (decision, index) {
                    (Ok(Decision::Supersede), Some(_)) => (
                        op(Action::Replace, Some(&existing)),
                        Outcome::Superseded {
                            existing: existing.clone(),
                        },
                    ),
                    (Ok(Decision::Supersede), None) | (Ok(Decision::KeepBoth), _) => (
                        op(Action::Add, None),
                        Outcome::KeptBoth {
                            existing: existing.clone(),
                            reason: None,
                        },
                    ),
                    (Err(e), _) => (
                        op(Action::Add, None),
                        Outcome::KeptBoth {
                            existing: existing.clone(),
                            reason: Some(format!("{}; both are kept", e.message())),
                        },
                    ),
                }
            }
            Class::New => (op(Action::Add, None), Outcome::Added),
        };
        let operation = match operation {
            Ok(operation) => operation,
            Err(e) => {
                report.refused += 1;
                return done(Outcome::Refused {
                    code: e.kind().code().to_string(),
                    error: e.message().to_string(),
                });
            }
        };
        if dry_run {
            count(&planned, report);
            if let Outcome::Superseded { existing } = &planned {
                virtual_adds.retain(|(vt, text)| !(*vt == t && text == existing));
            }
            virtual_adds.push((t, fact.content.clone()));
            return done(planned);
        }
        let call = ToolCall {
            operations: vec![operation],
            batch: false,
        };
        let (result, effects, staged) = self
            .run_effects(ToolRequest::Write(call), Origin::Curation, false)
            .await;
        self.end_turn();
        let outcome = if !result.success {
            report.refused += 1;
            Outcome::Refused {
                code: result.code.map_or("internal", |c| c.code()).to_string(),
                error: result.error.unwrap_or_default(),
            }
        } else if let Some(pending_id) = staged {
            if !report.staged.contains(&pending_id) {
                report.staged.push(pending_id.clone());
            }
            Outcome::Staged { pending_id }
        } else if effects.is_empty() {
            Outcome::Duplicate { existing }
        } else {
            count(&planned, report);
            planned
        };
        done(outcome)
    }

    /// The gray-zone call: does `fact` supersede `old`?
    async fn resolve(
        &self,
        llm: &dyn Llm,
        old: &str,
        fact: &str,
        usage: &mut Usage,
    ) -> Result<Decision> {
        let request = Request {
            messages: vec![
                serde_json::json!({"role": "system", "content": curate::RESOLVE_PROMPT}),
                serde_json::json!({"role": "user", "content": format!(
                    "OLD MEMORY\n{old}\n\nNEW FACT\n{fact}"
                )}),
            ],
            tools: Vec::new(),
        };
        let text = ask(llm, &request, usage).await?;
        curate::parse_decision(&text)
    }

    /// Step 4: each enabled, writable store grouped by category with exact
    /// duplicates merged, in one atomic write with a backup. Applied even
    /// under write approval: no text is added or changed, and a merged
    /// copy is identical to the entry that stays (and is in the history).
    async fn consolidate(&mut self, dry_run: bool, report: &mut Report) -> Result<()> {
        let plan = |m: &Self| {
            let mut plan = Vec::new();
            for t in Target::ALL {
                let store = &m.stores[t.index()];
                if !m.config.enabled(t) || matches!(store.state(), FileState::Damaged(_)) {
                    continue;
                }
                let categories: Vec<_> = (0..store.entries().len())
                    .map(|i| m.sidecar.records(t).get(i).and_then(|r| r.category))
                    .collect();
                let order = curate::consolidated(store.entries(), &categories);
                if order.iter().copied().ne(0..store.entries().len()) {
                    plan.push((t, order));
                }
            }
            plan
        };
        if dry_run {
            for (t, order) in plan(self) {
                report.consolidated.push(t);
                report.merged += self.stores[t.index()].entries().len() - order.len();
            }
            return Ok(());
        }
        let (consolidated, merged) = self
            .locked(async |m: &mut Self| {
                let plan = plan(m);
                if plan.is_empty() {
                    return Ok((Vec::new(), 0));
                }
                let mut work = m.stores.clone();
                let mut merged = 0;
                let mut state = m.sidecar.clone();
                for (t, order) in &plan {
                    let i = t.index();
                    let entries = m.stores[i].entries();
                    merged += entries.len() - order.len();
                    // A merged copy's metadata joins the entry that stays.
                    let records = state.records(*t).to_vec();
                    for &keep in order {
                        for (j, entry) in entries.iter().enumerate() {
                            if j == keep || *entry != entries[keep] {
                                continue;
                            }
                            let (Some(a), Some(b)) = (records.get(keep), records.get(j)) else {
                                continue;
                            };
                            if let Some(r) = state.record_mut(*t, keep) {
                                r.pinned |= b.pinned;
                                r.confirmed |= b.confirmed;
                                r.access_count = a.access_count.saturating_add(b.access_count);
                                r.importance = match (a.importance, b.importance) {
                                    (Some(x), Some(y)) => Some(x.max(y)),
                                    (x, y) => x.or(y),
                                };
                                r.category = a.category.or(b.category);
                            }
                        }
                    }
                    let new: Vec<String> = order.iter().map(|&k| entries[k].clone()).collect();
                    let cache = m.sidecar.scan.clone().unwrap_or_default();
                    work[i] = Store::screened(new, &cache);
                }
                let before = std::mem::replace(&mut m.sidecar, state);
                let targets: Vec<Target> = plan.iter().map(|(t, _)| *t).collect();
                let done = m
                    .commit(work, &targets, How::Consolidation, Vec::new(), &[])
                    .await;
                if done.is_err() {
                    m.sidecar = before;
                }
                done?;
                Ok((targets, merged))
            })
            .await?;
        report.consolidated = consolidated;
        report.merged = merged;
        Ok(())
    }

    /// Step 5: the entries the rules prune, removed in one batch (staged
    /// under write approval) into the history.
    async fn prune(&mut self, dry_run: bool, report: &mut Report) -> Result<()> {
        self.refresh().await?;
        let now = self.storage.now_ms();
        let mut chosen: Vec<(Target, usize, Pruned)> = Vec::new();
        for (t, i) in self.clean_entries() {
            let Some(record) = self.sidecar.records(t).get(i).cloned() else {
                continue;
            };
            // Accesses not yet counted in the sidecar count too.
            let pending = self
                .access
                .iter()
                .filter(|(at, id, _)| *at == t && *id == record.id)
                .count() as u64;
            let aging = curate::Aging {
                pinned: self.pinned(t, i),
                importance: record.importance(),
                access_count: record.access_count + pending,
                last_changed: record.last_changed.max(record.first_seen),
            };
            if let Some(reason) = curate::prune_reason(&aging, now) {
                let text = self.stores[t.index()].entries()[i].clone();
                chosen.push((
                    t,
                    i,
                    Pruned {
                        target: t,
                        entry_id: record.id.clone(),
                        text,
                        reason,
                    },
                ));
            }
        }
        if chosen.is_empty() {
            return Ok(());
        }
        if dry_run {
            report.memories_pruned = chosen.len();
            report.pruned = chosen.into_iter().map(|c| c.2).collect();
            return Ok(());
        }
        let operations: Vec<Operation> = chosen
            .iter()
            .map(|(t, i, p)| Operation {
                action: Action::Remove,
                target: *t,
                content: None,
                old_text: Some(p.text.clone()),
                index: Some(*i),
                importance: None,
                category: None,
            })
            .collect();
        let batch = operations.len() > 1;
        let (result, _, staged) = self
            .run_effects(
                ToolRequest::Write(ToolCall { operations, batch }),
                Origin::Curation,
                false,
            )
            .await;
        self.end_turn();
        if !result.success {
            report.errors.push(format!(
                "pruning was refused: {}",
                result.error.unwrap_or_default()
            ));
            return Ok(());
        }
        match staged {
            Some(id) => report.staged.push(id),
            None => report.memories_pruned = chosen.len(),
        }
        report.pruned = chosen.into_iter().map(|c| c.2).collect();
        Ok(())
    }
}

/// Counts a write's outcome into the metrics.
fn count(outcome: &Outcome, report: &mut Report) {
    match outcome {
        Outcome::Added | Outcome::KeptBoth { .. } => report.facts_added += 1,
        Outcome::Superseded { .. } => report.memories_updated += 1,
        _ => {}
    }
}

/// One model call: its text (usage counted), or why there is none.
async fn ask(llm: &dyn Llm, request: &Request, usage: &mut Usage) -> Result<String> {
    usage.calls += 1;
    let reply = Reply::from_json(&llm.complete(request).await?)?;
    if let Some((input, output, cost)) = reply.usage {
        usage.input_tokens += input;
        usage.output_tokens += output;
        if let Some(cost) = cost {
            *usage.cost_usd.get_or_insert(0.0) += cost;
        }
    }
    reply.content.ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidInput,
            "the host's llm answered without content",
        )
    })
}
