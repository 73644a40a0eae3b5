// The npm package's full build ("mnemo") used as a TypeScript user would:
// every call and option with the right types, every result field read, and
// `@ts-expect-error` on misuse the types must refuse. Compiled only (tsc
// --noEmit, see tests/js/types.test.mjs); never run.
import {
  Memory,
  NoteIndex,
  errorCodes,
  scan,
  wasmMemoryBytes,
  type ApprovalStatus,
  type ArchivedSkill,
  type SkillVersion,
  type Category,
  type CategoryName,
  type Embedder,
  type Marked,
  type RecallExplain,
  type RecallHit,
  type RecallOptions,
  type Recalled,
  type ApproveOptions,
  type ApproveResult,
  type ChatMessage,
  type ActivityRecord,
  type CuratedFact,
  type CurateOptions,
  type CurationLlm,
  type CurationPosition,
  type CurationReport,
  type LogOptions,
  type PrunedEntry,
  type StopOptions,
  type ErrorCode,
  type HistoryItem,
  type LlmAnswer,
  type Journey,
  type JourneyNode,
  type MarkdownFiles,
  type MemoryConfig,
  type MemoryOptions,
  type MnemoError,
  type NodeKind,
  type RecordedTurn,
  type RejectResult,
  type RememberOptions,
  type ReviewLlm,
  type ReviewOptions,
  type ReviewReport,
  type ReviewRequest,
  type ScanCategory,
  type ScanVerdict,
  type SearchHit,
  type SearchOptions,
  type SectorsOptions,
  type SectorsReport,
  type SessionHit,
  type SessionInfo,
  type SessionMessage,
  type SessionSearchOptions,
  type SessionToolResult,
  type SkillAction,
  type SkillInfo,
  type SkillsApproved,
  type SkillToolArgs,
  type SkillToolResult,
  type SkillToolSchema,
  type StagedSkill,
  type TranscriptFormat,
  type TranscriptImport,
  type StagedWrite,
  type Status,
  type StorageAdapter,
  type StoreStatus,
  type Target,
  type ToolArgs,
  type ToolOperation,
  type ToolResult,
  type ToolSchema,
  type TurnRecord,
} from "mnemo";

/** Compiles only when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function exact<T extends true>(): void {}
/** Compiles only when `value` is assignable to `T`. */
function expectType<T>(value: T): T {
  return value;
}
function assertNever(value: never): never {
  throw new Error(`unexpected ${String(value)}`);
}

// --- Opening -----------------------------------------------------------

const adapter: StorageAdapter = {
  async read(name) {
    return name === "MEMORY.md" ? "§ note" : null;
  },
  async write(name: string, data: string | Uint8Array) {
    void name;
    void data;
  },
  list: () => ["MEMORY.md"],
  delete() {},
  lock: async () => {},
  unlock() {},
};
// A KV store that answers bytes as an ArrayBuffer, or undefined when absent.
const kv = new Map<string, ArrayBuffer>();
const bytesAdapter: StorageAdapter = {
  read: (name) => kv.get(name),
  write: (name, data) => void kv.set(name, typeof data === "string" ? new TextEncoder().encode(data).buffer : data.slice().buffer),
  list: () => [...kv.keys()],
  delete: (name) => void kv.delete(name),
};

const config: MemoryConfig = {
  memory: {
    memory_enabled: true,
    user_profile_enabled: true,
    memory_char_limit: 2200,
    user_char_limit: 1375,
    write_approval: false,
    recall: { enabled: true, memory_char_limit: 120000, user_char_limit: 24000, top_k: 6, max_chars: 2000, hops: 1 },
  },
};

export async function open(): Promise<Memory[]> {
  const options: MemoryOptions[] = [
    {},
    { storage: "memory" },
    { storage: "memory", name: "notes", config },
    { storage: "opfs", name: "agent-1" },
    { storage: "indexeddb" },
    { storage: "auto", name: "default" },
    { storage: "fs", dir: "./memories" },
    { storage: adapter },
    { storage: bytesAdapter, config: { memory: { recall: { top_k: 3 } } } },
    { storage: "fs", dir: "./memories", agent: "scout", config: { memory: { write_approval: true } } },
    { storage: "fs", dir: "./memories", workspace: "work" },
    { storage: "opfs", name: "agent-1", workspace: "team-a" },
    { storage: adapter, workspace: "w" },
    { config: { curation: { auto: "on_stop", log_retention_days: 30, max_input_chars: 10_000 } } },
    { config: { curation: { auto: "manual" } } },
    {
      config: {
        display: { memory_notifications: "verbose" },
        auxiliary: { background_review: { model: "auto", max_iterations: 4, max_input_chars: 50_000 } },
      },
    },
  ];
  const memories = await Promise.all(options.map((o) => Memory.open(o)));
  memories.push(await Memory.open());
  memories.push(await Memory.open(undefined));

  // @ts-expect-error an unknown storage
  await Memory.open({ storage: "s3" });
  // @ts-expect-error a misspelt option
  await Memory.open({ storge: "memory" });
  // @ts-expect-error dir is a path, not a number
  await Memory.open({ storage: "fs", dir: 5 });
  // @ts-expect-error a misspelt config key
  await Memory.open({ config: { memory: { memroy_char_limit: 5 } } });
  // @ts-expect-error config keys are snake_case
  await Memory.open({ config: { memory: { recall: { topK: 5 } } } });
  // @ts-expect-error a notification mode is off, on or verbose
  await Memory.open({ config: { display: { memory_notifications: "loud" } } });
  // @ts-expect-error the agent is a name
  await Memory.open({ agent: 7 });
  // @ts-expect-error a workspace is a name
  await Memory.open({ workspace: 3 });
  // @ts-expect-error curation.auto is on_stop or manual
  await Memory.open({ config: { curation: { auto: "always" } } });
  // @ts-expect-error an unknown curation key
  await Memory.open({ config: { curation: { retention: 3 } } });
  await Memory.open({ config: { skills: { write_approval: true } } });
  await Memory.open({ config: { skills: {} } });
  // @ts-expect-error skills.write_approval is a boolean
  await Memory.open({ config: { skills: { write_approval: "yes" } } });
  // @ts-expect-error the skills section has only write_approval
  await Memory.open({ config: { skills: { approval: true } } });
  // @ts-expect-error an adapter needs list and delete
  await Memory.open({ storage: { read: () => null, write: () => {} } });
  // @ts-expect-error Memory has no public constructor: use Memory.open
  new Memory();
  return memories;
}

