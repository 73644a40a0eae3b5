//! The sectors report: the graph by area, with links in both directions.
//!
//! [`report`] turns the [`Graph`] into data (the `--json` output and the JS
//! `sectors()` result, schema in `docs/sectors.schema.json`); [`render`]
//! draws it for a terminal. A sector filter narrows the listing, but every
//! count stays whole-graph, so a filtered view never overstates how
//! isolated an area is.

use serde::Serialize;

use crate::graph::{Graph, UNSORTED};
use crate::store::Target;

/// Options of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Only this sector (by name, case-insensitive).
    pub sector: Option<String>,
    /// Entries listed per sector (the rest are counted).
    pub limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sector: None,
            limit: 12,
        }
    }
}

/// One note in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Stable node id while the stores are unchanged: `memory:<store>:<index>`.
    pub node: String,
    /// `memory` or `user`.
    pub target: &'static str,
    /// Index of the entry in its store.
    pub index: usize,
    /// The note's title (first line without `#`s and tags).
    pub title: String,
    /// Resolved outgoing links.
    pub out: usize,
    /// Incoming links (backlinks).
    pub r#in: usize,
    /// Link targets no note has, as written.
    pub dangling: Vec<String>,
    /// Whether the sector came through links rather than a tag.
    pub inherited: bool,
    /// Whether the note is `#pinned`.
    pub pinned: bool,
}

/// One sector in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sector {
    /// The sector's name (a tag, or `unsorted`).
    pub name: String,
    /// Notes in the sector.
    pub count: usize,
    /// Resolved links going out of the sector's notes.
    pub links: usize,
    /// The listed notes, most connected first.
    pub entries: Vec<Entry>,
    /// Notes not listed because of the limit.
    pub more: usize,
}

/// Whole-graph figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Sectors other than `unsorted`.
    pub sectors: usize,
    /// Notes in both stores.
    pub memories: usize,
    /// Resolved note↔note links.
    pub links: usize,
    /// Notes with at least one link in or out.
    pub linked: usize,
    /// Links to titles no note has.
    pub dangling: usize,
    /// Titles held by more than one note (links go to the first).
    pub collisions: Vec<CollisionReport>,
}

/// A title shared by several notes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CollisionReport {
    /// The normalised title.
    pub title: String,
    /// The notes that have it; links resolve to the first.
    pub nodes: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Sectors, largest first, `unsorted` last.
    pub sectors: Vec<Sector>,
    /// Figures over the whole graph, whatever the filter.
    pub summary: Summary,
}

/// The node id of entry `index` of `target`.
pub fn node_id(target: Target, index: usize) -> String {
    format!("memory:{}:{index}", target.name())
}

/// The store and index of a node id (`memory:<store>:<index>`).
pub fn parse_node_id(id: &str) -> Option<(Target, usize)> {
    let rest = id.strip_prefix("memory:")?;
    let (store, index) = rest.split_once(':')?;
    Some((Target::from_name(store)?, index.parse().ok()?))
}

