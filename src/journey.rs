//! The learning journey: every entry on a timeline, with its sector and
//! links, from the graph and the sidecar's dates.
//!
//! [`journey`] builds the payload (`mnemo journey --json`, JS `journey()`);
//! [`render`] draws the timeline for a terminal, oldest first.

use serde::Serialize;

use crate::graph::Graph;
use crate::sectors::node_id;
use crate::sidecar::Sidecar;
use crate::store::{Store, Target};

/// One node of the journey.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Node {
    /// `memory:<store>:<index>`: what `journey delete` and `journey edit`
    /// take.
    pub id: String,
    /// The stable entry id of the sidecar (survives edits of other entries).
    pub entry_id: String,
    /// `memory` or `user`.
    pub target: &'static str,
    /// Index of the entry in its store.
    pub index: usize,
    /// The note's title.
    pub title: String,
    /// Its sector.
    pub sector: String,
    /// When the entry was first seen, ms since the Unix epoch.
    pub first_seen: u64,
    /// When its text last changed, ms since the Unix epoch.
    pub last_changed: u64,
    /// Nodes it links to.
    pub out: Vec<String>,
    /// Nodes that link to it.
    pub r#in: Vec<String>,
    /// Link targets no note has.
    pub dangling: Vec<String>,
    /// Whether the note is `#pinned`.
    pub pinned: bool,
    /// Whether the security scanner blocks the entry (its title is hidden).
    pub blocked: bool,
}

/// The journey payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Journey {
    /// Every entry of both stores, oldest first (ties in store order).
    pub nodes: Vec<Node>,
    /// Resolved links between them.
    pub links: usize,
}

/// Builds the journey of `stores` from their `graph` and `sidecar`.
pub fn journey(stores: &[Store; 2], graph: &Graph, sidecar: &Sidecar) -> Journey {
    let id = |n: usize| node_id(graph.nodes[n].target, graph.nodes[n].index);
    let mut nodes: Vec<Node> = graph
        .nodes
        .iter()
        .map(|n| {
            let record = sidecar.records(n.target).get(n.index);
            let blocked = stores[n.target.index()].verdict(n.index).is_some();
            Node {
                id: node_id(n.target, n.index),
                entry_id: record.map_or_else(String::new, |r| r.id.clone()),
                target: n.target.name(),
                index: n.index,
                title: if blocked {
                    "[BLOCKED entry]".to_string()
                } else {
                    n.title.clone()
                },
                sector: n.sector.clone(),
                first_seen: record.map_or(0, |r| r.first_seen),
                last_changed: record.map_or(0, |r| r.last_changed),
                out: n.out.iter().map(|&m| id(m)).collect(),
                r#in: n.inc.iter().map(|&m| id(m)).collect(),
                dangling: n.dangling.clone(),
                pinned: n.pinned,
                blocked,
            }
        })
        .collect();
    nodes.sort_by_key(|n| (n.first_seen, n.target != Target::Memory.name(), n.index));
    Journey {
        nodes,
        links: graph.link_count(None),
    }
}

/// `YYYY-MM-DD` and `HH:MM` (UTC) of a time in ms.
fn day_and_time(ms: u64) -> (String, String) {
    let stamp = crate::memory::utc_stamp(ms); // YYYYMMDDTHHMMSSZ
    (
        format!("{}-{}-{}", &stamp[0..4], &stamp[4..6], &stamp[6..8]),
        format!("{}:{}", &stamp[9..11], &stamp[11..13]),
    )
}

/// Draws the timeline, oldest first, one row per entry under its day.
pub fn render(journey: &Journey, width: usize, color: bool) -> String {
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    };
    let mut out = paint("1", "✦ Journey · what mnemo learned, oldest first");
    out.push_str("\n\n");
    let longest = journey
        .nodes
        .iter()
        .map(|n| n.title.chars().count())
        .max()
        .unwrap_or(0);
    let title_w = longest.min(width.saturating_sub(40)).max(12);
    let mut day = String::new();
    for n in &journey.nodes {
        let (d, t) = day_and_time(n.first_seen);
        if d != day {
            if !day.is_empty() {
                out.push('\n');
            }
            out.push_str(&paint("1", &d));
            out.push('\n');
            day = d;
        }
        let title: String = if n.title.chars().count() > title_w {
            let mut s: String = n.title.chars().take(title_w - 1).collect();
            s.push('…');
            s
        } else {
            format!("{:<title_w$}", n.title)
        };
        let mut row = format!(
            "  {t}  ◆ {title}  {}  →{} ←{}",
            paint("36", &format!("{:<12}", n.sector)),
            n.out.len(),
            n.r#in.len()
        );
        if !n.dangling.is_empty() {
            row.push_str(&paint("33", &format!(" ⚑{}", n.dangling.len())));
        }
        if n.last_changed > n.first_seen {
            let (cd, ct) = day_and_time(n.last_changed);
            row.push_str(&format!("  (changed {cd} {ct})"));
        }
        out.push_str(row.trim_end());
        out.push_str(&format!("  {}\n", paint("2", &n.id)));
    }
    if journey.nodes.is_empty() {
        out.push_str("(no memories yet)\n");
    } else {
        out.push('\n');
        out.push_str(&format!(
            "{} memories · {} links\n",
            journey.nodes.len(),
            journey.links
        ));
    }
    out
}