export async function browserStorageCalls(): Promise<void> {
  const names: string[] = await Memory.list();
  const removed = await Memory.delete(names[0] ?? "default");
  expectType<string>(removed.name);
  expectType<string[]>(removed.removed);
  const recovered = await Memory.recover("default", { storage: "opfs" });
  expectType<string>(recovered.name);
  expectType<string[]>(recovered.salvaged);
  expectType<string>(recovered.kept);
  await Memory.recover("default", { storage: "indexeddb" });
  // @ts-expect-error recover works on browser databases only
  await Memory.recover("default", { storage: "memory" });
  // @ts-expect-error recover needs the storage
  await Memory.recover("default");
  // @ts-expect-error a name is a string
  await Memory.delete(1);
}

// --- The memory tool ---------------------------------------------------

export async function tool(memory: Memory): Promise<void> {
  const schema: ToolSchema = Memory.toolSchema();
  exact<Equal<typeof schema.name, "memory">>();
  expectType<string>(schema.description);
  expectType<Record<string, unknown>>(schema.parameters);

  const calls = [
    { action: "add", target: "memory", content: "Staging SSH listens on port 2222" },
    { action: "replace", target: "user", old_text: "port", content: "Staging SSH: 2222" },
    { action: "remove", target: "memory", old_text: "SSH" },
    { action: "search", query: "ssh port" },
    { action: "search", query: "ssh port", target: "memory", limit: 5 },
    { action: "search", query: null, content: null, old_text: null, limit: null },
    {
      target: "memory",
      operations: [
        { action: "add", content: "a" },
        { action: "remove", target: "user", old_text: "b" },
      ],
    },
  ] satisfies ToolArgs[];
  for (const args of calls) {
    const result: ToolResult = await memory.tool(args);
    expectType<boolean>(result.success);
    expectType<string | undefined>(result.message);
    expectType<string | undefined>(result.error);
    exact<Equal<typeof result.code, ErrorCode | undefined>>();
    exact<Equal<typeof result.target, Target | undefined>>();
    expectType<string | undefined>(result.usage);
    expectType<number | undefined>(result.entry_count);
    expectType<string[] | undefined>(result.current_entries);
    expectType<boolean | undefined>(result.done);
    for (const hit of result.results ?? []) expectType<SearchHit>(hit);
    if (result.code === "store-full") expectType<number>(result.current_entries?.length ?? 0);
    // @ts-expect-error ToolResult has no entries field (current_entries, results)
    void result.entries;
    // @ts-expect-error target is "memory" or "user"
    if (result.target === "both") void 0;
  }
  // What a model sent arrives untyped: tool() takes it as it is.
  await memory.tool(JSON.parse('{"action": "add"}'));
  await memory.tool("{\"action\": \"add\"}");
  const fromSdk: unknown = { action: "add" };
  await memory.tool(fromSdk);

  // @ts-expect-error an unknown action
  void ({ action: "delete", target: "memory", old_text: "x" } satisfies ToolArgs);
  // @ts-expect-error an unknown target
  void ({ action: "add", target: "notes", content: "x" } satisfies ToolArgs);
  // @ts-expect-error limit is a number
  void ({ action: "search", query: "x", limit: "5" } satisfies ToolArgs);
  // @ts-expect-error old_text, not oldText
  void ({ action: "remove", target: "memory", oldText: "x" } satisfies ToolArgs);
  // @ts-expect-error an operation cannot search
  void ({ action: "search", target: "memory" } satisfies ToolOperation);
}

// --- Prompt, status, Markdown ------------------------------------------

