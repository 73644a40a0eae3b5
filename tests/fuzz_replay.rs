//! Replays every saved fuzz input (`fuzz/corpus/<target>/`, the minimised
//! corpora, and `fuzz/regressions/<target>/`, the inputs that once failed)
//! through the same property checks the fuzz targets run (`tests/props/`),
//! on stable, plus proptest properties for the store round-trip and the
//! memory tool's no-loss promise.
#![cfg(not(target_arch = "wasm32"))]

mod props;

use std::path::Path;

use proptest::prelude::*;

/// Runs every saved input of `target` through its property.
fn replay(target: &str) {
    let (_, check) = props::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a known target");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut count = 0;
    for dir in ["corpus", "regressions"] {
        let Ok(files) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = files.filter_map(|f| f.ok()).map(|f| f.path()).collect();
        paths.sort();
        for path in paths {
            let data = std::fs::read(&path).expect("a saved input reads");
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{} fails its property", path.display());
            count += 1;
        }
    }
    assert!(count > 0, "no saved inputs for {target}");
}

macro_rules! replays {
    ($($target:ident)*) => {$(
        #[test]
        fn $target() {
            replay(stringify!($target));
        }
    )*};
}

mod saved_inputs_keep_their_properties {
    use super::replay;
    replays!(store tool config scanner text wikilinks approval skills transcripts);
}

/// Text an entry may hold: words, spaces, line breaks (CR too), `§`, a BOM,
/// and any other character now and then.
fn entry_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            6 => "[a-zA-Zа-я0-9 ]{1,12}",
            1 => Just("\n".to_string()),
            1 => Just("\r\n".to_string()),
            1 => Just("\r".to_string()),
            1 => Just("§".to_string()),
            1 => Just("\n§\n".to_string()),
            1 => Just("\u{feff}".to_string()),
            1 => any::<char>().prop_map(String::from),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any file: parse → serialize → parse is canonical and stable.
    #[test]
    fn any_store_file_round_trips(limit in 0u8..255, parts in proptest::collection::vec(entry_text(), 0..6)) {
        let mut data = vec![limit];
        data.extend(parts.join("\n§\n").into_bytes());
        props::store::check(&data);
    }

    /// Entries written through the tool (cleaned, and passed by the
    /// scanner, which refuses a byte-order mark) read back the same from
    /// the file.
    #[test]
    fn written_entries_read_back(entries in proptest::collection::vec(entry_text(), 0..6)) {
        let cleaned: Vec<String> = entries
            .iter()
            .filter_map(|e| mnemo::store::clean_content("content", e).ok())
            .filter(|e| !mnemo::scan::scan(e).blocked)
            .collect();
        let text = mnemo::Store::new(cleaned.clone()).serialize();
        prop_assert_eq!(mnemo::store::parse(&text), cleaned);
    }

    /// No sequence of tool calls loses an acknowledged write or leaves a
    /// store over its limit.
    #[test]
    fn tool_calls_lose_no_acknowledged_write(steps in proptest::collection::vec(step(), 1..24)) {
        props::tool::run(&steps);
    }
}

/// One step of a tool sequence: a write over a small vocabulary (so that
/// replaces and removes find their entries), a search, a turn's end, a
/// reopen.
fn step() -> impl Strategy<Value = props::tool::Step> {
    use props::tool::Step;
    use serde_json::json;
    let word = prop::sample::select(vec![
        "deploy",
        "tuesday",
        "cargo",
        "берлин",
        "port",
        "8080",
        "§",
        "\r\n",
        "  ",
    ]);
    let text = proptest::collection::vec(word, 1..8).prop_map(|w| w.join(" "));
    let target = prop::sample::select(vec!["memory", "user"]);
    prop_oneof![
        4 => (target.clone(), text.clone()).prop_map(|(t, c)| Step::Call(json!({"action": "add", "target": t, "content": c}))),
        2 => (target.clone(), text.clone(), text.clone()).prop_map(|(t, o, c)| Step::Call(json!({"action": "replace", "target": t, "old_text": o, "content": c}))),
        2 => (target.clone(), text.clone()).prop_map(|(t, o)| Step::Call(json!({"action": "remove", "target": t, "old_text": o}))),
        1 => (text.clone(), text.clone(), text).prop_map(|(a, o, c)| Step::Call(json!({"operations": [
            {"action": "add", "target": "memory", "content": a},
            {"action": "replace", "target": "memory", "old_text": o, "content": c}]}))),
        1 => Just(Step::EndTurn),
        1 => Just(Step::Reopen),
    ]
}
