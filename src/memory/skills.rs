//! Skills on a [`Memory`]: reading, the `skill` tool, staged skill
//! writes, archive and restore, usage counts. The rules live in
//! [`crate::skills`]; this is where they meet storage.

use serde::Serialize;
use serde_json::{json, Value};

use super::Memory;
use crate::approval::{Origin, State, Which};
use crate::error::{Error, ErrorKind, Result};
use crate::graph::{Graph, SkillDoc, BLOCKED_TITLE};
use crate::skills::{
    self, Action, ArchivedSkill, FileChange, Listed, Meta, Plan, Queue, Request, Skill, Staged,
    Usage, WriteRequest, SKILL_FILE,
};
use crate::storage::{Change, Storage};

/// What approving staged skill writes did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkillsApproved {
    /// One line per applied write.
    pub applied: Vec<String>,
    /// Writes that no longer apply: kept as `needs_review`, with why.
    pub not_applied: Vec<(String, String)>,
}

/// The state of the skills kept on an open memory.
#[derive(Debug, Default)]
pub(crate) struct Skills {
    /// The skills as last read, sorted by category then name.
    pub list: Vec<Skill>,
    /// Usage and approvals.
    pub meta: Meta,
    /// Views through the tool not yet written (name, time).
    pub views: Vec<(String, u64)>,
    /// The graph of notes and skills (sectors, journey), when built.
    pub knowledge: Option<Graph>,
}

fn text_of(path: &str, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        Error::storage(format!(
            "{path} is not UTF-8 text (invalid byte at {}); skills are text files",
            e.utf8_error().valid_up_to()
        ))
    })
}

impl<S: Storage> Memory<S> {
    /// Reads the skills and their state from storage (the caller holds
    /// the lock or accepts a racing writer's half-made folder).
    pub(crate) async fn load_skills(&mut self) -> Result<()> {
        let names = self.storage.list_under(skills::DIR).await?;
        let mut meta = Meta::parse(self.storage.read(skills::META_BLOB).await?.as_deref());
        let before = meta.clone();
        if meta.rules != crate::scan::RULES_VERSION {
            // Verdicts of other rules are not these rules' verdicts.
            meta.rules = crate::scan::RULES_VERSION;
            meta.clean.clear();
        }
        let mut digests = std::collections::BTreeSet::new();
        let mut list = Vec::new();
        for ((category, name), files) in skills::folders(&names) {
            if !files.iter().any(|f| f == SKILL_FILE) {
                continue;
            }
            let path = format!("{}{SKILL_FILE}", skills::folder(&category, &name));
            let Some(bytes) = self.storage.read(&path).await? else {
                continue;
            };
            let others: Vec<String> = files.into_iter().filter(|f| f != SKILL_FILE).collect();
            list.push(match text_of(&path, bytes) {
                Ok(text) => {
                    let digest = skills::digest(&text);
                    let mut skill = read_skill(category, name, others, text);
                    if !meta.clean.contains(&digest) {
                        let blocked = crate::scan::scan(&skill.text).blocked;
                        if !blocked {
                            meta.clean.insert(digest.clone());
                        }
                        let vouched = meta
                            .skills
                            .get(&skill.name)
                            .and_then(|u| u.vouched.as_deref())
                            == Some(digest.as_str());
                        skill.blocked = blocked && !vouched;
                    }
                    digests.insert(digest);
                    skill
                }
                Err(e) => Skill {
                    name: name.clone(),
                    category,
                    description: String::new(),
                    tags: Vec::new(),
                    text: String::new(),
                    files: others,
                    problem: Some(e.message().to_string()),
                    blocked: false,
                },
            });
        }
        meta.clean.retain(|d| digests.contains(d));
        // A skill placed by hand is dated when mnemo first sees it.
        let now = self.storage.now_ms();
        for s in &list {
            meta.skills.entry(s.name.clone()).or_insert(Usage {
                created: now,
                changed: now,
                ..Usage::default()
            });
        }
        // A memory without skills gets no skills state: the rules' version
        // alone records nothing.
        let nothing = meta.skills.is_empty() && meta.clean.is_empty();
        if meta != before && !nothing {
            // Dates and verdicts are worth a write, not a failed read: a
            // storage that refuses it only dates and scans again next time.
            let _ = self
                .storage
                .write(skills::META_BLOB, &meta.to_bytes())
                .await;
        }
        self.skills.list = list;
        self.skills.meta = meta;
        self.skills.knowledge = None;
        Ok(())
    }

    /// The skills, sorted by category and name, with usage counts.
    pub async fn skills(&mut self) -> Result<Vec<Listed>> {
        self.locked(async |m| m.load_skills().await).await?;
        Ok(self
            .skills
            .list
            .iter()
            .map(|s| Listed {
                name: s.name.clone(),
                category: s.category.clone(),
                description: if s.blocked {
                    BLOCKED_TITLE.to_string()
                } else {
                    s.description.clone()
                },
                tags: if s.blocked {
                    Vec::new()
                } else {
                    s.tags.clone()
                },
                files: s.files.clone(),
                usage: self.usage_of(&s.name),
                blocked: s.blocked,
                problem: s.problem.clone(),
            })
            .collect())
    }

