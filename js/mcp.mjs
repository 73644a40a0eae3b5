// `npx mnemo mcp`: mnemo as a Model Context Protocol server over stdio, on
// the official TypeScript SDK's low-level `Server` (the tools' input schemas
// are the core's JSON Schemas, passed as they are; `McpServer` wants zod).
// The tools and resources are js/mcp-tools.mjs's, shared with the Cloudflare
// example's Streamable HTTP endpoint.
//
// Many servers may run on one memories directory at once (one per agent
// window): the memory's writes take the directory's lock and re-read the
// stores under it, and every tool call and resource read here re-reads them
// first, so each server sees the others' writes on its next call. Subscribed
// clients are told when a store or a skill changes, whoever changed it: the
// directory and the skills folder are watched (fs.watch, with a stat poll of
// the stores as the fallback where events are not delivered).
//
// stdout carries JSON-RPC only; diagnostics go to stderr.

import { readFileSync, watch, watchFile, unwatchFile } from "node:fs";
import { basename, dirname, join, normalize } from "node:path";
import { Transform } from "node:stream";
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { MAX_ARGUMENT_BYTES, RPC, RpcError, agentName, callTool, changedResources, readResource, resourceList, snapshot, toolList } from "./mcp-tools.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/** The most bytes one JSON-RPC message may take; a longer line is answered with an error and dropped. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Beyond this a line is not even parsed for its id: it is skipped to its end. */
const MAX_PARSED_BYTES = 64 * 1024 * 1024;
/** How long change events are gathered before the stores are compared. */
const DEBOUNCE_MS = 50;
/** The stat poll's interval, for file systems whose watch events never come. */
const POLL_MS = 1000;

/**
 * A stdin filter in front of the SDK's transport: each line that is not a
 * JSON-RPC message (not JSON, a batch, a wrong shape) or that is longer
 * than `MAX_MESSAGE_BYTES` is answered with a JSON-RPC error and dropped,
 * so the server keeps serving (the SDK's transport would drop the first
 * silently and close on the second).
 */
class LineGuard extends Transform {
  constructor(reply) {
    super();
    this.reply = reply;
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }

  _transform(chunk, _encoding, done) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) {
        this.hold(chunk.subarray(start));
        break;
      }
      this.hold(chunk.subarray(start, nl));
      this.line();
      start = nl + 1;
    }
    done();
  }

  hold(part) {
    this.size += part.length;
    if (this.skipping) return;
    if (this.size > MAX_PARSED_BYTES) {
      this.skipping = true;
      this.parts = [];
    } else if (part.length > 0) {
      this.parts.push(part);
    }
  }

  line() {
    const size = this.size;
    const skipped = this.skipping;
    const bytes = Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    const tooLarge = () =>
      `the message is ${size.toLocaleString("en-US")} bytes; this server takes at most ` +
      `${MAX_MESSAGE_BYTES.toLocaleString("en-US")} bytes per message (and ` +
      `${MAX_ARGUMENT_BYTES.toLocaleString("en-US")} bytes of tool arguments). Nothing was done.`;
    if (skipped) return this.reply(null, RPC.INVALID_REQUEST, tooLarge());
    const text = bytes.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    let message;
    try {
      message = JSON.parse(text);
    } catch (e) {
      return this.reply(null, RPC.PARSE_ERROR, `Parse error: the line is not JSON (${e.message})`);
    }
    const id = ["string", "number"].includes(typeof message?.id) ? message.id : null;
    if (size > MAX_MESSAGE_BYTES) {
      // A notification gets no answer; a request learns why.
      return message?.method !== undefined && id === null ? undefined : this.reply(id, RPC.INVALID_REQUEST, tooLarge());
    }
    if (!JSONRPCMessageSchema.safeParse(message).success) {
      const what = Array.isArray(message) ? "a batch (MCP takes one message per line)" : "not a JSON-RPC 2.0 message";
      return this.reply(id, RPC.INVALID_REQUEST, `Invalid Request: ${what}`);
    }
    this.push(`${text}\n`);
  }
}

/** The skills folder of memories directory `dir`, as the "fs" storage and the CLI place it. */
function skillsDir(dir) {
  const normal = normalize(dir);
  return basename(normal) === "memories" ? join(dirname(normal), "skills") : join(dir, "skills");
}

/**
 * Watches the memories directory `dir` and calls `changed()` (debounced)
 * when MEMORY.md, USER.md or a skill may have changed. Returns a function
 * that stops.
 */
