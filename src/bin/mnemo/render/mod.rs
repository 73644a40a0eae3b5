//! Everything that draws for a terminal: ANSI colours, bars and column
//! widths, dates, JSON for people, and writing to standard output.
//!
//! The core hands over data ([`mnemo::sectors::Report`],
//! [`mnemo::journey::Journey`], [`mnemo::StoreStatus`]); this module turns it
//! into text. It never decides anything: what is shown was chosen by the
//! core or by the command that calls it.

mod activity;
mod approval;
pub mod play;
mod recall;

pub use activity::activity;
pub use approval::{pending, review, staged_write, still_pending};
pub use recall::recall;

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use mnemo::journey::Journey;
use mnemo::sectors::Report;
use mnemo::store::thousands;
use mnemo::{Error, ErrorKind, Result, StoreStatus, Target};

/// How to draw a report.
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

impl Style {
    /// `text` in the ANSI style `code` (SGR parameters), or as it is
    /// without colours.
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// ANSI colours: on a terminal, unless `--no-color` or `NO_COLOR`.
pub fn use_color(no_color: bool) -> bool {
    !no_color && std::env::var_os("NO_COLOR").is_none() && io::stdout().is_terminal()
}

/// Writes to standard output. A closed pipe (`mnemo prompt | head`) is not
/// an error: the reader has what it wanted.
pub fn out(text: &str) -> Result<()> {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::new(
            ErrorKind::Storage,
            format!("cannot write to standard output: {e}"),
        )),
    }
}

/// `value` as indented JSON with a final newline.
pub fn pretty<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Error::new(ErrorKind::Internal, format!("cannot encode JSON: {e}")))
}

/// Now, in ms since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `text` safe to print on a terminal: control characters other than line
/// breaks and tabs (an escape sequence a model wrote, say) are shown
/// escaped instead of acted on.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` on one line, safe for a terminal, cut to `max` chars (the last
/// one `…` when cut).
pub fn one_line(text: &str, max: usize) -> String {
    mnemo::notify::cut(&clean(text), max)
}

/// How long ago `then` was, from `now` (both ms): `just now`, `42s`, `5m`,
/// `3h`, `2d`.
pub fn age(now: u64, then: u64) -> String {
    let s = now.saturating_sub(then) / 1000;
    match s {
        0..=4 => "just now".to_string(),
        5..=59 => format!("{s}s ago"),
        60..=3_599 => format!("{}m ago", s / 60),
        3_600..=86_399 => format!("{}h ago", s / 3_600),
        _ => format!("{}d ago", s / 86_400),
    }
}

/// `1 entry`, `2 entries`.
pub fn entries(n: usize) -> String {
    format!("{n} {}", if n == 1 { "entry" } else { "entries" })
}

/// `YYYY-MM-DD HH:MM` (UTC) of a time in ms since the Unix epoch; times
/// before the epoch show as the epoch.
pub fn when<T: TryInto<u64>>(ms: T) -> String {
    let (day, time) = day_and_time(ms.try_into().unwrap_or(0));
    format!("{day} {time}")
}

/// A history item's cause as `mnemo history` shows it (the JSON's name).
/// A match rather than the serde name: a new cause must be named here.
pub fn cause(cause: mnemo::sidecar::Cause) -> &'static str {
    use mnemo::sidecar::Cause;
    match cause {
        Cause::Replace => "replace",
        Cause::Remove => "remove",
        Cause::Import => "import",
        Cause::Rejected => "rejected",
        Cause::Supersede => "supersede",
        Cause::Prune => "prune",
        Cause::Merge => "merge",
    }
}

/// `YYYY-MM-DD` (UTC) of a time in ms since the Unix epoch.
pub fn day(ms: u64) -> String {
    day_and_time(ms).0
}

/// `YYYY-MM-DD` and `HH:MM` (UTC) of a time in ms.
fn day_and_time(ms: u64) -> (String, String) {
    let t = mnemo::time::Utc::at(ms);
    (t.date(), t.clock())
}

