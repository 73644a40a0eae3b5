//! Drawing write approval and the background review: the pending list, a
//! staged write shown in full before the inline question, and a review's
//! report.
//!
//! Every text here may have been written by a model, so it goes through
//! [`clean`] (control characters escaped) before it reaches a terminal.

use mnemo::approval::{ApprovalStatus, Origin, Staged, State};
use mnemo::review::{Report, Stop};
use mnemo::store::thousands;
use mnemo::Target;
use serde_json::Value;

use super::{age, clean, one_line};

/// `N staged writes are waiting for approval`; `else` after an approve or
/// reject (`nothing else is waiting`).
pub fn still_pending(n: usize, after: bool) -> String {
    match n {
        0 if after => "nothing else is waiting for approval\n".to_string(),
        0 => "nothing is waiting for approval\n".to_string(),
        1 => "1 staged write is waiting for approval\n".to_string(),
        n => format!("{n} staged writes are waiting for approval\n"),
    }
}

/// The pending list: one row per staged write (id, origin, agent, age,
/// state, summary; the reason under a `needs_review` one), then a count
/// line that also says whether approval is on.
pub fn pending(items: &[Staged], status: &ApprovalStatus, now: u64) -> String {
    let origin = |s: &Staged| match s.origin {
        Origin::Review => "review [auto]".to_string(),
        other => other.name().to_string(),
    };
    let state = |s: &Staged| match s.state {
        State::Pending => "pending",
        State::NeedsReview => "needs_review",
    };
    let agent = |s: &Staged| s.agent.as_deref().map_or("-".to_string(), one_line_40);
    let widths = |f: &dyn Fn(&Staged) -> String| {
        items
            .iter()
            .map(|s| f(s).chars().count())
            .max()
            .unwrap_or(0)
    };
    let w_id = widths(&|s| s.id.clone());
    let w_origin = widths(&origin);
    let w_agent = widths(&agent);
    let w_age = widths(&|s| age(now, s.created));
    let w_state = widths(&|s| state(s).to_string());
    let mut out = String::new();
    for s in items {
        out.push_str(&format!(
            "{:<w_id$}  {:<w_origin$}  {:<w_agent$}  {:<w_age$}  {:<w_state$}  {}\n",
            s.id,
            origin(s),
            agent(s),
            age(now, s.created),
            state(s),
            one_line(&s.summary, 400),
        ));
        if let Some(reason) = &s.reason {
            out.push_str(&format!(
                "{:w_id$}  reason: {}\n",
                "",
                one_line(reason, 400)
            ));
        }
    }
    let count = match items.len() {
        0 => "no staged writes".to_string(),
        1 => "1 staged write".to_string(),
        n => format!("{n} staged writes"),
    };
    let review = match status.needs_review {
        0 => String::new(),
        n => format!(" ({n} need{} review)", if n == 1 { "s" } else { "" }),
    };
    let hint = if items.is_empty() {
        String::new()
    } else {
        " · `mnemo approve ID|all` applies, `mnemo reject ID|all` drops".to_string()
    };
    out.push_str(&format!(
        "{count}{review} · write approval is {} ({}){hint}\n",
        if status.enabled { "on" } else { "off" },
        status.source
    ));
    out
}

fn one_line_40(text: &str) -> String {
    one_line(text, 40)
}

fn store(target: Target) -> String {
    let what = match target {
        Target::Memory => "the agent's notes",
        Target::User => "the user profile",
    };
    format!("{} ({what})", target.file_name())
}

/// `text` indented by four spaces, every line, safe for a terminal.
fn block(text: &str) -> String {
    clean(text).lines().map(|l| format!("    {l}\n")).collect()
}

/// A staged write in full, for the question a write asks in a terminal:
/// each operation with its store, the new text whole, and the entry a
/// replace or remove names (`entry` finds it; `None` when it is not one
/// entry now, then the substring is shown).
pub fn staged_write(item: &Staged, entry: impl Fn(Target, &str) -> Option<String>) -> String {
    let by = item
        .agent
        .as_deref()
        .map(|a| format!(", from agent {}", one_line(a, 64)))
        .unwrap_or_default();
    let mut out = format!("Memory write staged for your approval ({}{by}):\n", item.id);
    let named = |target: Target, old: &str| match entry(target, old) {
        Some(text) => block(&text),
        None => format!("    (the entry containing {:?})\n", one_line(old, 200)),
    };
    for op in &item.operations {
        let content = op.content.as_deref().unwrap_or_default();
        let old = op.old_text.as_deref().unwrap_or_default();
        match op.action.as_str() {
            "add" => {
                out.push_str(&format!("  add to {}:\n", store(op.target)));
                out.push_str(&block(content));
            }
            "replace" => {
                out.push_str(&format!("  replace in {} the entry\n", store(op.target)));
                out.push_str(&named(op.target, old));
                out.push_str("  with\n");
                out.push_str(&block(content));
            }
            _ => {
                out.push_str(&format!("  remove from {} the entry\n", store(op.target)));
                out.push_str(&named(op.target, old));
            }
        }
    }
    out
}

