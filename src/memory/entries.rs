//! Entry metadata on a [`Memory`]: recall with importance and decay, the
//! plugin's operations (`update_memory`, `mark_important`, `pin`, `forget`),
//! automatic injection, and lazily counted accesses (see [`crate::meta`]).

use serde::Serialize;

use super::*;
use crate::api::RecallOptions;
use crate::meta::{Category, Explain};
use crate::tool::{Action, Operation};

/// One recall result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecallHit {
    /// The entry's node id: `memory:<store>:<entry id>`.
    pub id: String,
    /// Its store.
    pub target: Target,
    /// Its index in the store.
    pub index: usize,
    /// Its text, whole.
    pub content: String,
    /// The adjusted score, 0 to about 1.1.
    pub relevance: f64,
    /// Its importance.
    pub importance: f64,
    /// Its category (`general` when none).
    pub category: &'static str,
    /// When it was first seen, ms since the Unix epoch.
    pub created: u64,
    /// Whether it is pinned (`#pinned` or the API).
    pub pinned: bool,
    /// Every part of the score, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
}

/// What `recall` found, and how.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recalled {
    /// The results, best first.
    pub results: Vec<RecallHit>,
    /// `hybrid` (the host's embedder took part) or `keyword`.
    pub mode: &'static str,
    /// Why the hybrid could not run this time (recall fell back to
    /// keywords), when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// What a metadata change did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Marked {
    /// Node ids of the entries changed.
    pub entries: Vec<String>,
    /// A sentence saying so.
    pub message: String,
}

fn category_name(c: Option<Category>) -> &'static str {
    c.map_or("general", Category::name)
}

impl<S: Storage> Memory<S> {
    /// Remembers that search, context, recall or inject returned these
    /// entries; counted in the sidecar with the next write or session
    /// start.
    pub(crate) fn note_access(&mut self, hits: impl Iterator<Item = (Target, usize)>) {
        let now = self.storage.now_ms();
        for (target, index) in hits {
            if let Some(record) = self.sidecar.records(target).get(index) {
                self.access.push((target, record.id.clone(), now));
            }
        }
    }

    /// Counts the pending accesses into `state`; whether it changed.
    pub(crate) fn flush_access(&mut self, state: &mut Sidecar) -> bool {
        let mut changed = false;
        for (target, id, time) in std::mem::take(&mut self.access) {
            let Some(i) = state.records(target).iter().position(|r| r.id == id) else {
                continue;
            };
            if let Some(record) = state.record_mut(target, i) {
                record.access_count = record.access_count.saturating_add(1);
                record.last_access = Some(record.last_access.unwrap_or(0).max(time));
                changed = true;
            }
        }
        changed
    }

    /// Writes the pending accesses now (at session start).
    pub(crate) async fn save_access(&mut self) -> Result<()> {
        if self.access.is_empty() {
            return Ok(());
        }
        self.with_sidecar(|m, state| Ok(m.flush_access(state)))
            .await
    }

    /// Changes the sidecar under the lock on fresh state with `f` (which
    /// says whether it changed anything) and writes it.
    async fn with_sidecar(
        &mut self,
        f: impl FnOnce(&mut Self, &mut Sidecar) -> Result<bool>,
    ) -> Result<()> {
        self.lock().await?;
        let result = async {
            self.refresh_unlocked().await?;
            let mut state = self.sidecar.clone();
            if f(self, &mut state)? {
                let bytes = state.to_bytes();
                self.storage.write(sidecar::BLOB, &bytes).await?;
                self.sidecar = state;
                self.sidecar_raw = Some(bytes);
                self.graph = None;
            }
            Ok(())
        }
        .await;
        let unlocked = self.storage.unlock().await;
        result?;
        unlocked
    }

    /// The entries of the enabled stores that the scanner passes, as
    /// (store, index), in store order.
    pub(crate) fn clean_entries(&self) -> Vec<(Target, usize)> {
        Target::ALL
            .into_iter()
            .filter(|&t| self.config.enabled(t))
            .flat_map(|t| {
                let store = &self.stores[t.index()];
                (0..store.entries().len())
                    .filter(|&i| store.verdict(i).is_none())
                    .map(move |i| (t, i))
            })
            .collect()
    }

