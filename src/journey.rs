//! The learning journey: every entry on a timeline, with its sector and
//! links, from the graph and the sidecar's dates.
//!
//! [`journey`] builds the payload (`mnemo journey --json`, JS `journey()`).
//!
//! Data only: drawing the timeline for a terminal is the CLI's job, never
//! this module's.

use serde::Serialize;

use crate::graph::Graph;
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
    pub target: Target,
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
    let id = |n: usize| sidecar.node_id(graph.nodes[n].target, graph.nodes[n].index);
    let mut nodes: Vec<Node> = graph
        .nodes
        .iter()
        .map(|n| {
            let record = sidecar.records(n.target).get(n.index);
            let blocked = stores[n.target.index()].verdict(n.index).is_some();
            Node {
                id: sidecar.node_id(n.target, n.index),
                entry_id: record.map_or_else(String::new, |r| r.id.clone()),
                target: n.target,
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
    nodes.sort_by_key(|n| (n.first_seen, n.target != Target::Memory, n.index));
    Journey {
        nodes,
        links: graph.link_count(None),
    }
}
