//! Drawing a day of the activity log: one record a line, in columns.
//!
//! Record texts were written by agents and models, so they go through
//! [`clean`] before they reach a terminal.

use mnemo::activity::Record;

use super::clean;

/// The records as `HH:MM:SS  agent  what  text`, the agent `-` when none
/// was named; the agent and `what` columns are as wide as their widest
/// value, and further lines of a text are indented to its column.
pub fn activity(records: &[Record]) -> String {
    let agent = |r: &Record| clean(r.agent.as_deref().unwrap_or("-"));
    let width = |s: &str| s.chars().count();
    let agent_w = records.iter().map(|r| width(&agent(r))).max().unwrap_or(1);
    let what_w = records.iter().map(|r| width(&r.what)).max().unwrap_or(1);
    let indent = " ".repeat(8 + 2 + agent_w + 2 + what_w + 2);
    let mut text = String::new();
    for r in records {
        let head = format!(
            "{}  {:<agent_w$}  {:<what_w$}  ",
            r.time,
            agent(r),
            clean(&r.what)
        );
        let body = clean(&r.text);
        let mut lines = body.lines();
        text.push_str(&head);
        text.push_str(lines.next().unwrap_or(""));
        // A record with an empty text leaves trailing blanks otherwise.
        let end = text.trim_end_matches(' ').len();
        text.truncate(end);
        text.push('\n');
        for line in lines {
            text.push_str(&indent);
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_line_up_and_continue_indented() {
        let records = vec![
            Record {
                date: "2026-12-01".into(),
                time: "14:03:22".into(),
                agent: Some("research-bot".into()),
                what: "memory add".into(),
                text: "Staging rate-limits at 100 rps".into(),
            },
            Record {
                date: "2026-12-01".into(),
                time: "14:05:10".into(),
                agent: None,
                what: "note".into(),
                text: "two\nlines\x1b[2J".into(),
            },
        ];
        assert_eq!(
            activity(&records),
            "14:03:22  research-bot  memory add  Staging rate-limits at 100 rps\n\
             14:05:10  -             note        two\n\
             \x20                                   lines\\u{1b}[2J\n"
        );
    }
}