    /// Whether entry `index` of `target` is pinned (`#pinned` in its text
    /// or the API's pin).
    pub fn pinned(&mut self, target: Target, index: usize) -> bool {
        let api = self
            .sidecar
            .records(target)
            .get(index)
            .is_some_and(|r| r.pinned);
        api || {
            let graph = self.graph();
            graph
                .node(target, index)
                .is_some_and(|n| graph.nodes[n].pinned)
        }
    }

    /// The entries `query` selects, as `old_text` does: every entry (of
    /// `target`, or both stores) containing it; an entry equal to it wins.
    fn select(&self, query: &str, target: Option<Target>) -> Result<Vec<(Target, usize)>> {
        let query = crate::store::clean_old_text(query)?;
        let mut found = Vec::new();
        for t in Target::ALL {
            if target.is_some_and(|only| only != t) || !self.config.enabled(t) {
                continue;
            }
            for (i, entry) in self.stores[t.index()].entries().iter().enumerate() {
                if entry == query {
                    return Ok(vec![(t, i)]);
                }
                if entry.contains(query) {
                    found.push((t, i));
                }
            }
        }
        Ok(found)
    }

    /// The one entry `query` selects, or an error listing the candidates.
    fn select_one(
        &self,
        query: &str,
        target: Option<Target>,
        all: bool,
    ) -> Result<Vec<(Target, usize)>> {
        let found = self.select(query, target)?;
        let shown: String = query.chars().take(60).collect();
        match found.len() {
            0 => Err(Error::new(
                ErrorKind::NoMatch,
                format!(
                    "no entry contains {shown:?}; the query must be a substring of an entry \
                     (search finds entries by meaning)"
                ),
            )),
            1 => Ok(found),
            n if all => {
                let _ = n;
                Ok(found)
            }
            n => {
                let candidates: Vec<String> = found
                    .iter()
                    .take(10)
                    .map(|&(t, i)| {
                        format!(
                            "{} '{}'",
                            self.sidecar.node_id(t, i),
                            crate::store::preview(&self.stores[t.index()].shown(t, i))
                        )
                    })
                    .collect();
                Err(Error::new(
                    ErrorKind::AmbiguousMatch,
                    format!(
                        "{shown:?} is in {n} entries; use a longer substring of one (or all: true \
                         where it is accepted). Candidates: {}",
                        candidates.join("; ")
                    ),
                ))
            }
        }
    }

    /// Lends the memory a host's embedding model (or takes it back with
    /// `None`): recall and inject then rank by the hybrid of
    /// [`crate::vectors`]. Vectors of entries are kept in the memory's
    /// database by (model, text hash) and computed for new or changed
    /// entries only.
    pub fn set_embedder(&mut self, embedder: Option<Box<dyn crate::host::Embedder>>) -> Result<()> {
        self.replace_embedder(embedder).map(drop)
    }

    /// [`Memory::set_embedder`], handing back the embedder it replaces: a
    /// host that lends another for one call (`curate({embedder})`) puts it
    /// back afterwards. Nothing changes when `embedder` is refused.
    pub fn replace_embedder(
        &mut self,
        embedder: Option<Box<dyn crate::host::Embedder>>,
    ) -> Result<Option<Box<dyn crate::host::Embedder>>> {
        if let Some(e) = &embedder {
            if e.model().trim().is_empty() || e.dimensions() == 0 || e.dimensions() > 65_536 {
                return Err(Error::input(
                    "an embedder needs a model name and dimensions from 1 to 65536",
                ));
            }
        }
        self.vectors.clear();
        let previous = std::mem::replace(&mut self.embedder, embedder.map(HostEmbedder));
        Ok(previous.map(|HostEmbedder(e)| e))
    }

