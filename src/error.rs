//! The one error type of mnemo.
//!
//! Every failure carries an [`ErrorKind`] whose [`code`](ErrorKind::code) is a
//! stable kebab-case string. The codes are part of the public contract: they
//! appear in tool results, in the JS `MnemoError.code`, in the TypeScript
//! types and in the CLI's exit messages. Codes are never renamed; new kinds
//! may be added.

use std::fmt;

/// What went wrong, as a stable, documented category.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A tool call or API argument has the wrong shape: a wrong type, a
    /// missing required field or an unknown field.
    InvalidInput,
    /// The tool `action` is not one mnemo supports.
    UnknownAction,
    /// The tool `target` is neither `memory` nor `user`.
    UnknownTarget,
    /// `content` or `old_text` is empty or only whitespace.
    Empty,
    /// Text that cannot be stored: a NUL byte, a lone UTF-16 surrogate, or a
    /// line holding only `§` (it would split the entry in two).
    InvalidText,
    /// A single entry longer than the store's storage limit, or a recorded
    /// session message longer than the scanner reads (256 KiB).
    TooLong,
    /// The security scanner blocked the text (prompt injection,
    /// exfiltration, a secret, invisible Unicode…).
    Blocked,
    /// `old_text` matches no entry.
    NoMatch,
    /// `old_text` matches several entries.
    AmbiguousMatch,
    /// The write would take the store over its storage limit.
    StoreFull,
    /// The store is switched off in the configuration.
    StoreDisabled,
    /// The store's file could not be read safely (invalid UTF-8, a NUL byte,
    /// an entry longer than the storage limit); writes are refused until a
    /// person fixes it.
    StoreDamaged,
    /// Too many failed writes in one turn: the agent must stop retrying.
    RetryLimit,
    /// The configuration passed to `open` (or read from a file) is invalid.
    InvalidConfig,
    /// The memory was closed; no further calls are accepted.
    Closed,
    /// Another writer holds the store's lock for too long.
    Locked,
    /// The storage backend failed to read or write.
    Storage,
    /// A bug in mnemo; please report it.
    Internal,
    /// This build or storage lacks the feature asked for (say, session
    /// search in the lean build without SQLite, or over an adapter that
    /// keeps no database).
    Unsupported,
}

impl ErrorKind {
    /// Every kind, in declaration order (for docs, bindings and drift tests).
    pub const ALL: [ErrorKind; 19] = [
        ErrorKind::InvalidInput,
        ErrorKind::UnknownAction,
        ErrorKind::UnknownTarget,
        ErrorKind::Empty,
        ErrorKind::InvalidText,
        ErrorKind::TooLong,
        ErrorKind::Blocked,
        ErrorKind::NoMatch,
        ErrorKind::AmbiguousMatch,
        ErrorKind::StoreFull,
        ErrorKind::StoreDisabled,
        ErrorKind::StoreDamaged,
        ErrorKind::RetryLimit,
        ErrorKind::InvalidConfig,
        ErrorKind::Closed,
        ErrorKind::Locked,
        ErrorKind::Storage,
        ErrorKind::Internal,
        ErrorKind::Unsupported,
    ];

    /// The stable kebab-case code of this kind.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid-input",
            ErrorKind::UnknownAction => "unknown-action",
            ErrorKind::UnknownTarget => "unknown-target",
            ErrorKind::Empty => "empty",
            ErrorKind::InvalidText => "invalid-text",
            ErrorKind::TooLong => "too-long",
            ErrorKind::Blocked => "blocked",
            ErrorKind::NoMatch => "no-match",
            ErrorKind::AmbiguousMatch => "ambiguous-match",
            ErrorKind::StoreFull => "store-full",
            ErrorKind::StoreDisabled => "store-disabled",
            ErrorKind::StoreDamaged => "store-damaged",
            ErrorKind::RetryLimit => "retry-limit",
            ErrorKind::InvalidConfig => "invalid-config",
            ErrorKind::Closed => "closed",
            ErrorKind::Locked => "locked",
            ErrorKind::Storage => "storage",
            ErrorKind::Internal => "internal",
            ErrorKind::Unsupported => "unsupported",
        }
    }

    /// The kind whose code is `code`, if any.
    pub fn from_code(code: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// An error with a stable [`ErrorKind`] and a message meant for the reader
/// (a person or an LLM) that says what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// The category of this error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Shorthand for `self.kind().code()`.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn input(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidInput, message)
    }

    pub(crate) fn storage(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Storage, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.kind.code())
    }
}

impl std::error::Error for Error {}

/// The result type of mnemo.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for kind in ErrorKind::ALL {
            let code = kind.code();
            assert!(seen.insert(code), "duplicate code {code}");
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert_eq!(ErrorKind::from_code(code), Some(kind));
        }
    }
}

#[cfg(test)]
mod drift {
    use super::ErrorKind;

    /// The TypeScript types list exactly the core's codes.
    #[test]
    fn typescript_error_codes_match_the_core() {
        let ts = include_str!("bindings/js/types.d.ts");
        let start = ts.find("export type ErrorCode =").expect("ErrorCode type");
        let block = &ts[start..ts[start..].find(';').map_or(ts.len(), |e| start + e)];
        let listed: Vec<&str> = block.split('"').skip(1).step_by(2).collect();
        let codes: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        assert_eq!(listed, codes);
    }

    /// The WIT `error-code` enum lists exactly the core's codes.
    #[test]
    fn wit_error_codes_match_the_core() {
        let wit = include_str!("../wit/mnemo.wit");
        let start = wit.find("enum error-code {").expect("error-code enum");
        let body = &wit[start + "enum error-code {".len()..];
        let body = &body[..body.find('}').expect("end of enum")];
        let listed: Vec<&str> = body
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let codes: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        assert_eq!(listed, codes);
    }
}
