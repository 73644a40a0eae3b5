// "mnemo/browser" (and the raw "mnemo/web") used as a page or worker would:
// the same calls as "mnemo" with the wasm already initialised, and a memory
// that may live in a worker (no free(); close() releases it). Compiled only
// (see tests/js/types.test.mjs); never run.
import {
  Memory,
  NoteIndex,
  errorCodes,
  scan,
  wasmMemoryBytes,
  type ErrorCode,
  type MnemoError,
  type SearchHit,
  type Status,
  type ToolArgs,
  type ToolResult,
} from "mnemo/browser";
import * as browser from "mnemo/browser";
import init, { Memory as WebMemory } from "mnemo/web";

function expectType<T>(value: T): T {
  return value;
}

export async function page(): Promise<void> {
  const memory: Memory = await Memory.open({ storage: "opfs", name: "agent-1" });
  await Memory.open({ storage: "auto" });
  await Memory.open({ storage: "indexeddb", config: { memory: { memory_char_limit: 3000 } } });
  await Memory.open();
  await Memory.open({ storage: "indexeddb", name: "agent-2", prefetch: false });
  await memory.prepare();

  const args = { action: "add", target: "memory", content: "Staging SSH listens on port 2222" } satisfies ToolArgs;
  const result: ToolResult = await memory.tool(args);
  if (!result.success) expectType<ErrorCode | undefined>(result.code);
  const hits: SearchHit[] = await memory.search("ssh port", { target: "memory", limit: 3 });
  const status: Status = await memory.status();
  expectType<string>(status.storage);
  expectType<string>(await memory.startSession());
  expectType<string>(await memory.context("ssh?"));
  await memory.sectors({ limit: 5 });
  await memory.journey();
  await memory.history();
  await memory.remember("Prefers metric units", { target: "user" });
  await memory.recordTurn({ session: "s", user: "hi", assistant: "hello" });
  // A memory in a page's worker has the approval calls and the review too:
  // its llm stays in the page, the worker calls it back.
  expectType<number>(memory.pendingCount());
  for (const item of await memory.pending()) expectType<string>(item.id);
  await memory.approve("all");
  await memory.reject("p2");
  expectType<boolean>((await memory.setApproval(false)).enabled);
  const report = await memory.review({
    transcript: [{ role: "user", content: "hi" }],
    llm: async () => ({ content: "Nothing to save." }),
    signal: AbortSignal.timeout(30_000),
  });
  expectType<string[]>(report.staged);
  // So do curation's llm and embedder; the log passes through.
  const curated = await memory.curate({
    llm: async () => ({ content: '{"facts": []}' }),
    embedder: { model: "m", dimensions: 2, embed: async (texts) => texts.map(() => new Float32Array(2)) },
    signal: AbortSignal.timeout(30_000),
  });
  expectType<number>(curated.facts_added);
  expectType<string>((await memory.log("note", { agent: "tab-a" })).time);
  expectType<string[]>(await memory.logDays());
  expectType<string | null>((await memory.stop({ llm: () => ({ content: '{"facts": []}' }) }))?.extraction.reason ?? null);
  await Memory.open({ storage: "opfs", name: "agent-1", workspace: "team-a" });
  await memory.sessionSearch("hello", { limit: 5 });
  void hits;
  // The embedder's embed stays in the page too; recall keeps its mode.
  const embedded = await Memory.open({
    storage: "opfs",
    embedder: { model: "m", dimensions: 2, embed: async (texts) => texts.map(() => new Float32Array(2)) },
  });
  const recalled = await embedded.recall("auth", { explain: true, minImportance: 0.7 });
  expectType<"keyword" | "hybrid">(recalled.mode);
  expectType<string | undefined>(recalled[0]?.content);
  expectType<string>(await embedded.inject("check inbox"));
  expectType<string[]>((await embedded.pin("auth")).entries);
  await embedded.markImportant("auth", 0.9, { all: true });
  await embedded.forget("auth");
  await embedded.updateMemory("auth", "new", { importance: 0.8 });
  await embedded.restore("h1");
  expectType<number>(await embedded.purgeHistory({ before: 0 }));

  // @ts-expect-error a wrong option name
  await memory.search("ssh", { top: 3 });
  // @ts-expect-error an unknown storage
  await Memory.open({ storage: "localstorage" });

  try {
    await memory.close();
    await memory.status();
  } catch (e) {
    const err = e as MnemoError;
    if (err.code === "closed") expectType<"MnemoError">(err.name);
  }
  // @ts-expect-error a memory in a page's worker has no free(): close() releases it
  memory.free();

  const names: string[] = await Memory.list();
  const removed = await Memory.delete(names[0] ?? "agent-1");
  expectType<string[]>(removed.removed);
  const recovered = await Memory.recover("agent-1", { storage: "opfs" });
  expectType<string[]>(recovered.salvaged);
  expectType<"memory">(Memory.toolSchema().name);
  expectType<"session_search">(Memory.sessionToolSchema().name);
  expectType<"skill">(Memory.skillToolSchema().name);
  // A worker memory has the skill calls too.
  expectType<boolean>((await memory.skillTool({ action: "list" })).success);
  expectType<string[]>(await memory.rejectSkill("all"));
  // @ts-expect-error instances come from Memory.open
  new Memory();
}

export function helpers(): void {
  expectType<boolean>(scan("text").blocked);
  expectType<ErrorCode[]>(errorCodes());
  expectType<number>(new NoteIndex(["a", "b"]).size);
  expectType<number>(wasmMemoryBytes());
  // @ts-expect-error browser.js initialised the wasm: it exports no initSync
  browser.initSync(new Uint8Array());
  // @ts-expect-error nor the web build's init
  void browser.default;
}

/** The raw web build: initialise it first. */
export async function web(): Promise<void> {
  await init();
  await init({ module_or_path: new URL("mnemo_bg.wasm", "https://example.test/") });
  const memory = await WebMemory.open({ storage: "indexeddb" });
  expectType<ToolResult>(await memory.tool({ action: "search", query: "ssh" }));
  memory.free();
}