    /// Makes sure every clean entry has a vector: from memory, the
    /// database, or the embedder (new or changed texts only), and drops
    /// the vectors of entries that are gone.
    pub(crate) async fn ensure_vectors(&mut self) -> std::result::Result<(), String> {
        let Some(HostEmbedder(embedder)) = &self.embedder else {
            return Err("no embedder".into());
        };
        // The common case, every clean entry has its vector and nothing is
        // gone, costs one lookup per entry and no copy.
        let mut clean = 0usize;
        let mut missing: Vec<(crate::store::Key, String)> = Vec::new();
        for t in Target::ALL {
            let store = &self.stores[t.index()];
            for (i, entry) in store.entries().iter().enumerate() {
                if let (None, Some(key)) = (store.verdict(i), store.key(i)) {
                    clean += 1;
                    if !self.vectors.contains_key(key) {
                        missing.push((*key, entry.clone()));
                    }
                }
            }
        }
        crate::order::sort_by_key(&mut missing, |m| m.0);
        missing.dedup_by(|a, b| a.0 == b.0);
        let present = self.vectors.len();
        if missing.is_empty() && present <= clean {
            return Ok(());
        }
        let live: Vec<crate::store::Key> = Target::ALL
            .iter()
            .flat_map(|&t| {
                let store = &self.stores[t.index()];
                (0..store.entries().len())
                    .filter(|&i| store.verdict(i).is_none())
                    .filter_map(move |i| store.key(i).copied())
            })
            .collect();
        let live_keys: std::collections::HashSet<crate::store::Key> =
            live.iter().copied().collect();
        self.vectors.retain(|k, _| live_keys.contains(k));
        let dropped = self.vectors.len() != present;
        let model = embedder.model().to_string();
        let dims = embedder.dimensions();
        #[cfg(feature = "sqlite")]
        if !missing.is_empty() {
            let keys: Vec<String> = missing.iter().map(|(k, _)| k.hex()).collect();
            if let Ok(found) = self
                .storage
                .database(false, |conn| crate::db::load_vectors(conn, &model, &keys))
                .await
            {
                for (hex, v) in found {
                    if let (Some(k), true) = (crate::store::Key::from_hex(&hex), v.len() == dims) {
                        self.vectors.insert(k, v);
                    }
                }
                missing.retain(|(k, _)| !self.vectors.contains_key(k));
            }
        }
        let mut new: Vec<(crate::store::Key, Vec<f32>)> = Vec::new();
        for chunk in missing.chunks(crate::vectors::BATCH) {
            let texts: Vec<String> = chunk.iter().map(|(_, t)| t.clone()).collect();
            let answer = embedder
                .embed(&texts)
                .await
                .map_err(|e| format!("the host's embedder failed ({})", e.message()))?;
            crate::vectors::check(&answer, texts.len(), dims)?;
            for ((k, _), v) in chunk.iter().zip(answer) {
                new.push((*k, v));
            }
        }
        for (k, v) in &new {
            self.vectors.insert(*k, v.clone());
        }
        #[cfg(feature = "sqlite")]
        if !new.is_empty() || dropped {
            let keys: Vec<String> = live.iter().map(|k| k.hex()).collect();
            let new: Vec<(String, Vec<f32>)> = new.into_iter().map(|(k, v)| (k.hex(), v)).collect();
            // A storage without a database keeps the vectors in memory only.
            let _ = self
                .storage
                .database(true, |conn| {
                    crate::db::store_vectors(conn, &model, &new, &keys)
                })
                .await;
        }
        #[cfg(not(feature = "sqlite"))]
        let _ = (dropped, model);
        Ok(())
    }

    /// The query's vector and the entries' (see [`Memory::ensure_vectors`]),
    /// or why the hybrid cannot run.
    pub(crate) async fn query_vector(
        &mut self,
        query: &str,
    ) -> Option<std::result::Result<Vec<f32>, String>> {
        self.embedder.as_ref()?;
        Some(
            async {
                self.ensure_vectors().await?;
                let Some(HostEmbedder(embedder)) = &self.embedder else {
                    return Err("no embedder".to_string());
                };
                let texts = [query.to_string()];
                let answer = embedder
                    .embed(&texts)
                    .await
                    .map_err(|e| format!("the host's embedder failed ({})", e.message()))?;
                crate::vectors::check(&answer, 1, embedder.dimensions())?;
                Ok(answer.into_iter().next().unwrap_or_default())
            }
            .await,
        )
    }

    /// The entries most relevant to `query` by the adjusted score (see
    /// [`crate::meta`]; hybrid with the host's embedder, see
    /// [`crate::vectors`]), best first, whatever the stores' modes;
    /// blocked entries never appear. An embedder that fails makes this
    /// recall keyword-only, and the answer says why.
    pub async fn recall(&mut self, query: &str, options: &RecallOptions) -> Result<Recalled> {
        let recalled = self.ranked(query, options).await?;
        self.note_access(recalled.results.iter().map(|h| (h.target, h.index)));
        Ok(recalled)
    }