/// Builds the report of `graph`.
pub fn report(graph: &Graph, options: &Options) -> Report {
    let wanted = options.sector.as_ref().map(|s| s.to_lowercase());
    let sectors = graph
        .sector_counts(None)
        .into_iter()
        .filter(|(name, _)| wanted.as_ref().is_none_or(|w| w == name))
        .map(|(name, count)| {
            let mut members: Vec<usize> = graph
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.sector == name)
                .map(|(i, _)| i)
                .collect();
            let links = members.iter().map(|&i| graph.nodes[i].out.len()).sum();
            // Hubs first: most links in and out, then store order.
            members.sort_by_key(|&i| {
                let n = &graph.nodes[i];
                (std::cmp::Reverse(n.out.len() + n.inc.len()), i)
            });
            let more = members.len().saturating_sub(options.limit);
            let entries = members
                .into_iter()
                .take(options.limit)
                .map(|i| {
                    let n = &graph.nodes[i];
                    Entry {
                        node: node_id(n.target, n.index),
                        target: n.target.name(),
                        index: n.index,
                        title: n.title.clone(),
                        out: n.out.len(),
                        r#in: n.inc.len(),
                        dangling: n.dangling.clone(),
                        inherited: n.inherited,
                        pinned: n.pinned,
                    }
                })
                .collect();
            Sector {
                name,
                count,
                links,
                entries,
                more,
            }
        })
        .collect();
    let summary = Summary {
        sectors: graph
            .sector_counts(None)
            .iter()
            .filter(|(n, _)| n != UNSORTED)
            .count(),
        memories: graph.nodes.len(),
        links: graph.link_count(None),
        linked: graph
            .nodes
            .iter()
            .filter(|n| !n.out.is_empty() || !n.inc.is_empty())
            .count(),
        dangling: graph.nodes.iter().map(|n| n.dangling.len()).sum(),
        collisions: graph
            .collisions
            .iter()
            .map(|c| CollisionReport {
                title: c.title.clone(),
                nodes: c
                    .nodes
                    .iter()
                    .map(|&i| node_id(graph.nodes[i].target, graph.nodes[i].index))
                    .collect(),
            })
            .collect(),
    };
    Report { sectors, summary }
}

/// How to draw the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Total width in columns.
    pub width: usize,
    /// ANSI colours.
    pub color: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            width: 80,
            color: false,
        }
    }
}

/// Longest bar, in blocks.
const BAR: usize = 20;

fn width_of(s: &str) -> usize {
    s.chars().count()
}

