// A minimal agent loop with mnemo: register the tool, put the frozen memory
// block in the system prompt, hand the model's tool calls to mnemo.
// Run: node examples/quickstart.mjs [memories-dir]
import { Memory } from "mnemo";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "mnemo-quickstart-"));
const memory = await Memory.open({ storage: "fs", dir });

// 1. Register the tool with your LLM API (OpenAI `tools`, Anthropic `tools`).
const { name, description, parameters } = Memory.toolSchema();
const tools = [{ type: "function", function: { name, description, parameters } }];

// 2. Build the system prompt once per session (it stays frozen for the prefix cache).
const system = `You are a helpful agent.\n\n${await memory.startSession()}`;

// 3. Each user turn: attach the relevant notes (empty while everything fits the prompt).
const message = "Which port does SSH on staging use?";
const turn = `${message}\n\n${await memory.context(message)}`.trim();
console.log("user turn:", JSON.stringify(turn));

// 4. When the model calls the tool, pass its arguments through untouched.
const calls = [
  { action: "add", target: "user", content: "Prefers concise answers; timezone UTC+1" },
  { action: "add", target: "memory", content: "Staging server 10.0.1.50 needs SSH port 2222" },
  { action: "replace", target: "memory", old_text: "port 2222", content: "Staging 10.0.1.50: SSH on 2222, key ~/.ssh/staging_ed25519" },
  { action: "remove", target: "memory", old_text: "no such note" }, // fails with a code
  { action: "search", query: "staging ssh" }, // finds notes on demand
];
for (const args of calls) {
  const result = await memory.tool(args); // never throws for what a model sends
  console.log(JSON.stringify(result)); // send this back as the tool result
}

console.log(tools.length, "tool registered;", system.length, "chars of system prompt this session");
console.log((await memory.startSession()) || "(memory is empty)"); // the next session sees the writes
console.log(await memory.status());
await memory.close();