    /// [`Memory::recall`] without counting its results as accessed: for
    /// callers that keep only some of them (hybrid search and context) and
    /// count what they return.
    pub(crate) async fn ranked(
        &mut self,
        query: &str,
        options: &RecallOptions,
    ) -> Result<Recalled> {
        options.check()?;
        if query.trim().is_empty() {
            return Err(Error::new(
                ErrorKind::Empty,
                "query is empty; recall needs the words to look for",
            ));
        }
        let (semantic, skipped) = match self.query_vector(query).await {
            None => (None, None),
            Some(Ok(v)) => (Some(v), None),
            Some(Err(why)) => (
                None,
                Some(format!("{why}; this recall ranked by keywords only")),
            ),
        };
        let filtered = options.category.is_some()
            || options.min_importance > 0.0
            || options.max_importance < 1.0
            || options.score_threshold > 0.0
            || semantic.is_some();
        let vectors = std::mem::take(&mut self.vectors);
        let view = self.view();
        let mut scored: Vec<(Target, usize, Explain)> = Vec::new();
        for t in Target::ALL {
            if options.target.is_some_and(|only| only != t) || !view.config.enabled(t) {
                continue;
            }
            let index = view.indexes[t.index()];
            let pool = if filtered {
                index.len()
            } else {
                options.limit.saturating_mul(4).saturating_add(16)
            };
            let keyword: std::collections::HashMap<usize, f32> = index
                .search(view.analyzer, query, pool)
                .into_iter()
                .map(|h| (h.doc, h.score))
                .collect();
            let candidates: Vec<usize> = match &semantic {
                Some(_) => (0..view.stores[t.index()].entries().len()).collect(),
                None => {
                    let mut docs: Vec<usize> = keyword.keys().copied().collect();
                    crate::order::sort(&mut docs);
                    docs
                }
            };
            for doc in candidates {
                if view.stores[t.index()].verdict(doc).is_some() {
                    continue;
                }
                let record = view.sidecar.records(t).get(doc);
                let importance = record.map_or(crate::meta::DEFAULT_IMPORTANCE, |r| r.importance());
                let category = record.and_then(|r| r.category);
                if importance < options.min_importance
                    || importance > options.max_importance
                    || options.category.is_some_and(|c| c != category)
                {
                    continue;
                }
                let bm25 = keyword.get(&doc).copied().map_or(0.0, f64::from);
                let mut explain = view.score(t, doc, bm25);
                if let Some(q) = &semantic {
                    let entry = &view.stores[t.index()].entries()[doc];
                    let Some(v) = view.stores[t.index()].key(doc).and_then(|k| vectors.get(k))
                    else {
                        continue;
                    };
                    let cos = crate::vectors::cosine(q, v);
                    let relevance = crate::vectors::hybrid(
                        &view.config.memory.recall.hybrid,
                        cos,
                        explain.keyword,
                        view.config.memory.recall.hybrid.bonuses
                            && crate::vectors::verbatim(query, entry),
                    );
                    explain.semantic = Some(crate::meta::round(cos));
                    explain.relevance = crate::meta::round(relevance);
                    explain.adjusted =
                        crate::meta::round((relevance + explain.boost).max(0.0) * explain.decay);
                } else if bm25 <= 0.0 {
                    continue;
                }
                if options.score_threshold > 0.0 && explain.adjusted < options.score_threshold {
                    continue;
                }
                scored.push((t, doc, explain));
            }
        }
        let order = |a: &(Target, usize, Explain), b: &(Target, usize, Explain)| {
            b.2.adjusted
                .total_cmp(&a.2.adjusted)
                .then(a.0.cmp(&b.0))
                .then(a.1.cmp(&b.1))
        };
        // The best `limit` first in linear time, then only they are sorted
        // (a hybrid recall scores every entry).
        if scored.len() > options.limit {
            scored.select_nth_unstable_by(options.limit, order);
            scored.truncate(options.limit);
        }
        crate::order::sort_by(&mut scored, order);
        let hits: Vec<RecallHit> = scored
            .into_iter()
            .map(|(t, i, explain)| {
                let record = view.sidecar.records(t).get(i);
                RecallHit {
                    id: view.sidecar.node_id(t, i),
                    target: t,
                    index: i,
                    content: view.stores[t.index()].entries()[i].clone(),
                    relevance: explain.adjusted,
                    importance: record.map_or(crate::meta::DEFAULT_IMPORTANCE, |r| r.importance()),
                    category: category_name(record.and_then(|r| r.category)),
                    created: record.map_or(0, |r| r.first_seen),
                    pinned: explain.pinned,
                    explain: options.explain.then_some(explain),
                }
            })
            .collect();
        self.vectors = vectors;
        Ok(Recalled {
            results: hits,
            mode: if semantic.is_some() {
                "hybrid"
            } else {
                "keyword"
            },
            skipped,
        })
    }

