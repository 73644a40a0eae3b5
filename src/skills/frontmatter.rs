//! The YAML frontmatter of a `SKILL.md`: `name`, `description`,
//! `category` and optional `tags`, between two `---` lines.
//!
//! mnemo reads the subset of YAML that skill files use: `key: value`
//! lines with plain, single- or double-quoted scalars, a `tags` list in
//! flow (`[a, b]`) or block (`- a`) form, `>`/`|` block scalars for a long
//! description, and any other key (with its indented block) kept in the
//! file and ignored. Anything else (a line that is no `key: value`, an
//! unclosed quote, a tab indent, a repeated key) is an error naming the
//! line, so a bad file is reported rather than half read. A full YAML
//! library would cost the npm and component builds its bytes for keys
//! mnemo never reads.

use crate::error::{Error, ErrorKind, Result};

/// The fields mnemo reads from a skill's frontmatter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frontmatter {
    /// `name`: the skill's name (its directory's name).
    pub name: String,
    /// `description`: one line saying when to use it.
    pub description: String,
    /// `category`: the sector the skill is filed in.
    pub category: Option<String>,
    /// `tags`, in order.
    pub tags: Vec<String>,
}

fn bad(line: usize, what: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!("SKILL.md frontmatter, line {line}: {what}"),
    )
}

/// Splits `text` into its frontmatter and body and reads the frontmatter.
/// The body is what follows the closing `---` line.
pub fn parse(text: &str) -> Result<(Frontmatter, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "SKILL.md must start with YAML frontmatter: a `---` line, `name:`, \
             `description:` and `category:` lines, and a closing `---` line",
        ));
    }
    let mut offset = first.len();
    let mut yaml: Vec<&str> = Vec::new();
    let mut closed = false;
    for line in lines {
        offset += line.len();
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push(line.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "SKILL.md frontmatter is not closed: add a `---` line after its last key",
        ));
    }
    let fields = read_fields(&yaml)?;
    let mut fm = Frontmatter::default();
    let (mut name, mut description) = (None, None);
    for (line, key, value) in fields {
        match key.as_str() {
            "name" => name = Some(scalar(line, &key, value)?),
            "description" => description = Some(scalar(line, &key, value)?),
            "category" => fm.category = Some(scalar(line, &key, value)?),
            "tags" => fm.tags = list(line, value)?,
            _ => {}
        }
    }
    fm.name = name.filter(|n| !n.trim().is_empty()).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidInput,
            "SKILL.md frontmatter needs `name:` (the skill's name, e.g. `name: deploy-checklist`)",
        )
    })?;
    fm.description = description
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                "SKILL.md frontmatter needs `description:` (one line saying when to use the skill)",
            )
        })?;
    fm.name = fm.name.trim().to_string();
    fm.description = fm.description.trim().to_string();
    fm.category = fm
        .category
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty());
    Ok((fm, &text[offset.min(text.len())..]))
}

/// A key's value as written: inline text, or the indented lines under it.
enum Value {
    Inline(String),
    Block(Vec<(usize, String)>),
}

