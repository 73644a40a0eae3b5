//! `mnemo curate`: the curation pipeline ([`mnemo::Memory::curate`]) with
//! the review's model ([`super::review::connect`]) and the config's
//! embedding model, and its report.

use std::io::{self, Write};
use std::process::ExitCode;

use mnemo::curate::Report;
use mnemo::storage::run_ready;
use mnemo::Result;

use crate::flags::CurateArgs;
use crate::paths::Paths;
use crate::render::{clean, one_line, out, pretty};

/// `mnemo curate`: exits 1 when the model failed during extraction.
pub fn curate(paths: &Paths, args: CurateArgs) -> Result<ExitCode> {
    let (mut memory, source, embeddings) = paths.open_with_embeddings()?;
    crate::embed::lend(&mut memory, &args.embed, embeddings.as_ref(), &source)?;
    let config = memory.config().auxiliary.background_review.clone();
    let model = if args.no_llm {
        None
    } else {
        super::review::connect(&args.model, &config, &source, "curation", false)?
    };
    let llm = model.as_ref().map(|m| &m.llm as &dyn mnemo::host::Llm);
    let report = run_ready(memory.curate(llm, args.dry_run, &|| false))??;
    if args.json {
        out(&pretty(&report)?)?;
    } else {
        let by = model.as_ref().map_or_else(
            || "without a model".to_string(),
            |m| format!("by {} at {}", one_line(&m.name, 80), m.url),
        );
        out(&render(&report, &by))?;
    }
    if report.extraction.status == "failed" {
        let _ = writeln!(
            io::stderr(),
            "error: extraction failed: {}",
            one_line(
                report.extraction.reason.as_deref().unwrap_or("unknown"),
                400
            )
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as text: the spec's metrics, then what happened to each
/// fact and entry.
fn render(r: &Report, by: &str) -> String {
    let mut text = format!(
        "Curation {by}{}\n",
        if r.dry_run {
            " (dry run: nothing was written)"
        } else {
            ""
        }
    );
    text.push_str(&format!(
        "  facts extracted {}, added {}, memories updated {}, pruned {}, existing {}, cost ${:.4}\n",
        r.facts_extracted,
        r.facts_added,
        r.memories_updated,
        r.memories_pruned,
        r.existing_memories,
        r.cost_usd
    ));
    text.push_str(&format!(
        "  extraction: {} ({} log record{} read{})\n",
        r.extraction.status,
        r.extraction.records_read,
        if r.extraction.records_read == 1 {
            ""
        } else {
            "s"
        },
        r.extraction
            .reason
            .as_deref()
            .map_or_else(String::new, |why| format!("; {}", one_line(why, 300)))
    ));
    for f in &r.facts {
        let outcome = serde_json::to_value(&f.outcome).unwrap_or_default();
        let name = outcome["outcome"].as_str().unwrap_or("?").replace('_', " ");
        let detail = ["existing", "pending_id", "reason", "error"]
            .iter()
            .find_map(|k| {
                outcome[k]
                    .as_str()
                    .map(|v| format!(" ({k}: {})", one_line(v, 120)))
            })
            .unwrap_or_default();
        text.push_str(&format!(
            "  {name:<10} {:.2}  [{}] {}{}\n",
            f.similarity,
            f.fact.target.name(),
            clean(&one_line(&f.fact.content, 200)),
            clean(&detail)
        ));
    }
    for p in &r.pruned {
        text.push_str(&format!(
            "  pruned     [{}] {} ({}; in the history)\n",
            p.target.name(),
            clean(&one_line(&p.text, 200)),
            p.reason
        ));
    }
    if !r.consolidated.is_empty() {
        let names: Vec<&str> = r.consolidated.iter().map(|t| t.file_name()).collect();
        text.push_str(&format!(
            "  consolidated {} by category ({} exact duplicate{} merged)\n",
            names.join(", "),
            r.merged,
            if r.merged == 1 { "" } else { "s" }
        ));
    }
    if !r.staged.is_empty() {
        text.push_str(&format!(
            "  staged for approval: {} (mnemo pending)\n",
            r.staged.join(", ")
        ));
    }
    if !r.expired_logs.is_empty() {
        text.push_str(&format!(
            "  deleted day logs past the retention: {}\n",
            r.expired_logs.join(", ")
        ));
    }
    for e in &r.errors {
        text.push_str(&format!("  error: {}\n", one_line(e, 300)));
    }
    text
}
