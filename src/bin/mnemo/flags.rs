//! The command line's shape: every command, argument and help text.
//!
//! Only clap definitions live here; what a command does is in
//! [`crate::commands`], and where the memories live is in [`crate::paths`].
//! Nothing here opens a file or prints.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mnemo::Target;

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

Where things live (`mnemo status` shows which is in force):
  $MNEMO_HOME              default ~/.mnemo: the global scope's root
  $MNEMO_HOME/memories     the global memories directory
  $MNEMO_HOME/config.yaml  the config (or --config FILE); its `memory:` section,
                           `display.memory_notifications`,
                           `auxiliary.background_review` and `embeddings:` are
                           read, everything else is left to the tools it
                           belongs to
  <project>/.mnemo/        a project's scope root (`mnemo init` makes one)
  <project>/.mnemo/memories     the project's memories directory
  <project>/.mnemo/config.yaml  the project's config, used when it exists
  <root>/workspaces/NAME/memories  workspace NAME of a scope (--workspace)

Scopes: without --dir, mnemo looks for a `.mnemo/` directory in the working
directory and above it, as git looks for `.git` (the nearest wins; the global
home itself never counts). Found, the project scope is in force: writes go to
the project, and search and recall read the project and then the global
memories of the same workspace, each hit labelled with its scope. Not found,
the global scope is. --scope global|project forces one (project reads only
the project); --workspace NAME uses the scope's workspace NAME instead of its
default memories (1 to 64 of A-Z a-z 0-9 . _ -, not starting with `.`);
--dir DIR names a memories directory outright (scope `dir`).

Environment:
  MNEMO_HOME       the global scope's root [default: ~/.mnemo]
  MNEMO_SCOPE      default for --scope (global or project)
  MNEMO_WORKSPACE  default for --workspace
  MNEMO_AGENT      default for --agent: whose writes and notes these are

Every write, recorded turn and `mnemo note` is appended to the day's activity
log, logs/YYYY-MM-DD.md in the memories directory (`mnemo log`).

With `memory.write_approval: true` (or `mnemo approval on`) every write is
staged for your approval instead of applied: in a terminal mnemo asks at once,
elsewhere the write waits in `mnemo pending` for `mnemo approve` or
`mnemo reject`.

Errors print `error [<code>]: <message>` and exit with status 1; a wrong
command line exits with status 2.";

const AFTER_HELP: &str = "\
Examples:
  mnemo add 'Project uses Rust 1.95 and cargo nextest'
  mnemo add --target user 'Prefers concise answers'
  mnemo replace 'nextest' 'Project uses Rust 1.95; tests run with cargo test'
  mnemo status
  mnemo prompt                   # the block an agent puts in its system prompt
  mnemo recall 'rate limiting' --explain
  mnemo pending                  # writes waiting for your approval
  mnemo review chat.jsonl --provider ollama --model qwen3:8b
  mnemo init                     # this directory becomes a project
  mnemo --workspace research add 'Paper deadline: 2027-03-01'
  mnemo log --json               # today's activity, who wrote what
  mnemo --dir ./memories export --out backup/";

#[derive(Debug, Parser)]
#[command(name = "mnemo", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    /// Memories directory holding MEMORY.md and USER.md (created if missing);
    /// overrides --scope and --workspace [default: the scope's]
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Config file (YAML with a `memory:` section); it must exist
    /// [default: the project's .mnemo/config.yaml when it exists, else
    /// $MNEMO_HOME/config.yaml, defaults when missing]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The agent these writes are from (kept with staged writes, entries,
    /// the history and the activity log)
    #[arg(long, global = true, value_name = "NAME", env = "MNEMO_AGENT")]
    pub agent: Option<String>,

    /// Whose memories: `global` ($MNEMO_HOME) or `project` (the nearest
    /// .mnemo/ above the working directory) [default: project when one is
    /// found, else global]
    #[arg(long, global = true, value_enum, env = "MNEMO_SCOPE")]
    pub scope: Option<ScopeArg>,

    // The help text shows a path pattern; it is not HTML.
    #[allow(rustdoc::invalid_html_tags)]
    /// A named workspace of the scope: <scope root>/workspaces/NAME/memories
    /// [default: the scope's own memories]
    #[arg(long, global = true, value_name = "NAME", env = "MNEMO_WORKSPACE")]
    pub workspace: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show entries, size, limits and prompt mode of both stores
    #[command(long_about = "\
