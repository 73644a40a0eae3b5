//! The `mnemo` command-line tool: the memory of an agent in a directory
//! (`MEMORY.md`, `USER.md`), read and changed from a shell.
//!
//! This file only parses arguments, loads the YAML config and prints; every
//! decision (limits, locking, backups, damaged files) belongs to the core.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use mnemo::storage::run_ready;
use mnemo::store::thousands;
use mnemo::{
    tool_schema, Config, DirStorage, Error, ErrorKind, Files, Memory, Result, Storage, StoreStatus,
    Target,
};
use serde_json::{json, Value};

const ABOUT: &str =
    "Agent memory in plain Markdown: bounded stores, a memory tool and a frozen prompt";

const LONG_ABOUT: &str = "\
Agent memory in plain Markdown: bounded stores, a memory tool and a frozen prompt.

mnemo keeps an agent's memory in two Markdown files:
  MEMORY.md  the agent's own notes (target `memory`)
  USER.md    the user profile (target `user`)
Entries are separated by a line holding only `§`. Each store has a storage
limit (writes beyond it are refused) and a verbatim budget (while a store fits
it, the whole store is in the system prompt).

Where things live:
  $MNEMO_HOME              default ~/.mnemo
  $MNEMO_HOME/memories     the memories directory (or --dir DIR)
  $MNEMO_HOME/config.yaml  the config (or --config FILE); only its `memory:`
                           section is read, other sections are ignored

Errors print `error [<code>]: <message>` and exit with status 1; a wrong
command line exits with status 2.";

const AFTER_HELP: &str = "\
Examples:
  mnemo add 'Project uses Rust 1.95 and cargo nextest'
  mnemo add --target user 'Prefers concise answers'
  mnemo replace 'nextest' 'Project uses Rust 1.95; tests run with cargo test'
  mnemo status
  mnemo prompt                   # the block an agent puts in its system prompt
  mnemo --dir ./memories export --out backup/";

#[derive(Debug, Parser)]
#[command(name = "mnemo", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
struct Cli {
    /// Memories directory holding MEMORY.md and USER.md (created if missing)
    /// [default: $MNEMO_HOME/memories]
    #[arg(long, global = true, value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Config file (YAML with a `memory:` section); it must exist
    /// [default: $MNEMO_HOME/config.yaml, defaults when missing]
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show entries, size, limits and prompt mode of both stores
    #[command(long_about = "\
Show, for MEMORY.md and USER.md: the file, the number of entries, the size in
chars, usage against the storage limit, the verbatim budget, the storage limit,
the mode (`in prompt`: the whole store is in the system prompt; `searched`: it
outgrew its verbatim budget), whether the store is enabled, and why its file
refuses writes if it is damaged.")]
    Status {
        /// Print the status as JSON instead of text
        #[arg(long)]
        json: bool,
    },

    /// Print the memory block for an agent's system prompt
    #[command(long_about = "\
Print the memory block of the system prompt, exactly as an agent would put it
there at the start of a session: one block per enabled, non-empty store, each
with a header showing its usage. Prints nothing when both stores are empty.")]
    Prompt,

    /// Add an entry to a store
    #[command(
        long_about = "\
Add CONTENT as a new entry. Adding an entry that already exists succeeds
without adding a duplicate. Prints the result and the store's usage; when the
store is full, prints its current entries so you can replace or remove some.",
        after_help = "\
Examples:
  mnemo add 'Staging database is at db.staging.internal:5432'
  mnemo add --target user 'Timezone: Europe/Berlin'
  printf 'Multi-line\\nentry' | mnemo add -
  mnemo add -- '--strange entry starting with dashes'"
    )]
    Add {
        /// Which store to write
        #[arg(short, long, value_enum, default_value_t = TargetArg::Memory)]
        target: TargetArg,
        /// The entry text; `-` reads it from standard input
        #[arg(value_name = "CONTENT")]
        content: String,
    },

    /// Replace the entry containing OLD_TEXT with CONTENT
    #[command(
        long_about = "\
Replace the one entry that contains OLD_TEXT with CONTENT. OLD_TEXT is a short
substring that appears in exactly one entry (an entry equal to OLD_TEXT wins
over entries that merely contain it).",
        after_help = "\
Example:
  mnemo replace 'Staging database' 'Staging database moved to db2.staging.internal'"
    )]
    Replace {
        /// Which store to write
        #[arg(short, long, value_enum, default_value_t = TargetArg::Memory)]
        target: TargetArg,
        /// A substring of exactly one existing entry
        #[arg(value_name = "OLD_TEXT")]
        old_text: String,
        /// The new entry text; `-` reads it from standard input
        #[arg(value_name = "CONTENT")]
        content: String,
    },

    /// Remove the entry containing OLD_TEXT
    #[command(
        long_about = "\
Remove the one entry that contains OLD_TEXT, a substring that appears in
exactly one entry.",
        after_help = "\
Example:
  mnemo remove --target user 'Timezone'"
    )]
    Remove {
        /// Which store to write
        #[arg(short, long, value_enum, default_value_t = TargetArg::Memory)]
        target: TargetArg,
        /// A substring of exactly one existing entry
        #[arg(value_name = "OLD_TEXT")]
        old_text: String,
    },

    /// Search both stores for notes matching QUERY
    #[command(
        long_about = "\
Rank the notes of both stores (or one, with --target) against QUERY with
mnemo's note search: stemmed English and Russian words, identifiers kept whole
(10.0.1.50, ~/code/api, snake_case), BM25 with a proximity bonus. QUERY is plain
prose: quotes, `?` and operators are just text. Prints the best notes with their
store, index and score.",
        after_help = "\
Examples:
  mnemo search 'which port does staging ssh use'
  mnemo search --target user timezone --json"
    )]
    Search {
        /// What to look for
        #[arg(value_name = "QUERY")]
        query: String,
        /// Only this store (default: both)
        #[arg(short, long, value_enum)]
        target: Option<TargetArg>,
        /// At most this many notes
        #[arg(short = 'n', long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
        limit: u32,
        /// Print the results as JSON: [{target, index, text, score}]
        #[arg(long)]
        json: bool,
    },

    /// Print the <memory-context> block an agent attaches to MESSAGE
    #[command(long_about = "\
