// The star map: the notes and skills of a memory as stars, one cluster per
// sector, with their links as arrows. Built only from what mnemo answers:
// `journey()` (the nodes, their dates and their links) and `sectors()` (the
// sectors, in mnemo's order, and which node is in which). Nothing here reads
// a note's text: no [[link]] or #tag is parsed in the page.
//
// `layout()` is pure (same payloads, same picture): it turns the two payloads
// into positions. `render()` draws a layout into an <svg>; `showTime()` and
// `select()` change what a drawn map shows without drawing it again. No DOM
// is touched on import, so the layout runs in Node too.

export const SVG_NS = "http://www.w3.org/2000/svg";

/** The sector of notes without one (mnemo's name for it). */
export const UNSORTED = "unsorted";

/** Between two stars of a spiral (viewBox units). */
const SPACING = 30;
/** Around the picture. */
const PAD = 18;
/** Between two clusters of a row, and between rows. */
const GAP = 26;
/** Room for a cluster's label above it. */
const LABEL = 26;
/** Radians between successive stars of a cluster (Vogel's sunflower spiral). */
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

/** FNV-1a: a small stable hash of a string (sector colours and spiral phases). */
function hash(text) {
  let h = 0x811c9dc5;
  for (const ch of text) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Rounds to a tenth of a unit, so the same payload gives byte-identical markup. */
const round = (x) => Math.round(x * 10) / 10;

/** The sectors' colours: bright on the night sky, far apart on the wheel. */
export const PALETTE = [
  "#7aa2ff", "#ff9e64", "#9ece6a", "#f7768e", "#e0af68", "#7dcfff",
  "#bb9af7", "#73daca", "#ff7ab2", "#c3e88d", "#f4b8e4", "#b4c6ff",
];

/** The colour of `unsorted`. */
export const UNSORTED_COLOR = "#a3acbf";

/**
 * Each sector's colour, by name: the palette entry its name hashes to, or
 * the next free one (sectors taken in name order), so a sector keeps its
 * colour as the memory grows unless a new sector's name takes its place
 * first; `unsorted` is grey.
 */
export function sectorColors(names) {
  const colors = new Map();
  const taken = new Set();
  for (const name of [...names].sort()) {
    if (name === UNSORTED) {
      colors.set(name, UNSORTED_COLOR);
      continue;
    }
    let i = hash(name) % PALETTE.length;
    for (let probe = 0; probe < PALETTE.length && taken.has(i); probe += 1) i = (i + 1) % PALETTE.length;
    taken.add(i);
    if (taken.size === PALETTE.length) taken.clear();
    colors.set(name, PALETTE[i]);
  }
  return colors;
}

/** The radius of a star: notes grow with their links (hubs are bright); skills are a little larger. */
export function starRadius(node) {
  const degree = (node.out?.length ?? 0) + (node.in?.length ?? 0);
  const base = node.kind === "skill" ? 6.5 : 4.5;
  return base + Math.min(4.5, 1.3 * Math.sqrt(degree));
}

/** The four-point star of a skill, centred on 0,0. */
export function fourPointStar(r) {
  const inner = r * 0.42;
  const points = [];
  for (let i = 0; i < 8; i += 1) {
    const angle = -Math.PI / 2 + (i * Math.PI) / 4;
    const radius = i % 2 === 0 ? r : inner;
    points.push(`${round(radius * Math.cos(angle))},${round(radius * Math.sin(angle))}`);
  }
  return `M${points.join("L")}Z`;
}

/** The distinct first_seen times of the nodes, oldest first: the steps of the timeline. */
export function timeline(nodes) {
  return [...new Set(nodes.map((n) => n.first_seen ?? 0))].sort((a, b) => a - b);
}

/**
 * The sectors to draw, in the report's order (mnemo's: largest first,
 * `unsorted` last), each with its nodes, oldest first. A node's sector is
 * the report's; a node the report does not list (a skill, or one cut by a
 * `limit`) goes to the sector its journey node names.
 */
function groupBySector(nodes, report) {
  const sectorOf = new Map();
  const order = [];
  for (const sector of report?.sectors ?? []) {
    order.push(sector.name);
    for (const entry of sector.entries ?? []) sectorOf.set(entry.node, sector.name);
  }
  const groups = new Map();
  nodes.forEach((node, i) => {
    const name = sectorOf.get(node.id) ?? node.sector ?? UNSORTED;
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push({ node, i });
  });
  const extra = [...groups.keys()].filter((name) => !order.includes(name) && name !== UNSORTED).sort();
  const names = [...order.filter((name) => name !== UNSORTED), ...extra, UNSORTED].filter((name) => groups.has(name));
  return names.map((name) => ({
    name,
    members: groups
      .get(name)
      .sort((a, b) => (a.node.first_seen ?? 0) - (b.node.first_seen ?? 0) || a.i - b.i)
      .map((m) => m.node),
  }));
}

/** One cluster's stars on a sunflower spiral: the oldest at the centre, the newest outside. */
function spiral(group) {
  const n = group.members.length;
  // A huge sector is drawn denser rather than wider than the picture.
  const spacing = SPACING * Math.min(1, 14 / Math.sqrt(Math.max(n, 1)));
  const scale = Math.max(0.55, spacing / SPACING);
  const phase = ((hash(group.name) % 360) * Math.PI) / 180;
  const stars = group.members.map((node, k) => {
    const radius = n === 1 ? 0 : spacing * Math.sqrt(k + 0.5);
    const angle = phase + k * GOLDEN_ANGLE;
    return { node, dx: radius * Math.cos(angle), dy: radius * Math.sin(angle), r: starRadius(node) * scale };
  });
  const outer = Math.max(0, ...stars.map((s) => Math.hypot(s.dx, s.dy) + s.r));
  return { stars, radius: Math.max(outer + 12, 34) };
}

/** Clusters in rows (left to right, each row centred); returns their centres and the height used. */
function pack(clusters, width) {
  const rows = [];
  let row = null;
  for (const cluster of clusters) {
    const w = 2 * cluster.radius;
    if (!row || (row.width + GAP + w > width - 2 * PAD && row.items.length > 0)) {
      row = { items: [], width: -GAP, height: 0 };
      rows.push(row);
    }
    row.items.push(cluster);
    row.width += GAP + w;
    row.height = Math.max(row.height, w + LABEL);
  }
  let top = PAD;
  for (const r of rows) {
    let x = Math.max(PAD, (width - r.width) / 2);
    for (const cluster of r.items) {
      cluster.cx = x + cluster.radius;
      cluster.cy = top + LABEL + (r.height - LABEL) / 2;
      x += 2 * cluster.radius + GAP;
    }
    top += r.height + GAP;
  }
  return rows.length === 0 ? 0 : top - GAP + PAD;
}

/** A quadratic curve from star `a` to star `b`, bent to the left of its direction, ending at their rims. */
function linkPath(a, b) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy) || 1;
  const bend = Math.min(0.16 * length, 48);
  const cx = (a.x + b.x) / 2 - (dy / length) * bend;
  const cy = (a.y + b.y) / 2 + (dx / length) * bend;
  const rim = (s, gap) => {
    const ux = cx - s.x;
    const uy = cy - s.y;
    const u = Math.hypot(ux, uy) || 1;
    return [round(s.x + (ux / u) * (s.r + gap)), round(s.y + (uy / u) * (s.r + gap))];
  };
  const [x0, y0] = rim(a, 2);
  const [x1, y1] = rim(b, 2);
  return `M${x0},${y0}Q${round(cx)},${round(cy)} ${x1},${y1}`;
}