Show, for MEMORY.md and USER.md: the file, the number of entries, the size in
chars, usage against the storage limit, the verbatim budget, the storage limit,
the mode (`in prompt`: the whole store is in the system prompt; `searched`: it
outgrew its verbatim budget), whether the store is enabled, and why its file
refuses writes if it is damaged. Also whether writes await approval, and how
recall ranks: `keyword`, or `hybrid` with the embedding model of the config's
`embeddings:` section. The first lines say which memories these are: the
scope (global, project or dir), the workspace, the memories directory, and
the global memories that search and recall read too inside a project.")]
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
Add CONTENT as a new entry. Adding an entry that already exists (or a
near-duplicate of one) succeeds without adding it again. Prints the result and
the store's usage; when the store is full, prints its current entries so you
can replace or remove some.

--importance (0.0 to 1.0, default 0.5) and --category (security, decision,
knowledge, contact, project, event, preference; none: general) are kept beside
the entry, not in its text; recall ranks by them.",
        after_help = "\
Examples:
  mnemo add 'Staging database is at db.staging.internal:5432'
  mnemo add --importance 0.9 --category decision 'Rate limit: 100 req/min per user'
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
        #[command(flatten)]
        meta: MetaArgs,
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
store, index and score.

Inside a project found by looking upwards, the global memories (same
workspace) are searched too: the hits of both are merged by score (a project
hit first on a tie), --limit counts them together, and each is labelled
[project] or [global]. --scope project searches the project alone.",
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
        /// At most this many notes: 1 to 1000 [default: 10]
        #[arg(short = 'n', long)]
        limit: Option<u64>,
        /// Print the results as JSON: [{scope, target, index, text, score}]
        #[arg(long)]
        json: bool,
    },

    // The help text names the tag as it appears in a prompt; it is not HTML.
    #[allow(rustdoc::invalid_html_tags)]
    /// Print the <memory-context> block an agent attaches to MESSAGE
    #[command(long_about = "\
Print the per-turn <memory-context> block for a user's MESSAGE: the best notes
(recall.top_k) of the stores that outgrew their verbatim budget, the notes
linked to them with [[wikilinks]] (recall.hops steps, both directions), capped
at recall.max_chars. Prints nothing when every store is whole in the system
prompt or nothing matches. Inside a project (found by lookup), the global
scope's matching notes follow the project's, searched whole (none of them is
in a project's prompt), each note tagged [project] or [global].")]
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
        /// Notes listed per sector: 0 to 100000 [default: 12]
        #[arg(long)]
        limit: Option<u64>,
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
Show every memory of both stores and every learned skill on a timeline, oldest
first: when it was first seen and last changed (kept beside the stores, keyed
by a stable entry id), its sector and its links. `journey list` prints the node
ids (memory:<store>:<id> for notes, the name for skills) that `journey delete`
and `journey edit` take.


--play replays the build-up as a star map: each sector a region of the screen,
each memory a star (◆ a note, ✧ a skill) with its title, links as dotted lines,
one frame per moment something was first learned (the newest highlighted),
with the date, the counts and a scrubber below. On a terminal it plays full
screen at --fps frames a second, holds the last frame, then leaves it printed;
Ctrl-C stops it and puts the terminal back (exit status 130). Piped or
redirected, it prints the last frame only. The size is the terminal's (80x24
when not a terminal) unless --width/--height say otherwise. --json wins over
--play: it prints the payload.",
        after_help = "\
Examples:
  mnemo journey
  mnemo journey --json > journey.json
  mnemo journey --play                          # Ctrl-C stops it
  mnemo journey --play --fps 20 --width 120 --height 40
  mnemo journey --play --no-color > map.txt     # the last frame, as text
  mnemo journey list
  mnemo journey delete memory:memory:3        # asks first; -y skips the question
  mnemo journey delete deploy-checklist       # a skill: archived, `mnemo skills restore` brings it back
  mnemo journey edit memory:user:0            # opens $EDITOR, re-scans on save
  mnemo journey edit deploy-checklist         # a skill's SKILL.md
  mnemo journey sectors                       # the same graph by area"
    )]
    Journey {
        #[command(subcommand)]
        action: Option<JourneyAction>,
        /// Print the journey payload as JSON (also with --play)
        #[arg(long)]
        json: bool,
        /// Animate the build-up as a star map filling in (piped: the last frame)
        #[arg(long)]
        play: bool,
        /// Frames per second of --play: 1 to 60 [default: 8]
        #[arg(long, value_name = "N", requires = "play",
              value_parser = clap::value_parser!(u32).range(1..=60))]
        fps: Option<u32>,
        /// Width in columns [default: 100; with --play the terminal's, else 80]
        #[arg(long, value_name = "COLUMNS", global = true)]
        width: Option<usize>,
        /// Height of --play in lines [default: the terminal's, else 24]
        #[arg(long, value_name = "LINES", requires = "play")]
        height: Option<usize>,
        /// No ANSI colours (also when NO_COLOR is set or stdout is not a terminal)
        #[arg(long, global = true)]
        no_color: bool,
    },

    /// Show the entries that writes replaced or removed
    #[command(long_about = "\