/// The top-level `key: value` pairs with their line numbers (1-based,
/// counting the opening `---` as line 1).
fn read_fields(yaml: &[&str]) -> Result<Vec<(usize, String, Value)>> {
    let mut out: Vec<(usize, String, Value)> = Vec::new();
    for (i, raw) in yaml.iter().enumerate() {
        let line = i + 2;
        if raw.starts_with('\t') {
            return Err(bad(line, "indent with spaces, not tabs"));
        }
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if raw.starts_with(' ') || trimmed.starts_with("- ") || trimmed == "-" {
            // Belongs to the key above.
            match out.last_mut() {
                Some((_, _, Value::Block(lines))) => lines.push((line, raw.to_string())),
                Some((_, key, v @ Value::Inline(_))) => {
                    if let Value::Inline(s) = v {
                        if s.is_empty() || s == ">" || s == "|" || s == ">-" || s == "|-" {
                            let style = std::mem::take(s);
                            *v = Value::Block(vec![(0, style), (line, raw.to_string())]);
                            continue;
                        }
                    }
                    return Err(bad(
                        line,
                        format!("an indented line under `{key}`, which already has a value"),
                    ));
                }
                None => return Err(bad(line, "an indented line before any key")),
            }
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(bad(
                line,
                format!("expected `key: value`, found {:?}", short(trimmed)),
            ));
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(bad(line, format!("{:?} is not a key", short(key))));
        }
        if !value.is_empty() && !value.starts_with(' ') {
            return Err(bad(line, format!("put a space after `{key}:`")));
        }
        if out.iter().any(|(_, k, _)| k == key) {
            return Err(bad(line, format!("`{key}` appears twice")));
        }
        out.push((
            line,
            key.to_string(),
            Value::Inline(value.trim().to_string()),
        ));
    }
    Ok(out)
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// A scalar value: plain, quoted, or a `>`/`|` block.
fn scalar(line: usize, key: &str, value: Value) -> Result<String> {
    match value {
        Value::Inline(s) => unquote(line, &s),
        Value::Block(lines) => {
            let style = lines.first().map(|(_, s)| s.clone()).unwrap_or_default();
            let body: Vec<&str> = lines[1..].iter().map(|(_, l)| l.trim()).collect();
            if style.starts_with('|') {
                Ok(body.join("\n"))
            } else if style.starts_with('>') || style.is_empty() {
                if style.is_empty() && body.iter().any(|l| l.starts_with('-')) {
                    return Err(bad(line, format!("`{key}` takes one value, not a list")));
                }
                Ok(body.join(" "))
            } else {
                Err(bad(line, format!("`{key}` has an unreadable value")))
            }
        }
    }
}

/// Removes the quotes of a quoted scalar, reading `\"`-style escapes in
/// double quotes and `''` in single quotes.
fn unquote(line: usize, s: &str) -> Result<String> {
    if let Some(rest) = s.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    let tail: String = chars.collect();
                    return trailing(line, &tail).map(|_| out);
                }
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(c @ ('"' | '\\' | '/')) => out.push(c),
                    Some(c) => {
                        out.push('\\');
                        out.push(c);
                    }
                    None => break,
                },
                c => out.push(c),
            }
        }
        return Err(bad(line, "a double quote is not closed"));
    }
    if let Some(rest) = s.strip_prefix('\'') {
        let mut out = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    out.push('\'');
                    continue;
                }
                let tail: String = chars.collect();
                return trailing(line, &tail).map(|_| out);
            }
            out.push(c);
        }
        return Err(bad(line, "a single quote is not closed"));
    }
    // A plain scalar: a ` #` starts a comment.
    let plain = match s.find(" #") {
        Some(i) => &s[..i],
        None => s,
    };
    Ok(plain.trim().to_string())
}

fn trailing(line: usize, tail: &str) -> Result<()> {
    let tail = tail.trim();
    if tail.is_empty() || tail.starts_with('#') {
        Ok(())
    } else {
        Err(bad(
            line,
            format!("text after the closing quote: {:?}", short(tail)),
        ))
    }
}

/// A list value: `[a, "b c"]`, `- a` lines, or one plain word.
fn list(line: usize, value: Value) -> Result<Vec<String>> {
    let items = match value {
        Value::Inline(s) if s.is_empty() => Vec::new(),
        Value::Inline(s) => {
            if let Some(inner) = s.strip_prefix('[') {
                let Some(inner) = inner.trim_end().strip_suffix(']') else {
                    return Err(bad(line, "a `[` list is not closed with `]`"));
                };
                split_flow(inner)
                    .into_iter()
                    .map(|item| unquote(line, item.trim()))
                    .collect::<Result<Vec<_>>>()?
            } else {
                vec![unquote(line, &s)?]
            }
        }
        Value::Block(lines) => {
            let mut out = Vec::new();
            for (l, text) in &lines[1..] {
                let t = text.trim();
                let Some(item) = t.strip_prefix('-') else {
                    return Err(bad(*l, "expected a `- item` line of the list"));
                };
                out.push(unquote(*l, item.trim())?);
            }
            out
        }
    };
    Ok(items
        .into_iter()
        .map(|t| {
            t.trim_start_matches(|c: char| c == '#' || c.is_whitespace())
                .trim_end()
                .to_string()
        })
        .filter(|t| !t.is_empty())
        .collect())
}

