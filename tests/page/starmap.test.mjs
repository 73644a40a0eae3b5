// The star map's layout (www/starmap.js) on its own, in Node: no browser,
// no wasm. Hand-made journey() and sectors() payloads, skills included (the
// page tests draw real ones in Chromium).
// Run: node --test tests/page/starmap.test.mjs

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  PALETTE,
  UNSORTED_COLOR,
  describe as describeStar,
  fourPointStar,
  layout,
  sectorColors,
  timeline,
} from "../../www/starmap.js";

/** A journey node with the payload's fields. */
function node(id, { kind = "note", target = "memory", title = id, sector = "unsorted", time = 1, out = [], pinned = false, blocked = false, dangling = [] } = {}) {
  return {
    id,
    kind,
    ...(kind === "note" ? { target } : {}),
    index: 0,
    title,
    sector,
    first_seen: time,
    last_changed: time,
    out,
    in: [],
    dangling,
    pinned,
    blocked,
  };
}

/** A journey of `nodes` with each node's `in` filled from the others' `out`, oldest first. */
function journeyOf(nodes) {
  for (const n of nodes) {
    for (const to of n.out) nodes.find((m) => m.id === to)?.in.push(n.id);
  }
  return { nodes: [...nodes].sort((a, b) => a.first_seen - b.first_seen), links: nodes.reduce((s, n) => s + n.out.length, 0) };
}

/** A sectors report listing `groups` ({name: [node ids]}) in that order. */
function reportOf(groups) {
  return { sectors: Object.entries(groups).map(([name, ids]) => ({ name, count: ids.length, entries: ids.map((id) => ({ node: id })) })) };
}

/** Ops (a↔b), dev (c → a, d → skill s), a skill, a pinned, a blocked and an unsorted note, over four steps. */
function sample() {
  const journey = journeyOf([
    node("memory:memory:e1", { title: "Alpha", sector: "ops", time: 10, out: ["memory:memory:e2"], pinned: true }),
    node("memory:memory:e2", { title: "Beta", sector: "ops", time: 20, out: ["memory:memory:e1"] }),
    node("memory:user:e1", { target: "user", title: "Gamma", sector: "dev", time: 30, out: ["memory:memory:e1", "deploy"], dangling: ["Nowhere"] }),
    node("deploy", { kind: "skill", title: "deploy", sector: "tools", time: 30, out: ["memory:memory:e2"] }),
    node("memory:memory:e3", { title: "[BLOCKED entry]", time: 40, blocked: true }),
    node("memory:memory:e4", { title: "Delta", time: 40 }),
  ]);
  const report = reportOf({ ops: ["memory:memory:e1", "memory:memory:e2"], dev: ["memory:user:e1"], unsorted: ["memory:memory:e3", "memory:memory:e4"] });
  return { journey, report };
}