Show every entry text that a replace, a remove, a journey edit, an import, a
rejected staged write or curation (supersede, prune, merge) superseded, newest
first, with when and why, its id and the agent whose change it was
(mnemo-history.json beside the stores; mnemo never drops an item by itself).
Facts the user confirmed with `mnemo remember` are marked ✔.

  mnemo history restore ID        put the text back (checked like any write)
  mnemo history purge --id ID     remove one item for good
  mnemo history purge --before D  remove items older than D (YYYY-MM-DD)
  mnemo history purge --all       remove every item")]
    History {
        /// `restore ID` or `purge`; none lists the items
        #[arg(value_enum)]
        action: Option<HistoryAction>,
        /// The item to restore
        #[arg(value_name = "ID")]
        id: Option<String>,
        /// purge: the item to remove
        #[arg(long = "id", value_name = "ID")]
        purge_id: Option<String>,
        /// purge: remove items superseded before this day (YYYY-MM-DD)
        #[arg(long, value_name = "DATE")]
        before: Option<String>,
        /// purge: remove every item
        #[arg(long)]
        all: bool,
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
        #[command(flatten)]
        meta: MetaArgs,
    },

    /// Recall the entries most relevant to QUERY, ranked with importance and age
    #[command(
        long_about = "\
Rank the entries of both stores (or one, with --target) against QUERY by the
adjusted score and print the best with their relevance, importance, category,
creation date and pin:

  adjusted = (relevance + boost) × decay
  boost    = (importance − 0.5) × 0.2          (−0.1 … +0.1)
  decay    = 0.7 + 0.3 × 0.5^(age_days / 90)   (1.0 new, 0.85 at 90 days,
                                                 0.7 at the floor; 1.0 pinned)

(age from the entry's last change; the 90 is memory.recall.decay_half_life_days).

relevance is on an absolute 0–1 scale, so --threshold means the same for
every query: keywords alone (BM25 mapped through s / (s + 6)) without an
embedding model, else the hybrid 0.4 × semantic + 0.6 × keyword
(memory.recall.hybrid; the spec's 0.6/0.4 with its +0.15 and +0.10 bonuses
is {semantic: 60, keyword: 40, bonuses: true}).
--explain prints every part of every score.

The embedding model is an OpenAI-compatible embeddings endpoint (POST
<base>/embeddings): the config's top-level `embeddings:` section ({provider |
base_url, model, dimensions, api_key_env?, timeout?}) or --embed-url,
--embed-model and --embed-dimensions (a key with --embed-key-env VAR; a URL
given with --embed-url gets no key from the config). Entries are embedded once (their vectors
are kept in state.db by model and text); each recall embeds its query. When
the endpoint fails, the recall ranks by keywords and says why; without a
model, recall never uses the network.

Inside a project found by looking upwards, the global memories (same
workspace) are recalled too: the results of both are merged by adjusted score
(a project result first on a tie), --limit counts them together, and each is
labelled [project] or [global] (`scope` in JSON). --scope project recalls the
project alone.",
        after_help = "\
Examples:
  mnemo recall 'what did we decide about authentication' -n 5 --threshold 0.1
  mnemo recall deploy --min-importance 0.7 --category decision --explain
  mnemo recall throttling --embed-url http://localhost:11434/v1 \\
      --embed-model nomic-embed-text --embed-dimensions 768
  mnemo recall database --json | jq '.results[].content'"
    )]
    Recall(RecallArgs),

    /// Print the `## Relevant Memory` block for PROMPT (automatic injection)
    #[command(long_about = "\