fn fit(s: &str, width: usize) -> String {
    if width_of(s) <= width {
        return format!("{s}{}", " ".repeat(width - width_of(s)));
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Draws `report` for a terminal.
pub fn render(report: &Report, style: Style) -> String {
    let paint = |code: &str, text: &str| {
        if style.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    out.push_str(&paint(
        "1",
        "✦ Sectors · knowledge by area, with links in both directions",
    ));
    out.push_str("\n\n");
    let name_w = report
        .sectors
        .iter()
        .map(|s| width_of(&s.name))
        .max()
        .unwrap_or(0)
        .clamp(8, 24);
    let max = report
        .sectors
        .iter()
        .map(|s| s.count)
        .max()
        .unwrap_or(1)
        .max(1);
    // Title column: as wide as the longest listed title, within what is
    // left of the width after "  ◆ " and the counts.
    let longest = report
        .sectors
        .iter()
        .flat_map(|s| &s.entries)
        .map(|e| width_of(&e.title))
        .max()
        .unwrap_or(0);
    let title_w = longest.min(style.width.saturating_sub(4 + 18)).max(8);
    for sector in &report.sectors {
        let bar = "█".repeat((sector.count * BAR).div_ceil(max).max(1));
        let line = format!(
            "{} {:>4}  {}  ◆{} ⇄{}",
            paint("1;36", &fit(&sector.name, name_w)),
            sector.count,
            paint("36", &format!("{bar:<BAR$}")),
            sector.count,
            sector.links
        );
        out.push_str(&line);
        out.push('\n');
        for e in &sector.entries {
            let mut row = format!("  ◆ {} →{} ←{}", fit(&e.title, title_w), e.out, e.r#in);
            if !e.dangling.is_empty() {
                row.push(' ');
                row.push_str(&paint("33", &format!("⚑{}", e.dangling.len())));
            }
            out.push_str(row.trim_end());
            out.push('\n');
        }
        if sector.more > 0 {
            out.push_str(&format!("  … {} more\n", sector.more));
        }
        out.push('\n');
    }
    let s = &report.summary;
    out.push_str(&format!(
        "{} {} · {} {} · {} note↔note {}\n",
        s.sectors,
        if s.sectors == 1 { "sector" } else { "sectors" },
        s.memories,
        if s.memories == 1 {
            "memory"
        } else {
            "memories"
        },
        s.links,
        if s.links == 1 { "link" } else { "links" },
    ));
    let share = (s.linked * 100 + s.memories / 2)
        .checked_div(s.memories)
        .unwrap_or(0);
    out.push_str(&format!(
        "{}/{} notes are linked to another note ({share}%)\n",
        s.linked, s.memories
    ));
    if s.dangling > 0 {
        out.push_str(&paint(
            "33",
            &format!(
                "⚑ {} {} at notes that don't exist yet",
                s.dangling,
                if s.dangling == 1 {
                    "link points"
                } else {
                    "links point"
                }
            ),
        ));
        out.push('\n');
    }
    for c in &s.collisions {
        out.push_str(&format!(
            "⚠ title \"{}\" is shared by {}; links go to {}\n",
            c.title,
            c.nodes.join(", "),
            c.nodes[0]
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph() -> Graph {
        let memory: Vec<String> = [
            "# Vector search #retrieval\nHNSW, see [[Embeddings]] and [[Hybrid search]]",
            "# Hybrid search\nBM25 + vectors, see [[Vector search]]",
            "# Embeddings\nbge-small; used by [[Hybrid search]]",
            "# RAG plans\nBuild on [[Vector search]]; read [[Rerankers]]",
            "# Fail2ban on our hosts #infra\nsee [[SSH config]]",
            "# SSH config\nport 2222",
            "A loose note",
            "Another loose note",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        Graph::build(&memory, &[])
    }

    #[test]
    fn report_counts_like_the_spec_example() {
        let r = report(&graph(), &Options::default());
        let names: Vec<&str> = r.sectors.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["retrieval", "infra", "unsorted"]);
        assert_eq!(r.sectors[0].count, 4);
        assert_eq!(r.sectors[0].links, 5);
        assert_eq!(r.sectors[1].links, 1);
        assert_eq!(r.summary.sectors, 2);
        assert_eq!(r.summary.memories, 8);
        assert_eq!(r.summary.links, 6);
        assert_eq!(r.summary.linked, 6);
        assert_eq!(r.summary.dangling, 1);
        let rag = r.sectors[0]
            .entries
            .iter()
            .find(|e| e.title == "RAG plans")
            .unwrap();
        assert_eq!((rag.out, rag.r#in, rag.dangling.len()), (1, 0, 1));
        assert!(rag.inherited);
    }

    #[test]
    fn a_filter_narrows_the_listing_not_the_counts() {
        let r = report(
            &graph(),
            &Options {
                sector: Some("INFRA".into()),
                limit: 1,
            },
        );
        assert_eq!(r.sectors.len(), 1);
        assert_eq!(r.sectors[0].entries.len(), 1);
        assert_eq!(r.sectors[0].more, 1);
        assert_eq!(r.summary.memories, 8);
        assert_eq!(r.summary.links, 6);
    }

    #[test]
    fn render_draws_bars_counts_and_flags() {
        let text = render(&report(&graph(), &Options::default()), Style::default());
        assert!(
            text.starts_with("✦ Sectors · knowledge by area, with links in both directions\n\n")
        );
        assert!(
            text.contains("retrieval    4  ████████████████████  ◆4 ⇄5\n"),
            "{text}"
        );
        assert!(
            text.contains("  ◆ RAG plans             →1 ←0 ⚑1\n"),
            "{text}"
        );
        assert!(text.contains("  ◆ SSH config            →0 ←1\n"), "{text}");
        assert!(text.contains("2 sectors · 8 memories · 6 note↔note links\n"));
        assert!(text.contains("6/8 notes are linked to another note (75%)\n"));
        assert!(text.contains("⚑ 1 link points at notes that don't exist yet\n"));
        assert!(!text.contains('\x1b'));
        let colored = render(
            &report(&graph(), &Options::default()),
            Style {
                width: 80,
                color: true,
            },
        );
        assert!(colored.contains("\x1b[1;36m"));
    }
}