    /// The spec's automatic injection for a user's `prompt`: a `## Relevant
    /// Memory` block of `- [category] text (importance: 0.9)` lines, the
    /// best `top_k` entries by the adjusted score, or, when nothing
    /// matches (a generic prompt), the most important ones. Blocked entries
    /// never appear; the block is capped at `max_chars`. `""` for an empty
    /// memory.
    pub async fn inject(&mut self, prompt: &str) -> String {
        let top_k = self.config.memory.recall.top_k;
        let max_chars = self.config.memory.recall.max_chars;
        let options = RecallOptions {
            limit: top_k,
            ..RecallOptions::default()
        };
        let mut picked: Vec<(Target, usize)> = if prompt.trim().is_empty() {
            Vec::new()
        } else {
            self.recall(prompt, &options)
                .await
                .map(|r| r.results.into_iter().map(|h| (h.target, h.index)).collect())
                .unwrap_or_default()
        };
        if picked.is_empty() {
            let mut all: Vec<(Target, usize, f64, u64)> = Vec::new();
            for (t, i) in self.clean_entries() {
                let pinned = self.pinned(t, i);
                let record = self.sidecar.records(t).get(i);
                let importance = if pinned {
                    1.0
                } else {
                    record.map_or(crate::meta::DEFAULT_IMPORTANCE, |r| r.importance())
                };
                all.push((t, i, importance, record.map_or(0, |r| r.last_changed)));
            }
            crate::order::sort_by(&mut all, |a, b| b.2.total_cmp(&a.2).then(b.3.cmp(&a.3)));
            picked = all
                .into_iter()
                .take(top_k)
                .map(|(t, i, _, _)| (t, i))
                .collect();
            self.note_access(picked.iter().copied());
        }
        let lines: Vec<String> = picked
            .iter()
            .map(|&(t, i)| {
                let record = self.sidecar.records(t).get(i);
                let one_line = self.stores[t.index()].entries()[i]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                format!(
                    "- [{}] {one_line} (importance: {:.1})",
                    category_name(record.and_then(|r| r.category)),
                    record.map_or(crate::meta::DEFAULT_IMPORTANCE, |r| r.importance())
                )
            })
            .collect();
        let kept = crate::recall::cap(lines.iter().map(String::as_str), max_chars);
        if kept.is_empty() {
            return String::new();
        }
        let mut out = String::from("## Relevant Memory\n");
        out.push_str(&kept.join("\n"));
        out
    }

    /// Sets the importance of the entry `query` selects (every entry
    /// containing it with `all`). Metadata only: applies at once, even
    /// under write approval.
    pub async fn mark_important(
        &mut self,
        query: &str,
        importance: f64,
        all: bool,
        target: Option<Target>,
    ) -> Result<Marked> {
        let importance = crate::meta::importance("importance", importance)?;
        self.mark(query, target, all, move |r| {
            r.importance = Some(importance);
        })
        .await
        .map(|entries| Marked {
            message: format!(
                "importance {importance} set on {} entr{}",
                entries.len(),
                if entries.len() == 1 { "y" } else { "ies" }
            ),
            entries,
        })
    }

    /// Pins the entry `query` selects: maximum importance, exempt from decay
    /// and pruning. Metadata only: applies at once.
    pub async fn pin(&mut self, query: &str, target: Option<Target>) -> Result<Marked> {
        self.mark(query, target, false, |r| {
            r.pinned = true;
            r.importance = Some(1.0);
        })
        .await
        .map(|entries| Marked {
            message: "pinned".to_string(),
            entries,
        })
    }

    async fn mark(
        &mut self,
        query: &str,
        target: Option<Target>,
        all: bool,
        f: impl Fn(&mut crate::sidecar::Record),
    ) -> Result<Vec<String>> {
        let mut marked = Vec::new();
        self.with_sidecar(|m, state| {
            let chosen = m.select_one(query, target, all)?;
            for (t, i) in chosen {
                if let Some(record) = state.record_mut(t, i) {
                    let before = record.clone();
                    f(record);
                    if *record != before {
                        marked.push(format!("memory:{t}:{}", record.id));
                    }
                }
            }
            Ok(!marked.is_empty())
        })
        .await?;
        Ok(marked)
    }

