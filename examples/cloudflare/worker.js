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

initSync({ module: wasm });

const json = (value, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

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
    let body;
    if (request.method === "POST") {
      try {
        body = await request.json();
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
}

export default {
  async fetch(request, env) {
    const match = new URL(request.url).pathname.match(/^\/w\/([A-Za-z0-9_.-]{1,64})\/[a-z]+$/);
    if (!match) return json({ error: "expected /w/<workspace>/<operation>", code: "invalid-input" }, 404);
    const stub = env.WORKSPACE.get(env.WORKSPACE.idFromName(match[1]));
    return stub.fetch(request);
  },
};
