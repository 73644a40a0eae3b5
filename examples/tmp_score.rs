//! Throwaway: the learned layer's score of each stdin line, and the near-misses.
use std::io::BufRead;
fn main() {
    let m = mnemo::scan::model::Model::parse(include_bytes!("../src/scan/model.bin")).unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let text: String = serde_json::from_str(&line).unwrap_or(line.clone());
        let (v, input) = mnemo::scan::learned_input(&text);
        match input {
            Some(i) => println!(
                "rules {} score {:.3} | {}",
                v.blocked,
                m.score(&i.features),
                text.replace('\n', "⏎")
            ),
            None => println!(
                "rules {} no near-miss | {}",
                v.blocked,
                text.replace('\n', "⏎")
            ),
        }
    }
}
