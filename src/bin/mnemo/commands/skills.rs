//! `mnemo skills …`: the learned skills, their staged writes, archive and
//! restore. Every rule (names, frontmatter, the scanner, the approval
//! queue) is the core's ([`mnemo::skills`]); this prints and asks.

use std::process::ExitCode;

use mnemo::approval::{State, Which};
use mnemo::storage::run_ready;
use mnemo::{Error, ErrorKind, Result};

use crate::flags::{SkillsCommand, Switch};
use crate::input::arg_or_stdin;
use crate::paths::Paths;
use crate::render::{clean, out, pretty, when};

/// Runs one `mnemo skills` command.
pub fn skills(paths: &Paths, command: SkillsCommand) -> Result<ExitCode> {
    if let SkillsCommand::Schema = command {
        out(&pretty(&mnemo::skills::tool_schema())?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (mut memory, _) = paths.open()?;
    match command {
        SkillsCommand::List { json } => {
            let listed = run_ready(memory.skills())??;
            if json {
                out(&pretty(&listed)?)?;
                return Ok(ExitCode::SUCCESS);
            }
            if listed.is_empty() {
                out("no skills yet; an agent creates them with the skill tool\n")?;
                return Ok(ExitCode::SUCCESS);
            }
            let mut text = String::new();
            let categories = {
                let mut c: Vec<&str> = listed.iter().map(|l| l.category.as_str()).collect();
                c.dedup();
                c.len()
            };
            text.push_str(&format!(
                "✧ Skills · {} in {} {}\n",
                listed.len(),
                categories,
                if categories == 1 {
                    "category"
                } else {
                    "categories"
                }
            ));
            let width = listed
                .iter()
                .map(|l| l.name.chars().count())
                .max()
                .unwrap_or(0);
            let mut category = "";
            for l in &listed {
                if l.category != category {
                    category = &l.category;
                    text.push_str(&format!("\n{category}\n"));
                }
                let mut row = format!("  ✧ {:<width$}  {}", l.name, clean(&l.description));
                let u = &l.usage;
                row.push_str(&format!(
                    "  · viewed {} · used {} · patched {}",
                    u.views, u.uses, u.patches
                ));
                if u.pinned {
                    row.push_str(" · pinned");
                }
                if l.blocked {
                    row.push_str(" · ⚠ the scanner flags its text: not shown to a model");
                }
                if let Some(p) = &l.problem {
                    row.push_str(&format!(" · ⚠ {}", clean(p)));
                }
                text.push_str(&row);
                text.push('\n');
            }
            out(&text)?;
        }
        SkillsCommand::View { name, file } => {
            let mut args = serde_json::json!({"action": "view", "name": name});
            if let Some(f) = file {
                args["file_path"] = f.into();
            }
            let answer = run_ready(memory.skill_tool(&args))?;
            if answer["success"] != true {
                return Err(answer_error(&answer));
            }
            if answer["blocked"] == true {
                // The user may read what the scanner keeps from a model.
                let (_, text) = run_ready(memory.skill_text(&name))??;
                out(&format!(
                    "⚠ the security scanner flags this skill; a model is not shown it\n\n{text}"
                ))?;
            } else {
                out(answer["content"].as_str().unwrap_or(""))?;
            }
        }
        SkillsCommand::Search { query, json } => {
            let answer = run_ready(
                memory.skill_tool(&serde_json::json!({"action": "search", "query": query})),
            )?;
            if answer["success"] != true {
                return Err(answer_error(&answer));
            }
            if json {
                out(&pretty(&answer["skills"])?)?;
            } else {
                let hits = answer["skills"].as_array().cloned().unwrap_or_default();
                if hits.is_empty() {
                    out("no skill matches\n")?;
                }
                let mut text = String::new();
                for h in hits {
                    text.push_str(&format!(
                        "✧ {}  ({})  {}\n",
                        h["name"].as_str().unwrap_or(""),
                        h["category"].as_str().unwrap_or(""),
                        clean(h["description"].as_str().unwrap_or(""))
                    ));
                }
                out(&text)?;
            }
        }
        SkillsCommand::Pending { json } => {
            let items = run_ready(memory.pending_skills())??;
            if json {
                out(&pretty(&items)?)?;
                return Ok(ExitCode::SUCCESS);
            }
            if items.is_empty() {
                out("no skill writes are waiting for approval\n")?;
                return Ok(ExitCode::SUCCESS);
            }
            let mut text = String::new();
            for s in &items {
                text.push_str(&format!("{}  {}", s.id, clean(&s.gist)));
                if let Some(a) = &s.agent {
                    text.push_str(&format!("  [{}]", clean(a)));
                }
                text.push_str(&format!("  {}\n", when(s.created)));
                if s.state == State::NeedsReview {
                    text.push_str(&format!(
                        "    needs review: {}\n",
                        clean(s.reason.as_deref().unwrap_or(""))
                    ));
                }
            }
            text.push_str(&format!(
                "\n{} waiting · `mnemo skills diff ID` shows the whole change · approve ID|all · reject ID|all\n",
                items.len()
            ));
            out(&text)?;
        }
        SkillsCommand::Diff { id } => {
            let diff = run_ready(memory.skill_diff(&id))??;
            out(&diff)?;
        }
        SkillsCommand::Approve { which } => {
            let which = Which::parse(&which)?;
            let report = run_ready(memory.approve_skill(&which))??;
            let mut text = String::new();
            for line in &report.applied {
                text.push_str(&format!("{line}\n"));
            }
            for (id, why) in &report.not_applied {
                text.push_str(&format!(
                    "{id} not applied: {}\n  it stays as needs_review: `mnemo skills reject {id}` drops it\n",
                    clean(why)
                ));
            }
            if report.applied.is_empty() && report.not_applied.is_empty() {
                text.push_str("nothing is waiting for approval\n");
            }
            out(&text)?;
            if !report.not_applied.is_empty() {
                return Ok(ExitCode::FAILURE);
            }
        }
        SkillsCommand::Reject { which } => {
            let which = Which::parse(&which)?;
            let ids = run_ready(memory.reject_skill(&which))??;
            if ids.is_empty() {
                out("nothing is waiting for approval\n")?;
            } else {
                out(&format!("rejected {}\n", ids.join(", ")))?;
            }
        }
        SkillsCommand::Approval { state } => {
            let on = match state {
                Some(s) => run_ready(memory.set_skill_approval(s == Switch::On))??,
                None => memory.skill_approval(),
            };
            out(&format!(
                "skill write approval is {}\n",
                if on {
                    "on: skill writes wait for `mnemo skills approve`"
                } else {
                    "off: skill writes apply at once (a write the scanner flags still waits)"
                }
            ))?;
        }
        SkillsCommand::Archive { name } => {
            let message = run_ready(memory.archive_skill(&name))??;
            out(&format!("{message}\n"))?;
        }
        SkillsCommand::Archived { json } => {
            let items = run_ready(memory.archived_skills())??;
            if json {
                out(&pretty(&items)?)?;
            } else if items.is_empty() {
                out("no archived skills\n")?;
            } else {
                let mut text = String::new();
                for a in items {
                    text.push_str(&format!(
                        "{}  ({})  archived {}\n",
                        a.name,
                        a.category,
                        when(a.archived)
                    ));
                }
                out(&text)?;
            }
        }
        SkillsCommand::History { name, full, json } => {
            let versions = run_ready(memory.skill_versions(&name))??;
            if json {
                out(&pretty(&versions)?)?;
            } else if versions.is_empty() {
                out(&format!("no earlier versions of skill '{name}'\n"))?;
            } else {
                let mut text = String::new();
                for v in &versions {
                    text.push_str(&format!(
                        "{}  {}  ({} chars)  {}\n",
                        when(v.replaced),
                        v.file,
                        v.text.chars().count(),
                        v.path
                    ));
                    if full {
                        text.push_str(&v.text);
                        if !v.text.ends_with('\n') {
                            text.push('\n');
                        }
                        text.push('\n');
                    }
                }
                out(&text)?;
            }
        }
        SkillsCommand::Restore { name } => {
            let message = run_ready(memory.restore_skill(&name))??;
            out(&format!("{message}\n"))?;
        }
        SkillsCommand::Pin { name } => {
            run_ready(memory.pin_skill(&name, true))??;
            out(&format!("pinned skill '{name}'\n"))?;
        }
        SkillsCommand::Unpin { name } => {
            run_ready(memory.pin_skill(&name, false))??;
            out(&format!("unpinned skill '{name}'\n"))?;
        }
        SkillsCommand::Used { name } => {
            run_ready(memory.skill_used(&name))??;
        }
        SkillsCommand::ArchiveStale { days } => {
            let names = run_ready(memory.archive_stale_skills(days))??;
            if names.is_empty() {
                out(&format!("no unpinned skill is unused for {days} days\n"))?;
            } else {
                out(&format!(
                    "archived {} (restorable with `mnemo skills restore NAME`)\n",
                    names.join(", ")
                ))?;
            }
        }
        SkillsCommand::Tool { json } => {
            let text = arg_or_stdin(json)?;
            let args: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("not JSON: {e}")))?;
            let answer = run_ready(memory.skill_tool(&args))?;
            out(&pretty(&answer)?)?;
            if answer["success"] != true {
                return Ok(ExitCode::FAILURE);
            }
        }
        SkillsCommand::Schema => out(&pretty(&mnemo::skills::tool_schema())?)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The error a failed tool answer carries.
fn answer_error(answer: &serde_json::Value) -> Error {
    let kind = answer["code"]
        .as_str()
        .and_then(ErrorKind::from_code)
        .unwrap_or(ErrorKind::Internal);
    Error::new(
        kind,
        answer["error"].as_str().unwrap_or("failed").to_string(),
    )
}
