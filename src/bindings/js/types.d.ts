/** Stable error codes: `MnemoError.code` and `ToolResult.code`. */
export type ErrorCode =
  | "invalid-input"
  | "unknown-action"
  | "unknown-target"
  | "empty"
  | "invalid-text"
  | "too-long"
  | "blocked"
  | "no-match"
  | "ambiguous-match"
  | "store-full"
  | "store-disabled"
  | "store-damaged"
  | "retry-limit"
  | "invalid-config"
  | "closed"
  | "locked"
  | "storage"
  | "internal"
  | "unsupported";

/** One search result. */
export interface SearchHit {
  target: Target;
  /** The entry's index in its store. */
  index: number;
  /** The entry, whole. */
  text: string;
  /** Relevance; higher is better (comparable within one query). */
  score: number;
}

/**
 * The caller's way out of a host callback that never answers: `tool`,
 * `search`, `context`, `recall` and `inject` take `{signal}`. When it aborts,
 * the host's embedder or classifier is given up on as if it had failed:
 * recall falls back to keywords (and says so in `skipped`), the scanner's
 * rules decide alone. Nothing else changes.
 */
export interface CallOptions {
  /** Gives up on the host's embedder or classifier when it aborts. */
  signal?: AbortSignal;
}

/** Options of `search` (and of the memory tool's `search` action). */
export interface SearchOptions {
  /** Only this store (default: both). */
  target?: Target;
  /** At most this many results, an integer from 1 to 1000 (default 10). */
  limit?: number;
}

/** Options of `remember`: the store and the entry's metadata (search options such as `limit` are refused). */
export interface RememberOptions {
  /** Where the confirmed fact goes (default `"user"`). */
  target?: Target;
  /** 0 to 1 (default 0.5): 0.9+ critical, 0.7 important, 0.5 useful, below 0.3 noise. */
  importance?: number;
  /** The entry's category; `"general"` (or absent) is none. */
  category?: CategoryName;
}

/** The spec's seven categories; `"general"` means none. */
export type Category = "security" | "decision" | "knowledge" | "contact" | "project" | "event" | "preference";

/** A category as accepted in options: one of the seven, or `"general"` (none). */
export type CategoryName = Category | "general";

/** Options of `recall`. */
export interface RecallOptions {
  /** Only this store (default: both). */
  target?: Target;
  /** At most this many results, an integer from 1 to 1000 (default 10). */
  limit?: number;
  /** Only results whose adjusted score (`relevance`) is at least this, 0 to 1. */
  scoreThreshold?: number;
  /** Only entries of at least this importance, 0 to 1. */
  minImportance?: number;
  /** Only entries of at most this importance, 0 to 1. */
  maxImportance?: number;
  /** Only this category (`"general"`: entries without one). */
  category?: CategoryName;
  /** Give each result every part of its score (`explain`). */
  explain?: boolean;
}

/** Every part of a recall score: `adjusted = (relevance + boost) × decay`. */
export interface RecallExplain {
  /** The keyword part on the absolute 0–1 scale (`bm25 / (bm25 + k)`). */
  keyword: number;
  /** The raw BM25 score. */
  bm25: number;
  /** The cosine similarity to the query, when the host's embedder took part. */
  semantic?: number;
  /** The relevance the adjustment started from (keyword, or the hybrid). */
  relevance: number;
  /** The importance boost, `(importance − 0.5) × 0.2`. */
  boost: number;
  /** The temporal decay, 0.7 to 1 (1 when pinned). */
  decay: number;
  /** The entry's age in days, since its last change. */
  age_days: number;
  /** The pin exempted it from decay. */
  pinned: boolean;
  /** The adjusted score (the result's `relevance`). */
  adjusted: number;
}

/** One recall result. */
export interface RecallHit {
  /** The entry's stable node id `memory:<store>:<entry id>`. */
  id: string;
  target: Target;
  /** The entry's index in its store. */
  index: number;
  /** The entry, whole. */
  content: string;
  /** The adjusted score, 0 to about 1.1 (absolute: comparable across queries). */
  relevance: number;
  importance: number;
  /** `"general"` when it has none. */
  category: CategoryName;
  /** When it was first seen, ms since the Unix epoch. */
  created: number;
  /** Pinned (`pin()` or `#pinned` in the text). */
  pinned: boolean;
  /** Every part of the score, with `{explain: true}`. */
  explain?: RecallExplain;
}

/**
 * What `recall` resolves to: the results, best first, as an array (so
 * `r[0].content` and `r.length` work) that also carries how it ranked.
 */
export interface Recalled extends Array<RecallHit> {
  /** `"hybrid"`: the host's embedder took part; `"keyword"`: BM25 alone. */
  mode: "keyword" | "hybrid";
  /** Why the embedder was not used this time (it threw or answered nonsense), when it failed. */
  skipped?: string;
}

/** What `markImportant` and `pin` did. */
export interface Marked {
  /** Node ids of the entries changed (empty when they already had it). */
  entries: string[];
  message: string;
}

/** A host's embedding model, for hybrid recall (mnemo never loads one itself). */
export interface Embedder {
  /** The model's name: stored vectors are kept per model. */
  model: string;
  /** The length of every vector, 1 to 65536. */
  dimensions: number;
  /**
   * One vector per text, in order. A throw, a rejection or a wrong answer
   * makes that recall keyword-only and says so in `skipped`.
   */
  embed: (texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];
}

/** What every rejected promise of mnemo carries (API misuse, storage failure). */
export interface MnemoError extends Error {
  name: "MnemoError";
  code: ErrorCode;
}