Print the block an agent puts before its first turn for PROMPT: `## Relevant
Memory` and one `- [category] text (importance: 0.9)` line per entry, the best
recall.top_k entries by the adjusted score (see `mnemo recall --help`; hybrid
with an embedding model), capped at recall.max_chars. When nothing matches (a
generic prompt such as `check inbox`), the most important entries come
instead. Prints nothing for an empty memory.")]
    Inject {
        /// The user's prompt; `-` reads it from standard input
        #[arg(value_name = "PROMPT")]
        prompt: String,
        #[command(flatten)]
        embed: EmbedArgs,
    },

    /// Replace the entry containing QUERY with NEW_CONTENT
    #[command(
        long_about = "\
Replace the text of the one entry containing QUERY (a substring, as for
`replace`; both stores unless --target) with NEW_CONTENT, keeping its
metadata; --importance sets its importance too. When no entry or several
contain QUERY, the candidates are listed and nothing changes (exit status 1).
Staged for approval like any write while approval is on.",
        after_help = "\
Example:
  mnemo update 'migration deadline' 'Database migration deadline moved to 2026-03-15' --importance 0.9"
    )]
    Update {
        /// A substring of exactly one entry
        #[arg(value_name = "QUERY")]
        query: String,
        /// The entry's new text; `-` reads it from standard input
        #[arg(value_name = "NEW_CONTENT")]
        content: String,
        /// The entry's new importance: 0.0 to 1.0
        #[arg(long, value_name = "X", allow_negative_numbers = true)]
        importance: Option<f64>,
        /// Only this store (default: both)
        #[arg(short, long, value_enum)]
        target: Option<TargetArg>,
    },

    /// Set the importance of the entry containing QUERY
    #[command(
        name = "mark-important",
        long_about = "\
Set the importance (0.0 to 1.0) of the one entry containing QUERY, or of every
entry containing it with --all. When no entry or several (without --all)
contain QUERY, the candidates are listed and nothing changes (exit status 1).
Importance is metadata: the Markdown is unchanged and the change applies at
once, also while write approval is on.",
        after_help = "\
Examples:
  mnemo mark-important 'production database' 0.95
  mnemo mark-important 'v1 API' 0.2 --all"
    )]
    MarkImportant {
        /// A substring of the entry (or entries, with --all)
        #[arg(value_name = "QUERY")]
        query: String,
        /// 0.0 to 1.0 (0.5 is neutral)
        #[arg(value_name = "IMPORTANCE", allow_negative_numbers = true)]
        importance: f64,
        /// Every entry containing QUERY
        #[arg(long)]
        all: bool,
        /// Only this store (default: both)
        #[arg(short, long, value_enum)]
        target: Option<TargetArg>,
    },

    /// Pin the entry containing QUERY: full importance, no decay
    #[command(long_about = "\