/// The `mnemo status` lines of one store, starting with a blank line.
pub fn store_status(target: Target, s: &StoreStatus, dir: &Path) -> String {
    let what = match target {
        Target::Memory => "the agent's notes",
        Target::User => "the user profile",
    };
    let mut text = format!(
        "\n{} ({what})\n  file             {}\n  entries          {}\n  chars            {}\n  \
         usage            {}\n  verbatim budget  {} chars\n  storage limit    {} chars\n  \
         mode             {}\n  enabled          {}\n",
        target.file_name(),
        dir.join(target.file_name()).display(),
        s.entries,
        thousands(s.chars),
        s.usage,
        thousands(s.verbatim_budget),
        thousands(s.storage_limit),
        s.mode,
        if s.enabled { "yes" } else { "no" },
    );
    if let Some(why) = &s.damaged {
        text.push_str(&format!(
            "  damaged          {why}; writes are refused until the file is fixed by hand \
             (a copy was saved as {}.bak.<time>)\n",
            target.file_name()
        ));
    }
    text
}

/// Longest sector bar, in blocks.
const BAR: usize = 20;

fn width_of(s: &str) -> usize {
    s.chars().count()
}

/// `s` padded or cut (with `…`) to exactly `width` columns.
fn fit(s: &str, width: usize) -> String {
    if width_of(s) <= width {
        return format!("{s}{}", " ".repeat(width - width_of(s)));
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Draws the sectors report: a bar per sector, its notes with their links
/// (→ out, ← in, ⚑ dangling), then the whole-graph summary.
pub fn sectors(report: &Report, style: Style) -> String {
    let mut out = String::new();
    out.push_str(&style.paint(
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
        let glyphs = if sector.skills > 0 {
            format!("◆{} ✧{}", sector.count - sector.skills, sector.skills)
        } else {
            format!("◆{}", sector.count)
        };
        let line = format!(
            "{} {:>4}  {}  {glyphs} ⇄{}",
            style.paint("1;36", &fit(&sector.name, name_w)),
            sector.count,
            style.paint("36", &format!("{bar:<BAR$}")),
            sector.links
        );
        out.push_str(&line);
        out.push('\n');
        for e in &sector.entries {
            let glyph = match e.kind {
                mnemo::journey::Kind::Note => "◆",
                mnemo::journey::Kind::Skill => "✧",
            };
            let mut row = format!(
                "  {glyph} {} →{} ←{}",
                fit(&e.title, title_w),
                e.out,
                e.r#in
            );
            if !e.dangling.is_empty() {
                row.push(' ');
                row.push_str(&style.paint("33", &format!("⚑{}", e.dangling.len())));
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
    let skills = match s.skills {
        0 => String::new(),
        1 => " · 1 skill".to_string(),
        n => format!(" · {n} skills"),
    };
    out.push_str(&format!(
        "{} {} · {} {}{skills} · {} note↔note {} · {} note↔skill {}\n",
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
        s.skill_links,
        if s.skill_links == 1 { "link" } else { "links" },
    ));
    let share = (s.linked * 100 + s.memories / 2)
        .checked_div(s.memories)
        .unwrap_or(0);
    out.push_str(&format!(
        "{}/{} notes are linked to another note ({share}%)\n",
        s.linked, s.memories
    ));
    if s.dangling > 0 {
        out.push_str(&style.paint(
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

/// Draws the journey: the timeline oldest first, one row per entry under
/// its day.
pub fn journey(journey: &Journey, style: Style) -> String {
    let mut out = style.paint("1", "✦ Journey · what mnemo learned, oldest first");
    out.push_str("\n\n");
    let longest = journey
        .nodes
        .iter()
        .map(|n| n.title.chars().count())
        .max()
        .unwrap_or(0);
    let title_w = longest.min(style.width.saturating_sub(40)).max(12);
    let mut day = String::new();
    for n in &journey.nodes {
        let (d, t) = day_and_time(n.first_seen);
        if d != day {
            if !day.is_empty() {
                out.push('\n');
            }
            out.push_str(&style.paint("1", &d));
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
        let glyph = match n.kind {
            mnemo::journey::Kind::Note => "◆",
            mnemo::journey::Kind::Skill => "✧",
        };
        let mut row = format!(
            "  {t}  {glyph} {title}  {}  →{} ←{}",
            style.paint("36", &format!("{:<12}", n.sector)),
            n.out.len(),
            n.r#in.len()
        );
        if !n.dangling.is_empty() {
            row.push_str(&style.paint("33", &format!(" ⚑{}", n.dangling.len())));
        }
        if n.last_changed > n.first_seen {
            row.push_str(&format!("  (changed {})", when(n.last_changed)));
        }
        out.push_str(row.trim_end());
        out.push_str(&format!("  {}\n", style.paint("2", &n.id)));
    }
    if journey.nodes.is_empty() {
        out.push_str("(no memories yet)\n");
    } else {
        out.push('\n');
        let skills = journey
            .nodes
            .iter()
            .filter(|n| n.kind == mnemo::journey::Kind::Skill)
            .count();
        let n = |count: usize, one: &str, many: &str| {
            format!("{count} {}", if count == 1 { one } else { many })
        };
        out.push_str(&format!(
            "{} · {} · {} · {}\n",
            n(journey.nodes.len() - skills, "memory", "memories"),
            n(skills, "skill", "skills"),
            n(journey.links, "note↔note link", "note↔note links"),
            n(journey.skill_links, "note↔skill link", "note↔skill links"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mnemo::graph::Graph;
    use mnemo::journey::Node;
    use mnemo::sectors::{report, Options};
    use mnemo::sidecar::Sidecar;

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
    fn sectors_draws_bars_counts_and_flags() {
        let text = sectors(
            &report(&graph(), &Sidecar::default(), &[], &Options::default()),
            Style::default(),
        );
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
        assert!(text.contains("2 sectors · 8 memories · 6 note↔note links · 0 note↔skill links\n"));
        assert!(text.contains("6/8 notes are linked to another note (75%)\n"));
        assert!(text.contains("⚑ 1 link points at notes that don't exist yet\n"));
        assert!(!text.contains('\x1b'));
        let colored = sectors(
            &report(&graph(), &Sidecar::default(), &[], &Options::default()),
            Style {
                width: 80,
                color: true,
            },
        );
        assert!(colored.contains("\x1b[1;36m"));
    }

    fn node(first_seen: u64, last_changed: u64) -> Node {
        Node {
            id: "memory:memory:0".into(),
            kind: mnemo::journey::Kind::Note,
            entry_id: "e1".into(),
            target: Some(Target::Memory),
            index: 0,
            title: "Vector search".into(),
            sector: "retrieval".into(),
            first_seen,
            last_changed,
            out: vec!["memory:memory:1".into()],
            r#in: vec![],
            dangling: vec!["Rerankers".into()],
            pinned: false,
            blocked: false,
            agent: None,
        }
    }

    #[test]
    fn journey_draws_days_rows_and_changes() {
        let empty = Journey {
            nodes: vec![],
            links: 0,
            skill_links: 0,
        };
        assert_eq!(
            journey(&empty, Style::default()),
            "✦ Journey · what mnemo learned, oldest first\n\n(no memories yet)\n"
        );
        let day = 86_400_000;
        let one = Journey {
            nodes: vec![node(day + 90_000, 2 * day + 60_000)],
            links: 1,
            skill_links: 0,
        };
        assert_eq!(
            journey(&one, Style::default()),
            "✦ Journey · what mnemo learned, oldest first\n\n\
             1970-01-02\n  \
             00:01  ◆ Vector search  retrieval     →1 ←0 ⚑1  (changed 1970-01-03 00:01)  \
             memory:memory:0\n\n\
             1 memory · 0 skills · 1 note↔note link · 0 note↔skill links\n"
        );
        let colored = journey(
            &one,
            Style {
                width: 100,
                color: true,
            },
        );
        assert!(
            colored.contains("\x1b[2mmemory:memory:0\x1b[0m"),
            "{colored}"
        );
    }

    #[test]
    fn ages_and_terminal_safe_text() {
        assert_eq!(age(10_000, 9_000), "just now");
        assert_eq!(age(100_000, 58_000), "42s ago");
        assert_eq!(age(3_600_000, 0), "1h ago");
        assert_eq!(age(0, 5_000), "just now");
        assert_eq!(age(2 * 86_400_000 + 5, 0), "2d ago");
        assert_eq!(clean("a\x1b[2Jb\nc"), "a\\u{1b}[2Jb\nc");
        assert_eq!(one_line("x\n  y", 10), "x y");
    }

    #[test]
    fn causes_show_as_their_json_names() {
        use mnemo::sidecar::Cause;
        for c in [
            Cause::Replace,
            Cause::Remove,
            Cause::Import,
            Cause::Rejected,
            Cause::Supersede,
            Cause::Prune,
            Cause::Merge,
        ] {
            assert_eq!(serde_json::to_value(c).unwrap(), cause(c), "{c:?}");
        }
    }

    #[test]
    fn when_formats_utc_minutes_and_clamps_before_the_epoch() {
        assert_eq!(when(0u64), "1970-01-01 00:00");
        assert_eq!(when(-5i64), "1970-01-01 00:00");
        assert_eq!(when(90_000i64), "1970-01-01 00:01");
    }
}