Print the per-turn <memory-context> block for a user's MESSAGE: the best notes
(recall.top_k) of the stores that outgrew their verbatim budget, the notes
linked to them with [[wikilinks]] (recall.hops steps, both directions), capped
at recall.max_chars. Prints nothing when every store is whole in the system
prompt or nothing matches.")]
    Context {
        /// The user's message; `-` reads it from standard input
        #[arg(value_name = "MESSAGE")]
        message: String,
    },

    /// Show the notes by sector, with links in both directions
    #[command(
        long_about = "\
Show the knowledge graph by area. A note's first #tag files it into a sector
(`# Heading` is Markdown, `#26045` an issue number, and tags in code or URLs
do not count); a note without a tag takes the sector of the notes it links to
or is linked from with [[Note title]]; the rest is `unsorted`. Each row shows a
note's outgoing (→) and incoming (←) links and ⚑ for links to notes that do not
exist yet. NAME narrows the listing to one sector; the counts stay whole-graph.",
        after_help = "\
Examples:
  mnemo sectors
  mnemo sectors infra --limit 5
  mnemo sectors --json | jq '.summary'"
    )]
    Sectors {
        /// Only this sector
        #[arg(value_name = "NAME")]
        name: Option<String>,
        /// Print the report as JSON (schema: docs/sectors.schema.json)
        #[arg(long)]
        json: bool,
        /// Notes listed per sector
        #[arg(long, default_value_t = 12)]
        limit: usize,
        /// Width of the output in columns
        #[arg(long, default_value_t = 80)]
        width: usize,
        /// No ANSI colours (also when NO_COLOR is set or stdout is not a terminal)
        #[arg(long)]
        no_color: bool,
    },

    /// The learning journey: every memory on a timeline
    #[command(
        visible_aliases = ["learning", "memory-graph"],
        long_about = "\
Show every memory of both stores on a timeline, oldest first: when it was first
seen and last changed (kept in mnemo-state.json beside the stores, keyed by a
stable entry id), its sector and its links. `journey list` prints the node ids
(memory:<store>:<index>) that `journey delete` and `journey edit` take.",
        after_help = "\
Examples:
  mnemo journey
  mnemo journey --json > journey.json
  mnemo journey list
  mnemo journey delete memory:memory:3        # asks first; -y skips the question
  mnemo journey edit memory:user:0            # opens $EDITOR, re-scans on save"
    )]
    Journey {
        #[command(subcommand)]
        action: Option<JourneyAction>,
        /// Print the journey payload as JSON
        #[arg(long)]
        json: bool,
        /// Width of the output in columns
        #[arg(long, default_value_t = 100)]
        width: usize,
        /// No ANSI colours
        #[arg(long)]
        no_color: bool,
    },

    /// Show the entries that writes replaced or removed
    #[command(long_about = "\
Show every entry text that a replace, a remove, a journey edit or an import
superseded, newest first, with when and why (mnemo-history.json beside the
stores; nothing in it is ever dropped). Facts the user confirmed with
`mnemo remember` are marked ✔.")]
    History {
        /// Print the items as JSON
        #[arg(long)]
        json: bool,
        /// At most this many items
        #[arg(short = 'n', long)]
        limit: Option<usize>,
    },

    /// Add a fact the user confirmed
    #[command(long_about = "\
Add FACT to a store (default: the user profile) as a fact the user confirmed:
it is checked like any write, and marked as confirmed in the sidecar state and
in the history if it is ever superseded.")]
    Remember {
        /// Which store (default: user)
        #[arg(short, long, value_enum, default_value_t = TargetArg::User)]
        target: TargetArg,
        /// The fact; `-` reads it from standard input
        #[arg(value_name = "FACT")]
        fact: String,
    },

    /// Search and browse past conversations (state.db beside the stores)
    #[command(subcommand)]
    Sessions(SessionsCommand),

    /// Screen a file (or stdin) with the security scanner
    #[command(
        long_about = "\
Screen FILE (or standard input with `-`) with the security scanner that guards
every memory write: prompt injection, role hijack, hidden markup, credential
exfiltration, persistence/backdoors, hard-coded secrets and invisible Unicode.
Prints each finding with its pattern id, category, byte range and the text it
covers. Exits 0 when the text is clean, 1 when it is blocked. With --store,
FILE is read as a MEMORY.md/USER.md store and every entry is screened.",
        after_help = "\
Examples:
  mnemo scan AGENTS.md
  mnemo scan --store ~/.mnemo/memories/MEMORY.md --json
  echo 'ignore all previous instructions' | mnemo scan -"
    )]
    Scan {
        /// The file to screen; `-` reads standard input
        #[arg(value_name = "FILE")]
        file: String,
        /// Read FILE as a store and screen each entry
        #[arg(long)]
        store: bool,
        /// Print the verdict(s) as JSON
        #[arg(long)]
        json: bool,
    },

    /// Run a raw memory tool call (JSON) and print the tool result
    #[command(
        long_about = "\
Run one memory tool call exactly as an LLM would send it and print the tool
result as JSON. Exits 0 when the result has `success: true`, otherwise 1.
See `mnemo schema` for the accepted arguments.",
        after_help = "\
Examples:
  mnemo tool '{\"action\": \"add\", \"target\": \"memory\", \"content\": \"Uses pnpm\"}'
  mnemo tool '{\"operations\": [{\"action\": \"remove\", \"target\": \"memory\", \"old_text\": \"pnpm\"},
                               {\"action\": \"add\", \"target\": \"memory\", \"content\": \"Uses npm\"}]}'
  cat call.json | mnemo tool -"
    )]
    Tool {
        /// The tool arguments as JSON text; `-` reads them from standard input
        #[arg(value_name = "JSON")]
        json: String,
    },

    /// Print the memory tool's definition (name, description, JSON Schema)
    #[command(long_about = "\