Pin the one entry containing QUERY: it gets importance 1.0, scores at full
weight whatever its age and is never pruned. `#pinned` in an entry's text does
the same. Metadata only: applies at once, also while write approval is on.")]
    Pin {
        /// A substring of exactly one entry
        #[arg(value_name = "QUERY")]
        query: String,
        /// Only this store (default: both)
        #[arg(short, long, value_enum)]
        target: Option<TargetArg>,
    },

    /// Remove the entry containing QUERY (every one with --all) into the history
    #[command(
        long_about = "\
Remove the one entry containing QUERY, or every entry containing it with
--all, as one write; the texts are kept in `mnemo history`. When no entry or
several (without --all) contain QUERY, the candidates are listed and nothing
changes (exit status 1). Staged for approval like any write while approval is
on.",
        after_help = "\
Examples:
  mnemo forget 'deprecated v1 API endpoints'
  mnemo forget 'v1 API' --all"
    )]
    Forget {
        /// A substring of the entry (or entries, with --all)
        #[arg(value_name = "QUERY")]
        query: String,
        /// Every entry containing QUERY
        #[arg(long)]
        all: bool,
        /// Only this store (default: both)
        #[arg(short, long, value_enum)]
        target: Option<TargetArg>,
    },

    /// Search and browse past conversations (state.db beside the stores)
    #[command(subcommand)]
    Sessions(SessionsCommand),

    /// Learned skills: list, view, review staged skill writes, restore
    #[command(
        long_about = "\
Learned skills are SKILL.md files (YAML frontmatter: name, description,
category, tags) under <scope root>/skills/<category>/<name>/, beside the
memories. The agent writes them through the skill tool; with
skills.write_approval on (or a write the security scanner flags) its writes
are staged here for you: `pending` shows a one-line gist each, `diff` the full
unified diff, `approve` / `reject` decide. Deleting archives a skill under
skills/.archive/; `restore` brings it back.",
        after_help = "\
Examples:
  mnemo skills                          # every skill with its usage
  mnemo skills view deploy-checklist
  mnemo skills pending
  mnemo skills diff k3
  mnemo skills approve all
  mnemo skills approval on
  mnemo skills restore deploy-checklist
  mnemo skills archive-stale --days 90"
    )]
    Skills {
        #[command(subcommand)]
        command: Option<SkillsCommand>,
    },

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

    /// List the writes waiting for your approval
    #[command(
        long_about = "\
List the staged writes, oldest first: their id, where they came from
(foreground: an agent's or your own write; review [auto]: the background
review), the agent, their age, their state and a one-line summary. A write in
state needs_review could not be applied when it was approved (the store had
changed); the reason is shown under it. Staged writes are invisible to every
read until approved.",
        after_help = "\
Examples:
  mnemo pending
  mnemo pending --json | jq '.[].id'"
    )]
    Pending {
        /// Print the staged writes as JSON: [{id, origin, agent?, created,
        /// summary, operations, state, reason?}]
        #[arg(long)]
        json: bool,
    },

    /// Apply a staged write (or all of them)
    #[command(
        long_about = "\
Apply the staged write ID (p3, or just 3), or every one with `all`, oldest
first. Each is checked again against the stores as they are now (unique
match, limits, duplicates, the security scanner): a write that no longer
applies stays pending as needs_review with the reason, and the exit status is
1. --edit opens the staged text in $VISUAL or $EDITOR first, --content gives
the new text directly; both are for one staged add or replace.",
        after_help = "\
Examples:
  mnemo approve p3
  mnemo approve all
  mnemo approve p4 --edit
  mnemo approve p4 --content 'User prefers light mode in VS Code'"
    )]
    Approve {
        /// The staged write's id, or `all`
        #[arg(value_name = "ID|all")]
        which: String,
        /// Edit the staged text in $VISUAL / $EDITOR before approving
        #[arg(long, conflicts_with = "content")]
        edit: bool,
        /// Approve with this text instead of the staged one; `-` reads it
        /// from standard input
        #[arg(long, value_name = "TEXT")]
        content: Option<String>,
        /// Print what was applied and what was not as JSON
        #[arg(long)]
        json: bool,
    },

    /// Drop a staged write (or all of them)
    #[command(
        long_about = "\
Drop the staged write ID, or every one with `all`. Nothing enters the stores;
the dropped texts are kept in the history (`mnemo history`, cause rejected).",
        after_help = "\
Examples:
  mnemo reject p2
  mnemo reject all"
    )]
    Reject {
        /// The staged write's id, or `all`
        #[arg(value_name = "ID|all")]
        which: String,
        /// Print what was dropped as JSON
        #[arg(long)]
        json: bool,
    },

    /// Show or switch write approval
    #[command(
        long_about = "\
Without an argument, show whether writes are staged for approval and where
that comes from: the config's memory.write_approval, or an override set here.
`on` or `off` sets the override, kept with the memories (so every process and
the npm package see it) until changed again; it wins over the config. Staged
writes stay staged either way.",
        after_help = "\
Examples:
  mnemo approval
  mnemo approval on"
    )]
    Approval {
        /// `on` or `off`
        #[arg(value_enum, value_name = "on|off")]
        state: Option<Switch>,
        /// Print the state as JSON: {enabled, source, pending, needs_review}
        #[arg(long)]
        json: bool,
    },

    /// Run the background memory review of a conversation on a model
    #[command(
        long_about = "\
Let a model read a conversation and the current memory and save what is worth
keeping, as the background review does after a turn: mnemo sends the review
instructions, the stores and the transcript to an OpenAI-compatible
chat-completions endpoint (POST <base>/chat/completions with the memory tool),
applies the memory tool calls the model makes as writes of origin `review`
(staged when approval is on; checked by the security scanner like any write)
and loops until the model stops, up to auxiliary.background_review's
max_iterations calls and max_input_chars per call.

TRANSCRIPT is JSON Lines, one OpenAI chat message per line ({role, content,
tool_calls?, tool_call_id?, name?}), or one JSON array of messages; `-` reads
standard input.

The endpoint: --llm URL, else --provider's (openai https://api.openai.com/v1,
openrouter https://openrouter.ai/api/v1, ollama http://localhost:11434/v1), else
the config's auxiliary.background_review base_url or provider. The key comes
from an environment variable, sent as `Authorization: Bearer`: --api-key-env
VAR, else the provider's (OPENAI_API_KEY, OPENROUTER_API_KEY; none for ollama
or a bare --llm URL). The model: --model, else the config's model unless it is
`auto`.

The review model is taken to differ from the conversation's, so a compact
digest of the transcript is sent (the last 24 messages verbatim, older ones
collapsed); --same-model replays the whole transcript instead, as when the
review runs on the conversation's own model with its prompt cache warm.

Prints each tool call and its outcome, the staged ids, the notification line
and the usage the endpoint reported. Exits 1 when the review stopped on an
error (writes made before it stand).",
        after_help = "\
Examples:
  mnemo review chat.jsonl --provider ollama --model qwen3:8b
  OPENAI_API_KEY=sk-… mnemo review chat.jsonl --provider openai --model gpt-4.1-mini
  mnemo review chat.jsonl --provider openrouter --model google/gemini-3-flash-preview
  mnemo review chat.jsonl --llm http://127.0.0.1:8080/v1 --model local --json"
    )]
    Review(ReviewArgs),

    /// Distil the activity log into durable memory, consolidate and prune
    #[command(
        long_about = "\
Curate the memory: read the activity log since the last curation (notes and
recorded turns), ask the model to extract durable facts, and store each one as
new, skip it as a duplicate (similarity 0.9 or more: the entry's access is
counted), or, in the gray zone (0.7 to 0.9), ask the model whether it
supersedes the similar entry (the old text goes to the history) or both are
kept (also the answer on any model error). Then group each store by category
(exact duplicates merged, one atomic write with a backup), prune stale entries
(pinned never; older than 90 days with importance below 0.3; older than 60
days, never accessed, importance below 0.5) into the history, and delete day
logs older than curation.log_retention_days. Every write is checked like any
other and staged when write approval is on. Similarity is cosine with the
config's embeddings: model, else lexical (Dice over stemmed content words).