/// Splits a flow list's inside at commas outside quotes (a `\` escapes
/// the next character inside double quotes, as [`unquote`] reads it).
fn split_flow(inner: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quote) = (0, None::<char>);
    let mut escaped = false;
    for (i, c) in inner.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('"'), '\\') => escaped = true,
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ',') => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&inner[start..]);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// Writes a frontmatter block for `fm` (used when the tool is given the
/// fields rather than a whole file).
pub fn render(fm: &Frontmatter) -> String {
    let mut out = String::from("---\n");
    out.push_str(&format!("name: {}\n", quote(&fm.name)));
    out.push_str(&format!("description: {}\n", quote(&fm.description)));
    if let Some(c) = &fm.category {
        out.push_str(&format!("category: {}\n", quote(c)));
    }
    if !fm.tags.is_empty() {
        let tags: Vec<String> = fm.tags.iter().map(|t| quote(t)).collect();
        out.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    }
    out.push_str("---\n");
    out
}

/// A scalar written so [`parse`] reads it back unchanged.
fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with([
            '"', '\'', '[', '{', '>', '|', '-', '#', '&', '*', '!', '%', '@', '`', ' ',
        ])
        && !s.ends_with(' ')
        && !s.contains(": ")
        && !s.contains(" #")
        // A quote inside a plain scalar would open a quote in a `[…]` list.
        && !s.contains(['\n', ',', ']', '"', '\'']);
    if plain {
        s.to_string()
    } else {
        format!(
            "\"{}\"",
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_and_the_body() {
        let text = "---\nname: deploy-checklist\ndescription: \"Ship: the safe way\"\n\
                    category: devops\ntags: [ci, 'release day']\nversion: 1.0.0\n\
                    metadata:\n  owner: ops\n---\n# Deploy\nRun the tests.\n";
        let (fm, body) = parse(text).unwrap();
        assert_eq!(fm.name, "deploy-checklist");
        assert_eq!(fm.description, "Ship: the safe way");
        assert_eq!(fm.category.as_deref(), Some("devops"));
        assert_eq!(fm.tags, ["ci", "release day"]);
        assert_eq!(body, "# Deploy\nRun the tests.\n");
    }

    #[test]
    fn block_lists_and_folded_descriptions() {
        let text = "---\nname: a\ndescription: >\n  when the build\n  breaks\ntags:\n  - x\n  - \"#y\"\n---\n";
        let (fm, body) = parse(text).unwrap();
        assert_eq!(fm.description, "when the build breaks");
        assert_eq!(fm.tags, ["x", "y"]);
        assert_eq!(fm.category, None);
        assert_eq!(body, "");
    }

    #[test]
    fn missing_and_malformed_frontmatter_are_named() {
        let cases = [
            ("# Just a body\n", "must start with YAML frontmatter"),
            ("---\nname: a\ndescription: b\n", "not closed"),
            ("---\ndescription: b\n---\n", "needs `name:`"),
            ("---\nname: a\n---\n", "needs `description:`"),
            (
                "---\nname: a\ndescription: \"b\n---\n",
                "line 3: a double quote is not closed",
            ),
            (
                "---\nname: a\njust words\ndescription: b\n---\n",
                "line 3: expected `key: value`",
            ),
            (
                "---\nname: a\nname: b\ndescription: c\n---\n",
                "`name` appears twice",
            ),
            (
                "---\nname: a\ndescription: b\ntags: [x, y\n---\n",
                "not closed with `]`",
            ),
            (
                "---\nname:a\ndescription: b\n---\n",
                "put a space after `name:`",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput);
            assert!(e.message().contains(want), "{text:?}: {}", e.message());
        }
    }

    #[test]
    fn render_round_trips() {
        let fm = Frontmatter {
            name: "x-y".into(),
            description: "Use when: \"quotes\", commas #and hashes".into(),
            category: Some("dev ops".into()),
            tags: vec!["a b".into(), "c".into()],
        };
        let text = format!("{}body\n", render(&fm));
        let (back, body) = parse(&text).unwrap();
        assert_eq!(back, fm);
        assert_eq!(body, "body\n");
    }
}
