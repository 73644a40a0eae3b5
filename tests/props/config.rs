//! The configuration: any JSON text is a config or an `invalid-config`
//! error; a valid one survives a round trip through its own JSON and keeps
//! its limits in range.

use mnemo::config::MAX_LIMIT;
use mnemo::{Config, ErrorKind, Target};

/// The input is the config's JSON text.
pub fn check(data: &[u8]) {
    let text = super::lossy(data);
    match Config::from_json_str(&text) {
        Ok(config) => {
            config.validate().expect("a parsed config validates");
            let json = serde_json::to_value(&config).expect("a config serialises");
            let back = Config::from_json(&json).expect("a config's own JSON parses");
            assert_eq!(back, config, "round trip of {text}");
            for target in [Target::Memory, Target::User] {
                let limit = config.storage_limit(target);
                assert!(limit >= 1, "{target:?} limit {limit}");
                assert!(config.verbatim_budget(target) >= 1);
                assert!(config.verbatim_budget(target) <= MAX_LIMIT);
            }
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::InvalidConfig, "{e:?}");
            assert!(!e.message().is_empty());
        }
    }
}