/** Which store: the agent's notes or the user profile. */
export type Target = "memory" | "user";

/** One operation of the memory tool. */
export interface ToolOperation {
  action: "add" | "replace" | "remove";
  target?: Target;
  content?: string;
  old_text?: string;
  /** The written entry's importance, 0 to 1 (add, replace). */
  importance?: number;
  /** The written entry's category (add, replace). */
  category?: CategoryName;
}

/**
 * The memory tool's arguments, exactly as an LLM emits them. `tool()` takes
 * any value (a model's arguments arrive untyped) and answers bad ones with
 * a failed `ToolResult`; check your own calls with `satisfies ToolArgs`.
 */
export interface ToolArgs {
  action?: "add" | "replace" | "remove" | "search";
  /** What to look for (`search`). */
  query?: string | null;
  /** At most this many notes (`search`): an integer from 1 to 1000 (default 10). */
  limit?: number | null;
  target?: Target;
  content?: string | null;
  old_text?: string | null;
  /** The written entry's importance, 0 to 1 (add, replace). */
  importance?: number | null;
  /** The written entry's category (add, replace). */
  category?: CategoryName | null;
  /** Several operations applied atomically (all or none). */
  operations?: ToolOperation[];
}

/** What the memory tool answers; hand it back to the LLM as the tool result. */
export interface ToolResult {
  /** Whether the call did what was asked (a duplicate add counts). */
  success: boolean;
  /** What happened, on success. */
  message?: string;
  /** What went wrong and what was expected, on failure. */
  error?: string;
  /** The stable error code, on failure. */
  code?: ErrorCode;
  /** The store the call was about. */
  target?: Target;
  /** `"67% — 1,474/2,200 chars"`; `"2,100/2,200"` in a store-full error. */
  usage?: string;
  entry_count?: number;
  /** For `store-full`: the live entries, so the model can consolidate. */
  current_entries?: string[];
  /** `true`: too many failed writes this turn, stop retrying. */
  done?: boolean;
  /** For `search`: the matching notes, best first. */
  results?: SearchHit[];
  /** Checks that could not run on this call and why (a failed host classifier). */
  skipped?: string[];
  /**
   * `true`: write approval is on, so the write was staged, not saved; it
   * waits in `pending()` as `pending_id` until the user approves it. Not an
   * error: the model must neither retry it nor say it was saved.
   */
  staged?: boolean;
  /** The staged write's id (`"p3"`), when `staged`. */
  pending_id?: string;
  /**
   * The chat line announcing the write, per `display.memory_notifications`
   * (`"💾 Memory updated"`, a preview in `verbose`, `"⏳ … awaiting your
   * approval (p3)"` when staged); absent when off or nothing changed.
   */
  notification?: string;
}

/** The tool definition: OpenAI `{name, description, parameters}`; use `parameters` as Anthropic's `input_schema`. */
export interface ToolSchema {
  name: "memory";
  description: string;
  parameters: Record<string, unknown>;
}

/** Configuration: the spec's `memory:` keys, snake_case. Unknown keys are an error. */
export interface MemoryConfig {
  memory?: {
    memory_enabled?: boolean;
    user_profile_enabled?: boolean;
    /** Verbatim budget of MEMORY.md (default 2,200 chars). */
    memory_char_limit?: number;
    /** Verbatim budget of USER.md (default 1,375 chars). */
    user_char_limit?: number;
    /**
     * Stage every write for the user's approval instead of applying it
     * (default false). `setApproval()` keeps an override with the memory
     * that wins until changed; `status().approval` says which is in force.
     */
    write_approval?: boolean;
    recall?: {
      enabled?: boolean;
      /** Storage limit of MEMORY.md (default 120,000 chars). */
      memory_char_limit?: number;
      /** Storage limit of USER.md (default 24,000 chars). */
      user_char_limit?: number;
      top_k?: number;
      max_chars?: number;
      hops?: number;
      /** Days over which a score's decay halves its distance to 0.7 (default 90). */
      decay_half_life_days?: number;
      /** The hybrid mix with an embedder, in percent (default 40/60, no bonuses). */
      hybrid?: { semantic?: number; keyword?: number; bonuses?: boolean };
    };
  };
  display?: {
    /**
     * The line a write or a review announces (`ToolResult.notification`):
     * `"on"` (default) a generic line, `"verbose"` a compact preview,
     * `"off"` none.
     */
    memory_notifications?: "off" | "on" | "verbose";
  };
  auxiliary?: {
    /** The background review (`review()`) and its bounds. */
    background_review?: {
      /** A known provider for the CLI (`openai`, `openrouter`, `ollama`); JS hosts pass their own `llm`. */
      provider?: string | null;
      /** The review's model; `"auto"` (default) is the main chat model. */
      model?: string;
      /** An OpenAI-compatible base URL for the CLI. */
      base_url?: string | null;
      /** The most model calls one review makes, 1 to 64 (default 8). */
      max_iterations?: number;
      /** The most chars of messages one call sends (default 400,000); the review stops before a bigger call. */
      max_input_chars?: number;
    };
  };
  /** When curation runs and what the activity log keeps (see `curate()`). */
  curation?: {
    /** `"on_stop"` (default, as in the spec): `stop()` curates; `"manual"`: only `curate()` does. */
    auto?: "on_stop" | "manual";
    /** Days a day's activity log is kept, 1 to 36500 (default 90); older days are deleted when curation runs. */
    log_retention_days?: number;
    /** The most chars of log one extraction call sends, from 1000 (default 24,000); a longer log is read in several calls. */
    max_input_chars?: number;
  };
  /** Learned skills (see `skillTool()`). */
  skills?: {
    /**
     * Stage every skill write (create, edit, patch, write_file,
     * remove_file, delete) for the user's approval instead of applying it
     * (default false; writes the scanner flags are staged either way).
     * `setSkillApproval()` keeps an override with the memory.
     */
    write_approval?: boolean;
  };
}