/**
 * The star map of a journey (`journey()`) and a sectors report (`sectors()`,
 * every note listed): `{width, height, regions, stars, links, steps}`.
 *
 * - `regions`: one per sector, `{name, color, cx, cy, r, labelY, notes, skills}`;
 * - `stars`: one per journey node, `{id, node, kind, sector, color, x, y, r,
 *   time, out, in}` (`time` its first_seen; `out`/`in` the drawn node ids);
 * - `links`: one per linked pair, `{from, to, both, skill, d, time}`: `both`
 *   when each links to the other, `time` when the later of the two appeared;
 * - `steps`: the distinct first_seen times, oldest first.
 *
 * `width` is the viewBox's (default 960); `height`, when given, is the least
 * height (the clusters are centred in it); the map is as tall as it needs.
 */
export function layout(journey, report, { width = 960, height = 0 } = {}) {
  const nodes = journey?.nodes ?? [];
  const clusters = groupBySector(nodes, report).map((group) => ({ ...group, ...spiral(group) }));
  const used = pack(clusters, width);
  const shift = Math.max(0, (height - used) / 2);
  const colors = sectorColors(clusters.map((c) => c.name));

  const regions = [];
  const stars = [];
  for (const c of clusters) {
    const cy = c.cy + shift;
    const color = colors.get(c.name);
    regions.push({
      name: c.name,
      color,
      cx: round(c.cx),
      cy: round(cy),
      r: round(c.radius),
      labelY: round(cy - c.radius - 8),
      notes: c.members.filter((n) => n.kind !== "skill").length,
      skills: c.members.filter((n) => n.kind === "skill").length,
    });
    for (const s of c.stars) {
      stars.push({
        id: s.node.id,
        node: s.node,
        kind: s.node.kind === "skill" ? "skill" : "note",
        sector: c.name,
        color,
        x: round(c.cx + s.dx),
        y: round(cy + s.dy),
        r: round(s.r),
        time: s.node.first_seen ?? 0,
        out: [],
        in: [],
      });
    }
  }

  // Links between drawn stars, one per pair; `both` when they link each other.
  const byId = new Map(stars.map((s) => [s.id, s]));
  const pairs = new Map();
  for (const star of stars) {
    for (const to of star.node.out ?? []) {
      const other = byId.get(to);
      if (!other || other === star) continue;
      star.out.push(to);
      other.in.push(star.id);
      const key = [star.id, to].sort().join("\n");
      const pair = pairs.get(key);
      if (pair) pair.both = true;
      else pairs.set(key, { from: star, to: other, both: false });
    }
  }
  const links = [...pairs.values()].map(({ from, to, both }) => ({
    from: from.id,
    to: to.id,
    both,
    skill: from.kind === "skill" || to.kind === "skill",
    d: linkPath(from, to),
    time: Math.max(from.time, to.time),
  }));

  return {
    width,
    height: Math.ceil(Math.max(height, used)),
    regions,
    stars,
    links,
    steps: timeline(nodes),
  };
}

