// The short form of the MCP server's fuzz harness (tests/js/mcp-fuzz.mjs):
// a few hundred mutated JSON-RPC lines, with fixed seeds, each answered
// well formed, the server alive throughout, and nothing written by a line
// that failed. The long form runs by hand: `node tests/js/mcp-fuzz.mjs 20000 1`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fuzz } from "./mcp-fuzz.mjs";

test("hostile and malformed JSON-RPC lines are each answered, and the failed ones change nothing", async () => {
  for (const seed of [11, 12]) {
    const figures = await fuzz({ count: 150, seed });
    assert.equal(figures.lines, 150);
    // The generator reaches both sides: failures, and calls that succeed.
    assert.ok(figures.errors >= 50, JSON.stringify(figures));
    assert.ok(figures.answered - figures.errors >= 5, JSON.stringify(figures));
    assert.equal(figures.unchanged, figures.errors);
  }
});
