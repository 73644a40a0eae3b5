// `npx mnemo mcp` as a user meets it: the built package packed with `npm
// pack`, installed into a fresh project (no workspace link, its one
// dependency, the MCP SDK, from the registry or npm's cache), and started
// with npx by the SDK's client. Run scripts/build-js.sh first. Skipped when
// npm can reach neither the registry nor a cache holding the SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
if (!existsSync(join(root, "pkg", "mcp.mjs"))) throw new Error("pkg/mcp.mjs is missing: run scripts/build-js.sh first");

const npm = (args, cwd) => spawnSync("npm", args, { cwd, encoding: "utf8", timeout: 180_000 });

test("npm pack, install into a fresh project, npx mnemo mcp: the SDK client writes and reads", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "mnemo-packed-"));
  const packed = npm(["pack", join(root, "pkg"), "--pack-destination", work, "--silent"], work);
  assert.equal(packed.status, 0, packed.stderr);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  const manifest = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
  assert.ok(manifest.dependencies["@modelcontextprotocol/sdk"], "the SDK is a dependency of the package");
  assert.ok(manifest.files.includes("mcp.mjs") && manifest.files.includes("mcp-tools.mjs"));

  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true }));
  const installed = npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", join(work, tarball)], app);
  if (installed.status !== 0) {
    t.skip(`npm install of the tarball failed (no registry or cache?): ${installed.stderr.slice(0, 300)}`);
    return;
  }
  // The installed copy is the tarball's, not a link to this checkout.
  assert.ok(existsSync(join(app, "node_modules", "@modelcontextprotocol", "sdk", "package.json")));
  const transport = new StdioClientTransport({
    command: "npx",
    args: ["--no-install", "mnemo", "mcp", "--dir", join(work, "memories")],
    cwd: app,
    stderr: "pipe",
  });
  const client = new Client({ name: "packed-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["memory", "recall", "sectors", "session_search"]);
    const added = await client.callTool({ name: "memory", arguments: { action: "add", target: "memory", content: "Installed from the tarball" } });
    assert.equal(added.isError, false, added.content[0].text);
    const { contents } = await client.readResource({ uri: "mnemo://memory/MEMORY.md" });
    assert.equal(contents[0].text, "Installed from the tarball");
  } finally {
    await client.close();
  }
  assert.equal(readFileSync(join(work, "memories", "MEMORY.md"), "utf8"), "Installed from the tarball");
});