export async function promptAndStatus(memory: Memory): Promise<void> {
  const system: string = await memory.systemPrompt();
  const fresh: string = await memory.startSession();
  const context: string = await memory.context("Which port does SSH on staging use?");
  void [system, fresh, context];
  // @ts-expect-error context takes the user's message, a string
  await memory.context({ message: "hi" });
  // The caller's way out of a host callback that never answers.
  const signal: AbortSignal = AbortSignal.timeout(5000);
  await memory.context("ssh", { signal });
  await memory.inject("ssh", { signal });
  await memory.tool({ action: "add", target: "memory", content: "x" }, { signal });
  await memory.search("ssh", { limit: 3, signal });
  await memory.recall("ssh", { minImportance: 0.5, signal });
  // @ts-expect-error a signal is an AbortSignal
  await memory.context("ssh", { signal: "soon" });

  const status: Status = await memory.status();
  exact<Equal<Status["storage"], "memory" | "opfs" | "indexeddb" | "fs" | "host">>();
  expectType<string>(status.sessions);
  for (const store of [status.memory, status.user] satisfies StoreStatus[]) {
    expectType<boolean>(store.enabled);
    expectType<number>(store.entries + store.chars + store.verbatim_budget + store.storage_limit);
    exact<Equal<typeof store.mode, "in prompt" | "searched">>();
    expectType<string>(store.usage);
    expectType<string | null>(store.damaged);
  }
  const workspace: string | null = status.workspace;
  void workspace;
  // @ts-expect-error "auto" is resolved: status says which storage it chose
  if (status.storage === "auto") void 0;
  // @ts-expect-error StoreStatus has no limit field (verbatim_budget, storage_limit)
  void status.memory.limit;

  const files: MarkdownFiles = await memory.exportMarkdown();
  expectType<string>(files["MEMORY.md"] + files["USER.md"]);
  const after: Status = await memory.importMarkdown({ "USER.md": "Name: Ada" });
  await memory.importMarkdown(files);
  void after;
  // @ts-expect-error the files are named MEMORY.md and USER.md
  await memory.importMarkdown({ "NOTES.md": "x" });
  // @ts-expect-error a file's text is a string
  await memory.importMarkdown({ "MEMORY.md": ["a", "b"] });
}

// --- Search, sectors, journey, history, remember -----------------------

export async function recall(memory: Memory): Promise<void> {
  const options: SearchOptions[] = [{}, { target: "user" }, { limit: 1000 }, { target: "memory", limit: 3 }];
  for (const o of options) await memory.search("ssh port", o);
  const hits: SearchHit[] = await memory.search("ssh port");
  for (const hit of hits) {
    exact<Equal<typeof hit.target, Target>>();
    expectType<number>(hit.index + hit.score);
    expectType<string>(hit.text);
    // @ts-expect-error a hit has no title (the text is whole)
    void hit.title;
  }
  // @ts-expect-error a wrong option name
  await memory.search("ssh", { top_k: 3 });
  // @ts-expect-error a wrong target string
  await memory.search("ssh", { target: "both" });
  // @ts-expect-error limit is a number
  await memory.search("ssh", { limit: "10" });
  // @ts-expect-error the query is a string
  await memory.search(42);

  const sectorsOptions: SectorsOptions[] = [{}, { sector: "infra" }, { limit: 0 }, { sector: "infra", limit: 50 }];
  for (const o of sectorsOptions) await memory.sectors(o);
  const report: SectorsReport = await memory.sectors();
  for (const sector of report.sectors) {
    expectType<string>(sector.name);
    expectType<number>(sector.count + sector.skills + sector.links + sector.more);
    for (const entry of sector.entries) {
      expectType<string>(entry.node);
      exact<Equal<typeof entry.kind, NodeKind>>();
      exact<Equal<NodeKind, "note" | "skill">>();
      // A skill has no store.
      exact<Equal<typeof entry.target, Target | undefined>>();
      // @ts-expect-error the target may be absent (a skill)
      expectType<Target>(entry.target);
      expectType<number>(entry.index + entry.out + entry.in);
      expectType<string>(entry.title);
      expectType<string[]>(entry.dangling);
      expectType<boolean>(entry.inherited && entry.pinned);
    }
  }
  const { summary } = report;
  expectType<number>(summary.sectors + summary.memories + summary.skills + summary.links + summary.skill_links + summary.linked + summary.dangling);
  for (const c of summary.collisions) expectType<string[]>([c.title, ...c.nodes]);
  // @ts-expect-error sector is a name
  await memory.sectors({ sector: 3 });
  // @ts-expect-error a sectors option is sector or limit
  await memory.sectors({ target: "memory" });

  const journey: Journey = await memory.journey();
  expectType<number>(journey.links + journey.skill_links);
  for (const node of journey.nodes satisfies JourneyNode[]) {
    expectType<string>(node.id + node.entry_id + node.title + node.sector);
    exact<Equal<typeof node.kind, NodeKind>>();
    exact<Equal<typeof node.target, Target | undefined>>();
    if (node.kind === "skill") expectType<string>(node.id);
    expectType<number>(node.index + node.first_seen + node.last_changed);
    expectType<string[]>([...node.out, ...node.in, ...node.dangling]);
    expectType<boolean>(node.pinned || node.blocked);
    // @ts-expect-error the node id is a string `memory:<store>:<entry id>`, not a number
    expectType<number>(node.id);
  }

  const history: HistoryItem[] = await memory.history();
  for (const item of history) {
    expectType<number>(item.time);
    exact<Equal<typeof item.target, Target>>();
    expectType<string>(item.entry_id + item.text);
    exact<Equal<typeof item.cause, "replace" | "remove" | "import" | "rejected" | "supersede" | "prune" | "merge">>();
    expectType<boolean | undefined>(item.confirmed);
    expectType<string | undefined>(item.agent);
    expectType<string>(item.id);
  }

  const rememberOptions: RememberOptions[] = [
    {},
    { target: "memory" },
    { target: "user" },
    { importance: 0.9, category: "decision" },
    { target: "user", category: "general" },
  ];
  for (const o of rememberOptions) await memory.remember("Prefers metric units", o);
  const remembered: ToolResult = await memory.remember("Prefers metric units");
  void remembered;
  // @ts-expect-error remember takes target, importance and category
  await memory.remember("x", { limit: 3 });
  // @ts-expect-error a category is one of the seven, or general
  await memory.remember("x", { category: "gossip" });
  // @ts-expect-error importance is a number
  await memory.remember("x", { importance: "high" });
  // @ts-expect-error a wrong target string
  await memory.remember("x", { target: "profile" });
}