/** What a storage adapter's `read` may answer. */
export type StoredBlob = string | Uint8Array | ArrayBuffer | null | undefined;

/** A place to keep named blobs: edge KV, Durable Object storage, anything. */
export interface StorageAdapter {
  /** The blob (text or bytes), or null (or undefined) when absent. */
  read(name: string): Promise<StoredBlob> | StoredBlob;
  /**
   * Replace the blob atomically. `data` is a string when it is UTF-8 text,
   * else bytes: the backup of a damaged file, and in the full build the
   * sessions database image `sessions.db` (and the journal that carries it).
   */
  write(name: string, data: string | Uint8Array): Promise<void> | void;
  list(): Promise<string[]> | string[];
  delete(name: string): Promise<void> | void;
  /** Optional: exclude other writers (throw an error with `code: "locked"` on timeout). */
  lock?(): Promise<void> | void;
  unlock?(): Promise<void> | void;
}

/** Options of `Memory.open`. */
export interface MemoryOptions {
  /**
   * `"memory"` (default; gone on reload), `"opfs"` (a dedicated worker's
   * OPFS; `mnemo/browser` starts the worker for a page), `"indexeddb"`,
   * `"auto"` (OPFS, else IndexedDB, else memory with a warning), `"fs"`
   * (Node: a directory in the CLI's format) or an adapter.
   */
  storage?: "memory" | "opfs" | "indexeddb" | "auto" | "fs" | StorageAdapter;
  /** Which memory of this origin (browser storages): 1-64 of `A-Za-z0-9-_.`; default `"default"`. */
  name?: string;
  /** The memories directory, for `storage: "fs"`. */
  dir?: string;
  config?: MemoryConfig;
  /**
   * A host's prompt-injection classifier: the probability (0 to 1) that a
   * text is an injection. Every text a model writes is scored after the
   * scanner's rules passed it; 0.5 or more blocks the write. It can only add
   * blocks; if it throws or answers something else, the rules alone decide
   * and the tool result's `skipped` says so. Not available through the
   * worker `mnemo/browser` starts for OPFS in a page (a function cannot
   * cross to a worker).
   */
  classifier?: (text: string) => number | Promise<number>;
  /**
   * The agent writing through this memory (one line, at most 64 chars):
   * every write's activity log record and every staged write carry it, so
   * the user can tell agents apart.
   */
  agent?: string;
  /**
   * A named workspace: a memory of its own beside the default one (its own
   * stores, state, history and activity log). 1 to 64 of `A-Za-z0-9._-`,
   * not starting with `.` (else `invalid-input`, and nothing is created).
   * Browser storages keep it as the database `name@workspace` (the default
   * workspace keeps `name`; `Memory.list()` lists both forms and
   * `Memory.delete()` / `recover()` take them); `"fs"` keeps it in
   * `<dir>/../workspaces/<workspace>/memories`, the CLI's layout, and needs
   * `dir` to end in `memories`; an adapter gets its blob names prefixed
   * `workspaces/<workspace>/`. Absent: the default workspace.
   */
  workspace?: string;
  /**
   * A host's embedding model: `recall` and `inject` then rank by the
   * hybrid (by default 0.4 × semantic + 0.6 × keyword, see
   * `memory.recall.hybrid`); `search`, `context` and the tool's search
   * action too (only matches: a shared word, or a cosine of 0.5 or more).
   * Vectors are computed for new or changed entries only and kept in the
   * memory's database (full build; the lean build keeps them in memory).
   * In a page with `mnemo/browser` and OPFS, `embed` stays in the page and
   * the worker asks it for each batch.
   */
  embedder?: Embedder;
}

/** The status of one store. */
export interface StoreStatus {
  enabled: boolean;
  entries: number;
  chars: number;
  verbatim_budget: number;
  storage_limit: number;
  mode: "in prompt" | "searched";
  usage: string;
  /** Why writes to this store's file are refused, or null. */
  damaged: string | null;
}

/** What `status()` reports. */
export interface Status {
  /** Where the memory lives; `"memory"` also after `"auto"` found no persistent storage. */
  storage: "memory" | "opfs" | "indexeddb" | "fs" | "host";
  /** `"sqlite"` when this build has session search, else why it is absent. */
  sessions: string;
  memory: StoreStatus;
  user: StoreStatus;
  /** Whether writes are staged for approval, why, and how many wait. */
  approval: ApprovalStatus;
  /** How recall ranks: `"keyword"`, or `"hybrid (<model>, <n> dimensions)"` with an embedder. */
  recall: string;
  /** The named workspace this memory is, or `null` for the default one. */
  workspace: string | null;
}

/** Whether write approval is in force (`status().approval`, `setApproval()`). */
export interface ApprovalStatus {
  /** Writes are staged instead of applied. */
  enabled: boolean;
  /** `"config"`: the config's `write_approval`; `"override"`: a `setApproval()` kept with the memory. */
  source: "config" | "override";
  /** Staged writes waiting (both states). */
  pending: number;
  /** Of them, those an approval found no longer apply. */
  needs_review: number;
}

