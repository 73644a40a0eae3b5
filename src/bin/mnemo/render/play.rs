//! The frames of `mnemo journey --play`: the journey as a star map that
//! fills in, one frame per step of the timeline.
//!
//! A step is one distinct `first_seen` time (entries written together, an
//! import say, appear together). The layout is computed once from the whole
//! journey, so a star never moves between frames: each sector is a region of
//! the canvas (sectors in the order they were first seen, the earliest top
//! left), its name on the region's first line, its nodes in slots scattered
//! over the region (◆ a note, ✧ a skill) with their titles beside them,
//! and the links between visible nodes drawn as dotted lines over empty
//! space. Frame `k` shows every node first seen at step `k` or before; the
//! nodes of step `k` are the newest (highlighted in colour, named in the
//! footer).
//!
//! Pure text: this module never writes to the terminal, reads its size or
//! sleeps. The player (`commands/journey.rs`) does, and owns the cursor,
//! the alternate screen and Ctrl-C. A frame is exactly `height` lines of at
//! most `width` columns, joined by `\n` without a final newline; ANSI
//! colours only when [`Screen::color`] says so. Titles are shown as the
//! payload has them (a blocked entry's is already the placeholder), made
//! safe for a terminal.

use std::collections::HashMap;

use mnemo::journey::{Journey, Kind, Node};

/// Narrowest canvas that can be drawn: a region needs room for a star and
/// a few letters of its title.
pub const MIN_WIDTH: usize = 20;
/// Lowest canvas: a header, three lines of map, the counts and the
/// scrubber.
pub const MIN_HEIGHT: usize = 6;

/// Lines that are not map: the header above, the counts and the scrubber
/// below.
const CHROME: usize = 3;
/// Narrowest sector region, its gap column included.
const MIN_REGION_WIDTH: usize = 8;

/// SGR parameters of each kind of cell.
const BOLD: &str = "1";
const DIM: &str = "2";
const NEWEST: &str = "1;93";
const BLOCKED: &str = "31";
const PLAYED: &str = "36";
/// Colours of the sectors, in the order they were first seen (cycled).
const PALETTE: [&str; 6] = ["36", "32", "35", "34", "96", "92"];
/// The same colours, bold, for the sector names.
const PALETTE_BOLD: [&str; 6] = ["1;36", "1;32", "1;35", "1;34", "1;96", "1;92"];

/// The size of the canvas and whether to colour it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Screen {
    /// Columns, at least [`MIN_WIDTH`].
    pub width: usize,
    /// Lines, at least [`MIN_HEIGHT`].
    pub height: usize,
    /// ANSI colours.
    pub color: bool,
}

/// Where a node is drawn on the canvas.
#[derive(Clone, Debug)]
struct Star {
    x: usize,
    y: usize,
    glyph: char,
    /// The title as it fits beside the star (empty when nothing fits).
    label: String,
    /// Colour of the star (its sector's, or red for a blocked entry).
    color: &'static str,
}

/// A sector's region and name.
#[derive(Clone, Debug)]
struct Region {
    x: usize,
    y: usize,
    /// The name as drawn (with `+N` when some nodes found no slot).
    label: String,
    color: &'static str,
}

/// A journey laid out for playing: the frames, built one at a time.
#[derive(Clone, Debug)]
pub struct Frames<'a> {
    journey: &'a Journey,
    screen: Screen,
    /// Distinct `first_seen` times, ascending: one frame each.
    steps: Vec<u64>,
    /// Per node: its step.
    step_of: Vec<usize>,
    /// Per node: where it is drawn, if it found a slot.
    stars: Vec<Option<Star>>,
    /// Per node: its region.
    region_of: Vec<usize>,
    regions: Vec<Region>,
    /// Links to draw, as pairs of node indices (each pair once).
    links: Vec<(usize, usize)>,
}