    /// The usage of skill `name` as stored (without the views not yet
    /// written).
    fn stored_usage(&self, name: &str) -> Usage {
        self.skills
            .meta
            .skills
            .get(name)
            .cloned()
            .unwrap_or_default()
    }

    /// The usage of skill `name` with the views not yet written.
    fn usage_of(&self, name: &str) -> Usage {
        let mut usage = self.stored_usage(name);
        for (_, at) in self.skills.views.iter().filter(|(n, _)| n == name) {
            usage.views += 1;
            usage.last_used = Some(usage.last_used.unwrap_or(0).max(*at));
        }
        usage
    }

    fn find_skill(&self, name: &str) -> Result<&Skill> {
        self.skills
            .list
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::NoMatch,
                    format!("no skill named {name:?}; list the skills to see their names"),
                )
            })
    }

    /// The whole `SKILL.md` of skill `name` and its blob name, for a
    /// person editing it (`mnemo journey edit`).
    pub async fn skill_text(&mut self, name: &str) -> Result<(String, String)> {
        self.locked(async |m| m.load_skills().await).await?;
        let skill = self.find_skill(name)?;
        Ok((
            format!("{}{SKILL_FILE}", skill.folder()),
            skill.text.clone(),
        ))
    }

    /// Runs one call of the `skill` tool. Never fails: what went wrong is
    /// in the answer (`{success: false, error, code}`).
    pub async fn skill_tool(&mut self, args: &Value) -> Value {
        self.skill_tool_from(args, Origin::Foreground).await
    }

    /// [`Memory::skill_tool`] for a write from `origin` (the background
    /// review's, say).
    pub(crate) async fn skill_tool_from(&mut self, args: &Value, origin: Origin) -> Value {
        let request = match skills::parse_request(args) {
            Ok(r) => r,
            Err(e) => return failure(&e),
        };
        let agent = args
            .get("agent")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.agent.clone());
        match self.skill_request(request, agent.as_deref(), origin).await {
            Ok(v) => v,
            Err(e) => failure(&e),
        }
    }

    async fn skill_request(
        &mut self,
        request: Request,
        agent: Option<&str>,
        origin: Origin,
    ) -> Result<Value> {
        match request {
            Request::List { category } => {
                let listed = self.skills().await?;
                let shown: Vec<Value> = listed
                    .iter()
                    .filter(|s| s.problem.is_none())
                    .filter(|s| category.as_ref().is_none_or(|c| &s.category == c))
                    .map(|s| json!({"name": s.name, "category": s.category, "description": s.description}))
                    .collect();
                Ok(json!({"success": true, "count": shown.len(), "skills": shown}))
            }
            Request::Search { query } => {
                self.locked(async |m| m.load_skills().await).await?;
                let hits = self.search_skills(&query, 5);
                Ok(json!({"success": true, "count": hits.len(), "skills": hits}))
            }
            Request::View { name, file_path } => {
                self.locked(async |m| m.load_skills().await).await?;
                let skill = self.find_skill(&name)?.clone();
                if let Some(p) = &skill.problem {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        format!("skill {name:?} cannot be used: {p}"),
                    ));
                }
                let now = self.storage.now_ms();
                self.skills.views.push((name.clone(), now));
                let content = match &file_path {
                    None => skill.text.clone(),
                    Some(p) => {
                        if !skill.files.contains(p) {
                            return Err(Error::new(
                                ErrorKind::NoMatch,
                                format!(
                                    "skill {name:?} has no file {p:?}; its files: {}",
                                    if skill.files.is_empty() {
                                        "none".to_string()
                                    } else {
                                        skill.files.join(", ")
                                    }
                                ),
                            ));
                        }
                        let path = format!("{}{p}", skill.folder());
                        let bytes = self.storage.read(&path).await?.unwrap_or_default();
                        text_of(&path, bytes)?
                    }
                };
                // SKILL.md's verdict (the user's approval included) was
                // reached when the skills were read; a file beside it is
                // scanned here.
                let blocked = match &file_path {
                    None => skill.blocked,
                    Some(_) => crate::scan::scan(&content).blocked,
                };
                if blocked {
                    let verdict = crate::scan::scan(&content);
                    return Ok(json!({
                        "success": true,
                        "name": name,
                        "category": skill.category,
                        "blocked": true,
                        "content": format!(
                            "[BLOCKED: this skill's text matched the security scanner ({}); it is not shown. The user can review it with `mnemo skills view {name}`.]",
                            verdict.categories().iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
                        ),
                        "files": skill.files,
                    }));
                }
                Ok(json!({
                    "success": true,
                    "name": name,
                    "category": skill.category,
                    "description": skill.description,
                    "file": file_path.unwrap_or_else(|| SKILL_FILE.to_string()),
                    "content": content,
                    "files": skill.files,
                }))
            }
            Request::Write(w) => {
                let agent = agent.map(str::to_string);
                self.locked(async move |m| m.skill_write(w, agent.as_deref(), origin).await)
                    .await
            }
        }
    }

    /// The best skills for `query` (name, category, description), by the
    /// note ranking's BM25 over name, description and body.
    pub fn search_skills(&self, query: &str, limit: usize) -> Vec<Value> {
        let usable: Vec<&Skill> = self
            .skills
            .list
            .iter()
            .filter(|s| s.problem.is_none() && !s.blocked)
            .collect();
        let docs: Vec<String> = usable
            .iter()
            .map(|s| {
                format!(
                    "{} {} {} {}\n{}",
                    s.name.replace(['-', '_', '.'], " "),
                    s.category,
                    s.description,
                    s.tags.join(" "),
                    s.body()
                )
            })
            .collect();
        let index = crate::search::Index::build(&self.analyzer, &docs);
        index
            .search(&self.analyzer, query, limit)
            .into_iter()
            .map(|h| {
                let s = usable[h.doc];
                json!({"name": s.name, "category": s.category, "description": s.description, "score": h.score})
            })
            .collect()
    }

    /// Works out a skill write and applies or stages it (under the lock).
    async fn skill_write(
        &mut self,
        w: WriteRequest,
        agent: Option<&str>,
        origin: Origin,
    ) -> Result<Value> {
        self.load_skills().await?;
        let plan = self.plan(&w).await?;
        let on = self
            .skills
            .meta
            .approval
            .unwrap_or(self.config.skills.write_approval);
        if on || !plan.findings.is_empty() {
            let id = self.stage_skill(plan.clone(), agent, origin).await?;
            let why = if plan.findings.is_empty() {
                "skill writes need the user's approval".to_string()
            } else {
                format!(
                    "the security scanner flagged it ({}), so the user must look at it first",
                    plan.findings.join("; ")
                )
            };
            return Ok(json!({
                "success": true,
                "staged": true,
                "pending_id": id,
                "name": plan.name,
                "message": format!("Skill write staged for the user's review, not applied yet: {why}. Do not retry it."),
            }));
        }
        self.apply_plan(&plan, agent, false).await?;
        Ok(json!({
            "success": true,
            "name": plan.name,
            "category": plan.category,
            "message": format!("💾 Skill '{}' {}", plan.name, plan.action.done()),
        }))
    }

    async fn read_text(&self, path: &str) -> Result<Option<String>> {
        match self.storage.read(path).await? {
            None => Ok(None),
            Some(b) => text_of(path, b).map(Some),
        }
    }

    /// The full change a write request makes, checked (names, frontmatter,
    /// limits, matches) and scanned.
    async fn plan(&self, w: &WriteRequest) -> Result<Plan> {
        let action = w.action.unwrap_or(Action::Create);
        let existing = self.skills.list.iter().find(|s| s.name == w.name).cloned();
        let need = |what: &str, v: &Option<String>| -> Result<String> {
            v.clone().ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    format!("{} needs {what}", action.name()),
                )
            })
        };
        let skill = |e: Option<Skill>| -> Result<Skill> {
            e.ok_or_else(|| {
                Error::new(
                    ErrorKind::NoMatch,
                    format!(
                        "no skill named {:?}; create it first (action create), or list the skills",
                        w.name
                    ),
                )
            })
        };
        let mut changes = Vec::new();
        let category;
        match action {
            Action::Create => {
                if let Some(s) = &existing {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        format!(
                            "skill {:?} exists (in {}); use edit or patch to change it",
                            s.name, s.category
                        ),
                    ));
                }
                let content = clean(&need("content (the whole SKILL.md)", &w.content)?)?;
                let (text, cat) =
                    settle_frontmatter(&content, &w.name, w.category.as_deref(), None)?;
                category = cat;
                changes.push(FileChange {
                    path: format!("{}{SKILL_FILE}", skills::folder(&category, &w.name)),
                    before: None,
                    after: Some(text),
                });
            }
            Action::Edit | Action::Patch => {
                let s = skill(existing)?;
                let file = if action == Action::Patch {
                    w.file_path.clone().filter(|p| p != SKILL_FILE)
                } else {
                    None
                };
                if let Some(p) = &file {
                    skills::check_file_path(p)?;
                    if !s.files.contains(p) {
                        return Err(Error::new(
                            ErrorKind::NoMatch,
                            format!(
                                "skill {:?} has no file {p:?}; write_file creates one",
                                s.name
                            ),
                        ));
                    }
                }
                let path = format!("{}{}", s.folder(), file.as_deref().unwrap_or(SKILL_FILE));
                let before = self.read_text(&path).await?.unwrap_or_default();
                let after = if action == Action::Edit {
                    clean(&need("content (the whole SKILL.md)", &w.content)?)?
                } else if let Some(p) = &w.patch {
                    skills::apply_patch(&before, p)?
                } else {
                    let old = need(
                        "patch (a unified diff) or old_string and new_string",
                        &w.old_string,
                    )?;
                    let new = w.new_string.clone().ok_or_else(|| {
                        Error::new(
                            ErrorKind::InvalidInput,
                            "patch with old_string needs new_string (\"\" removes the text)",
                        )
                    })?;
                    skills::replace_text(&before, &old, &new, w.replace_all)?
                };
                if after == before {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        "the write changes nothing; the skill already holds that text",
                    ));
                }
                if file.is_some() {
                    check_file_size(&after)?;
                    category = s.category.clone();
                    changes.push(FileChange {
                        path,
                        before: Some(before),
                        after: Some(after),
                    });
                } else {
                    let after = clean(&after)?;
                    let (text, cat) = settle_frontmatter(&after, &s.name, None, Some(&s.category))?;
                    category = cat;
                    if category == s.category {
                        changes.push(FileChange {
                            path,
                            before: Some(before),
                            after: Some(text),
                        });
                    } else {
                        // A new category moves the whole folder.
                        self.move_folder(&s, &skills::folder(&category, &s.name), &mut changes)
                            .await?;
                        if let Some(c) = changes.iter_mut().find(|c| {
                            c.path.ends_with(&format!("/{}/{SKILL_FILE}", s.name))
                                && c.after.is_some()
                        }) {
                            c.after = Some(text);
                        }
                    }
                }
            }
            Action::WriteFile => {
                let s = skill(existing)?;
                let p = need("file_path", &w.file_path)?;
                skills::check_file_path(&p)?;
                let content = need("file_content", &w.file_content)?;
                check_file_size(&content)?;
                if !s.files.contains(&p) && s.files.len() >= skills::MAX_FILES {
                    return Err(Error::new(
                        ErrorKind::StoreFull,
                        format!("skill {:?} already has {} files, the most one skill may hold; remove one first", s.name, skills::MAX_FILES),
                    ));
                }
                let path = format!("{}{p}", s.folder());
                let before = self.read_text(&path).await?;
                if before.as_deref() == Some(content.as_str()) {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        "the write changes nothing; the file already holds that text",
                    ));
                }
                category = s.category.clone();
                changes.push(FileChange {
                    path,
                    before,
                    after: Some(content),
                });
            }
            Action::RemoveFile => {
                let s = skill(existing)?;
                let p = need("file_path", &w.file_path)?;
                skills::check_file_path(&p)?;
                if !s.files.contains(&p) {
                    return Err(Error::new(
                        ErrorKind::NoMatch,
                        format!("skill {:?} has no file {p:?}", s.name),
                    ));
                }
                let path = format!("{}{p}", s.folder());
                category = s.category.clone();
                changes.push(FileChange {
                    before: self.read_text(&path).await?,
                    path,
                    after: None,
                });
            }
            Action::Delete => {
                let s = skill(existing)?;
                category = s.category.clone();
                let to = format!(
                    "{}{}/{}.{}/",
                    skills::ARCHIVE,
                    s.category,
                    s.name,
                    self.storage.now_ms()
                );
                self.move_folder(&s, &to, &mut changes).await?;
            }
        }
        // Text the write replaces or removes (and does not move) is kept
        // as an earlier version: nothing written, by hand or by an agent,
        // is lost.
        let now = self.storage.now_ms();
        let mut kept = Vec::new();
        for c in &changes {
            let Some(before) = &c.before else { continue };
            if changes.iter().any(|d| d.after.as_ref() == Some(before)) {
                continue;
            }
            if let Some((category, name, file)) = skills::parts(&c.path) {
                kept.push(FileChange {
                    path: format!("{}{category}/{name}/{now}/{file}", skills::HISTORY),
                    before: None,
                    after: Some(before.clone()),
                });
            }
        }
        changes.extend(kept);
        let mut findings = Vec::new();
        for c in changes.iter().filter(|c| {
            !c.path.starts_with(skills::ARCHIVE) && !c.path.starts_with(skills::HISTORY)
        }) {
            if let Some(after) = &c.after {
                let v = crate::scan::scan(after);
                if v.blocked {
                    for cat in v.categories() {
                        let ids: Vec<&str> = v
                            .findings
                            .iter()
                            .filter(|f| f.category == cat)
                            .map(|f| f.id)
                            .collect();
                        let line = format!("{} ({})", cat.name(), ids.join(", "));
                        if !findings.contains(&line) {
                            findings.push(line);
                        }
                    }
                    if v.truncated && !findings.iter().any(|f| f == "too long to scan") {
                        findings.push("too long to scan".to_string());
                    }
                }
            }
        }
        Ok(Plan {
            action,
            name: w.name.clone(),
            category,
            changes,
            findings,
        })
    }

    /// Adds to `changes` the move of every file of `skill` to folder `to`.
    async fn move_folder(
        &self,
        skill: &Skill,
        to: &str,
        changes: &mut Vec<FileChange>,
    ) -> Result<()> {
        let from = skill.folder();
        let files = std::iter::once(SKILL_FILE.to_string()).chain(skill.files.iter().cloned());
        for f in files {
            let text = self.read_text(&format!("{from}{f}")).await?;
            changes.push(FileChange {
                path: format!("{from}{f}"),
                before: text.clone(),
                after: None,
            });
            changes.push(FileChange {
                path: format!("{to}{f}"),
                before: None,
                after: text,
            });
        }
        Ok(())
    }

    /// Applies `plan` (the caller holds the lock and loaded the skills):
    /// checks every file still holds what the plan was made from, then
    /// commits the files and the usage together. `vouch`: the user
    /// approved flagged text, which is then shown.
    async fn apply_plan(&mut self, plan: &Plan, agent: Option<&str>, vouch: bool) -> Result<()> {
        for c in plan
            .changes
            .iter()
            .filter(|c| !c.path.starts_with(skills::HISTORY))
        {
            let now = self.read_text(&c.path).await?;
            if now != c.before {
                let file = c.path.rsplit('/').next().unwrap_or(&c.path);
                return Err(Error::new(
                    ErrorKind::NoMatch,
                    if c.before.is_none() {
                        format!(
                            "{} of skill '{}' exists now; it did not when the write was made",
                            file, plan.name
                        )
                    } else {
                        format!(
                            "{} of skill '{}' changed since the write was made",
                            file, plan.name
                        )
                    },
                ));
            }
        }
        let now = self.storage.now_ms();
        let mut changes: Vec<Change> = plan
            .changes
            .iter()
            .map(|c| match &c.after {
                Some(text) => Change::write(&c.path, text.as_bytes()),
                None => Change::delete(&c.path),
            })
            .collect();
        let mut meta = self.skills.meta.clone();
        self.fold_views(&mut meta);
        let usage = meta.skills.entry(plan.name.clone()).or_default();
        match plan.action {
            Action::Create => {
                *usage = Usage {
                    created: now,
                    changed: now,
                    agent: agent.map(str::to_string),
                    ..Usage::default()
                };
            }
            Action::Delete => {
                usage.changed = now;
            }
            _ => {
                if usage.created == 0 {
                    usage.created = now;
                }
                usage.changed = now;
                usage.patches += 1;
            }
        }
        let main = plan
            .changes
            .iter()
            .filter(|c| {
                !c.path.starts_with(skills::ARCHIVE) && !c.path.starts_with(skills::HISTORY)
            })
            .find(|c| c.path.ends_with(&format!("/{SKILL_FILE}")) && c.after.is_some());
        let main_text = main.and_then(|c| c.after.as_deref());
        if vouch {
            if let Some(text) = main_text {
                usage.vouched = Some(skills::digest(text));
            }
        }
        // The plan scanned the new text: the next load need not.
        if let (Some(text), true) = (main_text, plan.findings.is_empty()) {
            meta.rules = crate::scan::RULES_VERSION;
            meta.clean.insert(skills::digest(text));
        }
        changes.push(Change::write(skills::META_BLOB, &meta.to_bytes()));
        self.storage.commit(&changes).await?;
        self.skills.views.clear();
        self.load_skills().await
    }

    /// Moves buffered views into `meta`.
    fn fold_views(&self, meta: &mut Meta) {
        for (name, at) in &self.skills.views {
            if let Some(u) = meta.skills.get_mut(name) {
                u.views += 1;
                u.last_used = Some(u.last_used.unwrap_or(0).max(*at));
            } else if self.skills.list.iter().any(|s| &s.name == name) {
                let u = meta.skills.entry(name.clone()).or_default();
                u.views += 1;
                u.last_used = Some(*at);
            }
        }
    }

    async fn skill_queue(&self) -> Result<Queue> {
        Queue::parse(self.storage.read(skills::QUEUE_BLOB).await?.as_deref())
    }

    async fn stage_skill(
        &mut self,
        plan: Plan,
        agent: Option<&str>,
        origin: Origin,
    ) -> Result<String> {
        let mut queue = self.skill_queue().await?;
        if queue.items.len() >= skills::MAX_PENDING {
            return Err(Error::new(
                ErrorKind::StoreFull,
                format!(
                    "{} skill writes already wait for the user's review; no more can be staged until some are approved or rejected",
                    queue.items.len()
                ),
            ));
        }
        let id = format!("k{}", queue.next.max(1));
        queue.next = queue.next.max(1) + 1;
        queue.items.push(Staged {
            id: id.clone(),
            created: self.storage.now_ms(),
            agent: agent.map(str::to_string),
            origin,
            state: State::Pending,
            reason: None,
            gist: plan.gist(),
            plan,
        });
        self.storage
            .write(skills::QUEUE_BLOB, &queue.to_bytes())
            .await?;
        Ok(id)
    }

    /// The staged skill writes, oldest first.
    pub async fn pending_skills(&mut self) -> Result<Vec<Staged>> {
        Ok(self.locked(async |m| m.skill_queue().await).await?.items)
    }

    /// The full unified diff of staged skill write `id`.
    pub async fn skill_diff(&mut self, id: &str) -> Result<String> {
        let queue = self.locked(async |m| m.skill_queue().await).await?;
        let item = queue.items_by_id(id)?;
        Ok(item.plan.diff())
    }

    /// Applies staged skill writes (one id or all). A write whose files
    /// changed since it was staged stays as `needs_review` with why.
    pub async fn approve_skill(&mut self, which: &Which) -> Result<SkillsApproved> {
        self.locked(async |m| {
            m.load_skills().await?;
            let mut queue = m.skill_queue().await?;
            let ids = pick(&queue, which)?;
            let mut out = SkillsApproved {
                applied: Vec::new(),
                not_applied: Vec::new(),
            };
            for id in ids {
                let Some(pos) = queue.items.iter().position(|s| s.id == id) else {
                    continue;
                };
                let item = queue.items[pos].clone();
                match m.apply_plan(&item.plan, item.agent.as_deref(), true).await {
                    Ok(()) => {
                        queue.items.remove(pos);
                        // Each applied write is durable before the next.
                        m.storage
                            .write(skills::QUEUE_BLOB, &queue.to_bytes())
                            .await?;
                        out.applied.push(format!(
                            "💾 Skill '{}' {} ({id})",
                            item.plan.name,
                            item.plan.action.done()
                        ));
                    }
                    Err(e) if matches!(e.kind(), ErrorKind::NoMatch) => {
                        let s = &mut queue.items[pos];
                        s.state = State::NeedsReview;
                        s.reason = Some(e.message().to_string());
                        m.storage
                            .write(skills::QUEUE_BLOB, &queue.to_bytes())
                            .await?;
                        out.not_applied.push((id, e.message().to_string()));
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok(out)
        })
        .await
    }

    /// Drops staged skill writes (one id or all); answers the ids dropped.
    pub async fn reject_skill(&mut self, which: &Which) -> Result<Vec<String>> {
        self.locked(async |m| {
            let mut queue = m.skill_queue().await?;
            let ids = pick(&queue, which)?;
            queue.items.retain(|s| !ids.contains(&s.id));
            m.storage
                .write(skills::QUEUE_BLOB, &queue.to_bytes())
                .await?;
            Ok(ids)
        })
        .await
    }

    /// Turns the skill-write gate on or off (kept over the config's
    /// `skills.write_approval`); answers whether it is on.
    pub async fn set_skill_approval(&mut self, on: bool) -> Result<bool> {
        self.locked(async |m| {
            m.load_skills().await?;
            let mut meta = m.skills.meta.clone();
            meta.approval = Some(on);
            m.storage.write(skills::META_BLOB, &meta.to_bytes()).await?;
            m.skills.meta = meta;
            Ok(on)
        })
        .await
    }

    /// Whether skill writes are staged for approval now.
    pub fn skill_approval(&self) -> bool {
        self.skills
            .meta
            .approval
            .unwrap_or(self.config.skills.write_approval)
    }

    /// Archives skill `name` (restorable): a person's command
    /// (`mnemo journey delete`), applied at once.
    pub async fn archive_skill(&mut self, name: &str) -> Result<String> {
        let w = WriteRequest {
            action: Some(Action::Delete),
            name: name.to_string(),
            ..WriteRequest::default()
        };
        self.locked(async |m| {
            m.load_skills().await?;
            let plan = m.plan(&w).await?;
            m.apply_plan(&plan, None, false).await?;
            Ok(format!(
                "archived skill '{name}'; `mnemo skills restore {name}` brings it back"
            ))
        })
        .await
    }

    /// Replaces the `SKILL.md` of `name` with a person's edit
    /// (`mnemo journey edit`): checked like a write, applied at once; the
    /// person's own text is shown even where the scanner flags it.
    pub async fn edit_skill(&mut self, name: &str, text: &str) -> Result<String> {
        let w = WriteRequest {
            action: Some(Action::Edit),
            name: name.to_string(),
            content: Some(text.to_string()),
            ..WriteRequest::default()
        };
        self.locked(async |m| {
            m.load_skills().await?;
            let plan = m.plan(&w).await?;
            m.apply_plan(&plan, None, true).await?;
            let mut msg = format!("saved skill '{name}'");
            if !plan.findings.is_empty() {
                msg.push_str(&format!(
                    " (the scanner flags {}; it is shown because you wrote it)",
                    plan.findings.join("; ")
                ));
            }
            Ok(msg)
        })
        .await
    }

    /// The earlier versions of skill `name`'s files that writes replaced
    /// or removed, newest first.
    pub async fn skill_versions(&mut self, name: &str) -> Result<Vec<skills::Version>> {
        skills::check_name("skill name", name)?;
        let names = self.storage.list_under(skills::HISTORY).await?;
        let mut out = Vec::new();
        for path in names {
            let Some(rest) = path.strip_prefix(skills::HISTORY) else {
                continue;
            };
            let mut it = rest.splitn(4, '/');
            let (Some(_), Some(n), Some(ms), Some(file)) =
                (it.next(), it.next(), it.next(), it.next())
            else {
                continue;
            };
            let Ok(replaced) = ms.parse::<u64>() else {
                continue;
            };
            if n != name {
                continue;
            }
            let Some(text) = self.read_text(&path).await? else {
                continue;
            };
            out.push(skills::Version {
                replaced,
                file: file.to_string(),
                path: path.clone(),
                text,
            });
        }
        crate::order::sort_by(&mut out, |a, b| {
            b.replaced.cmp(&a.replaced).then(a.file.cmp(&b.file))
        });
        Ok(out)
    }

    /// The archived skills, newest first.
    pub async fn archived_skills(&mut self) -> Result<Vec<ArchivedSkill>> {
        let names = self.storage.list_under(skills::ARCHIVE).await?;
        Ok(skills::archived(&names)
            .into_iter()
            .map(|(category, name, archived, _)| ArchivedSkill {
                name,
                category,
                archived,
            })
            .collect())
    }

    /// Brings back the newest archived copy of skill `name`.
    pub async fn restore_skill(&mut self, name: &str) -> Result<String> {
        skills::check_name("skill name", name)?;
        self.locked(async |m| {
            m.load_skills().await?;
            if m.skills.list.iter().any(|s| s.name == name) {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!("a skill named {name:?} exists; archive or rename it before restoring"),
                ));
            }
            let names = m.storage.list_under(skills::ARCHIVE).await?;
            let Some((category, _, _, folder)) =
                skills::archived(&names).into_iter().find(|a| a.1 == name)
            else {
                return Err(Error::new(
                    ErrorKind::NoMatch,
                    format!("no archived skill named {name:?}; `mnemo skills archived` lists them"),
                ));
            };
            let to = skills::folder(&category, name);
            let mut changes = Vec::new();
            for n in names.iter().filter(|n| n.starts_with(&folder)) {
                let Some(bytes) = m.storage.read(n).await? else {
                    continue;
                };
                changes.push(Change::write(
                    &format!("{to}{}", &n[folder.len()..]),
                    &bytes,
                ));
                changes.push(Change::delete(n));
            }
            let mut meta = m.skills.meta.clone();
            meta.skills.entry(name.to_string()).or_default().changed = m.storage.now_ms();
            changes.push(Change::write(skills::META_BLOB, &meta.to_bytes()));
            m.storage.commit(&changes).await?;
            m.load_skills().await?;
            Ok(format!("restored skill '{name}' to {category}"))
        })
        .await
    }

    /// Pins or unpins skill `name` (pinned skills are never archived as
    /// stale).
    pub async fn pin_skill(&mut self, name: &str, pinned: bool) -> Result<()> {
        self.locked(async |m| {
            m.load_skills().await?;
            m.find_skill(name)?;
            let mut meta = m.skills.meta.clone();
            m.fold_views(&mut meta);
            meta.skills.entry(name.to_string()).or_default().pinned = pinned;
            m.storage.write(skills::META_BLOB, &meta.to_bytes()).await?;
            m.skills.views.clear();
            m.skills.meta = meta;
            m.skills.knowledge = None;
            Ok(())
        })
        .await
    }

    /// The host reports that the agent used skill `name`: counted, with
    /// the views buffered so far.
    pub async fn skill_used(&mut self, name: &str) -> Result<()> {
        self.locked(async |m| {
            m.load_skills().await?;
            m.find_skill(name)?;
            let now = m.storage.now_ms();
            let mut meta = m.skills.meta.clone();
            m.fold_views(&mut meta);
            let u = meta.skills.entry(name.to_string()).or_default();
            u.uses += 1;
            u.last_used = Some(now);
            m.storage.write(skills::META_BLOB, &meta.to_bytes()).await?;
            m.skills.views.clear();
            m.skills.meta = meta;
            Ok(())
        })
        .await
    }

    /// Writes the views counted since the last write (counts are kept
    /// lazily, never one write per read).
    pub async fn flush_skill_usage(&mut self) -> Result<()> {
        if self.skills.views.is_empty() {
            return Ok(());
        }
        self.locked(async |m| {
            let mut meta = Meta::parse(m.storage.read(skills::META_BLOB).await?.as_deref());
            m.fold_views(&mut meta);
            m.storage.write(skills::META_BLOB, &meta.to_bytes()).await?;
            m.skills.views.clear();
            m.skills.meta = meta;
            Ok(())
        })
        .await
    }

    /// Archives every unpinned skill not used, viewed or changed in the
    /// last `days` days (never deletes); answers their names.
    pub async fn archive_stale_skills(&mut self, days: u64) -> Result<Vec<String>> {
        self.flush_skill_usage().await?;
        let now = self.storage.now_ms();
        let cutoff = now.saturating_sub(days.saturating_mul(86_400_000));
        self.locked(async |m| m.load_skills().await).await?;
        let stale: Vec<String> = self
            .skills
            .list
            .iter()
            .filter(|s| {
                let u = self.stored_usage(&s.name);
                let last = u.last_used.unwrap_or(0).max(u.changed).max(u.created);
                !u.pinned && last < cutoff
            })
            .map(|s| s.name.clone())
            .collect();
        for name in &stale {
            self.archive_skill(name).await?;
        }
        Ok(stale)
    }

    /// The graph of notes and skills (for sectors and the journey).
    pub(crate) fn knowledge(&mut self) -> &Graph {
        if self.skills.knowledge.is_none() {
            let stores = &self.stores;
            let docs: Vec<SkillDoc<'_>> = self
                .skills
                .list
                .iter()
                .filter(|s| s.problem.is_none())
                .map(|s| SkillDoc {
                    name: &s.name,
                    category: &s.category,
                    body: s.body(),
                    pinned: self
                        .skills
                        .meta
                        .skills
                        .get(&s.name)
                        .is_some_and(|u| u.pinned),
                    blocked: s.blocked,
                })
                .collect();
            let graph = Graph::build_with_skills(
                stores[0].entries(),
                stores[1].entries(),
                |t, i| stores[t.index()].verdict(i).is_some(),
                &docs,
            );
            self.skills.knowledge = Some(graph);
        }
        self.skills.knowledge.as_ref().expect("built above")
    }

    /// Names and dates of the skills the knowledge graph holds, in its
    /// order.
    pub(crate) fn skill_stamps(&self) -> Vec<crate::journey::SkillStamp> {
        self.skills
            .list
            .iter()
            .filter(|s| s.problem.is_none())
            .map(|s| {
                let u = self.stored_usage(&s.name);
                crate::journey::SkillStamp {
                    name: s.name.clone(),
                    first_seen: u.created,
                    last_changed: u.changed.max(u.created),
                    agent: u.agent,
                }
            })
            .collect()
    }
}