/** Where a write came from. */
export type WriteOrigin = "foreground" | "review" | "curation" | "import";

/** One operation of a staged write, exactly as it will be applied. */
export interface StagedOperation {
  action: "add" | "replace" | "remove";
  target: Target;
  /** The new entry text (add, replace). */
  content?: string;
  /** The substring naming the entry (replace, remove). */
  old_text?: string;
  /** The importance the write gives its entry. */
  importance?: number;
  /** The category the write gives its entry. */
  category?: Category;
}

/** A write waiting for the user's approval (`pending()`). */
export interface StagedWrite {
  /** Short id, never reused: `"p3"` (`approve("3")` works too). */
  id: string;
  origin: WriteOrigin;
  /** The `agent` the memory was opened with, when one was named. */
  agent?: string;
  /** When it was staged, ms since the Unix epoch. */
  created: number;
  /** One line saying what it would do (`Memory ➕ …`). */
  summary: string;
  /** The operations, in order, applied all or nothing. */
  operations: StagedOperation[];
  /** Present (true) when the write was an atomic batch. */
  batch?: boolean;
  /** Present (true) for a `remember()`ed fact: approving marks it confirmed. */
  confirmed?: boolean;
  /** `"needs_review"`: an approval found it no longer applies (see `reason`). */
  state: "pending" | "needs_review";
  /** Why an approval could not apply it. */
  reason?: string;
}

/** Options of `approve()`. */
export interface ApproveOptions {
  /** The edited text, in place of the staged one: for one staged add or replace (not a batch, not `"all"`). */
  content?: string;
}

/** A staged write an approval could not apply; it stays pending as `needs_review`. */
export interface NotApplied {
  id: string;
  reason: string;
  /** The check that failed (`no-match`, `store-full`, `blocked`, …). */
  code: ErrorCode;
}

/** What `approve()` did. */
export interface ApproveResult {
  /** Ids of the writes applied. */
  applied: string[];
  /** Writes that no longer apply, kept as `needs_review`. */
  failed: NotApplied[];
  /** What applying said, one message per applied write. */
  messages: string[];
  /** The chat line for the configured mode, when something was saved. */
  notification?: string;
  /** Writes still waiting. */
  pending: number;
}

/** What `reject()` did. */
export interface RejectResult {
  /** Ids of the writes dropped; their texts are in `history()` (cause `rejected`). */
  rejected: string[];
  /** Writes still waiting. */
  pending: number;
}

/** A tool call in the OpenAI chat format. */
export interface ChatToolCall {
  id?: string;
  type?: "function";
  function: {
    name: string;
    /** A JSON string, as the OpenAI API sends it (an object is accepted too). */
    arguments: string | Record<string, unknown>;
  };
}

/** A message in the OpenAI chat format. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  /** Text, or parts whose `text` is read. */
  content?: string | null | Array<string | { type?: string; text?: string }>;
  tool_calls?: ChatToolCall[];
  /** On a `tool` message: the call it answers. */
  tool_call_id?: string;
  /** On a `tool` message: the tool's name. */
  name?: string;
}

/** A tool in the chat-completions shape. */
export interface ChatTool {
  type: "function";
  function: ToolSchema;
}

/** What the review asks the host's `llm`: OpenAI chat messages and tools (the memory tool). */
export interface ReviewRequest {
  messages: ChatMessage[];
  tools: ChatTool[];
}

/** Token counts a model reports (OpenAI's `prompt_tokens`/`completion_tokens` are read too). */
export interface LlmUsage {
  input_tokens?: number;
  output_tokens?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  cost_usd?: number;
}

/** The assistant's answer: the message, or a whole chat-completions response. */
export type LlmAnswer =
  | {
      content?: string | null | Array<string | { type?: string; text?: string }>;
      tool_calls?: ChatToolCall[] | null;
      usage?: LlmUsage;
      role?: "assistant";
    }
  | {
      choices: {
        message: {
          content?: string | null | Array<string | { type?: string; text?: string }>;
          tool_calls?: ChatToolCall[] | null;
          role?: "assistant";
        };
      }[];
      usage?: LlmUsage;
    };

/** The host's model: mnemo makes no network call itself. */
export type ReviewLlm = (request: ReviewRequest) => LlmAnswer | Promise<LlmAnswer>;

/** Options of `review()`. */
export interface ReviewOptions {
  /** The conversation to review, oldest first. */
  transcript: ChatMessage[];
  /**
   * Asked for every step; a throw or rejection stops the review (`stopped:
   * "error"`). It must not call this memory: calls wait until the review
   * ends.
   */
  llm: ReviewLlm;
  /**
   * Whether the review runs on the conversation's own model (default true:
   * the whole transcript is replayed) or another one (a compact digest is
   * sent: the last 24 messages verbatim, older ones collapsed).
   */
  sameModel?: boolean;
  /** Cancels between steps, and interrupts an `llm` that has not answered (`stopped: "cancelled"`). */
  signal?: AbortSignal;
}

/** One tool call the review's model made, and what it got back. */
export interface ReviewAction {
  call_id: string;
  tool: string;
  /** As the model sent them (a string when they were not JSON). */
  arguments: unknown;
  /** The memory tool's result, as the model read it. */
  result: ToolResult;
}

/** What the host's model reported over a review, added up. */
export interface ReviewUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
  /** Model calls made. */
  calls: number;
}