The model is the review's: --llm/--provider/--model, else the config's
auxiliary.background_review. With no model configured (or --no-llm), extraction
is skipped, the log stays unread for the next curation, and the other steps
run. Exits 1 when the model failed (nothing of the failed part was written; the
log is read again next time).",
        after_help = "\
Examples:
  mnemo curate --provider openrouter --model google/gemini-3-flash-preview
  mnemo curate --dry-run --json
  mnemo curate --no-llm"
    )]
    Curate(CurateArgs),

    /// Make a directory (default: this one) a project with its own memories
    #[command(
        long_about = "\
Make PATH (default: the working directory) a project: create PATH/.mnemo/memories
(with --workspace NAME, PATH/.mnemo/workspaces/NAME/memories). From then on,
mnemo run in PATH or any directory below it uses the project scope: writes go
to the project's memories, and search and recall read the global memories too.
A PATH/.mnemo/config.yaml, when you write one, is used instead of the global
config. Running it again changes nothing and says so.",
        after_help = "\
Examples:
  mnemo init
  mnemo init ~/code/api
  mnemo init --workspace research --json"
    )]
    Init {
        /// The project's directory; it must exist [default: the working
        /// directory]
        #[arg(value_name = "PATH")]
        path: Option<PathBuf>,
        /// Print {project, root, dir, workspace, created} as JSON
        #[arg(long)]
        json: bool,
    },

    /// Show a day's activity log: every write, turn and note, and whose
    #[command(
        long_about = "\
Print the records of day DATE (YYYY-MM-DD, UTC; default today) of the activity
log (logs/DATE.md in the memories directory): one line per write, recorded
turn or note, as `HH:MM:SS  agent  what  text`, oldest first. The agent is the
name given with --agent or MNEMO_AGENT, `-` when none was; `what` is `memory
add`, `user replace`, `memory remove`, `turn user`, `note`, … (a write that did
not come from the foreground says so: `memory add (review)`). --days lists the
days that have a log instead.",
        after_help = "\
Examples:
  mnemo log
  mnemo log 2026-12-01 --json | jq '.[] | select(.agent == \"alice\")'
  mnemo log --days"
    )]
    Log {
        /// The day, YYYY-MM-DD (UTC) [default: today]
        #[arg(value_name = "DATE")]
        date: Option<String>,
        /// List the days that have a log instead
        #[arg(long, conflicts_with = "date")]
        days: bool,
        /// Print JSON: [{date, time, agent?, what, text}], or with --days
        /// the days
        #[arg(long)]
        json: bool,
    },

    /// Append a note to today's activity log
    #[command(
        long_about = "\
Append TEXT to today's activity log as a note of the agent named with --agent
(or MNEMO_AGENT): a way for agents sharing a workspace to tell each other, and
the curator, what they did. The note is not a memory: it is not in the system
prompt and search does not find it. Text the security scanner blocks is
logged as the scanner's placeholder.",
        after_help = "\
Examples:
  mnemo --agent alice note 'Migrated the staging database; old dumps in /srv/old'
  git log -1 --format=%s | mnemo note -"
    )]
    Note {
        /// The note; `-` reads it from standard input
        #[arg(value_name = "TEXT")]
        text: String,
        /// Print the record as written, as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Recent sessions, most recent first
    List {
        /// Sessions to skip [default: 0]
        #[arg(long)]
        offset: Option<u64>,
        /// At most this many: 1 to 50 [default: 10]
        #[arg(short = 'n', long)]
        limit: Option<u64>,
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
        /// At most this many: 1 to 50 [default: 10]
        #[arg(short = 'n', long)]
        limit: Option<u64>,
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
        around: Option<u64>,
        /// Messages before --around: 0 to 200 [default: 5]
        #[arg(long)]
        before: Option<u64>,
        /// Messages after --around, 0 to 200 [default: 5; without --around,
        /// the first 20]
        #[arg(long)]
        after: Option<u64>,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Record transcripts: mnemo's JSON Lines of {session, role, text, time?,
    /// source?}, or (opt-in, --from) the session files Claude Code or Codex
    /// keep, idempotently: a second import adds nothing
    Import {
        /// The transcripts' format: mnemo, claude-code or codex
        #[arg(long, value_name = "FORMAT", default_value = "mnemo")]
        from: String,
        /// A transcript file, or a directory searched for *.jsonl files; `-`
        /// reads standard input. Default with --from claude-code:
        /// ~/.claude/projects ($CLAUDE_CONFIG_DIR/projects); with --from
        /// codex: ~/.codex/sessions ($CODEX_HOME/sessions)
        #[arg(value_name = "PATH")]
        path: Option<String>,
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
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

/// `mnemo skills …`.
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// List the skills with category, description and usage
    List {
        /// Print them as JSON
        #[arg(long)]
        json: bool,
    },
    /// Print a skill's SKILL.md (or a file beside it)
    View {
        /// The skill's name
        name: String,
        /// A file beside SKILL.md, e.g. references/api.md
        file: Option<String>,
    },
    /// Find skills by what they are about
    Search {
        /// Words about the task
        query: String,
        /// Print them as JSON
        #[arg(long)]
        json: bool,
    },
    /// List staged skill writes with a one-line gist each
    Pending {
        /// Print them as JSON (with the whole change)
        #[arg(long)]
        json: bool,
    },
    /// Print the full unified diff of a staged skill write
    Diff {
        /// The staged write's id (k3)
        id: String,
    },
    /// Apply a staged skill write (or all of them)
    Approve {
        /// The staged write's id, or `all`
        #[arg(value_name = "ID|all")]
        which: String,
    },
    /// Drop a staged skill write (or all of them)
    Reject {
        /// The staged write's id, or `all`
        #[arg(value_name = "ID|all")]
        which: String,
    },
    /// Turn the skill-write gate on or off (kept with the memory), or show it
    Approval {
        /// `on` or `off`
        #[arg(value_enum, value_name = "on|off")]
        state: Option<Switch>,
    },
    /// Archive a skill (restorable)
    Archive {
        /// The skill's name
        name: String,
    },
    /// List archived skills
    Archived {
        /// Print them as JSON
        #[arg(long)]
        json: bool,
    },
    /// Earlier versions of a skill's files that writes replaced or removed
    History {
        /// The skill's name
        name: String,
        /// Print each version's whole text too
        #[arg(long)]
        full: bool,
        /// Print them as JSON (with their text)
        #[arg(long)]
        json: bool,
    },
    /// Bring back the newest archived copy of a skill
    Restore {
        /// The skill's name
        name: String,
    },
    /// Pin a skill: never archived as stale
    Pin {
        /// The skill's name
        name: String,
    },
    /// Unpin a skill
    Unpin {
        /// The skill's name
        name: String,
    },
    /// Count one use of a skill (for hosts that report usage)
    Used {
        /// The skill's name
        name: String,
    },
    /// Archive every unpinned skill not used, viewed or changed for DAYS days
    ArchiveStale {
        /// Days without use
        #[arg(long, default_value_t = 90)]
        days: u64,
    },
    /// Run a raw skill tool call (JSON) and print the answer
    Tool {
        /// The arguments as JSON; `-` reads standard input
        json: String,
    },
    /// Print the skill tool's definition
    Schema,
}

#[derive(Debug, Subcommand)]
pub enum JourneyAction {
    /// List node ids (memory:<store>:<id> for notes, names for skills) with titles
    List,
    /// The sectors report (same as `mnemo sectors`)
    Sectors {
        /// Show only this sector
        name: Option<String>,
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
        /// Entries listed per sector: 0 to 100000 [default: 12]
        #[arg(long)]
        limit: Option<u64>,
    },
    /// Delete a memory, or archive a skill (asks for confirmation unless -y)
    Delete {
        /// The node id, e.g. memory:memory:3, or a skill's name
        node: String,
        /// Do not ask
        #[arg(short = 'y', long)]
        yes: bool,
    },
    /// Edit a memory (or a skill's SKILL.md) in $EDITOR; checked like any write
    Edit {
        /// The node id, e.g. memory:user:0, or a skill's name
        node: String,
    },
}

/// The metadata a new entry gets (`add`, `remember`).
#[derive(Debug, Args)]
pub struct MetaArgs {
    /// How much the entry matters: 0.0 to 1.0 [default: 0.5]
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub importance: Option<f64>,
    /// security, decision, knowledge, contact, project, event, preference
    /// or general [default: general]
    #[arg(long, value_name = "NAME")]
    pub category: Option<String>,
}

/// The arguments of `mnemo recall`.
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to recall
    #[arg(value_name = "QUERY")]
    pub query: String,
    /// At most this many results: 1 to 1000 [default: 10]
    #[arg(short = 'n', long)]
    pub limit: Option<u64>,
    /// Only results whose adjusted score reaches this: 0.0 to 1.0
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub threshold: Option<f64>,
    /// Only entries at least this important
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub min_importance: Option<f64>,
    /// Only entries at most this important
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub max_importance: Option<f64>,
    /// Only this category (`general`: entries without one)
    #[arg(long, value_name = "NAME")]
    pub category: Option<String>,
    /// Only this store (default: both)
    #[arg(short, long, value_enum)]
    pub target: Option<TargetArg>,
    /// Show every part of each score
    #[arg(long)]
    pub explain: bool,
    /// Print {results: [{scope, id, target, index, content, relevance,
    /// importance, category, created, pinned, explain?}], mode, skipped?}
    /// as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub embed: EmbedArgs,
}

/// The embedding model of a recall, over the config's `embeddings:` section.
#[derive(Debug, Default, Args)]
pub struct EmbedArgs {
    /// Base URL of an OpenAI-compatible embeddings API (…/v1): recall is
    /// then hybrid [default: the config's `embeddings:` section]
    #[arg(long, value_name = "URL")]
    pub embed_url: Option<String>,
    /// The embedding model
    #[arg(long, value_name = "NAME")]
    pub embed_model: Option<String>,
    /// The length of the model's vectors
    #[arg(long, value_name = "N")]
    pub embed_dimensions: Option<usize>,
    /// The environment variable holding the embeddings API key
    #[arg(long, value_name = "VAR")]
    pub embed_key_env: Option<String>,
}

/// What `mnemo history` does besides listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HistoryAction {
    /// Put an item's text back into its store
    Restore,
    /// Remove items for good
    Purge,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TargetArg {
    /// MEMORY.md: the agent's own notes
    Memory,
    /// USER.md: the user profile
    User,
}

impl TargetArg {
    /// The core's store this argument names.
    pub fn target(self) -> Target {
        match self {
            TargetArg::Memory => Target::Memory,
            TargetArg::User => Target::User,
        }
    }

    /// The store's name in a tool call (`memory`, `user`).
    pub fn name(self) -> &'static str {
        match self {
            TargetArg::Memory => "memory",
            TargetArg::User => "user",
        }
    }
}