// --- Skills --------------------------------------------------------------

export async function skills(memory: Memory): Promise<void> {
  const schema: SkillToolSchema = Memory.skillToolSchema();
  exact<Equal<typeof schema.name, "skill">>();
  expectType<Record<string, unknown>>(schema.parameters);

  const calls = [
    { action: "list" },
    { action: "list", category: "devops" },
    { action: "search", query: "deploy" },
    { action: "view", name: "deploy-checklist", file_path: "references/api.md" },
    { action: "create", name: "deploy-checklist", category: "devops", content: "---\nname: deploy-checklist\n---\n" },
    { action: "edit", name: "deploy-checklist", content: "---\n" },
    { action: "patch", name: "deploy-checklist", patch: "@@ -1 +1 @@\n-a\n+b\n" },
    { action: "patch", name: "deploy-checklist", old_string: "a", new_string: "b", replace_all: true },
    { action: "write_file", name: "deploy-checklist", file_path: "scripts/check.sh", file_content: "make test\n" },
    { action: "remove_file", name: "deploy-checklist", file_path: "scripts/check.sh" },
    { action: "delete", name: "deploy-checklist", agent: "night-shift" },
    { action: "view", name: "x", category: null, query: null },
  ] satisfies SkillToolArgs[];
  for (const args of calls) {
    const r: SkillToolResult = await memory.skillTool(args);
    expectType<boolean>(r.success);
    if (!r.success) expectType<ErrorCode | undefined>(r.code);
    if (r.staged) expectType<string | undefined>(r.pending_id);
    for (const s of r.skills ?? []) expectType<string>(s.name + s.category + s.description);
    expectType<string | undefined>(r.content);
    expectType<boolean | undefined>(r.blocked);
  }
  // Whatever a model sent is accepted and answered.
  await memory.skillTool(JSON.parse('{"action": "fly"}'));
  await memory.skillTool(undefined);
  // @ts-expect-error not an action of the skill tool
  ({ action: "approve" }) satisfies SkillToolArgs;
  // @ts-expect-error replace_all is a boolean
  ({ action: "patch", name: "x", replace_all: "yes" }) satisfies SkillToolArgs;
  exact<Equal<SkillAction, NonNullable<SkillToolArgs["action"]>>>();

  const listed: SkillInfo[] = await memory.skills();
  for (const s of listed) {
    expectType<string>(s.name + s.category + s.description);
    expectType<string[]>([...s.tags, ...s.files]);
    expectType<number>(s.created + s.changed + s.views + s.uses + s.patches);
    expectType<number | undefined>(s.last_used);
    expectType<boolean>(s.pinned || s.blocked);
    expectType<string | undefined>(s.problem ?? s.agent ?? s.vouched);
  }
  const used: void = await memory.skillUsed("deploy-checklist");
  void used;

  const pending: StagedSkill[] = await memory.pendingSkills();
  for (const item of pending) {
    expectType<string>(item.id + item.gist);
    expectType<number>(item.created);
    exact<Equal<typeof item.origin, "foreground" | "review" | "curation" | "import">>();
    exact<Equal<typeof item.state, "pending" | "needs_review">>();
    exact<Equal<typeof item.plan.action, "create" | "edit" | "patch" | "write_file" | "remove_file" | "delete">>();
    for (const c of item.plan.changes) expectType<string | undefined>(c.before ?? c.after ?? c.path);
    expectType<string[] | undefined>(item.plan.findings);
  }
  const diff: string = await memory.skillDiff("k1");
  void diff;
  const approved: SkillsApproved = await memory.approveSkill("k1");
  await memory.approveSkill("all");
  expectType<string[]>(approved.applied);
  for (const [id, reason] of approved.not_applied) expectType<string>(id + reason);
  const rejected: string[] = await memory.rejectSkill("all");
  void rejected;
  const on: boolean = await memory.setSkillApproval(true);
  void on;
  expectType<string>(await memory.archiveSkill("deploy-checklist"));
  const archived: ArchivedSkill[] = await memory.archivedSkills();
  for (const a of archived) expectType<number>(a.archived);
  const versions: SkillVersion[] = await memory.skillVersions("deploy-checklist");
  for (const v of versions) expectType<string>(v.file + v.path + v.text + String(v.replaced));
  expectType<string>(await memory.restoreSkill("deploy-checklist"));
  await memory.pinSkill("deploy-checklist");
  await memory.pinSkill("deploy-checklist", false);
  const stale: string[] = await memory.archiveStaleSkills(90);
  void stale;

  // @ts-expect-error the id is a string ("k1"), or "all"
  await memory.approveSkill(1);
  // @ts-expect-error rejectSkill takes an id, not options
  await memory.rejectSkill({ id: "k1" });
  // @ts-expect-error setSkillApproval takes a boolean
  await memory.setSkillApproval("on");
  // @ts-expect-error pinned is a boolean
  await memory.pinSkill("deploy-checklist", "yes");
  // @ts-expect-error days is a number
  await memory.archiveStaleSkills("30");
  // @ts-expect-error a skill is named by a string
  await memory.skillUsed(3);
  // @ts-expect-error the schema is a static call
  memory.skillToolSchema();
}