// ---------------------------------------------------------------- words

/** "1 link" / "3 links". */
const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** What a star is, in a few words: "note in MEMORY", "note in USER", "skill". */
export function kindLabel(star) {
  if (star.kind === "skill") return "skill";
  return star.node.target === "user" ? "note in USER" : "note in MEMORY";
}

/** Everything a star's label says: title, kind, sector, links both ways, flags. */
export function describe(star) {
  const parts = [
    `${star.node.title || "(untitled)"}: ${kindLabel(star)}, sector ${star.sector}`,
    `${count(star.out.length, "link", "links")} out, ${star.in.length} in`,
  ];
  const dangling = star.node.dangling ?? [];
  if (dangling.length > 0) parts.push(`⚑ ${count(dangling.length, "link", "links")} to notes that don't exist yet`);
  if (star.node.pinned) parts.push("pinned");
  if (star.node.blocked) parts.push("blocked by the security scanner (title hidden)");
  return parts.join("; ");
}

// ---------------------------------------------------------------- drawing

/** An SVG element with attributes. */
function el(doc, name, attrs = {}, ...children) {
  const node = doc.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(key, String(value));
  }
  node.append(...children);
  return node;
}

/** The arrowhead markers: plain, a link both ways, and lit (the selected star's links). */
const MARKERS = ["plain", "both", "lit"];

