// The consent-aware learning loop in a small agent, with no network: after a
// turn the background review reads the conversation and saves what is worth
// keeping; with write approval on, those saves wait for the user, who edits,
// approves or rejects them; the chat line says what happened.
//
// mnemo makes no network call: the review calls the host's `llm`, an async
// function taking `{messages, tools}` (OpenAI chat format) and returning the
// assistant message `{content, tool_calls?, usage?}`. This example plugs in a
// scripted model (scripted-claude.mjs) behind the Anthropic Messages API
// mapping of anthropic-llm.mjs, so swapping the scripted client for `new
// Anthropic()` (@anthropic-ai/sdk) is the only change a real agent needs.
// Run: node examples/review-agent.mjs [memories-dir]
import { Memory } from "mnemo";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anthropicLlm } from "./anthropic-llm.mjs";
import { scriptedClaude } from "./scripted-claude.mjs";

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "mnemo-review-"));
const memory = await Memory.open({
  storage: "fs",
  dir,
  agent: "example-agent",
  config: {
    memory: { write_approval: true }, // every save waits for the user
    display: { memory_notifications: "verbose" }, // the chat line previews each save
  },
});

// A finished turn of the conversation, in the OpenAI chat format.
const transcript = [
  { role: "user", content: "Always give me TypeScript, never plain JavaScript. How do we deploy?" },
  { role: "assistant", content: "Noted. We deploy with `fly deploy` from the main branch." },
];

// After the turn (in the background: do not make the user wait for it).
const controller = new AbortController();
const report = await memory.review({
  transcript,
  // A cheaper model than the chat's...
  llm: anthropicLlm(scriptedClaude, "claude-haiku-4-5", { signal: controller.signal }),
  sameModel: false, // ...so the review gets a compact digest of the transcript
  signal: controller.signal, // controller.abort() cancels it, even mid-call
});
console.log(`review: ${report.stopped}, ${report.actions.length} tool calls, ${report.usage.calls} model calls`);
console.log(report.notification); // ⏳ Awaiting your approval (p1, p2): User profile ➕ … · Memory ➕ …

// The user looks at the queue: approve one as it is, edit the other.
for (const item of await memory.pending()) {
  console.log(`${item.id} [${item.origin}, ${item.agent}] ${item.summary}`);
}
const first = await memory.approve("p1");
console.log(first.notification); // 💾 User profile ➕ Prefers TypeScript over JavaScript
const edited = await memory.approve("p2", { content: "Deploys: `fly deploy` from main, after CI passes" });
console.log(edited.notification);
console.log(`${memory.pendingCount()} pending`);

// The next session's prompt carries what the user approved.
console.log(await memory.startSession());
await memory.close();