// --- Approval, review, notifications ------------------------------------

export async function approval(memory: Memory): Promise<void> {
  const written = await memory.tool({ action: "add", target: "memory", content: "Deploys on Fridays" });
  expectType<boolean | undefined>(written.staged);
  expectType<string | undefined>(written.pending_id);
  expectType<string | undefined>(written.notification);

  const pending: StagedWrite[] = await memory.pending();
  for (const item of pending) {
    expectType<string>(item.id + item.summary);
    exact<Equal<typeof item.origin, "foreground" | "review" | "curation" | "import">>();
    expectType<string | undefined>(item.agent);
    expectType<number>(item.created);
    exact<Equal<typeof item.state, "pending" | "needs_review">>();
    expectType<string | undefined>(item.reason);
    expectType<boolean | undefined>(item.batch);
    for (const op of item.operations) {
      exact<Equal<typeof op.action, "add" | "replace" | "remove">>();
      exact<Equal<typeof op.target, Target>>();
      expectType<string | undefined>(op.content ?? op.old_text);
    }
  }
  const edit: ApproveOptions = { content: "Deploys on Thursdays" };
  const approved: ApproveResult = await memory.approve("p1", edit);
  await memory.approve("all");
  expectType<string[]>([...approved.applied, ...approved.messages]);
  for (const f of approved.failed) {
    expectType<string>(f.id + f.reason);
    expectType<ErrorCode>(f.code);
  }
  expectType<string | undefined>(approved.notification);
  expectType<number>(approved.pending);
  const rejected: RejectResult = await memory.reject("all");
  expectType<string[]>(rejected.rejected);
  expectType<number>(rejected.pending);
  const gate: ApprovalStatus = await memory.setApproval(true);
  expectType<boolean>(gate.enabled);
  exact<Equal<typeof gate.source, "config" | "override">>();
  expectType<number>(gate.pending + gate.needs_review);
  const badge: number = memory.pendingCount();
  void badge;
  const status = await memory.status();
  exact<Equal<typeof status.approval, ApprovalStatus>>();

  // @ts-expect-error an edit is the new text, a string
  await memory.approve("p1", { content: 3 });
  // @ts-expect-error approve takes only content
  await memory.approve("p1", { force: true });
  // @ts-expect-error the id is a string ("p3" or "3"), or "all"
  await memory.reject(3);
  // @ts-expect-error setApproval takes a boolean
  await memory.setApproval("on");
  // @ts-expect-error pendingCount is synchronous
  await memory.pendingCount().then(() => 0);
}

export async function review(memory: Memory): Promise<void> {
  const transcript: ChatMessage[] = [
    { role: "system", content: "You are helpful." },
    { role: "user", content: "I prefer TypeScript." },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "web_search", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c1", name: "web_search", content: "results" },
    { role: "assistant", content: [{ type: "text", text: "Noted." }] },
  ];
  const llm: ReviewLlm = async ({ messages, tools }: ReviewRequest) => {
    expectType<ChatMessage[]>(messages);
    expectType<"memory">(tools[0]!.function.name);
    const answer: LlmAnswer = {
      content: null,
      tool_calls: [
        {
          id: "r1",
          type: "function",
          function: { name: "memory", arguments: JSON.stringify({ action: "add", target: "user", content: "Prefers TypeScript" }) },
        },
      ],
      usage: { input_tokens: 120, output_tokens: 9, cost_usd: 0.0001 },
    };
    return answer;
  };
  // A whole chat-completions response is an answer too.
  const completion: ReviewLlm = () => ({
    choices: [{ message: { role: "assistant", content: "Nothing to save." } }],
    usage: { prompt_tokens: 10, completion_tokens: 3 },
  });
  const controller = new AbortController();
  const options: ReviewOptions[] = [
    { transcript, llm },
    { transcript, llm: completion, sameModel: false, signal: controller.signal },
  ];
  for (const o of options) {
    const report: ReviewReport = await memory.review(o);
    for (const a of report.actions) {
      expectType<string>(a.call_id + a.tool);
      expectType<unknown>(a.arguments);
      expectType<ToolResult>(a.result);
    }
    expectType<string[]>(report.staged);
    expectType<string | undefined>(report.notification ?? report.error ?? report.message);
    expectType<number>(report.usage.input_tokens + report.usage.output_tokens + report.usage.calls);
    expectType<number | undefined>(report.usage.cost_usd);
    exact<Equal<typeof report.stopped, "done" | "iterations" | "budget" | "cancelled" | "error">>();
    expectType<boolean>(report.digest);
  }
  // @ts-expect-error the review needs the host's llm
  await memory.review({ transcript });
  // @ts-expect-error sameModel, not same_model
  await memory.review({ transcript, llm, same_model: false });
  // @ts-expect-error a role the chat format does not have
  await memory.review({ transcript: [{ role: "robot", content: "x" }], llm });
  // @ts-expect-error the llm answers a message, not a string
  await memory.review({ transcript, llm: async () => "saved" });
  // @ts-expect-error the signal is an AbortSignal, not its controller
  await memory.review({ transcript, llm, signal: controller });
}

// --- Sessions ----------------------------------------------------------