impl<'a> Frames<'a> {
    /// Lays `journey` out on `screen` (its size raised to the minimum).
    pub fn new(journey: &'a Journey, screen: Screen) -> Frames<'a> {
        let screen = Screen {
            width: screen.width.max(MIN_WIDTH),
            height: screen.height.max(MIN_HEIGHT),
            ..screen
        };
        let mut steps: Vec<u64> = journey.nodes.iter().map(|n| n.first_seen).collect();
        steps.sort_unstable();
        steps.dedup();
        let step_of = journey
            .nodes
            .iter()
            .map(|n| steps.partition_point(|&s| s < n.first_seen))
            .collect();
        let mut frames = Frames {
            journey,
            screen,
            steps,
            step_of,
            stars: vec![None; journey.nodes.len()],
            region_of: vec![0; journey.nodes.len()],
            regions: Vec::new(),
            links: Vec::new(),
        };
        frames.lay_out();
        frames
    }

    /// How many frames there are: one per step, one for an empty journey.
    pub fn len(&self) -> usize {
        self.steps.len().max(1)
    }

    /// The frame of step `k` (the last one past the end).
    pub fn frame(&self, k: usize) -> String {
        let k = k.min(self.len() - 1);
        let Screen {
            width,
            height,
            color,
        } = self.screen;
        let mut canvas = Canvas::new(width, height);
        let visible: Vec<bool> = if self.steps.is_empty() {
            Vec::new()
        } else {
            self.step_of.iter().map(|&s| s <= k).collect()
        };
        let newest: Vec<usize> = (0..visible.len())
            .filter(|&i| self.step_of[i] == k)
            .collect();
        self.header(&mut canvas, k);
        if self.journey.nodes.is_empty() {
            let text = "nothing learned yet: `mnemo add` writes a first memory";
            let y = 1 + (height - CHROME) / 2;
            let x = width.saturating_sub(cols(text)) / 2;
            canvas.text(x, y, text, DIM, width);
        }
        // Sector names, stars and titles first; the links only over what
        // is still empty.
        for (r, region) in self.regions.iter().enumerate() {
            let shown = (0..visible.len()).any(|i| visible[i] && self.region_of[i] == r);
            if shown {
                canvas.text(region.x, region.y, &region.label, region.color, width);
            }
        }
        for (i, star) in self.stars.iter().enumerate() {
            let Some(star) = star else { continue };
            if !visible[i] {
                continue;
            }
            let new = self.step_of[i] == k;
            let node = &self.journey.nodes[i];
            let glyph_style = if new {
                NEWEST
            } else if node.pinned {
                BOLD
            } else {
                star.color
            };
            let mut buf = [0u8; 4];
            canvas.text(
                star.x,
                star.y,
                star.glyph.encode_utf8(&mut buf),
                glyph_style,
                width,
            );
            if !star.label.is_empty() {
                // The space is part of the title: no dot goes between.
                let label_style = if new { NEWEST } else { "" };
                canvas.text(
                    star.x + 1,
                    star.y,
                    &format!(" {}", star.label),
                    label_style,
                    width,
                );
            }
        }
        for &(a, b) in &self.links {
            if visible[a] && visible[b] {
                if let (Some(sa), Some(sb)) = (&self.stars[a], &self.stars[b]) {
                    canvas.dots((sa.x, sa.y), (sb.x, sb.y));
                }
            }
        }
        self.footer(&mut canvas, k, &visible, &newest);
        canvas.render(color)
    }

    /// Every frame, first to last.
    #[cfg(test)]
    pub fn all(&self) -> Vec<String> {
        (0..self.len()).map(|k| self.frame(k)).collect()
    }

    /// `✦ Journey · 2026-03-01 14:02 · 3/12`.
    fn header(&self, canvas: &mut Canvas, k: usize) {
        let width = self.screen.width;
        let title = "✦ Journey";
        canvas.text(0, 0, title, BOLD, width);
        let rest = match self.steps.get(k) {
            None => " · nothing yet".to_string(),
            Some(&ms) => format!(" · {} · {}/{}", moment(ms), k + 1, self.steps.len()),
        };
        canvas.text(cols(title), 0, &rest, "", width);
    }

    /// The counts (and the newest node), then the scrubber.
    fn footer(&self, canvas: &mut Canvas, k: usize, visible: &[bool], newest: &[usize]) {
        let Screen { width, height, .. } = self.screen;
        let nodes = &self.journey.nodes;
        let count = |kind: Kind| {
            (0..visible.len())
                .filter(|&i| visible[i] && nodes[i].kind == kind)
                .count()
        };
        let index: HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let links: usize = (0..visible.len())
            .filter(|&i| visible[i])
            .flat_map(|i| &nodes[i].out)
            .filter(|id| index.get(id.as_str()).is_some_and(|&j| visible[j]))
            .count();
        let counts = format!(
            "{} · {} · {}",
            plural(count(Kind::Note), "note", "notes"),
            plural(count(Kind::Skill), "skill", "skills"),
            plural(links, "link", "links"),
        );
        let y = height - 2;
        canvas.text(0, y, &counts, "", width);
        if let Some(&first) = newest.first() {
            let node = &nodes[first];
            let mut new = format!("  + {} {}", glyph(node), super::one_line(&node.title, 200));
            if newest.len() > 1 {
                new.push_str(&format!(" (+{} more)", newest.len() - 1));
            }
            canvas.text(cols(&counts), y, &new, NEWEST, width);
        }
        self.scrubber(canvas, k);
    }

    /// `2026-03-01 ━━━━━━●────── 2026-04-12`, or `━━━●─── 3/12` when
    /// narrow.
    fn scrubber(&self, canvas: &mut Canvas, k: usize) {
        let Screen { width, height, .. } = self.screen;
        let y = height - 1;
        let n = self.steps.len();
        let (left, right) = match (self.steps.first(), self.steps.last()) {
            (Some(&a), Some(&b)) if width >= 50 => (format!("{} ", day(a)), format!(" {}", day(b))),
            _ => (
                String::new(),
                format!(" {}/{}", if n == 0 { 0 } else { k + 1 }, n),
            ),
        };
        let bar = width - cols(&left) - cols(&right);
        let head = match n {
            0 => None,
            1 => Some(bar - 1),
            _ => Some(k * (bar - 1) / (n - 1)),
        };
        canvas.text(0, y, &left, DIM, width);
        for i in 0..bar {
            let (c, style) = match head {
                Some(h) if i < h => ('━', PLAYED),
                Some(h) if i == h => ('●', NEWEST),
                _ => ('─', DIM),
            };
            canvas.put(cols(&left) + i, y, c, style);
        }
        canvas.text(cols(&left) + bar, y, &right, DIM, width);
    }

    /// Places the sectors' regions, then each region's stars, then lists
    /// the links.
    fn lay_out(&mut self) {
        let Screen { width, height, .. } = self.screen;
        let journey = self.journey;
        let nodes = &journey.nodes;
        // Sectors in the order they were first seen.
        let mut sectors: Vec<&str> = Vec::new();
        for n in nodes {
            if !sectors.contains(&n.sector.as_str()) {
                sectors.push(&n.sector);
            }
        }
        let map_h = height - CHROME;
        let most = (width / MIN_REGION_WIDTH) * (map_h / 2);
        let shown = sectors.len().min(most).max(1);
        let (grid_cols, grid_rows) = grid(shown, width, map_h);
        let region_w = width / grid_cols;
        let region_h = map_h / grid_rows;
        // More sectors than regions: the last region holds the rest.
        let region_of_sector = |s: usize| s.min(shown - 1);
        for (i, n) in nodes.iter().enumerate() {
            let s = sectors.iter().position(|&x| x == n.sector).unwrap_or(0);
            self.region_of[i] = region_of_sector(s);
        }
        for r in 0..shown.min(sectors.len()) {
            let x = (r % grid_cols) * region_w;
            let y = 1 + (r / grid_cols) * region_h;
            let members: Vec<usize> = (0..nodes.len())
                .filter(|&i| self.region_of[i] == r)
                .collect();
            let color = PALETTE[r % PALETTE.len()];
            let placed = self.place(&members, (x, y + 1), (region_w - 1, region_h - 1), color);
            let mut name = if r == shown - 1 && sectors.len() > shown {
                format!("+{} sectors", sectors.len() - shown + 1)
            } else {
                super::one_line(sectors[r], 200)
            };
            if placed < members.len() {
                name.push_str(&format!(" +{}", members.len() - placed));
            }
            self.regions.push(Region {
                x,
                y,
                label: cut(&name, region_w - 1),
                color: PALETTE_BOLD[r % PALETTE_BOLD.len()],
            });
        }
        let index: HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        for (a, n) in nodes.iter().enumerate() {
            for id in &n.out {
                if let Some(&b) = index.get(id.as_str()) {
                    let pair = (a.min(b), a.max(b));
                    if a != b && !self.links.contains(&pair) {
                        self.links.push(pair);
                    }
                }
            }
        }
    }

    /// Gives each of `members` a slot of the area at `(x, y)` of size
    /// `(w, h)`: one slot per line while they fit, then as many columns
    /// as needed, the slots shuffled so the stars scatter. Returns how many
    /// found a slot.
    fn place(
        &mut self,
        members: &[usize],
        (x, y): (usize, usize),
        (w, h): (usize, usize),
        color: &'static str,
    ) -> usize {
        if members.is_empty() || w < 2 || h == 0 {
            return 0;
        }
        let cols_needed = members.len().div_ceil(h);
        let slot_cols = cols_needed.min(w / 2).max(1);
        let slot_w = w / slot_cols;
        let mut slots: Vec<(usize, usize)> = (0..h)
            .flat_map(|r| (0..slot_cols).map(move |c| (r, c)))
            .collect();
        let journey = self.journey;
        let seed = journey.nodes[members[0]].sector.as_str();
        slots.sort_by_key(|&(r, c)| hash(seed, (r * slot_cols + c) as u64));
        for (&i, &(r, c)) in members.iter().zip(&slots) {
            let node = &journey.nodes[i];
            let title = super::one_line(&node.title, 200);
            // The star's offset in its slot: the title fits beside it when
            // it can, and there is some scatter in any case.
            let room = slot_w.saturating_sub(3);
            let spare = room.saturating_sub(cols(&title)).max(room / 3);
            let dx = if spare == 0 {
                0
            } else {
                (hash(&node.id, 0) % (spare as u64 + 1)) as usize
            };
            let label_w = room.saturating_sub(dx);
            self.stars[i] = Some(Star {
                x: x + c * slot_w + dx,
                y: y + r,
                glyph: glyph(node),
                label: if label_w >= 3 {
                    cut(&title, label_w)
                } else {
                    String::new()
                },
                color: if node.blocked { BLOCKED } else { color },
            });
        }
        members.len().min(slots.len())
    }
}

/// The grid of regions for `n` sectors on a `width` × `height` map: the
/// one whose regions are the least narrow or flat (a line is about twice
/// as tall as a column is wide).
fn grid(n: usize, width: usize, height: usize) -> (usize, usize) {
    let mut best = (1, n);
    let mut best_score = 0;
    for c in 1..=n {
        let r = n.div_ceil(c);
        let (w, h) = (width / c, height / r);
        if w < MIN_REGION_WIDTH || h < 2 {
            continue;
        }
        let score = w.min(h * 5 / 2);
        if score > best_score {
            best = (c, r);
            best_score = score;
        }
    }
    best
}

/// ◆ a note, ✧ a skill.
fn glyph(node: &Node) -> char {
    match node.kind {
        Kind::Note => '◆',
        Kind::Skill => '✧',
    }
}

/// `1 note`, `2 notes`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `YYYY-MM-DD HH:MM`, or `undated` for a node without a date.
fn moment(ms: u64) -> String {
    if ms == 0 {
        return "undated".to_string();
    }
    let (d, t) = super::day_and_time(ms);
    format!("{d} {t}")
}

/// `YYYY-MM-DD`, or `undated`.
fn day(ms: u64) -> String {
    if ms == 0 {
        "undated".to_string()
    } else {
        super::day(ms)
    }
}

/// FNV-1a of `text` and `salt`: a scatter that is the same on every run.
fn hash(text: &str, salt: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes().chain(salt.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Columns a character takes on a terminal: 0 for combining marks and
/// zero-width characters, 2 for the wide East Asian ranges and emoji, else
/// 1. An approximation of wcwidth, enough to keep lines within the width.
pub fn char_cols(c: char) -> usize {
    let u = c as u32;
    match u {
        0x0300..=0x036F | 0x200B..=0x200F | 0x20D0..=0x20FF | 0xFE00..=0xFE0F => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// Columns `text` takes.
pub fn cols(text: &str) -> usize {
    text.chars().map(char_cols).sum()
}

/// `text` cut to at most `max` columns, its last one `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if cols(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = char_cols(c);
        if used + w + 1 > max {
            break;
        }
        out.push(c);
        used += w;
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// One cell of the canvas: empty, a character (with the zero-width ones
/// that follow it) or the right half of a wide character.
#[derive(Clone, Debug, Default)]
struct Cell {
    text: String,
    style: &'static str,
    /// Covered by the wide character to its left.
    covered: bool,
}

/// A grid of cells, `width` × `height`.
struct Canvas {
    width: usize,
    cells: Vec<Vec<Cell>>,
}

impl Canvas {
    fn new(width: usize, height: usize) -> Canvas {
        Canvas {
            width,
            cells: vec![vec![Cell::default(); width]; height],
        }
    }

    /// Writes `text` from column `x` of line `y`, up to column `limit`
    /// (exclusive); a wide character that would cross it is left out.
    fn text(&mut self, x: usize, y: usize, text: &str, style: &'static str, limit: usize) {
        let limit = limit.min(self.width);
        let mut at = x;
        for c in text.chars() {
            let w = char_cols(c);
            if w == 0 {
                if at > x {
                    if let Some(cell) = self.cells[y].get_mut(at - 1) {
                        cell.text.push(c);
                    }
                }
                continue;
            }
            if at + w > limit {
                break;
            }
            self.put(at, y, c, style);
            if w == 2 {
                self.cells[y][at + 1] = Cell {
                    covered: true,
                    ..Cell::default()
                };
            }
            at += w;
        }
    }

    /// Puts `c` at `(x, y)`.
    fn put(&mut self, x: usize, y: usize, c: char, style: &'static str) {
        if let Some(cell) = self.cells.get_mut(y).and_then(|row| row.get_mut(x)) {
            *cell = Cell {
                text: c.to_string(),
                style,
                covered: false,
            };
        }
    }

    fn is_empty(&self, x: usize, y: usize) -> bool {
        self.cells[y]
            .get(x)
            .is_some_and(|c| c.text.is_empty() && !c.covered)
    }

    /// A dotted line from `a` to `b` (ends excluded), over empty cells
    /// only and never right beside a star or a title.
    fn dots(&mut self, a: (usize, usize), b: (usize, usize)) {
        let (x0, y0) = (a.0 as i64, a.1 as i64);
        let (x1, y1) = (b.0 as i64, b.1 as i64);
        let steps = (x1 - x0).abs().max((y1 - y0).abs());
        for s in 1..steps {
            // Every other point, for a light line.
            if s % 2 != 0 {
                continue;
            }
            let x = x0 + (x1 - x0) * s / steps;
            let y = y0 + (y1 - y0) * s / steps;
            let (x, y) = (x as usize, y as usize);
            let beside_text = |dx: isize| {
                x.checked_add_signed(dx)
                    .and_then(|x| self.cells[y].get(x))
                    .is_some_and(|c| c.covered || !(c.text.is_empty() || c.text == "·"))
            };
            if self.is_empty(x, y) && !beside_text(-1) && !beside_text(1) {
                self.put(x, y, '·', DIM);
            }
        }
    }

    /// The lines, joined by `\n`: trailing blanks dropped, with ANSI
    /// colours when `color`.
    fn render(&self, color: bool) -> String {
        let mut lines = Vec::with_capacity(self.cells.len());
        for row in &self.cells {
            let end = row
                .iter()
                .rposition(|c| !c.text.is_empty() || c.covered)
                .map_or(0, |p| p + 1);
            let mut line = String::new();
            let mut current = "";
            for cell in &row[..end] {
                if cell.covered {
                    continue;
                }
                if color && cell.style != current {
                    if !current.is_empty() {
                        line.push_str("\x1b[0m");
                    }
                    if !cell.style.is_empty() {
                        line.push_str(&format!("\x1b[{}m", cell.style));
                    }
                    current = cell.style;
                }
                if cell.text.is_empty() {
                    line.push(' ');
                } else {
                    line.push_str(&cell.text);
                }
            }
            if color && !current.is_empty() {
                line.push_str("\x1b[0m");
            }
            lines.push(line);
        }
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mnemo::Target;

    const DAY: u64 = 86_400_000;

    fn node(i: usize, kind: Kind, title: &str, sector: &str, first_seen: u64) -> Node {
        Node {
            id: format!("memory:memory:e{i}"),
            kind,
            entry_id: format!("e{i}"),
            target: (kind == Kind::Note).then_some(Target::Memory),
            index: i,
            title: title.into(),
            sector: sector.into(),
            first_seen,
            last_changed: first_seen,
            out: vec![],
            r#in: vec![],
            dangling: vec![],
            pinned: false,
            blocked: false,
            agent: None,
        }
    }

    /// Six nodes over four steps (two written together), three sectors,
    /// a skill, a blocked entry and two links.
    fn sample() -> Journey {
        let t = 20_000 * DAY;
        let mut nodes = vec![
            node(1, Kind::Note, "SSH config", "infra", t),
            node(2, Kind::Note, "Fail2ban bans after 5", "infra", t + 1000),
            node(3, Kind::Note, "Vector search", "retrieval", t + DAY),
            node(4, Kind::Skill, "deploy-fridays", "ops", t + DAY),
            node(5, Kind::Note, "[BLOCKED entry]", "unsorted", t + 2 * DAY),
            node(6, Kind::Note, "Hybrid search", "retrieval", t + 3 * DAY),
        ];
        nodes[4].blocked = true;
        nodes[1].out = vec!["memory:memory:e1".into()];
        nodes[0].r#in = vec!["memory:memory:e2".into()];
        nodes[5].out = vec!["memory:memory:e3".into()];
        nodes[2].r#in = vec!["memory:memory:e6".into()];
        Journey {
            nodes,
            links: 2,
            skill_links: 0,
        }
    }

    fn screen(width: usize, height: usize) -> Screen {
        Screen {
            width,
            height,
            color: false,
        }
    }

    /// `text` without its ANSI sequences.
    fn plain(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn one_frame_per_distinct_step() {
        let j = sample();
        let frames = Frames::new(&j, screen(80, 24)).all();
        assert_eq!(frames.len(), 5);
        assert!(frames[0].starts_with("✦ Journey · 2024-10-04 00:00 · 1/5\n"));
        assert!(frames[4].starts_with("✦ Journey · 2024-10-07 00:00 · 5/5\n"));
    }

    #[test]
    fn frames_fill_in_and_the_last_shows_every_title() {
        let j = sample();
        let frames = Frames::new(&j, screen(100, 30)).all();
        assert!(frames[0].contains("SSH config") && !frames[0].contains("Vector search"));
        assert!(frames[0].contains("1 note · 0 skills · 0 links  + ◆ SSH config"));
        assert!(frames[1].contains("2 notes · 0 skills · 1 link  + ◆ Fail2ban"));
        // Two nodes of one step appear in the same frame.
        assert!(frames[2].contains("Vector search") && frames[2].contains("deploy-fridays"));
        assert!(frames[2].contains("3 notes · 1 skill · 1 link  + ◆ Vector search (+1 more)"));
        let last = frames.last().unwrap();
        for n in j.nodes.iter().filter(|n| !n.blocked) {
            assert!(last.contains(&n.title), "{} missing from\n{last}", n.title);
        }
        for sector in ["infra", "retrieval", "ops", "unsorted"] {
            assert!(last.contains(sector), "{sector} missing from\n{last}");
        }
        assert!(last.contains("✧ deploy-fridays"), "{last}");
        assert!(last.contains("5 notes · 1 skill · 2 links  + ◆ Hybrid search"));
        assert_eq!(last.matches('◆').count(), 5 + 1, "{last}");
        // The scrubber runs from the first day to the last, full at the end.
        let scrubber = last.lines().last().unwrap();
        assert!(scrubber.starts_with("2024-10-04 ━"), "{scrubber}");
        assert!(scrubber.ends_with("━● 2024-10-07"), "{scrubber}");
    }

    #[test]
    fn a_star_never_moves() {
        let j = sample();
        let frames = Frames::new(&j, screen(80, 24)).all();
        let at = |frame: &str| {
            frame
                .lines()
                .enumerate()
                .find_map(|(y, l)| l.find("◆ SSH config").map(|x| (y, l[..x].chars().count())))
        };
        let first = at(&frames[0]).unwrap();
        for f in &frames {
            assert_eq!(at(f), Some(first), "{f}");
        }
    }

    #[test]
    fn frames_are_exactly_the_height_and_never_wider_than_the_width() {
        let mut j = sample();
        j.nodes[0].title = "漢字のタイトルがとても長いのでここで切られるはずです".into();
        j.nodes[2].title = "A very long title that cannot possibly fit in a narrow column".into();
        for (w, h) in [(20, 6), (33, 9), (80, 24), (150, 50)] {
            for color in [false, true] {
                let frames = Frames::new(
                    &j,
                    Screen {
                        width: w,
                        height: h,
                        color,
                    },
                )
                .all();
                for f in &frames {
                    assert_eq!(f.lines().count(), h, "{w}x{h}:\n{f}");
                    for line in plain(f).lines() {
                        assert!(cols(line) <= w, "{w}x{h}: {line:?} is {}", cols(line));
                    }
                }
            }
        }
    }

    #[test]
    fn colour_only_when_asked() {
        let j = sample();
        for f in Frames::new(&j, screen(80, 24)).all() {
            assert!(!f.contains('\x1b'), "{f}");
        }
        let colored = Frames::new(
            &j,
            Screen {
                width: 80,
                height: 24,
                color: true,
            },
        )
        .frame(1);
        assert!(colored.contains("\x1b[1;93m◆"), "{colored}");
        assert!(colored.contains("\x1b[1;36minfra"), "{colored}");
    }

    #[test]
    fn links_are_dotted_between_visible_stars() {
        let mut j = Journey {
            nodes: vec![
                node(1, Kind::Note, "Left", "a", 1000),
                node(2, Kind::Note, "Right", "b", 2000),
            ],
            links: 1,
            skill_links: 0,
        };
        j.nodes[1].out = vec!["memory:memory:e1".into()];
        let frames = Frames::new(&j, screen(60, 12)).all();
        // The map: the lines between the header and the counts.
        let map = |f: &str| {
            f.lines()
                .skip(1)
                .take(12 - CHROME)
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(!map(&frames[0]).contains('·'), "{}", frames[0]);
        assert!(map(&frames[1]).contains('·'), "{}", frames[1]);
    }

    #[test]
    fn an_empty_journey_is_one_frame_saying_so() {
        let j = Journey {
            nodes: vec![],
            links: 0,
            skill_links: 0,
        };
        let frames = Frames::new(&j, screen(80, 24));
        assert_eq!(frames.len(), 1);
        let f = frames.frame(0);
        assert!(f.starts_with("✦ Journey · nothing yet\n"), "{f}");
        assert!(f.contains("nothing learned yet"), "{f}");
        assert!(f.contains("0 notes · 0 skills · 0 links"), "{f}");
        assert_eq!(f.lines().count(), 24);
    }

    #[test]
    fn many_sectors_share_the_last_region_and_crowds_are_counted() {
        let nodes: Vec<Node> = (0..300)
            .map(|i| {
                node(
                    i,
                    Kind::Note,
                    &format!("note {i}"),
                    &format!("s{}", i % 60),
                    i as u64,
                )
            })
            .collect();
        let j = Journey {
            nodes,
            links: 0,
            skill_links: 0,
        };
        let frames = Frames::new(&j, screen(100, 12));
        assert_eq!(frames.len(), 300);
        let last = frames.frame(frames.len() - 1);
        assert_eq!(last.lines().count(), 12);
        // 48 regions fit: the last holds the 13 sectors left.
        assert!(last.contains("+13 se"), "{last}");
        assert!(last.contains("300 notes"), "{last}");
        // Some nodes found no slot: their regions count them.
        assert!(last.contains(" +"), "{last}");
    }

    #[test]
    #[ignore = "prints frames to look at"]
    fn show() {
        let mut j = sample();
        for i in 0..30 {
            let mut n = node(
                10 + i,
                Kind::Note,
                &format!("Note number {i} about things"),
                ["infra", "retrieval", "people", "ops"][i % 4],
                21_000 * DAY + i as u64 * DAY,
            );
            if i > 0 {
                n.out = vec![format!("memory:memory:e{}", 10 + (i * 7) % i)];
            }
            j.nodes.push(n);
        }
        let f = Frames::new(
            &j,
            Screen {
                width: 100,
                height: 30,
                color: std::env::var_os("COLOR").is_some(),
            },
        );
        println!("{}", f.frame(3));
        println!("{}", f.frame(f.len() - 1));
    }

    #[test]
    fn widths_of_characters() {
        assert_eq!(cols("abc"), 3);
        assert_eq!(cols("漢字"), 4);
        assert_eq!(cols("e\u{301}"), 1);
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("漢字漢字", 5), "漢字…");
        assert_eq!(cut("abc", 3), "abc");
    }
}
