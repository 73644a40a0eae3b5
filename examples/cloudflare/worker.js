// mnemo on Cloudflare Workers: one Durable Object per memory workspace,
// shared by every agent that names it; its transactional storage keeps the
// stores. The Worker answers a small JSON API:
//
//   POST /w/<workspace>/tool     body: the memory tool's arguments → ToolResult
//   GET  /w/<workspace>/prompt   → {prompt}   (the frozen system-prompt block)
//   POST /w/<workspace>/session  → {prompt}   (start a new session)
//   POST /w/<workspace>/context  body: {message} → {context}
//   POST /w/<workspace>/search   body: {query, target?, limit?} → [hits]
//   GET  /w/<workspace>/status   → Status
//   GET  /w/<workspace>/export   → {"MEMORY.md", "USER.md"}
//   POST /w/<workspace>/import   body: {"MEMORY.md"?, "USER.md"?} → Status
//   POST /w/<workspace>/log      body: {note} → the activity record
//   GET  /w/<workspace>/log      (?date=YYYY-MM-DD) → the day's records
//   GET  /w/<workspace>/history  → the superseded texts, with their agents
//   POST /w/<workspace>/curate   body: {dryRun?} → the curation report
//                                (no model here: duplicates, consolidation,
//                                pruning; the log stays for a curation
//                                with one)
//
// And MCP over Streamable HTTP, for agents on any machine:
//
//   POST /w/<workspace>/mcp      one JSON-RPC message → its answer
//                                (application/json), 202 for a
//                                notification; GET and DELETE: 405
//
// with the tools and resources of `npx mnemo mcp` (mcp-tools.mjs, shared;
// no session search here, and no subscriptions: this endpoint keeps no
// stream open). Every /mcp request needs `Authorization: Bearer <token>`,
// the deployment's secret MNEMO_MCP_TOKEN (`npx wrangler secret put
// MNEMO_MCP_TOKEN`), compared in constant time before the Durable Object is
// even reached: a missing or wrong token is 401, and with no secret set the
// endpoint answers 503; nothing is read or written either way. The
// client's `clientInfo.name` from `initialize` names its writes: it travels
// in the `Mcp-Session-Id` the server hands out, so no state is kept for it.
//
// The JSON API is the memory's whole surface (its notes, its history, an
// import that replaces them), so every JSON request needs `Authorization:
// Bearer <token>`, the deployment's secret MNEMO_TOKEN (`npx wrangler
// secret put MNEMO_TOKEN`), checked in constant time before the Durable
// Object is reached: a missing or wrong token is 401, and with no secret
// set the JSON API answers 503 (off, as the MCP endpoint without its own
// secret). A body over 4 MiB is 413. Nothing is read or written either way.
//
// Every request may name its agent (`?agent=NAME` or the `x-mnemo-agent`
// header): its writes and log lines carry the name. The Durable Object runs
// one request's memory calls at a time, so two clients never see each
// other's agent.
//
// Errors: 400 with {error, code} for a bad request, 404 for an unknown route.
// mnemo.js and mnemo_bg.wasm are the lean web build (pkg/lean/web): no
// SQLite, since this worker records no sessions.
import { initSync, Memory } from "./mnemo.js";
import wasm from "./mnemo_bg.wasm";
import { RPC, RpcError, agentName, callTool, readResource, resourceList, toolList } from "./mcp-tools.mjs";

initSync({ module: wasm });

const json = (value, status = 200, headers = {}) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json", ...headers } });

/** The MCP protocol versions this endpoint speaks, newest first. */
const MCP_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"];
/** The largest JSON-RPC message accepted, in bytes. */
const MAX_MCP_BYTES = 4 * 1024 * 1024;
/** The largest JSON API body accepted, in bytes (a full import is far less). */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

const rpcError = (id, code, message, status = 200) => json({ jsonrpc: "2.0", id, error: { code, message } }, status);

/** Whether the request carries the bearer token `secret`, compared in constant time (of SHA-256 digests, so the length leaks nothing either). */
async function authorized(request, secret) {
  const given = (request.headers.get("authorization") ?? "").match(/^Bearer\s+(.+)$/i)?.[1] ?? "";
  const digest = async (text) => new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const [a, b] = await Promise.all([digest(given), digest(secret)]);
  if (typeof crypto.subtle.timingSafeEqual === "function") return given !== "" && crypto.subtle.timingSafeEqual(a, b);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return given !== "" && diff === 0;
}

/** An `Mcp-Session-Id` that carries the client's name: random, then the name in base64url. */
function sessionId(name) {
  const random = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (!name) return random;
  const bytes = new TextEncoder().encode(name);
  return `${random}.${btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "")}`;
}