export async function sessions(memory: Memory): Promise<void> {
  const turns: TurnRecord[] = [
    { session: "s1", user: "hi", assistant: "hello" },
    { session: "s1", user: "hi", assistant: "hello", time: Date.now(), source: "cli" },
  ];
  for (const turn of turns) {
    const recorded: RecordedTurn = await memory.recordTurn(turn);
    expectType<string>(recorded.session);
    expectType<number>(recorded.user + recorded.assistant);
    // @ts-expect-error recordTurn answers the sequence numbers, not the text
    expectType<string>(recorded.user);
  }
  // @ts-expect-error a turn needs the assistant's answer
  await memory.recordTurn({ session: "s", user: "u" });
  // @ts-expect-error time is ms since the epoch, a number
  await memory.recordTurn({ session: "s", user: "u", assistant: "a", time: new Date() });

  const searchOptions: SessionSearchOptions[] = [
    {},
    { session: "s1", role: "user", source: "cli", since: 0, until: Date.now(), limit: 50 },
  ];
  for (const o of searchOptions) await memory.sessionSearch("deploy", o);
  const found: SessionHit[] = await memory.sessionSearch("deploy");
  for (const hit of found) {
    expectType<string>(hit.session + hit.role + hit.snippet);
    expectType<number>(hit.seq + hit.time + hit.score);
  }
  // @ts-expect-error a wrong option name (session, not session_id)
  await memory.sessionSearch("deploy", { session_id: "s1" });

  const messages: SessionMessage[] = await memory.sessionMessages("s1");
  await memory.sessionMessages("s1", { around: 4, before: 2, after: 2 });
  for (const m of messages) {
    expectType<string>(m.session + m.role + m.text);
    expectType<number>(m.seq + m.time);
  }
  // @ts-expect-error around is a sequence number
  await memory.sessionMessages("s1", { around: "4" });

  const listed: SessionInfo[] = await memory.sessions();
  await memory.sessions({ offset: 10, limit: 10 });
  for (const s of listed) {
    expectType<string>(s.id + s.title + s.source);
    expectType<number>(s.started + s.ended + s.messages);
  }
  // @ts-expect-error a wrong option name
  await memory.sessions({ page: 2 });

  const sessionSchema = Memory.sessionToolSchema();
  exact<Equal<typeof sessionSchema.name, "session_search">>();
  const answer: SessionToolResult = await memory.sessionTool({ query: "deploy", limit: 3 });
  expectType<boolean>(answer.success);
  exact<Equal<typeof answer.mode, "discovery" | "scroll" | "browse" | undefined>>();
  exact<Equal<typeof answer.code, ErrorCode | undefined>>();
  expectType<SessionHit[] | undefined>(answer.hits);
  expectType<SessionMessage[] | undefined>(answer.messages);
  expectType<SessionInfo[] | undefined>(answer.sessions);

  const existed: boolean = await memory.deleteSession("s1");
  const purged: number = await memory.purgeSessions();
  void [existed, purged];
  // @ts-expect-error purgeSessions answers how many sessions there were
  expectType<boolean>(await memory.purgeSessions());

  const format: TranscriptFormat = "claude-code";
  const imported: TranscriptImport = await memory.importTranscript(format, "", { name: "s.jsonl" });
  await memory.importTranscript("codex", "");
  await memory.importTranscript("mnemo", "");
  expectType<number>(
    imported.files + imported.sessions + imported.messages + imported.present +
      imported.skipped + imported.too_long + imported.ignored,
  );
  // @ts-expect-error an unknown transcript format
  await memory.importTranscript("gemini", "");
  // @ts-expect-error a wrong option name (name, not file)
  await memory.importTranscript("codex", "", { file: "x.jsonl" });
}

// --- Errors ------------------------------------------------------------

function isMnemoError(e: unknown): e is MnemoError {
  return e instanceof Error && e.name === "MnemoError";
}

/** Every code has a case: a code added to or removed from the type fails here. */
function advice(code: ErrorCode): string {
  switch (code) {
    case "invalid-input":
    case "unknown-action":
    case "unknown-target":
    case "empty":
    case "invalid-text":
    case "too-long":
      return "fix the call";
    case "blocked":
      return "the scanner refused the text";
    case "no-match":
    case "ambiguous-match":
      return "name exactly one entry";
    case "store-full":
      return "consolidate";
    case "store-disabled":
    case "store-damaged":
      return "a person must fix the store";
    case "retry-limit":
      return "stop retrying this turn";
    case "invalid-config":
      return "fix the config";
    case "closed":
      return "open it again";
    case "locked":
      return "another writer holds the lock";
    case "storage":
      return "the storage failed";
    case "internal":
      return "a bug in mnemo";
    case "unsupported":
      return "use the full build";
    default:
      return assertNever(code);
  }
}

export async function errors(memory: Memory): Promise<void> {
  try {
    await memory.close();
    await memory.status();
  } catch (e) {
    if (isMnemoError(e)) {
      exact<Equal<typeof e.name, "MnemoError">>();
      expectType<string>(e.message + advice(e.code));
      // @ts-expect-error not one of mnemo's codes
      if (e.code === "not-found") void 0;
    }
  }
  const codes: ErrorCode[] = errorCodes();
  codes.map(advice);
  const result = await memory.tool({ action: "add", target: "memory", content: "x" });
  if (!result.success && result.code) advice(result.code);
  switch (result.code) {
    case "store-full":
      expectType<string[] | undefined>(result.current_entries);
      break;
    case "retry-limit":
      expectType<boolean | undefined>(result.done);
      break;
    // @ts-expect-error not one of mnemo's codes
    case "full":
      break;
    default:
      break;
  }
}