/** The id of a map's marker. */
const markerId = (prefix, kind) => `${prefix}-arrow-${kind}`;

/** Which marker a link uses now. */
const markerOf = (link, lit) => (lit ? "lit" : link.both ? "both" : "plain");

/** Sets a link path's arrowheads: at the end, and at the start too when it goes both ways. */
function setMarkers(path, link, prefix, lit) {
  const url = `url(#${markerId(prefix, markerOf(link, lit))})`;
  path.setAttribute("marker-end", url);
  if (link.both) path.setAttribute("marker-start", url);
  else path.removeAttribute("marker-start");
}

/** Faint background stars: decoration, the same on every draw (a fixed-seed generator). */
function dust(doc, width, height) {
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x100000000;
  };
  const g = el(doc, "g", { class: "starmap-dust", "aria-hidden": "true" });
  const n = Math.round((width * height) / 9000);
  for (let i = 0; i < n; i += 1) {
    g.append(el(doc, "circle", { cx: round(next() * width), cy: round(next() * height), r: round(0.4 + next() * 0.8) }));
  }
  return g;
}

/** One star: a circle for a note, a four-point star for a skill; a ring when pinned. */
function starElement(doc, star) {
  const { node } = star;
  const classes = ["starmap-star", `is-${star.kind}`];
  if (node.pinned) classes.push("is-pinned");
  if (node.blocked) classes.push("is-blocked");
  const g = el(doc, "g", {
    class: classes.join(" "),
    transform: `translate(${star.x} ${star.y})`,
    tabindex: 0,
    role: "button",
    "aria-pressed": "false",
    "aria-label": describe(star),
    "data-node": star.id,
    "data-kind": star.kind,
    "data-sector": star.sector,
    "data-time": star.time,
    style: `--star: ${star.color}`,
  });
  g.append(
    el(doc, "circle", { class: "starmap-glow", r: round(star.r * 2.4) }),
    el(doc, "circle", { class: "starmap-hit", r: round(Math.max(star.r + 4, 10)) }),
  );
  if (node.pinned) g.append(el(doc, "circle", { class: "starmap-pin", r: round(star.r + 3.5) }));
  g.append(
    star.kind === "skill"
      ? el(doc, "path", { class: "starmap-body", d: fourPointStar(star.r * 1.5) })
      : el(doc, "circle", { class: "starmap-body", r: star.r }),
  );
  return g;
}

/**
 * Draws `model` (a `layout()`) into `svg`, replacing what it held, and shows
 * it at `time` (every star when omitted). `prefix` names the markers (the
 * svg's id by default). Returns the number of stars shown.
 */
export function render(svg, model, { time = Infinity, prefix = svg.id || "starmap" } = {}) {
  const doc = svg.ownerDocument;
  svg.setAttribute("viewBox", `0 0 ${model.width} ${Math.max(model.height, 1)}`);
  svg.dataset.prefix = prefix;

  const defs = el(doc, "defs");
  for (const kind of MARKERS) {
    defs.append(el(doc, "marker", {
      id: markerId(prefix, kind),
      class: `starmap-arrow is-${kind}`,
      viewBox: "0 0 10 10",
      refX: 9,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      markerUnits: "userSpaceOnUse",
      orient: "auto-start-reverse",
    }, el(doc, "path", { d: "M0,1L10,5L0,9Z" })));
  }

  const sky = el(doc, "rect", { class: "starmap-sky", width: model.width, height: model.height });
  const regions = el(doc, "g", { class: "starmap-regions", "aria-hidden": "true" });
  for (const region of model.regions) {
    regions.append(el(doc, "g", { class: "starmap-region", "data-sector": region.name, style: `--star: ${region.color}` },
      el(doc, "circle", { class: "starmap-halo", cx: region.cx, cy: region.cy, r: region.r }),
      el(doc, "text", { class: "starmap-label", x: region.cx, y: region.labelY, "text-anchor": "middle" }, region.name),
    ));
  }

  const links = el(doc, "g", { class: "starmap-links", "aria-hidden": "true" });
  for (const link of model.links) {
    const classes = ["starmap-link"];
    if (link.both) classes.push("is-both");
    if (link.skill) classes.push("is-skill");
    const path = el(doc, "path", {
      class: classes.join(" "),
      d: link.d,
      "data-from": link.from,
      "data-to": link.to,
      "data-both": String(link.both),
      "data-time": link.time,
    });
    setMarkers(path, link, prefix, false);
    links.append(path);
  }

  const stars = el(doc, "g", { class: "starmap-stars" });
  const bySector = new Map();
  for (const region of model.regions) {
    const what = [region.notes && count(region.notes, "note", "notes"), region.skills && count(region.skills, "skill", "skills")];
    const group = el(doc, "g", {
      class: "starmap-sector",
      role: "group",
      "aria-label": `Sector ${region.name}: ${what.filter(Boolean).join(" and ")}`,
      "data-sector": region.name,
    });
    bySector.set(region.name, group);
    stars.append(group);
  }
  for (const star of model.stars) bySector.get(star.sector).append(starElement(doc, star));

  svg.replaceChildren(defs, sky, dust(doc, model.width, model.height), regions, links, stars);
  return showTime(svg, model, time);
}

