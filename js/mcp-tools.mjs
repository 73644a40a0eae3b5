// mnemo's MCP tools and resources, for any transport: `npx mnemo mcp`
// (js/mcp.mjs, over stdio with the official SDK) and the Cloudflare
// example's Streamable HTTP endpoint (examples/cloudflare/worker.js) use the
// same definitions and the same dispatch. Plain ES module, no imports: the
// worker loads it as it is, without a bundler.
//
// Everything a tool answers is the core's JSON, as text content; a tool-level
// failure (the model's mistake, a failed write) sets `isError`. The schemas
// of `memory`, `skill` and `session_search` are the core's
// (`Memory.toolSchema()`, `Memory.skillToolSchema()`,
// `Memory.sessionToolSchema()`); `recall` and `sectors` take the options of
// the JS API under their snake_case names and the core checks them. There is
// no approval tool, on purpose, for notes or skills: approving a staged write
// is the user's act (`npx mnemo approve`, the host's `approveSkill`), never
// the model's.

/** The most bytes a tool call's arguments may take (as JSON). */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;

/** JSON-RPC error codes used here. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  RESOURCE_NOT_FOUND: -32002,
};

/** An error to answer as a JSON-RPC error (not a tool result). */
export class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "RpcError";
    this.code = code;
  }
}

const CATEGORIES = ["security", "decision", "knowledge", "contact", "project", "event", "preference", "general"];

// recall's arguments (snake_case, as models write them) and the JS API's
// option each one is.
const RECALL_OPTIONS = {
  target: "target",
  limit: "limit",
  score_threshold: "scoreThreshold",
  min_importance: "minImportance",
  max_importance: "maxImportance",
  category: "category",
  explain: "explain",
};

const RECALL_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", description: "What to recall: plain words (matched by stem in English and Russian)." },
    target: { type: "string", enum: ["memory", "user"], description: "Only this store (default: both)." },
    limit: { type: "integer", minimum: 1, maximum: 1000, description: "At most this many entries (default 10)." },
    score_threshold: { type: "number", minimum: 0, maximum: 1, description: "Only entries whose adjusted score is at least this." },
    min_importance: { type: "number", minimum: 0, maximum: 1, description: "Only entries of at least this importance." },
    max_importance: { type: "number", minimum: 0, maximum: 1, description: "Only entries of at most this importance." },
    category: { type: "string", enum: CATEGORIES, description: 'Only this category ("general": entries without one).' },
    explain: { type: "boolean", description: "Give every part of each entry's score." },
  },
  required: ["query"],
  additionalProperties: false,
};

const SECTORS_SCHEMA = {
  type: "object",
  properties: {
    sector: { type: "string", description: "Only this sector (case-insensitive); the summary stays whole." },
    limit: { type: "integer", minimum: 1, description: "Notes listed per sector (default 12); the rest are counted in `more`." },
  },
  additionalProperties: false,
};

/**
 * The tools, as MCP lists them: `{name, title, description, inputSchema,
 * annotations}`. `Memory` is the JS API's class (full or lean build);
 * `sessions: false` leaves out `session_search` (a build or host without
 * sessions).
 */
export function toolList(Memory, { sessions = true } = {}) {
  const memory = Memory.toolSchema();
  const list = [
    {
      name: "memory",
      title: "Memory",
      description: memory.description,
      inputSchema: memory.parameters,
      // Writes, and `remove` deletes (into the history, restorable).
      annotations: { title: "Memory", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
  ];
  const skill = Memory.skillToolSchema();
  list.push({
    name: "skill",
    title: "Skills",
    description: skill.description,
    inputSchema: skill.parameters,
    // Writes, and `delete` archives a skill (restorable).
    annotations: { title: "Skills", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  });
  if (sessions) {
    const session = Memory.sessionToolSchema();
    list.push({
      name: "session_search",
      title: "Session search",
      description: session.description,
      inputSchema: session.parameters,
      annotations: { title: "Session search", readOnlyHint: true, openWorldHint: false },
    });
  }
  list.push(
    {
      name: "recall",
      title: "Recall",
      description:
        "Recall the memory entries most relevant to a query, ranked by relevance, importance and age, " +
        "with each entry's importance, category and whether it is pinned. Filter by store, category or " +
        "importance. Reads only; use the memory tool to change entries.",
      inputSchema: RECALL_SCHEMA,
      annotations: { title: "Recall", readOnlyHint: true, openWorldHint: false },
    },
    {
      name: "sectors",
      title: "Sectors",
      description:
        "The memory's sectors: notes grouped by their first #tag (or wikilinked topic), with counts, " +
        "links between notes and dangling [[links]]. Reads only.",
      inputSchema: SECTORS_SCHEMA,
      annotations: { title: "Sectors", readOnlyHint: true, openWorldHint: false },
    },
  );
  return list;
}

/** A tool result: the core's JSON as text; `isError` for a failure. */
function answer(value, isError = false) {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }], isError };
}

