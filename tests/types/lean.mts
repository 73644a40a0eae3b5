// "mnemo/lean" (and "mnemo/lean/web"): the same API as "mnemo" without
// SQLite; the session calls keep their types and reject with
// `unsupported`. Compiled only (see tests/js/types.test.mjs); never run.
import { Memory, scan, type ErrorCode, type MnemoError, type Status, type ToolResult } from "mnemo/lean";
import initLean, { Memory as LeanWebMemory } from "mnemo/lean/web";

function expectType<T>(value: T): T {
  return value;
}

export async function edge(): Promise<void> {
  const memory = await Memory.open({ storage: "fs", dir: "./memories" });
  const result: ToolResult = await memory.tool({ action: "add", target: "memory", content: "Staging SSH: 2222" });
  expectType<boolean>(result.success);
  const status: Status = await memory.status();
  // "sqlite" in the full build; here why sessions are absent.
  expectType<string>(status.sessions);
  await memory.search("ssh", { limit: 3 });
  expectType<boolean>(scan("text").blocked);
  try {
    await memory.sessionSearch("ssh");
  } catch (e) {
    const code: ErrorCode = (e as MnemoError).code;
    if (code === "unsupported") expectType<string>((e as MnemoError).message);
  }
  // Skills need no SQLite either.
  expectType<boolean>((await memory.skillTool({ action: "search", query: "deploy" })).success);
  expectType<"skill">(Memory.skillToolSchema().name);
  // Approval and the review need no SQLite.
  expectType<number>((await memory.pending()).length + memory.pendingCount());
  const report = await memory.review({ transcript: [{ role: "user", content: "hi" }], llm: () => ({ content: "ok" }) });
  expectType<boolean>(report.digest);
  // @ts-expect-error a wrong target string
  await memory.remember("x", { target: "both" });
  await memory.close();
}

export async function worker(): Promise<void> {
  await initLean();
  const memory = await LeanWebMemory.open({ storage: { read: () => null, write() {}, list: () => [], delete() {} } });
  expectType<string>(await memory.systemPrompt());
}