function watchStores(dir, changed) {
  const files = ["MEMORY.md", "USER.md"];
  let timer = null;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(changed, DEBOUNCE_MS);
    timer.unref?.();
  };
  let watcher = null;
  try {
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name === null || files.includes(String(name))) soon();
    });
    watcher.on("error", () => {});
  } catch (e) {
    console.error(`mnemo mcp: cannot watch ${dir} (${e.message}); polling every ${POLL_MS} ms`);
  }
  // The skills folder, when there is one yet (a skill written through this
  // server is checked after its call anyway).
  let skillsWatcher = null;
  try {
    skillsWatcher = watch(skillsDir(dir), { persistent: false, recursive: true }, soon);
    skillsWatcher.on("error", () => {});
  } catch {}
  const paths = files.map((f) => join(dir, f));
  for (const path of paths) {
    watchFile(path, { persistent: false, interval: POLL_MS }, (now, before) => {
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino) soon();
    });
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
    skillsWatcher?.close();
    for (const path of paths) unwatchFile(path);
  };
}

/**
 * Serves `memory`, opened by cli.mjs at `location` (its `locate`), over
 * stdio until stdin closes. `Memory` is the class it came from; `agent`
 * (from `--agent` or `MNEMO_AGENT`) names the writes, else the client's
 * `clientInfo.name` does.
 */
export async function serve({ location, memory, Memory, agent }) {
  const { version } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
  const sessions = (await memory.status()).sessions === "sqlite";
  const tools = toolList(Memory, { sessions });

  const server = new Server(
    { name: "mnemo", title: "mnemo memory", version },
    {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } },
      instructions:
        "mnemo is a persistent memory shared by your sessions and other agents. Read mnemo://prompt at the " +
        "start of a session; save durable facts with the memory tool; find notes with recall, past " +
        "conversations with session_search. Keep reusable procedures with the skill tool: search it before " +
        "a task, create or patch a skill after working one out. Writes may be staged for the user's " +
        "approval: then say so, never that they were saved.",
    },
  );

  server.oninitialized = () => {
    if (agent) return;
    const name = agentName(server.getClientVersion()?.name);
    if (name) {
      memory.setAgent(name).catch((e) => console.error(`mnemo mcp: cannot record the agent ${JSON.stringify(name)}: ${e.message}`));
    }
  };

  // Subscriptions, and the stores as last seen, to tell what changed.
  const subscribed = new Set();
  let seen = null;
  let stopWatching = null;
  let checking = Promise.resolve();
  const check = () => {
    checking = checking.then(async () => {
      if (subscribed.size === 0) return;
      try {
        const now = await snapshot(memory);
        const changed = changedResources(seen, now);
        seen = now;
        for (const uri of changed) {
          if (subscribed.has(uri)) await server.sendResourceUpdated({ uri });
        }
      } catch (e) {
        console.error(`mnemo mcp: cannot check the stores for changes: ${e.message}`);
      }
    });
    return checking;
  };

  const rpc = (e) => {
    if (e instanceof RpcError) return new McpError(e.code, e.message);
    if (e?.name === "MnemoError") return new McpError(ErrorCode.InternalError, `${e.code}: ${e.message}`);
    return e;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      const result = await callTool(memory, request.params.name, request.params.arguments, { sessions });
      if ((request.params.name === "memory" || request.params.name === "skill") && !result.isError) check();
      return result;
    } catch (e) {
      throw rpc(e);
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: resourceList() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await readResource(memory, request.params.uri);
    } catch (e) {
      throw rpc(e);
    }
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (!resourceList().some((r) => r.uri === uri)) {
      throw new McpError(RPC.RESOURCE_NOT_FOUND, `no resource ${JSON.stringify(uri)}; see resources/list`);
    }
    if (subscribed.size === 0) {
      try {
        seen = await snapshot(memory);
      } catch (e) {
        throw rpc(e);
      }
      stopWatching ??= watchStores(location.dir, check);
    }
    subscribed.add(uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    if (subscribed.size === 0) {
      stopWatching?.();
      stopWatching = null;
    }
    return {};
  });
  server.onerror = (e) => console.error(`mnemo mcp: ${e?.message ?? e}`);

  const reply = (id, code, message) => {
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  };
  const input = process.stdin.pipe(new LineGuard(reply));
  const transport = new StdioServerTransport(input, process.stdout);

  let closing = null;
  const shutdown = () =>
    (closing ??= (async () => {
      stopWatching?.();
      await checking;
      await memory.close().catch(() => {});
    })());
  transport.onclose = () => void shutdown();
  process.stdin.on("end", () => void server.close().finally(shutdown));
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => void shutdown().finally(() => process.exit(0)));
  }
  await server.connect(transport);
  console.error(
    `mnemo mcp ${version}: serving ${location.dir} (scope ${location.scope}` +
      `${location.workspace ? `, workspace ${location.workspace}` : ""}) on stdio`,
  );
}