impl Queue {
    fn items_by_id(&self, id: &str) -> Result<&Staged> {
        self.items.iter().find(|s| s.id == id).ok_or_else(|| {
            Error::new(
                ErrorKind::NoMatch,
                format!("no staged skill write {id:?}; `mnemo skills pending` lists them"),
            )
        })
    }
}

fn pick(queue: &Queue, which: &Which) -> Result<Vec<String>> {
    match which {
        Which::All => Ok(queue.items.iter().map(|s| s.id.clone()).collect()),
        Which::One(id) => queue.items_by_id(id).map(|s| vec![s.id.clone()]),
    }
}

fn failure(e: &Error) -> Value {
    json!({"success": false, "error": e.message(), "code": e.kind()})
}

/// A skill read from its `SKILL.md` (not yet scanned: `blocked` false).
fn read_skill(category: String, name: String, files: Vec<String>, text: String) -> Skill {
    let mut skill = Skill {
        name,
        category,
        description: String::new(),
        tags: Vec::new(),
        text,
        files,
        problem: None,
        blocked: false,
    };
    match skills::frontmatter::parse(&skill.text) {
        Err(e) => skill.problem = Some(e.message().to_string()),
        Ok((fm, _)) => {
            skill.description = fm.description;
            skill.tags = fm.tags;
            if fm.name != skill.name {
                skill.problem = Some(format!(
                    "its frontmatter names it {:?} but its folder is {:?}; make them agree",
                    fm.name, skill.name
                ));
            } else if let Some(c) = fm.category.filter(|c| c != &skill.category) {
                skill.problem = Some(format!(
                    "its frontmatter files it in {c:?} but it is in the folder {:?}; move it or fix the category",
                    skill.category
                ));
            }
        }
    }
    skill
}