/// The arguments of a tool call, summarised on one line.
fn arguments(args: &Value) -> String {
    let op = |o: &Value| {
        let field = |k: &str| o.get(k).and_then(Value::as_str);
        let mut s = [field("action"), field("target")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let quoted = |k: &str| field(k).map(|t| format!("{:?}", one_line(t, 80)));
        let texts = match (quoted("old_text"), quoted("content")) {
            (Some(old), Some(new)) => vec![format!("{old} → {new}")],
            (old, new) => [old, new, quoted("query")].into_iter().flatten().collect(),
        };
        for text in texts {
            s.push(' ');
            s.push_str(&text);
        }
        if s.is_empty() {
            one_line(&o.to_string(), 80)
        } else {
            s
        }
    };
    match args {
        Value::String(raw) => format!("(arguments that are not JSON: {:?})", one_line(raw, 60)),
        Value::Object(obj) => match obj.get("operations").and_then(Value::as_array) {
            Some(ops) => format!(
                "batch of {}: {}",
                ops.len(),
                ops.iter().map(op).collect::<Vec<_>>().join("; ")
            ),
            None => op(args),
        },
        other => one_line(&other.to_string(), 80),
    }
}

/// What a tool call got back, on one line.
fn outcome(result: &Value) -> String {
    let text = |k: &str| result.get(k).and_then(Value::as_str);
    if result.get("staged").and_then(Value::as_bool) == Some(true) {
        return format!(
            "staged for approval as {}",
            text("pending_id").unwrap_or("?")
        );
    }
    if result.get("success").and_then(Value::as_bool) == Some(true) {
        return one_line(text("message").unwrap_or("ok"), 120);
    }
    format!(
        "error [{}]: {}",
        text("code").unwrap_or("error"),
        one_line(text("error").unwrap_or(""), 200)
    )
}

/// A review's report: `header` (what ran where), each tool call with its
/// outcome, the staged ids, the notification line, the model's last words,
/// why it stopped and the usage.
pub fn review(report: &Report, header: &str, max_iterations: usize) -> String {
    let mut out = format!("{header}\n");
    for (i, action) in report.actions.iter().enumerate() {
        let tool = one_line(&action.tool, 40);
        let args = if action.tool == "memory" {
            arguments(&action.arguments)
        } else {
            one_line(&action.arguments.to_string(), 60)
        };
        out.push_str(&format!(
            "  {}. {tool} {args} → {}\n",
            i + 1,
            outcome(&action.result)
        ));
    }
    if report.actions.is_empty() {
        out.push_str("  (no tool calls)\n");
    }
    if !report.staged.is_empty() {
        out.push_str(&format!(
            "staged for your approval: {} (see `mnemo pending`; `mnemo approve ID|all`)\n",
            report.staged.join(", ")
        ));
    }
    if let Some(line) = &report.notification {
        out.push_str(&clean(line));
        out.push('\n');
    }
    if let Some(message) = &report.message {
        out.push_str(&format!("model: {}\n", one_line(message, 300)));
    }
    let stopped = match report.stopped {
        Stop::Done => "the model had nothing more to save".to_string(),
        Stop::Iterations => format!(
            "the iteration bound ({max_iterations} model calls, \
             auxiliary.background_review.max_iterations)"
        ),
        Stop::Budget => "the input budget (the next call would send more than \
                         auxiliary.background_review.max_input_chars)"
            .to_string(),
        Stop::Cancelled => "cancelled".to_string(),
        Stop::Error => format!(
            "an error: {} (the writes before it stand)",
            one_line(report.error.as_deref().unwrap_or("unknown"), 400)
        ),
    };
    let u = &report.usage;
    let mut usage = format!(
        "{} model call{} · {} input + {} output tokens",
        u.calls,
        if u.calls == 1 { "" } else { "s" },
        thousands(u.input_tokens as usize),
        thousands(u.output_tokens as usize)
    );
    if let Some(cost) = u.cost_usd {
        usage.push_str(&format!(" · ${cost:.4}"));
    }
    out.push_str(&format!("stopped on {stopped}\nusage: {usage}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_summarised_on_one_line() {
        assert_eq!(
            arguments(&json!({"action": "add", "target": "user", "content": "Likes\ntea"})),
            "add user \"Likes tea\""
        );
        assert_eq!(
            arguments(
                &json!({"action": "replace", "target": "memory", "old_text": "a", "content": "b"})
            ),
            "replace memory \"a\" → \"b\""
        );
        assert_eq!(
            arguments(
                &json!({"operations": [{"action": "remove", "target": "user", "old_text": "x"}]})
            ),
            "batch of 1: remove user \"x\""
        );
        assert_eq!(
            arguments(&json!("{not json")),
            "(arguments that are not JSON: \"{not json\")"
        );
    }

    #[test]
    fn outcomes_say_staged_saved_or_why_not() {
        assert_eq!(
            outcome(&json!({"success": true, "staged": true, "pending_id": "p2"})),
            "staged for approval as p2"
        );
        assert_eq!(
            outcome(&json!({"success": true, "message": "Entry added."})),
            "Entry added."
        );
        assert_eq!(
            outcome(&json!({"success": false, "code": "blocked", "error": "no"})),
            "error [blocked]: no"
        );
    }
}