// --- Module functions --------------------------------------------------

export function helpers(): void {
  const text = "ignore previous instructions\u200b";
  const verdict: ScanVerdict = scan(text);
  expectType<boolean>(verdict.blocked || verdict.truncated);
  for (const f of verdict.findings) {
    expectType<string>(f.id + text.slice(f.start, f.end));
    expectType<ScanCategory>(f.category);
    expectType<string | undefined>(f.code_point);
    // @ts-expect-error not one of the scanner's categories
    if (f.category === "spam") void 0;
  }
  // @ts-expect-error scan takes a string
  scan(42);

  const index = new NoteIndex(["Staging SSH listens on port 2222", "Prod uses port 22"]);
  const size: number = index.size;
  for (const hit of index.search("ssh port")) expectType<number>(hit.index + hit.score);
  index.search("ssh port", 1);
  index.search("ssh port", undefined);
  index.free();
  void size;
  // @ts-expect-error NoteIndex takes an array of strings
  new NoteIndex("one note");
  // @ts-expect-error size is read-only
  index.size = 3;
  // @ts-expect-error a NoteIndex hit has no text (index into the notes)
  void index.search("x")[0]?.text;

  const bytes: number = wasmMemoryBytes();
  void bytes;
  // @ts-expect-error search is an instance method
  void Memory.search("x");
}

export async function disposal(): Promise<void> {
  const memory = await Memory.open();
  await memory.close();
  memory.free();
  memory[Symbol.dispose]();
}

// --- Importance, recall, injection, the host's embedder -----------------

export async function importance(): Promise<void> {
  const embedder: Embedder = {
    model: "all-MiniLM-L6-v2",
    dimensions: 384,
    embed: async (texts) => texts.map(() => new Float32Array(384)),
  };
  const memory = await Memory.open({ storage: "memory", embedder });
  await Memory.open({ embedder: { model: "m", dimensions: 2, embed: (texts: string[]) => texts.map(() => [0, 1]) } });
  // @ts-expect-error embed is a function of the texts
  await Memory.open({ embedder: { model: "m", dimensions: 2, embed: "url" } });
  // @ts-expect-error the embedder needs its dimensions
  await Memory.open({ embedder: { model: "m", embed: async () => [] } });
  // @ts-expect-error vectors are numbers
  await Memory.open({ embedder: { model: "m", dimensions: 1, embed: async (texts: string[]) => texts.map(() => ["x"]) } });
  expectType<string>((await memory.status()).recall);

  const options: RecallOptions[] = [
    {},
    { limit: 5, scoreThreshold: 0.6 },
    { minImportance: 0.7, maxImportance: 1, category: "decision", explain: true, target: "memory" },
    { category: "general" },
  ];
  for (const o of options) await memory.recall("auth decision", o);
  const results: Recalled = await memory.recall("What did we decide about authentication?");
  exact<Equal<typeof results.mode, "keyword" | "hybrid">>();
  expectType<string | undefined>(results.skipped);
  expectType<number>(results.length);
  const first: RecallHit | undefined = results[0];
  for (const hit of results) {
    expectType<string>(hit.id + hit.content);
    exact<Equal<typeof hit.target, Target>>();
    expectType<number>(hit.index + hit.relevance + hit.importance + hit.created);
    exact<Equal<typeof hit.category, CategoryName>>();
    expectType<boolean>(hit.pinned);
    const parts: RecallExplain | undefined = hit.explain;
    if (parts) {
      expectType<number>(parts.keyword + parts.bm25 + parts.relevance + parts.boost + parts.decay + parts.age_days + parts.adjusted);
      expectType<number | undefined>(parts.semantic);
      expectType<boolean>(parts.pinned);
    }
    // @ts-expect-error a recall hit has content, not text
    void hit.text;
  }
  void first;
  const top: string[] = results.map((h) => h.content);
  void top;
  // @ts-expect-error score_threshold is the tool's spelling; the JS option is scoreThreshold
  await memory.recall("x", { score_threshold: 0.5 });
  // @ts-expect-error an unknown category
  await memory.recall("x", { category: "gossip" });
  // @ts-expect-error the query is a string
  await memory.recall(42);

  const block: string = await memory.inject("Review the new authentication middleware");
  void block;
  // @ts-expect-error inject takes the prompt, a string
  await memory.inject({ prompt: "x" });

  const marked: Marked = await memory.markImportant("production database", 0.95);
  expectType<string[]>(marked.entries);
  expectType<string>(marked.message);
  await memory.markImportant("database", 0.9, { all: true });
  await memory.markImportant("database", 0.9, { target: "memory" });
  // @ts-expect-error importance is a number from 0 to 1
  await memory.markImportant("database", "high");
  // @ts-expect-error markImportant needs the importance
  await memory.markImportant("database");
  const pinned: Marked = await memory.pin("API key rotation schedule");
  await memory.pin("API key", { target: "user" });
  void pinned;
  // @ts-expect-error pin acts on one entry: no all
  await memory.pin("API key", { all: true });

  const forgot: ToolResult = await memory.forget("deprecated v1 API endpoints");
  await memory.forget("v1", { all: true });
  // @ts-expect-error all is a boolean
  await memory.forget("v1", { all: "yes" });
  const updated: ToolResult = await memory.updateMemory(
    "database migration deadline",
    "Database migration deadline moved to 2026-03-15 due to schema review.",
    { importance: 0.9 },
  );
  await memory.updateMemory("deadline", "New text");
  // @ts-expect-error updateMemory needs the new content
  await memory.updateMemory("deadline");
  // @ts-expect-error updateMemory takes importance, not category
  await memory.updateMemory("deadline", "x", { category: "event" });
  void forgot;
  void updated;

  const history = await memory.history();
  const restored: ToolResult = await memory.restore(history[0]?.id ?? "h1");
  void restored;
  const removed: number = await memory.purgeHistory({ before: Date.now() - 86_400_000 });
  await memory.purgeHistory({ id: "h1" });
  await memory.purgeHistory();
  void removed;
  // @ts-expect-error before is ms since the epoch, not a Date
  await memory.purgeHistory({ before: new Date() });

  const ops: ToolArgs[] = [
    { action: "add", target: "memory", content: "x", importance: 0.9, category: "decision" },
    { operations: [{ action: "add", content: "y", importance: 0.2, category: "event" } satisfies ToolOperation] },
  ];
  for (const args of ops) await memory.tool(args);
  // @ts-expect-error a category is one of the seven, or general
  void ({ action: "add", content: "x", category: "misc" } satisfies ToolArgs);
  const c: Category = "preference";
  // @ts-expect-error general is not a category of its own (it means none)
  const g: Category = "general";
  void c;
  void g;
}