    /// Removes the entry `query` selects (every entry containing it with
    /// `all`) into the history, as one atomic write (staged under write
    /// approval). Answers like the memory tool.
    pub async fn forget(&mut self, query: &str, all: bool, target: Option<Target>) -> ToolResult {
        if let Err(e) = self.refresh().await {
            return self.refuse(e);
        }
        let chosen = match self.select_one(query, target, all) {
            Ok(chosen) => chosen,
            Err(e) => return self.refuse(e),
        };
        let operations: Vec<Operation> = chosen
            .iter()
            .map(|&(t, i)| Operation {
                action: Action::Remove,
                target: t,
                content: None,
                old_text: Some(self.stores[t.index()].entries()[i].clone()),
                index: None,
                importance: None,
                category: None,
            })
            .collect();
        let batch = operations.len() > 1;
        self.run(ToolRequest::Write(ToolCall { operations, batch }))
            .await
    }

    /// Replaces the text of the entry `query` selects with `content`
    /// (optionally setting its importance); staged under write approval.
    /// Answers like the memory tool.
    pub async fn update_memory(
        &mut self,
        query: &str,
        content: &str,
        importance: Option<f64>,
        target: Option<Target>,
    ) -> ToolResult {
        if let Err(e) = self.refresh().await {
            return self.refuse(e);
        }
        let chosen = match self.select_one(query, target, false) {
            Ok(chosen) => chosen,
            Err(e) => return self.refuse(e),
        };
        let (t, i) = chosen[0];
        let op = Operation::new(
            Action::Replace,
            t,
            Some(content),
            Some(&self.stores[t.index()].entries()[i].clone()),
            "",
        )
        .and_then(|mut op| {
            op.importance = importance
                .map(|v| crate::meta::importance("importance", v))
                .transpose()?;
            Ok(op)
        });
        self.run_one(op).await
    }

    /// Puts the text of history item `id` back into its store, as a new
    /// entry with every check of a write (scanner, limits, duplicates;
    /// staged under write approval). The history keeps the item. Answers
    /// like the memory tool.
    pub async fn restore(&mut self, id: &str) -> ToolResult {
        let item = match self.read_history().await {
            Ok(history) => history.items.into_iter().find(|i| i.id == id.trim()),
            Err(e) => return self.refuse(e),
        };
        let Some(item) = item else {
            let shown: String = id.chars().take(40).collect();
            return self.refuse(Error::new(
                ErrorKind::NoMatch,
                format!("no history item {shown:?}; history() lists them with their ids"),
            ));
        };
        let op = Operation::new(Action::Add, item.target, Some(&item.text), None, "");
        self.run_one(op).await
    }

    /// Runs one operation as a tool write, or answers why it could not be
    /// built.
    async fn run_one(&mut self, op: Result<Operation>) -> ToolResult {
        match op {
            Ok(op) => {
                self.run(ToolRequest::Write(ToolCall {
                    operations: vec![op],
                    batch: false,
                }))
                .await
            }
            Err(e) => self.refuse(e),
        }
    }

    /// Removes history items for good: the one named `id`, or every item
    /// superseded before `before` (ms since the Unix epoch), or, with
    /// neither, all of them. How many were removed. (Privacy deletion
    /// without deleting the memory.)
    pub async fn purge_history(&mut self, before: Option<u64>, id: Option<&str>) -> Result<usize> {
        self.lock().await?;
        let result = async {
            let mut history = self.read_history().await?;
            let n = history.items.len();
            history.items.retain(|item| match (id, before) {
                (Some(id), _) => item.id != id.trim(),
                (None, Some(before)) => item.time >= before,
                (None, None) => false,
            });
            let removed = n - history.items.len();
            if let (Some(id), 0) = (id, removed) {
                let shown: String = id.chars().take(40).collect();
                return Err(Error::new(
                    ErrorKind::NoMatch,
                    format!("no history item {shown:?}"),
                ));
            }
            if removed > 0 {
                self.storage
                    .write(sidecar::HISTORY_BLOB, &history.to_bytes())
                    .await?;
            }
            Ok(removed)
        }
        .await;
        let unlocked = self.storage.unlock().await;
        let removed = result?;
        unlocked?;
        Ok(removed)
    }
}