/// A scope `--scope` can force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    /// $MNEMO_HOME's memories
    Global,
    /// The memories of the nearest .mnemo/ above the working directory
    Project,
}

/// `on` or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    /// Stage every write for approval
    On,
    /// Write freely
    Off,
}

/// A provider with a known OpenAI-compatible base URL.
// The variants' docs are `--help` text, where a URL reads best bare.
#[allow(rustdoc::bare_urls)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderArg {
    /// https://api.openai.com/v1, key in OPENAI_API_KEY
    Openai,
    /// https://openrouter.ai/api/v1, key in OPENROUTER_API_KEY
    Openrouter,
    /// http://localhost:11434/v1 (a local Ollama), no key
    Ollama,
}

impl ProviderArg {
    /// The provider's name, as the config spells it.
    pub fn name(self) -> &'static str {
        match self {
            ProviderArg::Openai => "openai",
            ProviderArg::Openrouter => "openrouter",
            ProviderArg::Ollama => "ollama",
        }
    }
}

/// The arguments of `mnemo review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The conversation: JSON Lines of chat messages, or a JSON array;
    /// `-` reads standard input
    #[arg(value_name = "TRANSCRIPT")]
    pub transcript: String,
    #[command(flatten)]
    pub model: ModelArgs,
    /// The model is the conversation's own: replay the whole transcript
    /// instead of a digest
    #[arg(long)]
    pub same_model: bool,
    /// Print the review's report as JSON
    #[arg(long)]
    pub json: bool,
}

/// Which model a command asks: an OpenAI-compatible endpoint.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Base URL of an OpenAI-compatible API (…/v1)
    #[arg(long, value_name = "URL")]
    pub llm: Option<String>,
    /// The model to ask
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// A known provider, naming its base URL and its key's variable
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    /// The environment variable holding the API key
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Seconds one model call may take, connecting included: 1 to 3600
    #[arg(long, value_name = "SECS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
}

/// The arguments of `mnemo curate`.
#[derive(Debug, Args)]
pub struct CurateArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Curate without a model even when one is configured: duplicates,
    /// consolidation, pruning; the log stays unread
    #[arg(long, conflicts_with_all = ["llm", "provider", "model"])]
    pub no_llm: bool,
    #[command(flatten)]
    pub embed: EmbedArgs,
    /// Report what curation would do, and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}