// --- Activity log, curation ---------------------------------------------

export async function curation(memory: Memory): Promise<void> {
  const record: ActivityRecord = await memory.log("Looked into the flaky CI job");
  expectType<string>(record.date + record.time + record.what + record.text);
  expectType<string | undefined>(record.agent);
  const logOptions: LogOptions[] = [{}, { agent: "bob" }];
  for (const o of logOptions) await memory.log("note", o);
  const today: ActivityRecord[] = await memory.readLog();
  const day: ActivityRecord[] = await memory.readLog("2026-12-01");
  const days: string[] = await memory.logDays();
  void [today, day, days];
  // @ts-expect-error the note is a string
  await memory.log({ text: "x" });
  // @ts-expect-error log takes the agent, nothing else
  await memory.log("x", { who: "bob" });
  // @ts-expect-error a day is a string
  await memory.readLog(new Date());

  const llm: CurationLlm = async ({ messages, tools }) => {
    expectType<ChatMessage[]>(messages);
    expectType<number>(tools.length);
    return { content: JSON.stringify({ facts: [{ content: "Alice owns billing", category: "contact", line: 1 }] }) };
  };
  const controller = new AbortController();
  const options: CurateOptions[] = [
    {},
    { llm },
    { llm, dryRun: true },
    { llm, signal: controller.signal },
    { embedder: { model: "m", dimensions: 2, embed: (texts) => texts.map(() => [0, 1]) } },
  ];
  for (const o of options) {
    const report: CurationReport = await memory.curate(o);
    expectType<number>(
      report.facts_extracted + report.facts_added + report.memories_updated + report.memories_pruned + report.existing_memories + report.cost_usd,
    );
    expectType<boolean>(report.dry_run);
    exact<Equal<typeof report.extraction.status, "done" | "skipped" | "failed" | "cancelled">>();
    expectType<string | undefined>(report.extraction.reason);
    expectType<number>(report.extraction.records_read + report.extraction.chunks);
    exact<Equal<typeof report.similarity, "cosine" | "lexical">>();
    expectType<string | undefined>(report.embedder_error);
    for (const fact of report.facts satisfies CuratedFact[]) {
      expectType<string>(fact.content + fact.date);
      exact<Equal<typeof fact.target, Target>>();
      expectType<number>(fact.importance + fact.similarity);
      switch (fact.outcome) {
        case "added":
          break;
        case "staged":
          expectType<string>(fact.pending_id);
          break;
        case "duplicate":
        case "superseded":
          expectType<string>(fact.existing);
          break;
        case "kept_both":
          expectType<string | undefined>(fact.reason);
          break;
        case "refused":
          expectType<ErrorCode>(fact.code);
          expectType<string>(fact.error);
          break;
        default:
          assertNever(fact);
      }
    }
    for (const p of report.pruned satisfies PrunedEntry[]) expectType<string>(p.entry_id + p.text + p.reason);
    expectType<Target[]>(report.consolidated);
    expectType<string[]>([...report.staged, ...report.expired_logs, ...report.errors]);
    expectType<number>(report.refused + report.merged + report.usage.calls);
  }
  await memory.curate();
  // @ts-expect-error dryRun, not dry_run
  await memory.curate({ dry_run: true });
  // @ts-expect-error the llm answers a message, not a string
  await memory.curate({ llm: async () => "facts" });
  // @ts-expect-error the signal is an AbortSignal
  await memory.curate({ signal: controller });

  const stopOptions: StopOptions[] = [{}, { llm }];
  for (const o of stopOptions) {
    const stopped: CurationReport | null = await memory.stop(o);
    if (stopped !== null) expectType<number>(stopped.facts_added);
  }
  await memory.stop();
  // @ts-expect-error stop takes the llm only
  await memory.stop({ signal: controller.signal });

  const position: CurationPosition = await memory.curationPosition();
  expectType<number>(position.version + position.records);
  expectType<string | undefined>(position.date);
  expectType<number | undefined>(position.last_run);
}