/** What `review()` did. */
export interface ReviewReport {
  actions: ReviewAction[];
  /** Ids of the writes staged for approval. */
  staged: string[];
  /** The chat line for the configured mode, when something was saved or staged. */
  notification?: string;
  usage: ReviewUsage;
  /**
   * `done`: the model stopped calling tools; `iterations` / `budget`: a
   * bound was hit; `cancelled`: the signal; `error`: the model failed (see
   * `error`). Writes made before any stop stand.
   */
  stopped: "done" | "iterations" | "budget" | "cancelled" | "error";
  /** Why the model failed, when `stopped` is `error`. */
  error?: string;
  /** The model's last words. */
  message?: string;
  /** The transcript was sent as a digest. */
  digest: boolean;
}

/** Both stores as Markdown text. */
export interface MarkdownFiles {
  "MEMORY.md": string;
  "USER.md": string;
}

/** The scanner's categories. */
export type ScanCategory =
  | "prompt-injection"
  | "role-hijack"
  | "hidden-markup"
  | "exfiltration"
  | "persistence"
  | "secret"
  | "credential-harvest"
  | "invisible-unicode";

/** One hit of the security scanner. */
export interface ScanFinding {
  /** Stable pattern id, e.g. `pi.ignore-previous`, `unicode.zero-width`. */
  id: string;
  category: ScanCategory;
  /** UTF-16 offsets into the scanned text: `text.slice(start, end)`. */
  start: number;
  end: number;
  /** For invisible characters: `U+200B` (a lone surrogate, `unicode.lone-surrogate`: `U+D800`). */
  code_point?: string;
}

/** What `scan(text)` returns. */
export interface ScanVerdict {
  blocked: boolean;
  findings: ScanFinding[];
  /** The text was longer than 256 KiB; only its start was scanned. */
  truncated: boolean;
}

/** Options of `sectors()`. */
export interface SectorsOptions {
  /** Only this sector (case-insensitive); the summary stays whole-graph. */
  sector?: string;
  /** Notes listed per sector (default 12); the rest are counted in `more`. */
  limit?: number;
}

/** What a node of the sectors report or the journey is: a note of a store, or a learned skill. */
export type NodeKind = "note" | "skill";

/** One note or skill of the sectors report. */
export interface SectorsEntry {
  /**
   * A note's stable node id `memory:<store>:<entry id>`, e.g.
   * `memory:memory:e3` (survives edits of other entries); a skill's name.
   */
  node: string;
  kind: NodeKind;
  /** The note's store; absent for a skill. */
  target?: Target;
  /** The note's index in its store (the skill's among the skills). */
  index: number;
  /** The note's title (a skill's name); `[BLOCKED entry]` for a note or skill the scanner blocks (its tags and links are not read). */
  title: string;
  /** Resolved outgoing links. */
  out: number;
  /** Incoming links (backlinks). */
  in: number;
  /** Link targets that no note has yet (⚑). */
  dangling: string[];
  /** The sector came through links, not a tag. */
  inherited: boolean;
  pinned: boolean;
}

/** One sector: a tag, a skill category, or `unsorted`. */
export interface SectorsSector {
  name: string;
  /** Notes and skills in the sector. */
  count: number;
  /** Skills among them. */
  skills: number;
  /** Resolved links going out of the sector's notes. */
  links: number;
  entries: SectorsEntry[];
  /** Notes not listed because of `limit`. */
  more: number;
}

/** What `sectors()` returns (the schema of `mnemo sectors --json`). */
export interface SectorsReport {
  sectors: SectorsSector[];
  summary: {
    /** Sectors other than `unsorted`. */
    sectors: number;
    /** Notes in both stores. */
    memories: number;
    /** Skills. */
    skills: number;
    /** Resolved note↔note links. */
    links: number;
    /** Resolved links between a note and a skill, either way. */
    skill_links: number;
    linked: number;
    dangling: number;
    collisions: { title: string; nodes: string[] }[];
  };
}

/** One node of the learning journey: a note or a skill. */
export interface JourneyNode {
  /** A note's stable node id `memory:<store>:<entry id>`, as in `SectorsEntry.node`; a skill's name. */
  id: string;
  kind: NodeKind;
  /** A note's stable entry id from the sidecar state (survives edits of other entries); `""` for a skill. */
  entry_id: string;
  /** The note's store; absent for a skill. */
  target?: Target;
  /** The note's index in its store (the skill's among the skills). */
  index: number;
  title: string;
  sector: string;
  /** ms since the Unix epoch. */
  first_seen: number;
  last_changed: number;
  /** Node ids this note links to. */
  out: string[];
  /** Node ids that link to it. */
  in: string[];
  /** Link targets that no note has yet. */
  dangling: string[];
  pinned: boolean;
  /** The scanner blocks this entry; its title is hidden. */
  blocked: boolean;
  /** The agent whose write made it, when one was named. */
  agent?: string;
}

/** What `journey()` returns: every entry and skill, oldest first. */
export interface Journey {
  nodes: JourneyNode[];
  /** Resolved note↔note links. */
  links: number;
  /** Resolved links between a note and a skill, either way. */
  skill_links: number;
}

/** An entry text that a write superseded. */
export interface HistoryItem {
  /** The item's id (`"h1"`, …), for `restore()` and `purgeHistory({id})`. */
  id: string;
  /** ms since the Unix epoch. */
  time: number;
  target: Target;
  entry_id: string;
  text: string;
  /** What superseded it: a replace or remove, an import, a rejected staged
   * write, or curation (`supersede` by a newer fact, `prune` of a stale
   * entry, `merge` of an identical one). */
  cause: "replace" | "remove" | "import" | "rejected" | "supersede" | "prune" | "merge";
  /** The user had confirmed it (`remember()`). */
  confirmed?: boolean;
  /** The agent whose write superseded it, when one was named. */
  agent?: string;
}

