// `npx mnemo mcp` as a user meets it: started with npx in the project where
// the packed package was installed (install.mjs), driven by the SDK's
// client. Run scripts/build-js.sh first. Skipped when npm can reach neither
// the registry nor a cache holding the SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { installed, scratch } from "./install.mjs";

test("npx mnemo mcp from the installed tarball: the SDK client writes and reads", async (t) => {
  const { app, skip } = installed();
  if (skip) return t.skip(skip);
  const manifest = JSON.parse(readFileSync(join(app, "node_modules", "mnemo", "package.json"), "utf8"));
  assert.ok(manifest.dependencies["@modelcontextprotocol/sdk"], "the SDK is a dependency of the package");
  assert.ok(manifest.files.includes("mcp.mjs") && manifest.files.includes("mcp-tools.mjs"));
  // The installed copy is the tarball's, with its dependency beside it.
  assert.ok(existsSync(join(app, "node_modules", "@modelcontextprotocol", "sdk", "package.json")));
  const memories = join(scratch(app), "memories");
  const transport = new StdioClientTransport({
    command: "npx",
    args: ["--no-install", "mnemo", "mcp", "--dir", memories],
    cwd: app,
    stderr: "pipe",
  });
  const client = new Client({ name: "packed-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["memory", "recall", "sectors", "session_search", "skill"]);
    const added = await client.callTool({ name: "memory", arguments: { action: "add", target: "memory", content: "Installed from the tarball" } });
    assert.equal(added.isError, false, added.content[0].text);
    const { contents } = await client.readResource({ uri: "mnemo://memory/MEMORY.md" });
    assert.equal(contents[0].text, "Installed from the tarball");
  } finally {
    await client.close();
  }
  assert.equal(readFileSync(join(memories, "MEMORY.md"), "utf8"), "Installed from the tarball");
});
