//! Drawing a recall: each result with its score, importance, category,
//! creation date and pin, and with `--explain` every part of its score.
//!
//! Entry texts may have been written by a model, so they go through
//! [`clean`] before they reach a terminal.

use mnemo::memory::{RecallHit, Recalled};
use mnemo::meta::Explain;

use super::{clean, day};

/// The results of a recall for `query`, best first, under a header that
/// says how many and how they were ranked (`keyword` or `hybrid`); each
/// result's line of facts starts with its label (`[global] `), if
/// `labels` has one for it.
pub fn recall(recalled: &Recalled, query: &str, explain: bool, labels: &[String]) -> String {
    let n = recalled.results.len();
    let mut text = format!(
        "{n} result{} for {:?} ({} recall)\n",
        if n == 1 { "" } else { "s" },
        super::one_line(query, 80),
        recalled.mode
    );
    for (rank, hit) in recalled.results.iter().enumerate() {
        let label = labels.get(rank).map_or("", String::as_str);
        text.push_str(&result(rank + 1, hit, label, explain));
    }
    text
}

/// One result: the entry's text after its number, a line of facts under
/// it (after `label`), and its score's parts when asked for.
fn result(rank: usize, hit: &RecallHit, label: &str, explain: bool) -> String {
    let number = format!("{rank:>2}. ");
    let indent = " ".repeat(number.len());
    let mut text = String::new();
    for (i, line) in clean(&hit.content).lines().enumerate() {
        text.push_str(if i == 0 { &number } else { &indent });
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!(
        "{indent}{label}relevance {} · importance {} · {} · created {}{} · {} #{} · {}\n",
        hit.relevance,
        hit.importance,
        hit.category,
        day(hit.created),
        if hit.pinned { " · pinned" } else { "" },
        hit.target,
        hit.index,
        hit.id
    ));
    if explain {
        if let Some(parts) = &hit.explain {
            text.push_str(&format!("{indent}score: {}\n", parts_line(parts)));
        }
    }
    text
}

/// Every part of one score on a line:
/// `keyword 0.4 (bm25 4) · semantic 0.9 · relevance 0.7 · boost +0.08 ·
/// decay 0.85 (age 90 days) · adjusted 0.663`.
fn parts_line(p: &Explain) -> String {
    let mut line = format!("keyword {} (bm25 {})", p.keyword, p.bm25);
    if let Some(semantic) = p.semantic {
        line.push_str(&format!(" · semantic {semantic}"));
    }
    line.push_str(&format!(
        " · relevance {} · boost {:+} · decay {} (age {} days{}) · adjusted {}",
        p.relevance,
        p.boost,
        p.decay,
        p.age_days,
        if p.pinned { ", pinned: no decay" } else { "" },
        p.adjusted
    ));
    line
}