describe("star map layout", () => {
  test("the same payloads give the same picture", () => {
    const { journey, report } = sample();
    const a = layout(journey, report, { width: 800 });
    const b = layout(structuredClone(journey), structuredClone(report), { width: 800 });
    const plain = (m) => JSON.stringify({ ...m, stars: m.stars.map(({ node: _, ...s }) => s) });
    assert.equal(plain(a), plain(b));
  });

  test("one star per node, in the sectors of the report, in its order; unsorted last", () => {
    const { journey, report } = sample();
    const map = layout(journey, report);
    assert.equal(map.stars.length, journey.nodes.length);
    assert.deepEqual(new Set(map.stars.map((s) => s.id)), new Set(journey.nodes.map((n) => n.id)));
    // The skill is not in the report: it goes to the sector its node names, before unsorted.
    assert.deepEqual(map.regions.map((r) => r.name), ["ops", "dev", "tools", "unsorted"]);
    assert.deepEqual(map.regions.map((r) => [r.notes, r.skills]), [[2, 0], [1, 0], [0, 1], [2, 0]]);
    assert.equal(map.stars.find((s) => s.id === "deploy").kind, "skill");
    // Membership is the report's, whatever sector the journey node names.
    const moved = structuredClone(report);
    moved.sectors[1].entries.push(moved.sectors[0].entries.pop());
    const other = layout(journey, moved);
    assert.equal(other.stars.find((s) => s.id === "memory:memory:e2").sector, "dev");
  });

  test("a link both ways is one link marked both; a one-way link keeps its direction", () => {
    const { journey, report } = sample();
    const map = layout(journey, report);
    const find = (a, b) => map.links.find((l) => (l.from === a && l.to === b) || (l.from === b && l.to === a));
    const ab = find("memory:memory:e1", "memory:memory:e2");
    assert.equal(ab.both, true);
    const ga = find("memory:user:e1", "memory:memory:e1");
    assert.deepEqual([ga.from, ga.to, ga.both, ga.skill], ["memory:user:e1", "memory:memory:e1", false, false]);
    const toSkill = find("memory:user:e1", "deploy");
    assert.deepEqual([toSkill.from, toSkill.to, toSkill.skill], ["memory:user:e1", "deploy", true]);
    // Every directed link of the journey is drawn: a link both ways counts twice.
    assert.equal(map.links.reduce((n, l) => n + (l.both ? 2 : 1), 0), journey.links);
    // Each star knows its drawn links both ways.
    const alpha = map.stars.find((s) => s.id === "memory:memory:e1");
    assert.deepEqual(alpha.out, ["memory:memory:e2"]);
    assert.deepEqual(new Set(alpha.in), new Set(["memory:memory:e2", "memory:user:e1"]));
    // A link appears when the later of its two stars does.
    assert.equal(ab.time, 20);
    assert.equal(ga.time, 30);
    // A path starts and ends at the stars' rims, not their centres.
    const [x0, y0] = ab.d.slice(1).split("Q")[0].split(",").map(Number);
    const from = map.stars.find((s) => s.id === ab.from);
    assert.ok(Math.hypot(x0 - from.x, y0 - from.y) >= from.r);
  });

  test("links to nodes not drawn are left out", () => {
    const journey = journeyOf([node("a", { out: ["gone"] }), node("b")]);
    const map = layout(journey, reportOf({ unsorted: ["a", "b"] }));
    assert.deepEqual(map.links, []);
    assert.deepEqual(map.stars[0].out, []);
  });

  test("the timeline's steps are the distinct first_seen times, oldest first", () => {
    const { journey, report } = sample();
    assert.deepEqual(layout(journey, report).steps, [10, 20, 30, 40]);
    assert.deepEqual(timeline([{ first_seen: 5 }, { first_seen: 1 }, { first_seen: 5 }]), [1, 5]);
    assert.deepEqual(layout({ nodes: [] }, { sectors: [] }).steps, []);
  });

  test("stars sit inside their sector's circle, circles do not overlap, all inside the picture", () => {
    const nodes = [];
    for (let i = 0; i < 300; i += 1) nodes.push(node(`n${i}`, { sector: `s${i % 7}`, time: i, out: i > 0 ? [`n${i - 1}`] : [] }));
    for (let i = 0; i < 400; i += 1) nodes.push(node(`big${i}`, { sector: "big", time: i }));
    const journey = journeyOf(nodes);
    const groups = {};
    for (const n of nodes) (groups[n.sector] ??= []).push(n.id);
    const width = 900;
    const map = layout(journey, reportOf(groups), { width, height: 300 });
    const region = new Map(map.regions.map((r) => [r.name, r]));
    for (const s of map.stars) {
      const r = region.get(s.sector);
      assert.ok(Math.hypot(s.x - r.cx, s.y - r.cy) + s.r <= r.r + 0.5, `${s.id} inside ${s.sector}`);
    }
    for (const r of map.regions) {
      assert.ok(r.cx - r.r >= 0 && r.cx + r.r <= width, `${r.name} fits the width`);
      assert.ok(r.labelY > 0 && r.cy + r.r <= map.height, `${r.name} fits the height`);
    }
    for (const [i, a] of map.regions.entries()) {
      for (const b of map.regions.slice(i + 1)) {
        assert.ok(Math.hypot(a.cx - b.cx, a.cy - b.cy) >= a.r + b.r, `${a.name} and ${b.name} apart`);
      }
    }
  });

  test("a small map is centred in the least height asked for", () => {
    const map = layout(journeyOf([node("a")]), reportOf({ unsorted: ["a"] }), { width: 600, height: 400 });
    assert.equal(map.height, 400);
    assert.equal(map.stars[0].x, 300);
    assert.ok(Math.abs(map.stars[0].y - 213) < 20);
  });

  test("sector colours: far apart, stable as sectors come, grey for unsorted", () => {
    const names = ["infra", "dev", "ops", "people", "project", "unsorted"];
    const colors = sectorColors(names);
    assert.equal(colors.get("unsorted"), UNSORTED_COLOR);
    const used = names.filter((n) => n !== "unsorted").map((n) => colors.get(n));
    assert.equal(new Set(used).size, used.length, "no two sectors share a colour");
    for (const c of used) assert.ok(PALETTE.includes(c));
    assert.deepEqual(sectorColors(names), colors);
  });

  test("a skill is a four-point star; the words of a star say what it is and its links", () => {
    assert.equal(fourPointStar(10).split(/[MLZ]/).filter(Boolean).length, 8);
    const { journey, report } = sample();
    const map = layout(journey, report);
    const by = (id) => map.stars.find((s) => s.id === id);
    assert.equal(describeStar(by("memory:memory:e1")), "Alpha: note in MEMORY, sector ops; 1 link out, 2 in; pinned");
    assert.equal(describeStar(by("memory:user:e1")),
      "Gamma: note in USER, sector dev; 2 links out, 0 in; ⚑ 1 link to notes that don't exist yet");
    assert.equal(describeStar(by("deploy")), "deploy: skill, sector tools; 1 link out, 1 in");
    assert.equal(describeStar(by("memory:memory:e3")),
      "[BLOCKED entry]: note in MEMORY, sector unsorted; 0 links out, 0 in; blocked by the security scanner (title hidden)");
  });
});