/** A failure as the core words them: `{success: false, error, code}`. */
function failed(error, code) {
  return answer({ success: false, error, code }, true);
}

/** A thrown MnemoError as a tool failure; anything else is rethrown. */
function mnemoFailure(e) {
  if (e?.name === "MnemoError") return failed(e.message, e.code);
  throw e;
}

/** `args` as an object of `allowed` keys (`null` values dropped), or a failure. */
function options(args, allowed, tool) {
  const out = {};
  for (const [key, value] of Object.entries(args)) {
    if (!(key in allowed)) {
      return failed(`${tool}: unknown argument ${JSON.stringify(key)}; it takes ${Object.keys(allowed).join(", ")}`, "invalid-input");
    }
    if (value !== null && value !== undefined) out[allowed[key]] = value;
  }
  return { options: out };
}

/**
 * Runs tool `name` with `args` on `memory` (an open `Memory`); resolves to
 * an MCP `CallToolResult`. Unknown tools reject with an `RpcError`
 * (`-32602`), as the MCP spec asks; everything the model sent wrong is a
 * result with `isError: true`, and writes nothing.
 */
export async function callTool(memory, name, args, { sessions = true } = {}) {
  const known = ["memory", "skill", "recall", "sectors", ...(sessions ? ["session_search"] : [])];
  if (!known.includes(name)) {
    throw new RpcError(RPC.INVALID_PARAMS, `unknown tool ${JSON.stringify(name)}; this server has ${known.join(", ")}`);
  }
  args ??= {};
  const size = new TextEncoder().encode(JSON.stringify(args)).length;
  if (size > MAX_ARGUMENT_BYTES) {
    return failed(
      `the arguments are ${size.toLocaleString("en-US")} bytes; this server takes at most ` +
        `${MAX_ARGUMENT_BYTES.toLocaleString("en-US")} bytes per call. Nothing was written.`,
      "too-long",
    );
  }
  if (typeof args !== "object" || Array.isArray(args)) {
    return failed(`${name}: the arguments must be an object`, "invalid-input");
  }
  try {
    switch (name) {
      case "memory": {
        // Reads (the search action) answer from the stores as they are now,
        // other processes' writes included; writes re-read them anyway.
        await memory.refresh();
        const result = await memory.tool(args);
        return answer(result, result.success === false);
      }
      case "skill": {
        // The writes carry the client's name (the memory's agent): a model
        // does not get to name another agent.
        if (Object.hasOwn(args, "agent")) {
          return failed('skill: unknown argument "agent"; the writes carry this client\'s name', "invalid-input");
        }
        // The core re-reads the skills for every call.
        const result = await memory.skillTool(args);
        return answer(result, result.success === false);
      }
      case "session_search": {
        const result = await memory.sessionTool(args);
        return answer(result, result.success === false);
      }
      case "recall": {
        const { query, ...rest } = args;
        const parsed = options(rest, RECALL_OPTIONS, "recall");
        if (!parsed.options) return parsed;
        await memory.refresh();
        const hits = await memory.recall(query, parsed.options);
        const result = { success: true, mode: hits.mode, results: [...hits] };
        if (hits.skipped) result.skipped = hits.skipped;
        return answer(result);
      }
      case "sectors": {
        const parsed = options(args, { sector: "sector", limit: "limit" }, "sectors");
        if (!parsed.options) return parsed;
        await memory.refresh();
        return answer(await memory.sectors(parsed.options));
      }
    }
  } catch (e) {
    return mnemoFailure(e);
  }
}

/** The stores' resources, by URI. */
const STORES = { "mnemo://memory/MEMORY.md": "MEMORY.md", "mnemo://memory/USER.md": "USER.md" };