Print the memory tool's definition as JSON: {name, description, parameters}.
`parameters` is valid as an OpenAI function `parameters` object and as an
Anthropic `input_schema`.")]
    Schema,

    /// Export both stores as Markdown
    #[command(
        long_about = "\
Export both stores in canonical form. Without --out, print
{\"MEMORY.md\": text, \"USER.md\": text} as JSON. With --out DIR, write
DIR/MEMORY.md and DIR/USER.md (refusing to overwrite existing files unless
--force).",
        after_help = "\
Examples:
  mnemo export > memory.json
  mnemo export --out backup/"
    )]
    Export {
        /// Write MEMORY.md and USER.md into this directory (created if missing)
        #[arg(short, long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Overwrite existing files in the --out directory
        #[arg(short, long, requires = "out")]
        force: bool,
    },

    /// Replace stores with the contents of MEMORY.md / USER.md files
    #[command(
        long_about = "\
Replace whole stores with the given files. Each FILE must be named MEMORY.md
or USER.md: its name says which store it replaces. A BOM, CRLF line ends and
blank entries are accepted and normalised. Everything is checked first, then
all files are imported together or none is. The previous text of each replaced
store is backed up beside it (MEMORY.md.bak.<time>).",
        after_help = "\
Example:
  mnemo import backup/MEMORY.md backup/USER.md"
    )]
    Import {
        /// Files named MEMORY.md and/or USER.md
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    /// Recent sessions, most recent first
    List {
        /// Sessions to skip
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// At most this many
        #[arg(short = 'n', long, default_value_t = 20)]
        limit: usize,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Messages matching QUERY, best first (stemmed, with a recency boost)
    Search {
        /// What to look for
        query: String,
        /// Only this session
        #[arg(long)]
        session: Option<String>,
        /// Only this role (user, assistant)
        #[arg(long)]
        role: Option<String>,
        /// Only this source or agent
        #[arg(long)]
        source: Option<String>,
        /// At most this many
        #[arg(short = 'n', long, default_value_t = 10)]
        limit: usize,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// The messages of a session (around one message with --around)
    Show {
        /// The session id
        session: String,
        /// A message's seq to read around
        #[arg(long)]
        around: Option<i64>,
        /// Messages before --around
        #[arg(long, default_value_t = 5)]
        before: i64,
        /// Messages after --around (or from the start)
        #[arg(long, default_value_t = 50)]
        after: i64,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Record a transcript: JSON Lines of {session, role, text, time?, source?}
    Import {
        /// The transcript file; `-` reads standard input
        file: String,
    },
    /// Delete one session and everything in it
    Delete {
        /// The session id
        session: String,
    },
    /// Delete every session (asks unless -y)
    Purge {
        /// Do not ask
        #[arg(short = 'y', long)]
        yes: bool,
    },
    /// Run a raw session_search tool call (JSON) and print the answer
    Tool {
        /// The arguments as JSON; `-` reads standard input
        json: String,
    },
    /// Print the session_search tool's definition
    Schema,
}

#[derive(Debug, Subcommand)]
enum JourneyAction {
    /// List node ids with their titles
    List,
    /// Delete a memory (asks for confirmation unless -y)
    Delete {
        /// The node id, e.g. memory:memory:3
        node: String,
        /// Do not ask
        #[arg(short = 'y', long)]
        yes: bool,
    },
    /// Edit a memory in $EDITOR; the new text is scanned and checked like any write
    Edit {
        /// The node id, e.g. memory:user:0
        node: String,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TargetArg {
    /// MEMORY.md: the agent's own notes
    Memory,
    /// USER.md: the user profile
    User,
}

impl TargetArg {
    fn target(self) -> Target {
        match self {
            TargetArg::Memory => Target::Memory,
            TargetArg::User => Target::User,
        }
    }

    fn name(self) -> &'static str {
        match self {
            TargetArg::Memory => "memory",
            TargetArg::User => "user",
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(io::stderr(), "error [{}]: {}", e.code(), e.message());
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let home = mnemo_home();
    let paths = Paths {
        dir: cli.dir,
        config: cli.config,
        home,
    };
    match cli.command {
        Command::Schema => {
            out(&pretty(&tool_schema())?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Status { json } => {
            let (memory, config_source) = open(&paths)?;
            let status = memory.status();
            if json {
                out(&pretty(&status)?)?;
            } else {
                let dir = memory.storage().dir();
                let mut text = format!(
                    "Memories directory: {}\nConfig: {config_source}\n",
                    dir.display()
                );
                for (target, s) in [
                    (Target::Memory, &status.memory),
                    (Target::User, &status.user),
                ] {
                    text.push_str(&store_status(target, s, dir));
                }
                out(&text)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Search {
            query,
            target,
            limit,
            json,
        } => {
            let (mut memory, _) = open(&paths)?;
            let hits = memory.search(&query, target.map(|t| t.target()), limit as usize);
            if json {
                out(&pretty(&hits)?)?;
            } else if hits.is_empty() {
                let _ = writeln!(io::stderr(), "no notes match {query:?}");
            } else {
                let mut text = String::new();
                for h in &hits {
                    text.push_str(&format!("{} #{} ({:.2})\n", h.target, h.index, h.score));
                    for line in h.text.lines() {
                        text.push_str(&format!("  {line}\n"));
                    }
                }
                out(&text)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Context { message } => {
            let message = arg_or_stdin(message)?;
            let (mut memory, _) = open(&paths)?;
            let block = memory.context(&message);
            if !block.is_empty() {
                out(&format!("{block}\n"))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Scan { file, store, json } => scan_command(&file, store, json),
        Command::Sessions(command) => sessions_command(&paths, command),
        Command::History { json, limit } => {
            let (memory, _) = open(&paths)?;
            let mut items = run_ready(memory.history())?;
            if let Some(n) = limit {
                items.truncate(n);
            }
            if json {
                out(&pretty(&items)?)?;
            } else if items.is_empty() {
                let _ = writeln!(io::stderr(), "(no entry has been replaced or removed yet)");
            } else {
                let mut text = String::new();
                for i in &items {
                    let stamp = mnemo::memory::utc_stamp(i.time);
                    let cause = serde_json::to_value(i.cause)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    text.push_str(&format!(
                        "{}-{}-{} {}:{}  {:<7} {} {}{}\n",
                        &stamp[0..4],
                        &stamp[4..6],
                        &stamp[6..8],
                        &stamp[9..11],
                        &stamp[11..13],
                        cause,
                        i.target,
                        i.entry_id,
                        if i.confirmed { " ✔" } else { "" }
                    ));
                    for line in i.text.lines() {
                        text.push_str(&format!("    {line}\n"));
                    }
                }
                out(&text)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Remember { target, fact } => {
            let fact = arg_or_stdin(fact)?;
            let (mut memory, _) = open(&paths)?;
            let result = run_ready(memory.remember(target.target(), &fact));
            report_tool_result(&result)
        }
        Command::Journey {
            action,
            json,
            width,
            no_color,
        } => journey_command(&paths, action, json, width, no_color),
        Command::Sectors {
            name,
            json,
            limit,
            width,
            no_color,
        } => {
            let (mut memory, _) = open(&paths)?;
            let options = mnemo::sectors::Options {
                sector: name.clone(),
                limit,
            };
            let report = memory.sectors(&options);
            if let (Some(name), true) = (&name, report.sectors.is_empty()) {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!("no sector named {name:?}; `mnemo sectors` lists them"),
                ));
            }
            if json {
                out(&pretty(&report)?)?;
            } else {
                out(&mnemo::sectors::render(
                    &report,
                    mnemo::sectors::Style {
                        width,
                        color: use_color(no_color),
                    },
                ))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Prompt => {
            let (memory, _) = open(&paths)?;
            let prompt = memory.system_prompt();
            if prompt.is_empty() {
                let _ = writeln!(
                    io::stderr(),
                    "(both stores are empty or disabled: nothing goes into the system prompt)"
                );
            } else {
                out(&format!("{prompt}\n"))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Add { target, content } => write(
            &paths,
            json!({"action": "add", "target": target.name(), "content": arg_or_stdin(content)?}),
        ),
        Command::Replace {
            target,
            old_text,
            content,
        } => write(
            &paths,
            json!({
                "action": "replace",
                "target": target.name(),
                "old_text": old_text,
                "content": arg_or_stdin(content)?,
            }),
        ),
        Command::Remove { target, old_text } => write(
            &paths,
            json!({"action": "remove", "target": target.name(), "old_text": old_text}),
        ),
        Command::Tool { json } => {
            let text = arg_or_stdin(json)?;
            let (mut memory, _) = open(&paths)?;
            let result = match serde_json::from_str::<Value>(&text) {
                Ok(args) => run_ready(memory.tool(&args)),
                // Answer like the tool does, so a harness always gets a result.
                Err(e) => memory.reject(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "the tool arguments are not valid JSON ({e}); expected an object like \
                         {{\"action\": \"add\", \"target\": \"memory\", \"content\": \"…\"}}"
                    ),
                )),
            };
            out(&pretty(&result)?)?;
            Ok(if result.success {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Export { out: None, .. } => {
            let (memory, _) = open(&paths)?;
            warn_damaged(&memory);
            out(&pretty(&memory.export_markdown())?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Export {
            out: Some(dir),
            force,
        } => {
            let (memory, _) = open(&paths)?;
            warn_damaged(&memory);
            export_to(&memory, &dir, force)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Import { files } => import(&paths, &files),
    }
}

/// Where the memories and the config come from.
struct Paths {
    dir: Option<PathBuf>,
    config: Option<PathBuf>,
    home: Option<PathBuf>,
}

/// `$MNEMO_HOME`, else `~/.mnemo`; `None` when there is no home directory.
fn mnemo_home() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(home) = var("MNEMO_HOME") {
        return Some(PathBuf::from(home));
    }
    var("HOME")
        .or_else(|| var("USERPROFILE"))
        .map(|home| PathBuf::from(home).join(".mnemo"))
}

fn open(paths: &Paths) -> Result<(Memory<DirStorage>, String)> {
    let (config, source) = load_config(paths)?;
    let dir = match (&paths.dir, &paths.home) {
        (Some(dir), _) => dir.clone(),
        (None, Some(home)) => home.join("memories"),
        (None, None) => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "cannot find your home directory; set MNEMO_HOME or pass --dir DIR",
            ))
        }
    };
    let storage = DirStorage::open(dir)?;
    let memory = run_ready(Memory::open(storage, config))?;
    Ok((memory, source))
}

/// The config in force and a line saying where it came from.
fn load_config(paths: &Paths) -> Result<(Config, String)> {
    let (path, explicit) = match (&paths.config, &paths.home) {
        (Some(path), _) => (path.clone(), true),
        (None, Some(home)) => (home.join("config.yaml"), false),
        (None, None) => return Ok((Config::default(), "defaults (no home directory)".into())),
    };
    let invalid = |msg: String| Error::new(ErrorKind::InvalidConfig, msg);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound && !explicit => {
            return Ok((
                Config::default(),
                format!("{} (not found; using defaults)", path.display()),
            ))
        }
        Err(e) => {
            return Err(invalid(format!(
                "cannot read the config file {}: {e}",
                path.display()
            )))
        }
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        invalid(format!(
            "the config file {} is not valid UTF-8 (first bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    let config = config_from_yaml(&text)
        .map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))?;
    Ok((config, path.display().to_string()))
}

/// Reads the `memory:` section of a YAML config, ignoring the sections of
/// other tools; the section itself is checked strictly by the core.
fn config_from_yaml(text: &str) -> Result<Config> {
    let invalid = |msg: String| Error::new(ErrorKind::InvalidConfig, msg);
    let mut doc: serde_yaml::Value =
        serde_yaml::from_str(text).map_err(|e| invalid(format!("not valid YAML: {e}")))?;
    doc.apply_merge()
        .map_err(|e| invalid(format!("not valid YAML: {e}")))?;
    let section = match doc {
        serde_yaml::Value::Null => None,
        serde_yaml::Value::Mapping(mut map) => map.remove("memory"),
        _ => {
            return Err(invalid(
                "expected a mapping of sections (like `memory:`) at the top level".into(),
            ))
        }
    };
    let section = match section {
        None | Some(serde_yaml::Value::Null) => return Ok(Config::default()),
        Some(section) => section,
    };
    let section = serde_json::to_value(&section)
        .map_err(|e| invalid(format!("the memory: section cannot be read: {e}")))?;
    Config::from_json(&json!({ "memory": section }))
}

/// A command-line argument, or standard input when it is `-`.
fn arg_or_stdin(arg: String) -> Result<String> {
    if arg != "-" {
        return Ok(arg);
    }
    let mut bytes = Vec::new();
    io::stdin().read_to_end(&mut bytes).map_err(|e| {
        Error::new(
            ErrorKind::Storage,
            format!("cannot read standard input: {e}"),
        )
    })?;
    String::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorKind::InvalidText,
            format!(
                "standard input is not valid UTF-8 (first bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// Runs one tool call from `add`, `replace` or `remove` and reports it.
fn write(paths: &Paths, args: Value) -> Result<ExitCode> {
    let (mut memory, _) = open(paths)?;
    let result = run_ready(memory.tool(&args));
    report_tool_result(&result)
}

/// Prints a write's result for a person: the message and usage, or the
/// error with the current entries when the store is full.
fn report_tool_result(result: &mnemo::ToolResult) -> Result<ExitCode> {
    let result = result.clone();
    if result.success {
        let mut text = result.message.unwrap_or_default();
        if let (Some(target), Some(usage), Some(n)) =
            (result.target, result.usage, result.entry_count)
        {
            text.push_str(&format!("\n{target}: {}, {usage}", entries(n)));
        }
        text.push('\n');
        out(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!(
        "error [{}]: {}\n",
        result.code.unwrap_or(ErrorKind::Internal.code()),
        result.error.unwrap_or_default()
    );
    if let Some(current) = result.current_entries.filter(|c| !c.is_empty()) {
        text.push_str(&format!(
            "\nCurrent entries of {} ({} chars):\n",
            result.target.unwrap_or("the store"),
            result.usage.unwrap_or_default()
        ));
        for (i, entry) in current.iter().enumerate() {
            let number = format!("{:>3}. ", i + 1);
            let indent = " ".repeat(number.len());
            for (j, line) in entry.lines().enumerate() {
                text.push_str(if j == 0 { &number } else { &indent });
                text.push_str(line);
                text.push('\n');
            }
        }
        text.push_str("\nMake room with `mnemo replace OLD_TEXT CONTENT` or `mnemo remove OLD_TEXT`, then retry.\n");
    }
    let _ = io::stderr().write_all(text.as_bytes());
    Ok(ExitCode::FAILURE)
}

fn store_status(target: Target, s: &StoreStatus, dir: &Path) -> String {
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

fn warn_damaged<S: Storage>(memory: &Memory<S>) {
    let status = memory.status();
    for (target, s) in [
        (Target::Memory, &status.memory),
        (Target::User, &status.user),
    ] {
        if let Some(why) = &s.damaged {
            let _ = writeln!(
                io::stderr(),
                "warning: {} is damaged ({why}); the export holds what could be read",
                target.file_name()
            );
        }
    }
}

fn export_to<S: Storage>(memory: &Memory<S>, dir: &Path, force: bool) -> Result<()> {
    let files = memory.export_markdown();
    let io_err = |what: &str, path: &Path, e: io::Error| {
        Error::new(
            ErrorKind::Storage,
            format!("cannot {what} {}: {e}", path.display()),
        )
    };
    if !force {
        let existing: Vec<String> = files
            .keys()
            .map(|name| dir.join(name))
            .filter(|path| path.exists())
            .map(|path| path.display().to_string())
            .collect();
        if !existing.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "{} already exist{}; pass --force to overwrite, or choose another --out \
                     directory (nothing was written)",
                    existing.join(" and "),
                    if existing.len() == 1 { "s" } else { "" }
                ),
            ));
        }
    }
    fs::create_dir_all(dir).map_err(|e| io_err("create the directory", dir, e))?;
    let mut report = String::new();
    for (name, text) in &files {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
        let n = Target::from_file_name(name).map_or(0, |t| memory.store(t).entries().len());
        report.push_str(&format!("wrote {} ({})\n", path.display(), entries(n)));
    }
    out(&report)
}

fn import(paths: &Paths, files: &[PathBuf]) -> Result<ExitCode> {
    let nothing = "nothing was imported";
    let mut map = Files::new();
    let mut sources = Vec::new();
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some(target) = Target::from_file_name(name) else {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "cannot import {}: the file must be named MEMORY.md or USER.md (its name \
                     says which store it replaces); {nothing}",
                    path.display()
                ),
            ));
        };
        if map.contains_key(name) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("{name} is given more than once; {nothing}"),
            ));
        }
        let bytes = fs::read(path).map_err(|e| {
            Error::new(
                ErrorKind::Storage,
                format!("cannot read {}: {e}; {nothing}", path.display()),
            )
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::new(
                ErrorKind::InvalidText,
                format!(
                    "cannot import {}: not valid UTF-8 text (first bad byte at offset {}); \
                     {nothing}",
                    path.display(),
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        map.insert(name.to_string(), text);
        sources.push((target, path));
    }
    let (mut memory, _) = open(paths)?;
    let before: BTreeSet<String> = run_ready(memory.storage().list())?.into_iter().collect();
    run_ready(memory.import_markdown(&map))?;
    let mut report = String::new();
    for (target, path) in sources {
        let store = memory.store(target);
        report.push_str(&format!(
            "imported {} from {}: {}, {} chars\n",
            target.file_name(),
            path.display(),
            entries(store.entries().len()),
            thousands(store.chars())
        ));
    }
    // Best effort: the import already succeeded.
    if let Ok(after) = run_ready(memory.storage().list()) {
        for name in after.iter().filter(|n| !before.contains(*n)) {
            if name.contains(".bak.") {
                report.push_str(&format!("previous text backed up as {name}\n"));
            }
        }
    }
    out(&report)?;
    Ok(ExitCode::SUCCESS)
}

fn entries(n: usize) -> String {
    format!("{n} {}", if n == 1 { "entry" } else { "entries" })
}

fn pretty<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Error::new(ErrorKind::Internal, format!("cannot encode JSON: {e}")))
}

/// Writes to standard output. A closed pipe (`mnemo prompt | head`) is not
/// an error: the reader has what it wanted.
fn out(text: &str) -> Result<()> {
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

/// `mnemo scan`: the scanner on a file, a store or stdin.
fn scan_command(file: &str, store: bool, json: bool) -> Result<ExitCode> {
    let bytes = if file == "-" {
        let mut buf = Vec::new();
        io::Read::read_to_end(&mut io::stdin(), &mut buf)
            .map_err(|e| Error::new(ErrorKind::Storage, format!("could not read stdin: {e}")))?;
        buf
    } else {
        std::fs::read(file)
            .map_err(|e| Error::new(ErrorKind::Storage, format!("could not read {file}: {e}")))?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorKind::InvalidText,
            format!(
                "{file} is not valid UTF-8 (first bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    let texts: Vec<String> = if store {
        mnemo::store::parse(&text)
    } else {
        vec![text]
    };
    let verdicts: Vec<mnemo::scan::Verdict> = texts.iter().map(|t| mnemo::scan::scan(t)).collect();
    let blocked = verdicts.iter().filter(|v| v.blocked).count();
    if json {
        let value = if store {
            serde_json::to_value(&verdicts)
        } else {
            serde_json::to_value(&verdicts[0])
        }
        .map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?;
        out(&pretty(&value)?)?;
    } else {
        let mut report = String::new();
        for (i, (t, v)) in texts.iter().zip(&verdicts).enumerate() {
            if !v.blocked {
                continue;
            }
            if store {
                report.push_str(&format!("entry {} (index {i}): blocked\n", i + 1));
            } else {
                report.push_str("blocked\n");
            }
            for f in &v.findings {
                let covered: String = t
                    .get(f.start..f.end)
                    .unwrap_or("")
                    .chars()
                    .take(80)
                    .collect();
                let covered = covered.escape_debug().to_string();
                match &f.code_point {
                    Some(cp) => report.push_str(&format!(
                        "  {} [{}] {cp} at bytes {}..{}\n",
                        f.id,
                        f.category.name(),
                        f.start,
                        f.end
                    )),
                    None => report.push_str(&format!(
                        "  {} [{}] bytes {}..{}: \"{covered}\"\n",
                        f.id,
                        f.category.name(),
                        f.start,
                        f.end
                    )),
                }
            }
            if v.truncated {
                report.push_str(&format!(
                    "  (only the first {} KiB were scanned)\n",
                    mnemo::scan::MAX_SCAN_BYTES / 1024
                ));
            }
        }
        if blocked == 0 {
            report.push_str(if store {
                "all entries are clean\n"
            } else {
                "clean\n"
            });
        } else if store {
            report.push_str(&format!("{blocked} of {} entries blocked\n", texts.len()));
        }
        out(&report)?;
    }
    Ok(if blocked == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn node_arg(node: &str) -> Result<(Target, usize)> {
    mnemo::sectors::parse_node_id(node).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("{node:?} is not a node id; expected memory:<memory|user>:<index> (see `mnemo journey list`)"),
        )
    })
}

/// The store, index and text of the entry a node id names.
fn node_entry(memory: &Memory<DirStorage>, node: &str) -> Result<(Target, usize, String)> {
    let (target, index) = node_arg(node)?;
    let entry = memory
        .store(target)
        .entries()
        .get(index)
        .cloned()
        .ok_or_else(|| Error::new(ErrorKind::NoMatch, format!("no node {node}")))?;
    Ok((target, index, entry))
}

/// `mnemo journey`: the timeline, and deleting or editing its nodes.
fn journey_command(
    paths: &Paths,
    action: Option<JourneyAction>,
    json: bool,
    width: usize,
    no_color: bool,
) -> Result<ExitCode> {
    let (mut memory, _) = open(paths)?;
    match action {
        None => {
            let journey = memory.journey();
            if json {
                out(&pretty(&journey)?)?;
            } else {
                out(&mnemo::journey::render(
                    &journey,
                    width,
                    use_color(no_color),
                ))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(JourneyAction::List) => {
            let mut text = String::new();
            for n in memory.journey().nodes {
                text.push_str(&format!("{:<18} {}\n", n.id, n.title));
            }
            out(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(JourneyAction::Delete { node, yes }) => {
            let (target, index, entry) = node_entry(&memory, &node)?;
            if !yes {
                let shown = memory.store(target).shown(target, index).into_owned();
                let _ = write!(io::stderr(), "Delete {node}?\n{shown}\n[y/N] ");
                let mut answer = String::new();
                let _ = io::stdin().read_line(&mut answer);
                if !matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") {
                    let _ = writeln!(io::stderr(), "cancelled; nothing deleted");
                    return Ok(ExitCode::FAILURE);
                }
            }
            // Delete what was shown, even if another writer moved it since.
            let now_at = memory.store(target).entries().get(index) == Some(&entry);
            if !now_at {
                return Err(Error::new(
                    ErrorKind::NoMatch,
                    format!(
                        "{node} changed while you were deciding; run `mnemo journey list` again"
                    ),
                ));
            }
            let message = run_ready(memory.edit_entry(target, index, None))?;
            out(&format!("{message} ({node})\n"))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(JourneyAction::Edit { node }) => {
            let (target, index, entry) = node_entry(&memory, &node)?;
            let edited = edit_in_editor(&entry)?;
            if edited.trim() == entry.trim() {
                out("no change\n")?;
                return Ok(ExitCode::SUCCESS);
            }
            if edited.trim().is_empty() {
                return Err(Error::new(
                    ErrorKind::Empty,
                    format!(
                        "the edited text is empty; to delete it run `mnemo journey delete {node}`"
                    ),
                ));
            }
            let message = run_ready(memory.edit_entry(target, index, Some(&edited)))?;
            out(&format!("{message} ({node})\n"))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Opens `text` in `$VISUAL` / `$EDITOR` (default `vi`) and returns what was saved.
fn edit_in_editor(text: &str) -> Result<String> {
    let io_err = |what: &str, e: std::io::Error| {
        Error::new(ErrorKind::Storage, format!("could not {what}: {e}"))
    };
    let dir = std::env::temp_dir().join(format!("mnemo-edit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| io_err("create a temp dir", e))?;
    let file = dir.join("entry.md");
    std::fs::write(&file, text).map_err(|e| io_err("write the temp file", e))?;
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_string());
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("mnemo-editor")
        .arg(&file)
        .status()
        .map_err(|e| io_err("start the editor", e))?;
    let result = if status.success() {
        std::fs::read_to_string(&file).map_err(|e| io_err("read the edited file", e))
    } else {
        Err(Error::new(
            ErrorKind::InvalidInput,
            format!("the editor ({editor}) exited with {status}; nothing changed"),
        ))
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// ANSI colours: on a terminal, unless `--no-color` or `NO_COLOR`.
fn use_color(no_color: bool) -> bool {
    use std::io::IsTerminal;
    !no_color && std::env::var_os("NO_COLOR").is_none() && io::stdout().is_terminal()
}

fn sessions_db(paths: &Paths) -> Result<mnemo::sessions::Sessions> {
    let (memory, _) = open(paths)?;
    mnemo::sessions::Sessions::open(&memory.storage().dir().join("state.db"))
}

fn when(ms: i64) -> String {
    let s = mnemo::memory::utc_stamp(ms.max(0) as u64);
    format!(
        "{}-{}-{} {}:{}",
        &s[0..4],
        &s[4..6],
        &s[6..8],
        &s[9..11],
        &s[11..13]
    )
}

/// `mnemo sessions …`.
fn sessions_command(paths: &Paths, command: SessionsCommand) -> Result<ExitCode> {
    let mut db = sessions_db(paths)?;
    match command {
        SessionsCommand::List {
            offset,
            limit,
            json,
        } => {
            let sessions = db.browse(offset, limit)?;
            if json {
                out(&pretty(&sessions)?)?;
            } else {
                let mut text = String::new();
                for s in &sessions {
                    text.push_str(&format!(
                        "{}  {:<20} {:>4} msgs  {:<10} {}\n",
                        when(s.ended),
                        s.id,
                        s.messages,
                        s.source,
                        s.title
                    ));
                }
                if sessions.is_empty() {
                    let _ = writeln!(io::stderr(), "(no sessions recorded)");
                }
                out(&text)?;
            }
        }
        SessionsCommand::Search {
            query,
            session,
            role,
            source,
            limit,
            json,
        } => {
            let filter = mnemo::sessions::Filter {
                session,
                role,
                source,
                ..Default::default()
            };
            let hits = db.search(&query, &filter, limit)?;
            if json {
                out(&pretty(&hits)?)?;
            } else {
                let mut text = String::new();
                for h in &hits {
                    text.push_str(&format!(
                        "{}  {} #{} {} ({:.2})\n  {}\n",
                        when(h.time),
                        h.session,
                        h.seq,
                        h.role,
                        h.score,
                        h.snippet
                    ));
                }
                out(&text)?;
            }
        }
        SessionsCommand::Show {
            session,
            around,
            before,
            after,
            json,
        } => {
            if db.session(&session)?.is_none() {
                return Err(Error::new(
                    ErrorKind::NoMatch,
                    format!("no session {session:?}"),
                ));
            }
            let messages = match around {
                Some(seq) => db.scroll(&session, seq, before, after)?,
                None => db.scroll(&session, 1, 0, after)?,
            };
            if json {
                out(&pretty(&messages)?)?;
            } else {
                let mut text = String::new();
                for m in &messages {
                    text.push_str(&format!("#{} {} {}\n", m.seq, m.role, when(m.time)));
                    for line in m.text.lines() {
                        text.push_str(&format!("  {line}\n"));
                    }
                }
                out(&text)?;
            }
        }
        SessionsCommand::Import { file } => {
            let text = arg_or_stdin_file(&file)?;
            let now = mnemo::storage::system_clock() as i64;
            let bad = |i: usize, what: &str| {
                Error::new(ErrorKind::InvalidInput, format!("line {}: {what}", i + 1))
            };
            // Every line is checked before anything is written: a bad line
            // imports nothing (so a corrected file can be imported again).
            let mut lines = Vec::new();
            for (i, line) in text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                let v: Value =
                    serde_json::from_str(line).map_err(|e| bad(i, &format!("not JSON ({e})")))?;
                lines.push((i, v));
            }
            let mut messages = Vec::with_capacity(lines.len());
            for (i, v) in &lines {
                let text_field = |k: &str| match v.get(k) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::String(s)) => Ok(Some(s.as_str())),
                    Some(_) => Err(bad(*i, &format!("{k} must be a string"))),
                };
                let (Some(session), Some(role), Some(msg)) = (
                    text_field("session")?,
                    text_field("role")?,
                    text_field("text")?,
                ) else {
                    return Err(bad(*i, "expected {session, role, text, time?, source?}"));
                };
                let time = match v.get("time") {
                    None | Some(Value::Null) => now,
                    Some(t) => t
                        .as_i64()
                        .ok_or_else(|| bad(*i, "time must be ms since the Unix epoch"))?,
                };
                messages.push(mnemo::sessions::NewMessage {
                    session,
                    source: text_field("source")?.unwrap_or("import"),
                    role,
                    text: msg,
                    time,
                });
            }
            db.append_all(&messages)?;
            out(&format!("recorded {} messages\n", messages.len()))?;
        }
        SessionsCommand::Delete { session } => {
            if !db.delete_session(&session)? {
                return Err(Error::new(
                    ErrorKind::NoMatch,
                    format!("no session {session:?}"),
                ));
            }
            out(&format!("deleted session {session}\n"))?;
        }
        SessionsCommand::Purge { yes } => {
            if !yes {
                let _ = write!(io::stderr(), "Delete every recorded session? [y/N] ");
                let mut answer = String::new();
                let _ = io::stdin().read_line(&mut answer);
                if !matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") {
                    let _ = writeln!(io::stderr(), "cancelled; nothing deleted");
                    return Ok(ExitCode::FAILURE);
                }
            }
            let n = db.purge()?;
            out(&format!("deleted {n} sessions\n"))?;
        }
        SessionsCommand::Tool { json } => {
            let text = arg_or_stdin(json)?;
            let args: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
            let answer = db.tool(&args);
            out(&pretty(&answer)?)?;
            return Ok(if answer.success {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            });
        }
        SessionsCommand::Schema => out(&pretty(&mnemo::sessions::tool_schema())?)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// A file's text, or standard input for `-`.
fn arg_or_stdin_file(file: &str) -> Result<String> {
    if file == "-" {
        return arg_or_stdin("-".to_string());
    }
    std::fs::read_to_string(file)
        .map_err(|e| Error::new(ErrorKind::Storage, format!("could not read {file}: {e}")))
}