/** A completed turn for `recordTurn`. */
export interface TurnRecord {
  /** The host's session id. */
  session: string;
  /** The user's message (at most 256 KiB of UTF-8, what the scanner reads; longer: `too-long`). */
  user: string;
  /** The assistant's answer (at most 256 KiB of UTF-8, like `user`). */
  assistant: string;
  /** ms since the Unix epoch (default: now). */
  time?: number;
  /** The agent or channel that recorded it (default `"agent"`). */
  source?: string;
}

/** What `recordTurn` answers: the two messages' sequence numbers. */
export interface RecordedTurn {
  session: string;
  user: number;
  assistant: number;
}

/** Options of `sessionSearch`. */
export interface SessionSearchOptions {
  /** Only this session. */
  session?: string;
  /** Only this role (`user`, `assistant`). */
  role?: string;
  /** Only sessions from this source. */
  source?: string;
  /** Only messages at or after this time (ms). */
  since?: number;
  /** Only messages at or before this time (ms). */
  until?: number;
  /** At most this many hits, 1 to 50 (default 10). */
  limit?: number;
}

/** One message found by `sessionSearch`. */
export interface SessionHit {
  session: string;
  seq: number;
  role: string;
  time: number;
  /** Words around the first match, matched words marked `**like this**`. */
  snippet: string;
  /** BM25 with the bounded recency boost; higher is better. */
  score: number;
}

/** One stored message, whole (the scanner's placeholder if it is blocked). */
export interface SessionMessage {
  session: string;
  seq: number;
  role: string;
  text: string;
  time: number;
}

/** One recorded session. */
export interface SessionInfo {
  id: string;
  /** The first user message (80 chars), or the scanner's `[BLOCKED: …]` placeholder when that message is blocked. */
  title: string;
  source: string;
  started: number;
  ended: number;
  messages: number;
}

/** A transcript format `importTranscript` reads: mnemo's own JSON Lines `{session, role, text, time?, source?}`, Claude Code's session files, Codex's rollout files. */
export type TranscriptFormat = "mnemo" | "claude-code" | "codex";

/** Options of `importTranscript`. */
export interface TranscriptOptions {
  /** The transcript file's name or path: the session id when the text does not say it (`<session>.jsonl`, `rollout-<time>-<uuid>.jsonl`). */
  name?: string;
}

/** What `importTranscript` did. Claude Code's and Codex's transcripts are imported idempotently: a message an earlier import recorded is counted in `present`, not added again. */
export interface TranscriptImport {
  /** Transcripts read (1). */
  files: number;
  /** Sessions their messages belong to (new or already recorded). */
  sessions: number;
  /** Messages added now. */
  messages: number;
  /** Messages already recorded by an earlier import. */
  present: number;
  /** Lines skipped because they could not be read (not JSON, e.g. a partial last line; a message of the wrong shape). */
  skipped: number;
  /** Messages left out for being longer than the session store takes (256 KiB); never cut. */
  too_long: number;
  /** Records left out on purpose: tool calls and results, thinking, metadata, sub-agent turns, injected instructions. */
  ignored: number;
}

/** What the `session_search` tool answers. */
export interface SessionToolResult {
  success: boolean;
  mode?: "discovery" | "scroll" | "browse";
  message?: string;
  hits?: SessionHit[];
  messages?: SessionMessage[];
  sessions?: SessionInfo[];
  error?: string;
  code?: ErrorCode;
}

/** One record of the activity log (`log()`, `readLog()`). */
export interface ActivityRecord {
  /** The day, `YYYY-MM-DD` (UTC). */
  date: string;
  /** The time of day, `HH:MM:SS` (UTC). */
  time: string;
  /** The agent that wrote it, when one was named. */
  agent?: string;
  /**
   * What happened: `"note"`, `"memory add"`, `"user replace"`, `"memory
   * remove"`, `"memory add (curation)"`, `"turn user"`, `"turn assistant"`,
   * `"curation"`, …
   */
  what: string;
  /** The text (the new text of a replace, the removed text of a remove, the message of a turn). */
  text: string;
}

/** Options of `log()`. */
export interface LogOptions {
  /** The agent logging the note (one line, at most 64 chars); default: the memory's `agent`. */
  agent?: string;
}

/**
 * The host's model for `curate()` and `stop()`: the same function as
 * `review()`'s `llm`. Curation sends `tools: []` and reads the answer's
 * `content` as JSON (`{"facts": [...]}`, then `{"decision": ...}` for a
 * fact close to an entry).
 */
export type CurationLlm = ReviewLlm;

/** Options of `curate()`. */
export interface CurateOptions {
  /**
   * Extracts the facts (and decides the gray zone). Without it the
   * extraction is skipped and the log stays unread for the next curation;
   * duplicates, consolidation and pruning still run. A throw, a rejection
   * or nonsense fails the extraction (`extraction.status: "failed"`):
   * nothing of that part of the log is written, and it is read again next
   * time. It must not call this memory: calls wait until curation ends.
   */
  llm?: CurationLlm;
  /**
   * Compares facts with entries by the cosine of its vectors (else
   * lexically), for this call only; the embedder given to `Memory.open`
   * (if any) is lent again afterwards. In a page with `mnemo/browser` and
   * OPFS, `embed` stays in the page like the open's.
   */
  embedder?: Embedder;
  /** Write nothing: the report says what would be done. */
  dryRun?: boolean;
  /** Cancels between steps, and interrupts an `llm` that has not answered. */
  signal?: AbortSignal;
}

