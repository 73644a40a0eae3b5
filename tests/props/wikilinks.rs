//! The `[[wikilink]]` and `#tag` reader (`src/graph.rs`) and the sectors
//! built on it: links and tags are well formed, the graph's edges agree in
//! both directions, every note is in exactly one sector.

use mnemo::graph::{links, tags, title_of, Graph};
use mnemo::sectors::Options;
use mnemo::{Config, Memory, MemoryStorage, Target};

/// The input is a `MEMORY.md` file: each entry is read for links and tags.
pub fn check(data: &[u8]) {
    let text = super::lossy(data);
    let entries = mnemo::store::parse(&text);
    for entry in &entries {
        for link in links(entry) {
            assert!(!link.is_empty() && link.trim() == link, "{link:?}");
            assert!(
                !link.contains(['\n', '|']) && !link.contains("]]"),
                "{link:?}"
            );
        }
        for tag in tags(entry) {
            assert!(!tag.is_empty(), "empty tag in {entry:?}");
            assert!(!tag.chars().any(char::is_whitespace), "{tag:?}");
            assert!(!tag.ends_with(['-', '/']), "{tag:?}");
            assert!(!tag.chars().all(|c| c.is_ascii_digit()), "{tag:?}");
            assert_eq!(tag.to_lowercase(), tag);
        }
        assert!(!title_of(entry).contains('\n'));
    }
    let (memory, user) = entries.split_at(entries.len() / 2);
    let graph = Graph::build(memory, user);
    assert_eq!(graph.nodes.len(), entries.len());
    for (i, node) in graph.nodes.iter().enumerate() {
        for &o in &node.out {
            assert!(o < graph.nodes.len());
            assert!(
                graph.nodes[o].inc.contains(&i),
                "edge {i}→{o} missing its back link"
            );
        }
        for &n in &node.inc {
            assert!(
                graph.nodes[n].out.contains(&i),
                "back link {n}←{i} without an edge"
            );
        }
        assert!(!node.sector.is_empty());
        for hops in 0..3 {
            assert!(graph
                .neighbours(i, hops)
                .iter()
                .all(|&n| n < graph.nodes.len()));
        }
    }
    // The sectors report through a memory holding the file.
    let storage = MemoryStorage::with_clock(|| 1_795_980_426_000);
    storage.put("MEMORY.md", data.to_vec());
    if let Ok(mut m) = super::block_on(Memory::open(storage, Config::default())) {
        let count = m.store(Target::Memory).entries().len();
        let report = m.sectors(&Options::default());
        let listed: usize = report.sectors.iter().map(|s| s.count).sum();
        assert_eq!(listed, count, "every note is in one sector");
    }
}