/**
 * Shows the map as it was at `time`: the stars first seen by then, and the
 * links between them. A star that comes back into view is marked
 * `is-appearing` (the page animates it). Returns the number of stars shown;
 * the svg's `data-stars` and `data-links` say how many stars and directed
 * links (a link both ways counts twice, as in `journey().links`) are shown.
 */
export function showTime(svg, model, time = Infinity) {
  let shown = 0;
  const live = new Set();
  for (const g of svg.querySelectorAll(".starmap-star")) {
    const visible = Number(g.dataset.time) <= time;
    const was = g.getAttribute("display") !== "none";
    if (visible) {
      shown += 1;
      live.add(g.dataset.sector);
      g.removeAttribute("display");
      if (!was) g.classList.add("is-appearing");
    } else {
      g.setAttribute("display", "none");
      g.classList.remove("is-appearing");
    }
  }
  let links = 0;
  for (const path of svg.querySelectorAll(".starmap-link")) {
    const visible = Number(path.dataset.time) <= time;
    if (visible) {
      links += path.dataset.both === "true" ? 2 : 1;
      path.removeAttribute("display");
    } else {
      path.setAttribute("display", "none");
    }
  }
  for (const g of svg.querySelectorAll(".starmap-region")) g.classList.toggle("is-dark", !live.has(g.dataset.sector));
  svg.dataset.stars = String(shown);
  svg.dataset.links = String(links);
  return shown;
}

/**
 * Lights up star `id` and its neighbours (the stars it links to and those
 * linking to it) and their links; `null` clears. Returns the neighbours' ids.
 */
export function select(svg, model, id) {
  const prefix = svg.dataset.prefix || svg.id || "starmap";
  const star = id == null ? null : model.stars.find((s) => s.id === id);
  const neighbours = new Set(star ? [...star.out, ...star.in] : []);
  svg.classList.toggle("has-selection", !!star);
  for (const g of svg.querySelectorAll(".starmap-star")) {
    const node = g.dataset.node;
    const selected = !!star && node === star.id;
    g.classList.toggle("is-selected", selected);
    g.classList.toggle("is-neighbour", neighbours.has(node));
    g.setAttribute("aria-pressed", String(selected));
  }
  const byKey = new Map(model.links.map((l) => [`${l.from}\n${l.to}`, l]));
  for (const path of svg.querySelectorAll(".starmap-link")) {
    const lit = !!star && (path.dataset.from === star.id || path.dataset.to === star.id);
    path.classList.toggle("is-lit", lit);
    const link = byKey.get(`${path.dataset.from}\n${path.dataset.to}`);
    if (link) setMarkers(path, link, prefix, lit);
  }
  return [...neighbours];
}