/** Options of `stop()`. */
export interface StopOptions {
  /** The curation's model when `curation.auto` is `"on_stop"` (see `CurateOptions.llm`). */
  llm?: CurationLlm;
}

/** What every extracted fact carries. */
export interface CuratedFactBase {
  /** The fact, one sentence (relative dates resolved). */
  content: string;
  /** Its category; absent: general. */
  category?: Category;
  /** 0 to 1. */
  importance: number;
  /** The store it belongs in. */
  target: Target;
  /** The date of the log line it came from. */
  date: string;
  /** Its best similarity (0 to 1) with an entry of its store. */
  similarity: number;
}

/** One extracted fact and what became of it (`outcome`). */
export type CuratedFact = CuratedFactBase &
  (
    | { outcome: "added" }
    /** Staged for approval (write approval is on). */
    | { outcome: "staged"; pending_id: string }
    /** Skipped: an entry says the same (0.9 or more alike). */
    | { outcome: "duplicate"; existing: string }
    /** Replaced the entry `existing` (0.7 to 0.9 alike and the llm said so); the old text is in `history()` (cause `supersede`). */
    | { outcome: "superseded"; existing: string }
    /** Added beside the similar entry `existing`; `reason` when the gray-zone call failed. */
    | { outcome: "kept_both"; existing: string; reason?: string }
    /** The write was refused (scanner, limits, format). */
    | { outcome: "refused"; code: ErrorCode; error: string }
  );

/** An entry curation pruned (or, in a dry run, would prune). */
export interface PrunedEntry {
  target: Target;
  /** Its stable id; its text is in `history()` (cause `prune`), restorable. */
  entry_id: string;
  text: string;
  /** The rule that pruned it. */
  reason: string;
}

/** What `curate()` (and `stop()`) did: the spec's metrics first, then the details. */
export interface CurationReport {
  /** Facts the model extracted. */
  facts_extracted: number;
  /** Facts stored as new entries (kept beside a similar one included). */
  facts_added: number;
  /** Entries a fact superseded. */
  memories_updated: number;
  /** Entries pruned. */
  memories_pruned: number;
  /** Entries in both stores afterwards. */
  existing_memories: number;
  /** What the host's model reported it cost, in US dollars (0 when it reported nothing). */
  cost_usd: number;
  /** Nothing was written. */
  dry_run: boolean;
  extraction: {
    /** `skipped`: no llm, or nothing new in the log; `failed`: see `reason` (that log stays unread); `cancelled`: the signal. */
    status: "done" | "skipped" | "failed" | "cancelled";
    reason?: string;
    /** Log records read (notes and turns). */
    records_read: number;
    /** Calls made to extract. */
    chunks: number;
  };
  /** How facts were compared with entries. */
  similarity: "cosine" | "lexical";
  /** Why the embedder was not used, when it failed. */
  embedder_error?: string;
  facts: CuratedFact[];
  /** Ids of the writes staged for approval. */
  staged: string[];
  /** Facts whose write was refused. */
  refused: number;
  pruned: PrunedEntry[];
  /** Stores rewritten by the consolidation (grouped by category). */
  consolidated: Target[];
  /** Exact duplicate entries the consolidation merged. */
  merged: number;
  /** Day logs deleted by the retention. */
  expired_logs: string[];
  /** What the host's model reported, added up. */
  usage: ReviewUsage;
  /** Steps that could not be done, and why. */
  errors: string[];
}

/** Where curation reads the log from (`curationPosition()`). */
export interface CurationPosition {
  version: number;
  /** The last day read, `YYYY-MM-DD`; absent before the first curation that read the log. */
  date?: string;
  /** How many records of that day were read. */
  records: number;
  /** When a curation last finished, ms since the Unix epoch. */
  last_run?: number;
}

/** The skill tool's actions: three reads, six writes (`delete` archives). */
export type SkillAction = "list" | "view" | "search" | "create" | "edit" | "patch" | "write_file" | "remove_file" | "delete";

/**
 * The `skill` tool's arguments, exactly as an LLM emits them. `skillTool()`
 * takes any value (a model's arguments arrive untyped) and answers bad ones
 * with a failed `SkillToolResult`; check your own calls with `satisfies
 * SkillToolArgs`. `null` counts as absent.
 */
export interface SkillToolArgs {
  action?: SkillAction;
  /** The skill: 1 to 64 of `a-z 0-9 - _ .`, starting with a letter or digit (all but list and search). */
  name?: string | null;
  /** `create`: the category when the frontmatter has none; `list`: only this category. */
  category?: string | null;
  /** `create`, `edit`: the whole `SKILL.md`, YAML frontmatter (`name`, `description`, `category`) first. */
  content?: string | null;
  /** `patch`: a unified diff (`@@` hunks) of `SKILL.md` or of `file_path`. */
  patch?: string | null;
  /** `patch`: the exact text to replace (instead of a diff). */
  old_string?: string | null;
  /** `patch`: its replacement (`""` removes it). */
  new_string?: string | null;
  /** `patch`: replace every match of `old_string`. */
  replace_all?: boolean | null;
  /** `view`, `patch`, `write_file`, `remove_file`: a file beside `SKILL.md`, e.g. `references/api.md`. */
  file_path?: string | null;
  /** `write_file`: the file's text. */
  file_content?: string | null;
  /** `search`: words about the task. */
  query?: string | null;
  /** The agent making this call, over the memory's `agent` (for hosts; not in the schema a model sees). */
  agent?: string | null;
}

