//! The scanner corpus's splits (`tests/fixtures/scan/<split>/`), shared by
//! the `scan_heldout` example and the `scan_splits` test.

use mnemo::{Config, Memory, MemoryStorage};
use serde_json::{json, Value};

/// Every line of the split's files whose name ends with `kind`
/// (`attacks.jsonl`, or `en-attacks.jsonl` and `ru-attacks.jsonl`…).
pub fn lines(split: &str, kind: &str) -> Vec<Value> {
    let dir = format!("{}/tests/fixtures/scan/{split}", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(kind))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|path| {
            std::fs::read_to_string(path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect::<Vec<Value>>()
        })
        .collect()
}

/// Whether a write of `line` (one entry, or its two `parts` in one batch)
/// is refused by the scanner.
pub fn refused(line: &Value) -> bool {
    let config = Config::from_json(&json!({"memory": {"memory_char_limit": 100000}})).unwrap();
    let mut memory = pollster::block_on(Memory::open(MemoryStorage::new(), config)).unwrap();
    let args = match line.get("parts") {
        Some(Value::Array(parts)) => json!({"operations": parts
            .iter()
            .map(|p| json!({"action": "add", "target": "memory", "content": p}))
            .collect::<Vec<_>>()}),
        _ => json!({"action": "add", "target": "memory", "content": line["text"]}),
    };
    let result = pollster::block_on(memory.tool(&args));
    result.code.map(|c| c.code()) == Some("blocked")
}

/// The rules issue 13 makes block wherever they appear, whatever the note
/// around them says: chat-template tokens and wrapper tags (mnemo's own
/// `<memory-context>` among them), which a serving stack may read as the
/// conversation's structure.
pub const MANDATED: [&str; 2] = ["role.chat-template", "role.fake-wrapper"];

/// Whether lookalike `line` is blocked only for a chat-template token or a
/// wrapper tag ([`MANDATED`]): refused by design, not by mistake.
#[allow(dead_code)]
pub fn mandated(line: &Value) -> bool {
    let text = match line.get("parts") {
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => line["text"].as_str().unwrap_or_default().to_string(),
    };
    let verdict = mnemo::scan::scan(&text);
    verdict.blocked
        && !verdict.findings.is_empty()
        && verdict.findings.iter().all(|f| MANDATED.contains(&f.id))
}