/** The resources, as MCP lists them. */
export function resourceList() {
  return [
    {
      uri: "mnemo://prompt",
      name: "prompt",
      title: "Memory block of the system prompt",
      description:
        "The frozen memory block for a system prompt (both stores, or a digest when they outgrow their " +
        "budget); frozen anew at each read. Blocked entries appear as placeholders.",
      mimeType: "text/plain",
    },
    {
      uri: "mnemo://memory/MEMORY.md",
      name: "MEMORY.md",
      title: "Agent notes (MEMORY.md)",
      description: "The agent's notes, entries separated by a line holding §. Blocked entries appear as placeholders.",
      mimeType: "text/markdown",
    },
    {
      uri: "mnemo://memory/USER.md",
      name: "USER.md",
      title: "User profile (USER.md)",
      description: "The user profile, entries separated by a line holding §. Blocked entries appear as placeholders.",
      mimeType: "text/markdown",
    },
    {
      uri: "mnemo://sectors",
      name: "sectors",
      title: "Sectors report",
      description: "The sectors report as JSON (what the sectors tool answers without options).",
      mimeType: "application/json",
    },
    {
      uri: "mnemo://skills",
      name: "skills",
      title: "Learned skills",
      description:
        "The learned skills as JSON: {count, skills: [{name, category, description}]}, as the skill tool lists " +
        "them; view one with the skill tool. A blocked skill's description appears as a placeholder.",
      mimeType: "application/json",
    },
  ];
}

/**
 * The skills as a model may see them: name, category and description (the
 * core's placeholder for a blocked one), without those whose frontmatter
 * is broken, as the skill tool's `list` answers.
 */
async function shownSkills(memory) {
  const skills = (await memory.skills())
    .filter((s) => s.problem === undefined)
    .map(({ name, category, description }) => ({ name, category, description }));
  return { count: skills.length, skills };
}

/**
 * Reads resource `uri` of `memory`; resolves to an MCP `ReadResourceResult`.
 * Text handed on is what a model may see: blocked entries as their
 * placeholders, never their text. An unknown URI rejects with an `RpcError`.
 */
export async function readResource(memory, uri) {
  const text = async () => {
    if (uri === "mnemo://prompt") return memory.startSession();
    if (uri in STORES) return (await memory.shownMarkdown())[STORES[uri]];
    if (uri === "mnemo://sectors") {
      await memory.refresh();
      return JSON.stringify(await memory.sectors(), null, 2);
    }
    if (uri === "mnemo://skills") return JSON.stringify(await shownSkills(memory), null, 2);
    throw new RpcError(RPC.RESOURCE_NOT_FOUND, `no resource ${JSON.stringify(uri)}; see resources/list`);
  };
  const { mimeType } = resourceList().find((r) => r.uri === uri) ?? {};
  return { contents: [{ uri, mimeType, text: await text() }] };
}

/**
 * What subscribers are told about: the stores as shown (`shownMarkdown()`)
 * and the skills listing as the `mnemo://skills` resource reads it.
 */
export async function snapshot(memory) {
  return { ...(await memory.shownMarkdown()), skills: JSON.stringify(await shownSkills(memory)) };
}

/**
 * Which resources changed between two snapshots (`snapshot()`, or
 * `shownMarkdown()` alone): the changed stores' URIs, and the prompt and
 * sectors with them; the skills, and the sectors with them.
 */
export function changedResources(before, after) {
  const changed = Object.entries(STORES)
    .filter(([, file]) => before?.[file] !== after?.[file])
    .map(([uri]) => uri);
  const out = changed.length > 0 ? [...changed, "mnemo://prompt", "mnemo://sectors"] : [];
  if (before?.skills !== after?.skills) {
    out.push("mnemo://skills");
    if (!out.includes("mnemo://sectors")) out.push("mnemo://sectors");
  }
  return out;
}

/**
 * The agent name a client's `clientInfo.name` gives: its first line,
 * trimmed, at most 64 chars (what `setAgent` takes); null when empty.
 */
export function agentName(name) {
  if (typeof name !== "string") return null;
  const line = Array.from(name.split(/\r?\n/)[0].trim()).slice(0, 64).join("").trim();
  return line === "" ? null : line;
}