/** The client name a session id carries (see `sessionId`), or null. */
function sessionAgent(id) {
  const encoded = id?.split(".")[1];
  if (!encoded) return null;
  try {
    const binary = atob(encoded.replaceAll("-", "+").replaceAll("_", "/"));
    return agentName(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch {
    return null;
  }
}

export class Workspace {
  constructor(ctx) {
    this.ctx = ctx;
    this.opening = null;
    /** The requests' turns: each runs after the one before it ends. */
    this.turn = Promise.resolve();
  }

  /** The workspace's memory, over the Durable Object's storage: opened
   * once (overlapping first requests share the promise; a failed open is
   * retried by the next request). */
  open() {
    const storage = this.ctx.storage;
    this.opening ??= Memory.open({
      storage: {
        read: async (name) => (await storage.get(name)) ?? null,
        write: (name, data) => storage.put(name, data),
        list: async () => [...(await storage.list()).keys()],
        delete: async (name) => void (await storage.delete(name)),
      },
    }).catch((e) => {
      this.opening = null;
      throw e;
    });
    return this.opening;
  }

  async fetch(request) {
    const url = new URL(request.url);
    const op = url.pathname.split("/").pop();
    if (op === "mcp") return this.mcp(request);
    let body;
    if (request.method === "POST") {
      const text = await request.text();
      if (new TextEncoder().encode(text).length > MAX_JSON_BYTES) {
        return json({ error: `the body is over ${MAX_JSON_BYTES} bytes`, code: "too-long" }, 413);
      }
      try {
        body = JSON.parse(text);
      } catch {
        return json({ error: "the body is not JSON", code: "invalid-input" }, 400);
      }
    }
    const agent = url.searchParams.get("agent") ?? request.headers.get("x-mnemo-agent");
    const run = this.turn.then(() => this.handle(request.method, op, url, body, agent));
    this.turn = run.catch(() => {});
    return run;
  }

  async handle(method, op, url, body, agent) {
    try {
      const memory = await this.open();
      await memory.setAgent(agent || null);
      switch (`${method} ${op}`) {
        case "POST tool":
          return json(await memory.tool(body));
        case "GET prompt":
          return json({ prompt: await memory.systemPrompt() });
        case "POST session":
          return json({ prompt: await memory.startSession() });
        case "POST context":
          return json({ context: await memory.context(String(body?.message ?? "")) });
        case "POST search":
          return json(await memory.search(String(body?.query ?? ""), { target: body?.target, limit: body?.limit }));
        case "GET status":
          return json(await memory.status());
        case "GET export":
          return json(await memory.exportMarkdown());
        case "POST import":
          return json(await memory.importMarkdown(body));
        case "POST log":
          return json(await memory.log(body?.note));
        case "GET log":
          return json(await memory.readLog(url.searchParams.get("date") ?? undefined));
        case "GET history":
          return json(await memory.history());
        case "POST curate":
          return json(await memory.curate({ dryRun: body?.dryRun === true }));
        default:
          return json({ error: `no route ${method} ${op}`, code: "invalid-input" }, 404);
      }
    } catch (e) {
      // A MnemoError (bad options, storage failure): its code and message.
      return json({ error: e.message, code: e.code ?? "internal" }, e.code === "storage" ? 500 : 400);
    }
  }

  /** An MCP message over Streamable HTTP (the bearer token was checked already). */
  async mcp(request) {
    if (request.method !== "POST") {
      return new Response("this MCP endpoint answers POST only (no event stream)", { status: 405, headers: { allow: "POST" } });
    }
    const text = await request.text();
    if (new TextEncoder().encode(text).length > MAX_MCP_BYTES) {
      return rpcError(null, RPC.INVALID_REQUEST, `the message is over ${MAX_MCP_BYTES.toLocaleString("en-US")} bytes; nothing was done`, 413);
    }
    let message;
    try {
      message = JSON.parse(text);
    } catch (e) {
      return rpcError(null, RPC.PARSE_ERROR, `Parse error: the body is not JSON (${e.message})`, 400);
    }
    if (Array.isArray(message)) return rpcError(null, RPC.INVALID_REQUEST, "Invalid Request: a batch (send one message per request)", 400);
    const id = ["string", "number"].includes(typeof message?.id) ? message.id : null;
    if (message?.jsonrpc !== "2.0" || (typeof message.method !== "string" && id === null)) {
      return rpcError(id, RPC.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", 400);
    }
    // Notifications and responses (the client's answers) need no answer.
    if (typeof message.method !== "string" || !("id" in message)) return new Response(null, { status: 202 });
    const agent = sessionAgent(request.headers.get("mcp-session-id"));
    const run = this.turn.then(() => this.rpc(message.method, message.params ?? {}, agent));
    this.turn = run.catch(() => {});
    try {
      const { result, session } = await run;
      const headers = { "content-type": "application/json" };
      if (session) headers["mcp-session-id"] = session;
      return new Response(JSON.stringify({ jsonrpc: "2.0", id, result }), { headers });
    } catch (e) {
      if (e instanceof RpcError) return rpcError(id, e.code, e.message);
      return rpcError(id, RPC.INTERNAL_ERROR, e?.name === "MnemoError" ? `${e.code}: ${e.message}` : String(e?.message ?? e));
    }
  }

  /** One MCP request: `{result, session?}`, or throws an `RpcError`. */
  async rpc(method, params, agent) {
    const object = params !== null && typeof params === "object" && !Array.isArray(params);
    if (!object) throw new RpcError(RPC.INVALID_PARAMS, `${method}: params must be an object`);
    switch (method) {
      case "initialize": {
        const asked = params.protocolVersion;
        const protocolVersion = MCP_VERSIONS.includes(asked) ? asked : MCP_VERSIONS[0];
        return {
          session: sessionId(agentName(params.clientInfo?.name)),
          result: {
            protocolVersion,
            capabilities: { tools: { listChanged: false }, resources: { subscribe: false, listChanged: false } },
            serverInfo: { name: "mnemo", title: "mnemo memory (Cloudflare)", version: "0.1.0" },
            instructions:
              "mnemo is a persistent memory shared by agents. Read mnemo://prompt at the start of a session; " +
              "save durable facts with the memory tool; find notes with recall.",
          },
        };
      }
      case "ping":
        return { result: {} };
      case "tools/list":
        return { result: { tools: toolList(Memory, { sessions: false }) } };
      case "tools/call": {
        if (typeof params.name !== "string") throw new RpcError(RPC.INVALID_PARAMS, "tools/call: name must be a string");
        const args = params.arguments ?? {};
        if (typeof args !== "object" || Array.isArray(args)) throw new RpcError(RPC.INVALID_PARAMS, "tools/call: arguments must be an object");
        const memory = await this.open();
        await memory.setAgent(agent);
        return { result: await callTool(memory, params.name, args, { sessions: false }) };
      }
      case "resources/list":
        return { result: { resources: resourceList() } };
      case "resources/read": {
        if (typeof params.uri !== "string") throw new RpcError(RPC.INVALID_PARAMS, "resources/read: uri must be a string");
        return { result: await readResource(await this.open(), params.uri) };
      }
      default:
        throw new RpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }
}

export default {
  async fetch(request, env) {
    const match = new URL(request.url).pathname.match(/^\/w\/([A-Za-z0-9_.-]{1,64})\/[a-z]+$/);
    if (!match) return json({ error: "expected /w/<workspace>/<operation>", code: "invalid-input" }, 404);
    if (new URL(request.url).pathname.endsWith("/mcp")) {
      // Checked here, before the workspace's Durable Object is reached.
      if (!env.MNEMO_MCP_TOKEN) {
        return json({ error: "the MCP endpoint is off: set the secret MNEMO_MCP_TOKEN (npx wrangler secret put MNEMO_MCP_TOKEN)", code: "unsupported" }, 503);
      }
      if (!(await authorized(request, env.MNEMO_MCP_TOKEN))) {
        return json({ error: "a bearer token is required: Authorization: Bearer <MNEMO_MCP_TOKEN>", code: "invalid-input" }, 401, {
          "www-authenticate": 'Bearer realm="mnemo"',
        });
      }
    } else {
      // The JSON API: the same gate with its own secret.
      if (!env.MNEMO_TOKEN) {
        return json({ error: "the JSON API is off: set the secret MNEMO_TOKEN (npx wrangler secret put MNEMO_TOKEN)", code: "unsupported" }, 503);
      }
      if (!(await authorized(request, env.MNEMO_TOKEN))) {
        return json({ error: "a bearer token is required: Authorization: Bearer <MNEMO_TOKEN>", code: "invalid-input" }, 401, {
          "www-authenticate": 'Bearer realm="mnemo"',
        });
      }
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > MAX_JSON_BYTES) {
        return json({ error: `the body is over ${MAX_JSON_BYTES} bytes`, code: "too-long" }, 413);
      }
    }
    const stub = env.WORKSPACE.get(env.WORKSPACE.idFromName(match[1]));
    return stub.fetch(request);
  },
};