/// Text a skill file may hold: no NUL, line ends made `\n`, within the
/// size limit.
fn clean(text: &str) -> Result<String> {
    if text.contains('\0') {
        return Err(Error::new(
            ErrorKind::InvalidText,
            "the text holds a NUL character; skills are plain text",
        ));
    }
    let text = text.replace("\r\n", "\n");
    if text.chars().count() > skills::MAX_SKILL_CHARS {
        return Err(Error::new(
            ErrorKind::TooLong,
            format!(
                "SKILL.md would be {} chars; the most is {}: move details to a file beside it (write_file)",
                text.chars().count(),
                skills::MAX_SKILL_CHARS
            ),
        ));
    }
    Ok(text)
}

fn check_file_size(text: &str) -> Result<()> {
    if text.contains('\0') {
        return Err(Error::new(
            ErrorKind::InvalidText,
            "the text holds a NUL character; skill files are plain text",
        ));
    }
    if text.len() > skills::MAX_FILE_BYTES {
        return Err(Error::new(
            ErrorKind::TooLong,
            format!(
                "the file would be {} bytes; the most is {}",
                text.len(),
                skills::MAX_FILE_BYTES
            ),
        ));
    }
    Ok(())
}

/// Checks `text`'s frontmatter for skill `name` and decides its category:
/// the frontmatter's, else `given` (written into the frontmatter), else
/// `current` (an existing skill's), else `general`.
fn settle_frontmatter(
    text: &str,
    name: &str,
    given: Option<&str>,
    current: Option<&str>,
) -> Result<(String, String)> {
    let (fm, _) = skills::frontmatter::parse(text)?;
    if fm.name != name {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "the frontmatter's name is {:?} but the skill is {name:?}; they must agree",
                fm.name
            ),
        ));
    }
    if let (Some(a), Some(b)) = (&fm.category, given) {
        if a != b {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("category {b:?} differs from the frontmatter's {a:?}; give one"),
            ));
        }
    }
    let category = fm
        .category
        .clone()
        .or(given.map(str::to_string))
        .or(current.map(str::to_string))
        .unwrap_or_else(|| skills::GENERAL.to_string());
    skills::check_name("category", &category)?;
    let text = if fm.category.is_none() {
        // Write the category into the file, after the name line.
        let mut out = String::new();
        let mut done = false;
        for line in text.split_inclusive('\n') {
            out.push_str(line);
            if !done && line.starts_with("name:") {
                out.push_str(&format!("category: {category}\n"));
                done = true;
            }
        }
        out
    } else {
        text.to_string()
    };
    Ok((text, category))
}