/** A skill as the skill tool lists or finds it. */
export interface SkillSummary {
  name: string;
  category: string;
  /** `[BLOCKED entry]` for a skill the scanner blocks. */
  description: string;
  /** How well it matches (`search` only); higher is better. */
  score?: number;
}

/** What the skill tool answers; hand it back to the LLM as the tool result. */
export interface SkillToolResult {
  /** Whether the call did what was asked (a staged write counts). */
  success: boolean;
  /** What went wrong and what was expected, on failure. */
  error?: string;
  /** The stable error code, on failure. */
  code?: ErrorCode;
  /** What a write did (`"💾 Skill 'deploy' created"`), or that it was staged. */
  message?: string;
  /** `list`, `search`: how many skills are listed. */
  count?: number;
  /** `list`, `search`: the skills (a search's best first). */
  skills?: SkillSummary[];
  /** The skill viewed or written. */
  name?: string;
  category?: string;
  /** `view`: the skill's description. */
  description?: string;
  /** `view`: the file shown (`SKILL.md`, or the `file_path` asked for). */
  file?: string;
  /** `view`: the file's text, or the `[BLOCKED: …]` placeholder when the scanner blocks it. */
  content?: string;
  /** `view`: the files beside `SKILL.md`. */
  files?: string[];
  /** `view`: the scanner blocks the skill's text, so `content` is a placeholder. */
  blocked?: boolean;
  /**
   * `true`: the write was staged, not applied (skill write approval is on,
   * or the scanner flagged the text); it waits in `pendingSkills()` as
   * `pending_id` until the user approves it. The model must neither retry
   * it nor say it was saved.
   */
  staged?: boolean;
  /** The staged write's id (`"k1"`), when `staged`. */
  pending_id?: string;
}

/** The skill tool's definition: OpenAI `{name, description, parameters}`; use `parameters` as Anthropic's `input_schema`. */
export interface SkillToolSchema {
  name: "skill";
  description: string;
  parameters: Record<string, unknown>;
}

/** A skill as `skills()` lists it, with its usage. */
export interface SkillInfo {
  name: string;
  category: string;
  /** The frontmatter's description; `[BLOCKED entry]` when `blocked`. */
  description: string;
  /** The frontmatter's tags (none shown when `blocked`). */
  tags: string[];
  /** Files beside `SKILL.md`, relative to the skill's folder, sorted. */
  files: string[];
  /** When mnemo first saw it, ms since the Unix epoch. */
  created: number;
  /** When a write through mnemo last changed it. */
  changed: number;
  /** Times the agent viewed it through the skill tool. */
  views: number;
  /** Times the host reported it used (`skillUsed()`). */
  uses: number;
  /** Times it was patched, edited or had a file written. */
  patches: number;
  /** When it was last viewed or used. */
  last_used?: number;
  /** Pinned skills are never archived as stale (`pinSkill()`). */
  pinned: boolean;
  /** SHA-256 (hex) of flagged `SKILL.md` text the user approved, which is then shown. */
  vouched?: string;
  /** The agent whose write created it. */
  agent?: string;
  /** The scanner blocks its text: it is shown to no model. */
  blocked: boolean;
  /** What is wrong with a skill placed by hand (bad frontmatter): listed, never used. */
  problem?: string;
}

/** An archived skill (`archivedSkills()`), restorable with `restoreSkill()`. */
export interface ArchivedSkill {
  name: string;
  category: string;
  /** When it was archived, ms since the Unix epoch. */
  archived: number;
}

/** An earlier version of a skill file (`skillVersions()`), kept when a write replaced or removed it. */
export interface SkillVersion {
  /** When the write replaced it, ms since the Unix epoch. */
  replaced: number;
  /** The file, relative to the skill's folder (`SKILL.md`). */
  file: string;
  /** Its blob name under `skills/.history/`. */
  path: string;
  /** The text it held. */
  text: string;
}

/** What a skill write does: the tool's write actions. */
export type SkillWriteAction = "create" | "edit" | "patch" | "write_file" | "remove_file" | "delete";

/** One file a skill write changes, by blob name (`skills/devops/deploy/SKILL.md`). */
export interface SkillFileChange {
  path: string;
  /** The text it holds now (absent: the file is new). */
  before?: string;
  /** The text it will hold (absent: the file goes). */
  after?: string;
}

/** A skill write worked out in full. */
export interface SkillPlan {
  action: SkillWriteAction;
  /** The skill's name. */
  name: string;
  /** Its category after the write. */
  category: string;
  changes: SkillFileChange[];
  /** What the scanner flagged in the new text (`"persistence (…)"`); such a write is always staged. */
  findings?: string[];
}

/** A skill write waiting for the user's approval (`pendingSkills()`). */
export interface StagedSkill {
  /** Short id, never reused: `"k1"`. */
  id: string;
  /** When it was staged, ms since the Unix epoch. */
  created: number;
  /** The agent whose write it is. */
  agent?: string;
  origin: WriteOrigin;
  /** `"needs_review"`: an approval found it no longer applies (see `reason`). */
  state: "pending" | "needs_review";
  reason?: string;
  /** One line saying what it does (`create skill 'deploy' in devops (+12 −0 lines)`), with the scanner's findings. */
  gist: string;
  plan: SkillPlan;
}

/** What `approveSkill()` did. */
export interface SkillsApproved {
  /** One line per applied write. */
  applied: string[];
  /** Writes that no longer apply, kept as `needs_review`: `[id, reason]`. */
  not_applied: [id: string, reason: string][];
}
