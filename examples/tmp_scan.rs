//! Throwaway: the rules' verdict of each stdin line (JSON string or raw), with the matched span.
use std::io::BufRead;
fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        if line.trim().is_empty() {
            continue;
        }
        let text: String = serde_json::from_str(&line).unwrap_or(line.clone());
        let f = mnemo::scan::scan(&text);
        let spans: Vec<String> = f
            .findings
            .iter()
            .map(|x| format!("{} «{}»", x.id, text.get(x.start..x.end).unwrap_or("?")))
            .collect();
        println!(
            "{} | {}",
            spans.join(" ; "),
            text.chars()
                .take(100)
                .collect::<String>()
                .replace('\n', "⏎")
        );
    }
}
