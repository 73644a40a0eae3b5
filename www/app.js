// The mnemo demo page: one memory kept in the browser (OPFS, else IndexedDB,
// else this tab only) that can be deleted, the memory tool (form and raw
// JSON), note search (ranked search, the per-turn context block and a set of
// sample notes), the sectors report with the notes' links in both directions,
// write approval (the pending panel: approve, edit, reject, a badge, the
// on/off switch), the live stores, the day's activity log with curation,
// the frozen system prompt, export/import, the tool schema and the star map
// (www/starmap.js draws it). Plain ES modules, no framework, no build step.
//
// Every call goes through `state.memory`; after each one the live stores are
// re-read (exportMarkdown + status, then sectors, journey and the star map)
// before the result is shown, so whatever the page displays is consistent
// with the last call.

import { SAMPLE_MEMORY_MD } from "./sample-notes.js";
import { kindLabel, layout, render, select, showTime } from "./starmap.js";

// mnemo/browser: the wasm is initialised on import, and an OPFS memory runs
// in a worker the module starts itself.
const PKG = "./pkg/browser.js";

/** The memory this page keeps on its origin. */
const MEMORY_NAME = "demo";

/** How the page names the storages of status() and Memory.delete(). */
const STORAGE_LABELS = { opfs: "OPFS", indexeddb: "IndexedDB" };

/** The two stores, in display order. */
const STORES = [
  { target: "memory", file: "MEMORY.md", label: "MEMORY" },
  { target: "user", file: "USER.md", label: "USER PROFILE" },
];

/** The entry delimiter of the Markdown files. */
const DELIMITER = "\n§\n";

/** The lines around the notes of a `<memory-context>` block. */
const CONTEXT_OPEN = "<memory-context>\n";
const CONTEXT_CLOSE = "\n</memory-context>";

const BATCH_EXAMPLE = {
  operations: [
    { action: "add", target: "memory", content: "Project uses tabs, 120-char lines, Google-style docstrings" },
    { action: "add", target: "user", content: "User prefers concise answers without preamble" },
  ],
};

const READY = "Ready: mnemo is running in your browser.";

/** The most activity records listed (newest first). */
const ACTIVITY_SHOWN = 50;

/** The metrics of a curation report shown, in the spec's order. */
const CURATION_METRICS = [
  ["facts_extracted", "Facts extracted"],
  ["facts_added", "Facts added"],
  ["memories_updated", "Memories updated"],
  ["memories_pruned", "Memories pruned"],
  ["merged", "Duplicates merged"],
  ["existing_memories", "Existing memories"],
];

/** `sectors({limit})` that lists every note (the most the API accepts). */
const SECTORS_LIMIT = 100_000;

/** The star map's viewBox width and least height (the SVG scales to the panel). */
const STARMAP_WIDTH = 1000;
const STARMAP_HEIGHT = 260;

/** Between two steps of the star map's replay, in ms. */
const STARMAP_TICK = 650;

const state = {
  /** mnemo/browser's exports ({Memory, errorCodes}). */
  mnemo: null,
  /** The open Memory. */
  memory: null,
  /** Sessions started on this page (1 once opened; a fresh memory after a delete starts the next). */
  session: 0,
  /** exportMarkdown() when the current session started: to tell when the prompt is stale. */
  sessionFiles: null,
  /** The live files, as of the last refresh. */
  liveFiles: null,
  /** Tool calls shown so far (the result panel's data-seq). */
  seq: 0,
  /** Searches shown so far (the search output's data-seq). */
  searchSeq: 0,
  recallSeq: 0,
  /** Context blocks shown so far (the context output's data-seq). */
  contextSeq: 0,
  /** Sectors reports shown so far (the sectors output's data-seq). */
  sectorsSeq: 0,
  /** The sectors panel: the whole report, the notes with their links, the open note. */
  sectors: {
    /** sectors({limit: SECTORS_LIMIT}) as of the last refresh. */
    report: null,
    /** Every note by node id: {entry, sector, text, out, in, order}, from noteGraph(). */
    notes: new Map(),
    /** The node id of the note shown in the detail view, or null. */
    open: null,
    /** The list entry to focus when the detail view closes. */
    from: null,
  },
  /** The star map: its layout, the time shown, the chosen star and the replay. */
  starmap: {
    /** layout() of the last journey() and sectors() answers. */
    model: null,
    /** The first_seen time shown, or null for now (new stars show as they are written). */
    time: null,
    /** The node id of the chosen star, or null. */
    selected: null,
    /** The replay's interval while it plays, else null. */
    timer: null,
  },
  /** Operations in flight (for aria-busy). */
  busy: 0,
};

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- helpers

const formatNumber = (n) => Number(n).toLocaleString("en-US");

const plural = (n, one, many) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** Length in Unicode characters (as mnemo counts), not UTF-16 units. */
const charCount = (text) => [...text].length;

/** A store of STORES by its target name. */
const storeOf = (target) => STORES.find((s) => s.target === target);

/** The entries of a store's Markdown text (an empty store has none). */
function splitEntries(text) {
  return text === "" ? [] : text.split(DELIMITER);
}

/** Runs `fn` with the page marked busy. */
async function busy(fn) {
  state.busy += 1;
  $("app").setAttribute("aria-busy", "true");
  try {
    return await fn();
  } finally {
    state.busy -= 1;
    if (state.busy === 0) $("app").setAttribute("aria-busy", "false");
  }
}

/** The code of a rejected mnemo promise (a MnemoError), or a fallback. */
const codeOf = (e) => (e && typeof e.code === "string" ? e.code : "error");

const messageOf = (e) => (e && e.message ? e.message : String(e));

/** Shows an error as "code: message" in `el`; clears it when `e` is null. */
function showError(el, e) {
  el.replaceChildren();
  if (e == null) {
    el.hidden = true;
    delete el.dataset.code;
    return;
  }
  const code = document.createElement("code");
  code.className = "error-code";
  code.textContent = codeOf(e);
  el.append(code, " ", messageOf(e));
  el.dataset.code = codeOf(e);
  el.classList.add("error");
  el.hidden = false;
}

/** Shows a plain message in a status element. */
function showMessage(el, text) {
  el.replaceChildren(text);
  el.classList.remove("error");
  delete el.dataset.code;
  el.hidden = false;
}

function setAppStatus(stateName, text, error) {
  const el = $("app-status");
  el.dataset.state = stateName;
  if (error) showError(el, error);
  else showMessage(el, text);
  if (error && text) el.prepend(`${text} `);
}

/** Ctrl/Cmd+Enter in a textarea submits its form. */
function submitOnCtrlEnter(textarea) {
  textarea.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      textarea.form.requestSubmit();
    }
  });
}

// ---------------------------------------------------------------- stores

/** Re-reads both stores and the staged writes, and renders them. */
async function refreshStores() {
  try {
    const [files, status, pending, log] = await Promise.all([
      state.memory.exportMarkdown(),
      state.memory.status(),
      state.memory.pending(),
      state.memory.readLog(),
    ]);
    state.liveFiles = files;
    if ($("app-status").dataset.state === "error") setAppStatus("ready", READY);
    renderStorage(status.storage);
    for (const store of STORES) renderStore(store, files[store.file], status[store.target]);
    renderPending(pending, status.approval);
    renderActivity(log);
    renderStale();
  } catch (e) {
    setAppStatus("error", "Could not read the stores:", e);
    return;
  }
  await refreshSectors();
}

/** Says where the memory lives: saved in the browser, or lost on reload. */
function renderStorage(storage) {
  $("storage-note").dataset.storage = storage;
  const label = STORAGE_LABELS[storage];
  if (label) {
    $("storage-text").replaceChildren(
      `Your memory is saved in this browser (${label}) — it survives reloads and never leaves this device.`,
    );
    return;
  }
  const strong = document.createElement("strong");
  strong.textContent = "This page keeps memory in this tab only";
  const link = document.createElement("a");
  link.href = "#files";
  link.textContent = "Export";
  $("storage-text").replaceChildren(
    strong,
    ": this browser gives it no persistent storage (OPFS or IndexedDB), so reloading or closing " +
      "the tab loses it. Use ",
    link,
    " to keep your stores.",
  );
}

function renderStore(store, text, status) {
  const id = `store-${store.target}`;
  const entries = splitEntries(text);
  $(`${id}-usage`).textContent = status.usage;
  $(`${id}-count`).textContent = plural(status.entries, "entry", "entries");
  $(`${id}-mode`).textContent = describeMode(status);
  $(`${id}-mode`).dataset.mode = status.mode;
  renderFlags($(`${id}-flags`), status);
  const list = $(`${id}-entries`);
  list.replaceChildren(...entries.map((entry, i) => entryItem(store, entry, i)));
  list.hidden = entries.length === 0;
  $(`${id}-empty`).hidden = entries.length !== 0;
}

function describeMode(status) {
  const budget = formatNumber(status.verbatim_budget);
  return status.mode === "in prompt"
    ? `in prompt (sent verbatim while under ${budget} chars)`
    : `searched (over the ${budget}-char verbatim budget)`;
}

function renderFlags(el, status) {
  const flags = [];
  if (!status.enabled) flags.push("This store is disabled in the configuration.");
  if (status.damaged) flags.push(`Writes are refused: ${status.damaged}`);
  el.textContent = flags.join(" ");
  el.hidden = flags.length === 0;
}

/** One entry of a store, with buttons that prefill the tool form. */
function entryItem(store, entry, index) {
  const li = document.createElement("li");
  const text = document.createElement("pre");
  text.className = "entry-text";
  text.textContent = entry;
  const actions = document.createElement("div");
  actions.className = "entry-actions";
  const where = `entry ${index + 1} of ${store.label}`;
  actions.append(
    smallButton("Replace…", `Replace ${where}`, () => prefillForm("replace", store.target, entry)),
    smallButton("Remove…", `Remove ${where}`, () => prefillForm("remove", store.target, entry)),
  );
  li.append(text, actions);
  return li;
}

function smallButton(text, label, onClick) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small";
  button.textContent = text;
  button.setAttribute("aria-label", label);
  button.addEventListener("click", onClick);
  return button;
}

// ---------------------------------------------------------------- tool form

/** Shows the fields the chosen action uses. */
function syncFormFields() {
  const action = $("tool-action").value;
  $("tool-old-text-field").hidden = action === "add";
  $("tool-content-field").hidden = action === "remove";
}

/** The tool arguments the form describes, as an LLM would send them. */
function formArgs() {
  const action = $("tool-action").value;
  const args = { action, target: $("tool-target").value };
  if (action !== "remove") args.content = $("tool-content").value;
  if (action !== "add") args.old_text = $("tool-old-text").value;
  return args;
}

/** Fills the form to replace or remove `entry`, and focuses the next field to edit. */
function prefillForm(action, target, entry) {
  $("tool-action").value = action;
  $("tool-target").value = target;
  $("tool-old-text").value = entry;
  if (action === "replace") $("tool-content").value = entry;
  syncFormFields();
  const next = action === "replace" ? $("tool-content") : $("tool-run");
  next.scrollIntoView({ block: "center" });
  next.focus();
}

async function onToolSubmit(ev) {
  ev.preventDefault();
  const result = await runTool(formArgs());
  if (result && result.success) {
    $("tool-content").value = "";
    $("tool-old-text").value = "";
  }
}

async function onRawSubmit(ev) {
  ev.preventDefault();
  const raw = $("raw-args").value;
  let args;
  try {
    args = JSON.parse(raw);
  } catch (e) {
    renderParseError(raw, e);
    return;
  }
  await runTool(args);
}

function insertBatchExample() {
  $("raw-args").value = JSON.stringify(BATCH_EXAMPLE, null, 2);
  $("raw-args").focus();
}

// ---------------------------------------------------------------- tool calls

/** Runs one memory tool call, refreshes the stores, then shows the result. */
function runTool(args) {
  return busy(async () => {
    let result = null;
    let error = null;
    try {
      result = await state.memory.tool(args);
    } catch (e) {
      error = e;
    }
    await refreshStores();
    if (error) renderRejected(args, error);
    else renderResult(args, result);
    return result;
  });
}

/** Shows a ToolResult: success (saved or staged) or failure with its code. */
function renderResult(args, result) {
  const ok = result.success === true;
  showResult({
    success: ok,
    code: ok ? "" : result.code || "",
    badge: ok ? (result.staged ? `staged · ${result.pending_id}` : "success") : `failed · ${result.code || "error"}`,
    staged: result.staged === true,
    notification: result.notification ?? "",
    message: ok ? result.message || "" : result.error || "",
    done: result.done === true,
    args: JSON.stringify(args, null, 2),
    json: JSON.stringify(result, null, 2),
  });
}

/** Shows a rejected tool() promise (for instance `closed`). */
function renderRejected(args, e) {
  showResult({
    success: false,
    code: codeOf(e),
    badge: `rejected · ${codeOf(e)}`,
    message: messageOf(e),
    done: false,
    args: JSON.stringify(args, null, 2),
    json: JSON.stringify({ name: e && e.name, code: codeOf(e), message: messageOf(e) }, null, 2),
  });
}

/** Shows that the raw text is not JSON: nothing was sent to mnemo. */
function renderParseError(raw, e) {
  showResult({
    success: false,
    code: "",
    badge: "not sent · invalid JSON",
    message: `The raw call is not valid JSON (${messageOf(e)}); nothing was sent to mnemo.`,
    done: false,
    args: raw,
    json: "",
  });
}

function showResult({ success, code, badge, message, done, args, json, staged = false, notification = "" }) {
  state.seq += 1;
  const panel = $("tool-result");
  panel.dataset.success = String(success);
  panel.dataset.code = code;
  $("tool-result-empty").hidden = true;
  $("tool-result-body").hidden = false;
  const badgeEl = $("tool-result-badge");
  badgeEl.textContent = badge;
  badgeEl.className = `badge ${staged ? "staged" : success ? "ok" : "fail"}`;
  $("tool-result-message").textContent = message;
  $("tool-result-notification").textContent = notification;
  $("tool-result-notification").hidden = notification === "";
  $("tool-result-live").textContent = `${badge}: ${message}`;
  $("tool-result-done").hidden = !done;
  $("tool-result-args").textContent = args;
  $("tool-result-json").textContent = json;
  $("tool-result-json").hidden = json === "";
  panel.dataset.seq = String(state.seq);
}

// ---------------------------------------------------------------- write approval

/** Renders the pending panel: the switch, the badge and one item per staged write. */
function renderPending(items, approval) {
  const toggle = $("approval-toggle");
  toggle.checked = approval.enabled;
  toggle.disabled = false;
  $("approval-source").textContent = approval.source === "override"
    ? "(switched here; kept with this memory)"
    : "(from the configuration)";
  // The badge reads the synchronous count, as a host's badge would.
  const count = state.memory.pendingCount();
  const badge = $("pending-badge");
  badge.textContent = formatNumber(count);
  badge.dataset.count = String(count);
  badge.setAttribute("aria-label", `${plural(count, "write", "writes")} waiting`);
  const list = $("pending-list");
  list.replaceChildren(...items.map(pendingItem));
  list.hidden = items.length === 0;
  $("pending-empty").hidden = items.length !== 0;
  $("pending-all").hidden = items.length === 0;
}

/** Whether a staged write can be edited before approving: one add or replace. */
const editable = (item) => !item.batch && item.operations.length === 1 && item.operations[0].action !== "remove";

/** One staged write: what it would do, where it came from, and its buttons. */
function pendingItem(item) {
  const li = document.createElement("li");
  li.dataset.id = item.id;
  li.dataset.state = item.state;
  const meta = document.createElement("p");
  meta.className = "hit-meta";
  const parts = [item.id, item.origin];
  if (item.agent) parts.push(`agent ${item.agent}`);
  parts.push(new Date(item.created).toLocaleTimeString());
  if (item.batch) parts.push(`batch of ${item.operations.length}`);
  meta.append(span("hit-store", parts.join(" · ")));
  if (item.state === "needs_review") meta.append(" ", span("mark", "needs review"));
  const text = document.createElement("pre");
  text.className = "entry-text";
  text.textContent = item.summary;
  li.append(meta, text);
  if (item.reason) {
    const why = document.createElement("p");
    why.className = "warning";
    why.textContent = `Not applied: ${item.reason}`;
    li.append(why);
  }
  const actions = document.createElement("div");
  actions.className = "entry-actions";
  actions.append(smallButton("Approve", `Approve ${item.id}`, () => approveStaged(item.id)));
  if (editable(item)) actions.append(smallButton("Edit…", `Edit ${item.id} before approving`, () => openEdit(li, item)));
  actions.append(smallButton("Reject", `Reject ${item.id}`, () => rejectStaged(item.id)));
  li.append(actions);
  return li;
}

/** Opens the edit box of a staged add or replace, prefilled with its text. */
function openEdit(li, item) {
  if (li.querySelector(".pending-edit")) return;
  const form = document.createElement("form");
  form.className = "pending-edit";
  form.noValidate = true;
  const field = document.createElement("div");
  field.className = "field";
  const label = document.createElement("label");
  label.htmlFor = `pending-edit-${item.id}`;
  label.textContent = `Text to save instead (${item.id})`;
  const textarea = document.createElement("textarea");
  textarea.id = `pending-edit-${item.id}`;
  textarea.rows = 3;
  textarea.spellcheck = false;
  textarea.value = item.operations[0].content ?? "";
  field.append(label, textarea);
  const actions = document.createElement("div");
  actions.className = "actions";
  const save = document.createElement("button");
  save.type = "submit";
  save.className = "primary small";
  save.textContent = "Approve edited";
  const cancel = smallButton("Cancel", `Cancel editing ${item.id}`, () => form.remove());
  actions.append(save, cancel);
  form.append(field, actions);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    approveStaged(item.id, textarea.value);
  });
  submitOnCtrlEnter(textarea);
  li.append(form);
  textarea.focus();
}

/** Says what an approve did: applied, the chat line, and what stays for review. */
function describeApproved(report) {
  const lines = [];
  if (report.applied.length > 0) lines.push(`Applied ${report.applied.join(", ")}.`);
  if (report.notification) lines.push(report.notification);
  for (const f of report.failed) lines.push(`${f.id} not applied (${f.code}): ${f.reason} It stays for review.`);
  if (lines.length === 0) lines.push("Nothing was waiting.");
  return lines.join(" ");
}

/** Approves one staged write (with an edited text) or "all", then shows the outcome. */
function approveStaged(id, content) {
  return pendingCall(async () => {
    const report = await state.memory.approve(id, content === undefined ? undefined : { content });
    return describeApproved(report);
  });
}

function rejectStaged(id) {
  return pendingCall(async () => {
    const report = await state.memory.reject(id);
    return report.rejected.length === 0
      ? "Nothing was waiting."
      : `Rejected ${report.rejected.join(", ")}; ${report.rejected.length === 1 ? "its text is" : "their texts are"} kept in the history.`;
  });
}

async function onApprovalToggle(ev) {
  const on = ev.currentTarget.checked;
  await pendingCall(async () => {
    await state.memory.setApproval(on);
    return on
      ? "Write approval is on: writes are staged until you approve them."
      : "Write approval is off: writes are saved at once (what is staged stays staged).";
  });
}

/** Runs a pending-panel call, refreshes everything, then shows its outcome. */
function pendingCall(fn) {
  return busy(async () => {
    let show;
    try {
      const text = await fn();
      show = () => showMessage($("pending-status"), text);
    } catch (e) {
      show = () => showError($("pending-status"), e);
    }
    await refreshStores();
    show();
    $("pending").dataset.seq = String(Number($("pending").dataset.seq ?? 0) + 1);
  });
}

// ---------------------------------------------------------------- activity log

/** Renders today's activity log, newest first. */
function renderActivity(records) {
  const shown = records.slice(-ACTIVITY_SHOWN).reverse();
  const list = $("activity-list");
  list.replaceChildren(...shown.map(activityItem));
  list.hidden = shown.length === 0;
  $("activity-empty").hidden = shown.length !== 0;
  const more = records.length - shown.length;
  $("activity-more").hidden = more === 0;
  $("activity-more").textContent = more > 0 ? `and ${plural(more, "earlier record", "earlier records")}` : "";
}

/** One record: when (UTC), who and what, then its text. */
function activityItem(record) {
  const li = document.createElement("li");
  li.dataset.what = record.what;
  const meta = document.createElement("p");
  meta.className = "hit-meta";
  meta.append(span("hit-store", record.what), ` · ${record.time} UTC · ${record.agent ?? "no agent named"}`);
  const text = document.createElement("pre");
  text.className = "entry-text";
  text.textContent = record.text;
  li.append(meta, text);
  return li;
}

/** Runs curation without a model (this page has none) and shows its report's metrics. */
async function onCurate() {
  await busy(async () => {
    let show;
    try {
      const report = await state.memory.curate();
      show = () => renderCurated(report);
    } catch (e) {
      show = () => {
        showError($("curate-status"), e);
        $("curate-report").hidden = true;
      };
    }
    await refreshStores();
    show();
    $("activity").dataset.seq = String(Number($("activity").dataset.seq) + 1);
  });
}

/** Shows what a curation did: how its extraction went, then the metrics. */
function renderCurated(report) {
  const { status, reason } = report.extraction;
  showMessage($("curate-status"), `Curated. Extraction ${status}${reason ? `: ${reason.replace(/\.?$/, ".")}` : "."}`);
  const rows = CURATION_METRICS.flatMap(([key, label]) => {
    const dt = document.createElement("dt");
    dt.textContent = label;
    const dd = document.createElement("dd");
    dd.dataset.metric = key;
    dd.textContent = formatNumber(report[key]);
    return [dt, dd];
  });
  $("curate-report").replaceChildren(...rows);
  $("curate-report").hidden = false;
}

// ---------------------------------------------------------------- note search

/** Imports the sample notes into MEMORY.md (USER.md is left alone). */
async function onLoadSamples() {
  const status = $("samples-status");
  await busy(async () => {
    let show;
    try {
      const after = await state.memory.importMarkdown({ "MEMORY.md": SAMPLE_MEMORY_MD });
      const s = after.memory;
      const mode = s.mode === "searched"
        ? `MEMORY is now searched (over its ${formatNumber(s.verbatim_budget)}-char verbatim budget)`
        : "MEMORY still fits its verbatim budget";
      show = () => showMessage(status,
        `Loaded ${plural(s.entries, "sample note", "sample notes")} into MEMORY.md ` +
        `(${plural(s.chars, "char", "chars")}): ${mode}. Start a new session to see the digest ` +
        "in the system prompt, then try a search or a user message below.");
    } catch (e) {
      show = () => showError(status, e);
    }
    // As after a tool call: the stores are re-read before the outcome is shown.
    await refreshStores();
    show();
  });
}

async function onSearch(ev) {
  ev.preventDefault();
  const query = $("search-query").value;
  const target = $("search-target").value;
  const status = $("search-status");
  const list = $("search-results");
  if (query.trim() === "") {
    showMessage(status, "Type what to look for first.");
    list.hidden = true;
    $("search-query").focus();
    return;
  }
  await busy(async () => {
    try {
      const hits = await state.memory.search(query, target ? { target } : {});
      renderHits(query, target, hits);
    } catch (e) {
      list.replaceChildren();
      list.hidden = true;
      showError(status, e);
    }
    state.searchSeq += 1;
    $("search-output").dataset.seq = String(state.searchSeq);
  });
}

/** Shows search results, best first. */
function renderHits(query, target, hits) {
  const where = target ? storeOf(target).label : "both stores";
  const status = $("search-status");
  if (hits.length === 0) showMessage(status, `No note in ${where} matches “${query}”.`);
  else showMessage(status, `${plural(hits.length, "note", "notes")} in ${where} for “${query}”, best first.`);
  const list = $("search-results");
  list.replaceChildren(...hits.map(hitItem));
  list.hidden = hits.length === 0;
}

/** One search result: store, index, score and the note. */
function hitItem(hit) {
  const li = document.createElement("li");
  li.className = "hit";
  li.dataset.target = hit.target;
  li.dataset.index = String(hit.index);
  li.dataset.score = String(hit.score);
  const meta = document.createElement("p");
  meta.className = "hit-meta";
  const span = (className, text) => {
    const el = document.createElement("span");
    el.className = className;
    el.textContent = text;
    return el;
  };
  meta.append(
    span("hit-store", storeOf(hit.target)?.label ?? hit.target),
    " · ",
    span("hit-index", `entry ${hit.index + 1} (index ${hit.index})`),
    " · ",
    span("hit-score", `score ${hit.score.toFixed(2)}`),
  );
  const text = document.createElement("pre");
  text.className = "entry-text";
  text.textContent = hit.text;
  li.append(meta, text);
  return li;
}

// ---------------------------------------------------------------- recall

/** The recall form's options. */
function recallOptions() {
  const options = { explain: true };
  const min = Number($("recall-min").value);
  if (min > 0) options.minImportance = min;
  const category = $("recall-category").value;
  if (category) options.category = category;
  return options;
}

async function onRecall(ev) {
  ev?.preventDefault();
  const query = $("recall-query").value;
  const status = $("recall-status");
  const list = $("recall-results");
  if (query.trim() === "") {
    showMessage(status, "Type what to recall first.");
    list.hidden = true;
    $("recall-query").focus();
    return;
  }
  await busy(async () => {
    try {
      const results = await state.memory.recall(query, recallOptions());
      renderRecalled(query, results);
    } catch (e) {
      list.replaceChildren();
      list.hidden = true;
      showError(status, e);
    }
    state.recallSeq += 1;
    $("recall-output").dataset.seq = String(state.recallSeq);
  });
}

/** Shows recall results, best first, and how they were ranked. */
function renderRecalled(query, results) {
  const status = $("recall-status");
  const how = results.mode === "hybrid" ? "hybrid (semantic + keyword)" : "keyword";
  const skipped = results.skipped ? ` The embedder was skipped: ${results.skipped}` : "";
  if (results.length === 0) showMessage(status, `Nothing recalled for “${query}” (${how}).${skipped}`);
  else showMessage(status, `${plural(results.length, "note", "notes")} for “${query}”, ranked by ${how}.${skipped}`);
  const list = $("recall-results");
  list.replaceChildren(...results.map(recallItem));
  list.hidden = results.length === 0;
}

/** `+0.08`, `-0.02`. */
const signed = (x) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;

/** One recall result: its metadata, every part of its score, and the pin and importance controls. */
function recallItem(hit) {
  const li = document.createElement("li");
  li.className = "hit recall-hit";
  li.dataset.id = hit.id;
  li.dataset.relevance = String(hit.relevance);
  const meta = document.createElement("p");
  meta.className = "hit-meta";
  meta.append(
    span("hit-store", storeOf(hit.target)?.label ?? hit.target),
    " · ",
    span("hit-category", `[${hit.category}]`),
    " · ",
    span("hit-importance", `importance ${hit.importance.toFixed(2)}`),
    " · ",
    span("hit-score", `relevance ${hit.relevance.toFixed(2)}`),
    ...(hit.pinned ? [" · ", span("hit-pinned", "📌 pinned")] : []),
  );
  const text = document.createElement("pre");
  text.className = "entry-text";
  text.textContent = hit.content;
  const e = hit.explain;
  const parts = document.createElement("p");
  parts.className = "hit-explain mono";
  parts.dataset.testid = "recall-explain";
  if (e) {
    const relevance =
      e.semantic === undefined
        ? `keyword ${e.keyword.toFixed(2)} (BM25 ${e.bm25.toFixed(2)})`
        : `hybrid ${e.relevance.toFixed(2)} of semantic ${e.semantic.toFixed(2)}, keyword ${e.keyword.toFixed(2)}`;
    parts.textContent =
      `(${relevance} ${signed(e.boost)} importance) × decay ${e.decay.toFixed(2)}` +
      ` (${e.pinned ? "pinned: none" : `${e.age_days.toFixed(1)} days old`}) = ${e.adjusted.toFixed(2)}`;
  }
  const actions = document.createElement("div");
  actions.className = "entry-actions";
  const where = `${storeOf(hit.target)?.label ?? hit.target} note “${hit.content.slice(0, 40)}”`;
  const importance = document.createElement("input");
  importance.type = "number";
  importance.min = "0";
  importance.max = "1";
  importance.step = "0.05";
  importance.value = String(hit.importance);
  importance.className = "importance-input";
  importance.setAttribute("aria-label", `Importance of ${where}`);
  const pin = smallButton(hit.pinned ? "Pinned" : "Pin", `Pin ${where}`, () =>
    changeMeta(() => state.memory.pin(hit.content, { target: hit.target })),
  );
  pin.disabled = hit.pinned;
  actions.append(
    pin,
    importance,
    smallButton("Set importance", `Set importance of ${where}`, () =>
      changeMeta(() => state.memory.markImportant(hit.content, Number(importance.value), { target: hit.target })),
    ),
  );
  li.append(meta, text, parts, actions);
  return li;
}

/** Runs a metadata change (pin, markImportant), says what it did, and recalls again. */
async function changeMeta(fn) {
  const status = $("recall-status");
  let said = "";
  await busy(async () => {
    try {
      said = (await fn()).message;
    } catch (e) {
      showError(status, e);
      said = null;
    }
  });
  if (said === null) return;
  await onRecall();
  $("recall-status").prepend(`${said[0].toUpperCase()}${said.slice(1)}. `);
}

async function onContext(ev) {
  ev.preventDefault();
  const message = $("context-message").value;
  const status = $("context-status");
  const pre = $("context-block");
  if (message.trim() === "") {
    showMessage(status, "Type a user message first.");
    pre.hidden = true;
    $("context-message").focus();
    return;
  }
  await busy(async () => {
    try {
      const block = await state.memory.context(message);
      renderContext(block, await state.memory.status());
    } catch (e) {
      pre.textContent = "";
      pre.hidden = true;
      delete $("context-output").dataset.empty;
      showError(status, e);
    }
    state.contextSeq += 1;
    $("context-output").dataset.seq = String(state.contextSeq);
  });
}

/** Shows exactly what context() returned, or why it is empty. */
function renderContext(block, status) {
  const pre = $("context-block");
  const out = $("context-output");
  pre.textContent = block;
  pre.hidden = block === "";
  if (block !== "") {
    const notes = block.slice(CONTEXT_OPEN.length, -CONTEXT_CLOSE.length).split(DELIMITER).length;
    delete out.dataset.empty;
    showMessage($("context-status"),
      `Append this block to the user's message: ${plural(notes, "note", "notes")}, ` +
      `${plural(charCount(block), "char", "chars")}.`);
    return;
  }
  const searched = STORES.filter((s) => status[s.target].enabled && status[s.target].mode === "searched");
  if (searched.length === 0) {
    out.dataset.empty = "fits";
    showMessage($("context-status"),
      "Empty: every store still fits in the prompt (each is under its verbatim budget), so all " +
      "of memory is already in the system prompt and there is nothing to attach. Load the sample " +
      "notes to make MEMORY searched.");
  } else {
    out.dataset.empty = "no-match";
    const names = searched.map((s) => `${s.label} (${s.file})`).join(" and ");
    showMessage($("context-status"),
      `Empty: nothing matched. No note in the searched ${searched.length === 1 ? "store" : "stores"} ` +
      `${names} is relevant to this message.`);
  }
}

// ---------------------------------------------------------------- sectors

/**
 * Every note of a whole sectors report (one listing every note), by node id:
 * `{entry, sector, text, out, in}` with `out`/`in` the linked notes, as
 * mnemo's journey() resolved them (the report and the journey name notes by
 * the same node ids), so `out.length` and `in.length` are the report's `out`
 * and `in`. The page parses no links itself.
 */
function noteGraph(report, journey, files) {
  const texts = Object.fromEntries(STORES.map((s) => [s.target, splitEntries(files[s.file])]));
  const notes = new Map(
    report.sectors.flatMap((sector) => sector.entries.map((entry) => [entry.node, {
      entry,
      sector: sector.name,
      text: texts[entry.target][entry.index] ?? "",
      out: [],
      in: [],
    }])),
  );
  const inStoreOrder = (ids) => ids
    .map((id) => notes.get(id))
    .filter(Boolean)
    .sort((a, b) => storeRank(a.entry.target) - storeRank(b.entry.target) || a.entry.index - b.entry.index);
  for (const node of journey.nodes) {
    const note = notes.get(node.id);
    if (!note) continue;
    note.out = inStoreOrder(node.out);
    note.in = inStoreOrder(node.in);
  }
  return notes;
}

/** A store's position in STORES (MEMORY.md first). */
const storeRank = (target) => STORES.findIndex((s) => s.target === target);

/** Calls to sectors() so far: only the latest one's answer is shown. */
let sectorsCalls = 0;

/** Re-reads the sectors report (the whole one, and the chosen sector's) and renders it. */
async function refreshSectors() {
  const call = ++sectorsCalls;
  let all;
  let journey;
  let shown;
  let error = null;
  try {
    [all, journey] = await Promise.all([state.memory.sectors({ limit: SECTORS_LIMIT }), state.memory.journey()]);
    if (call === sectorsCalls) {
      renderSectorFilter(all);
      const sector = $("sectors-filter").value;
      shown = sector === "" ? all : await state.memory.sectors({ sector, limit: SECTORS_LIMIT });
    }
  } catch (e) {
    error = e;
  }
  if (call !== sectorsCalls) return;
  if (error) {
    showError($("sectors-status"), error);
  } else {
    showError($("sectors-status"), null);
    state.sectors.report = all;
    state.sectors.notes = noteGraph(all, journey, state.liveFiles);
    renderSectors(all, shown);
    renderStarMap(journey, all);
  }
  state.sectorsSeq += 1;
  $("sectors-output").dataset.seq = String(state.sectorsSeq);
}

/** The filter's options: all sectors, then each sector of the whole report; keeps the choice. */
function renderSectorFilter(report) {
  const select = $("sectors-filter");
  const chosen = select.value;
  const names = report.sectors.map((s) => s.name);
  select.replaceChildren(
    new Option("all sectors", ""),
    ...report.sectors.map((s) => new Option(`${s.name} (${plural(s.count, "note", "notes")})`, s.name)),
  );
  select.value = names.includes(chosen) ? chosen : "";
}

/** Shows a report: `shown` (maybe one sector) drawn to the scale of `all`. */
function renderSectors(all, shown) {
  const max = Math.max(1, ...all.sectors.map((s) => s.count));
  $("sectors-list").replaceChildren(...shown.sectors.map((s, i) => sectorBlock(s, i, max)));
  $("sectors-empty").hidden = all.summary.memories !== 0;
  renderSectorsSummary(shown.summary);
  if (state.sectors.open !== null && state.sectors.notes.has(state.sectors.open)) renderNote();
  else showSectorList();
}

/** One sector: its header (name, count, bar, ◆notes ⇄links) and its notes. */
function sectorBlock(sector, i, max) {
  const block = document.createElement("section");
  block.className = "sector";
  block.dataset.sector = sector.name;
  const headingId = `sector-${i}-heading`;
  block.setAttribute("aria-labelledby", headingId);

  const head = document.createElement("h3");
  head.className = "sector-head";
  head.id = headingId;
  const bar = span("sector-bar", "");
  bar.setAttribute("aria-hidden", "true");
  const fill = span("sector-bar-fill", "");
  fill.style.setProperty("--share", String(sector.count / max));
  bar.append(fill);
  const stats = span("sector-stats", `◆${sector.count} ⇄${sector.links}`);
  stats.title = `${plural(sector.count, "note", "notes")}; ${plural(sector.links, "link goes", "links go")} out of them`;
  head.append(span("sector-name", sector.name), span("sector-count", String(sector.count)), bar, stats);

  const list = document.createElement("ul");
  list.className = "sector-entries";
  list.setAttribute("aria-labelledby", headingId);
  list.append(...sector.entries.map((entry) => {
    const li = document.createElement("li");
    li.append(entryButton(entry));
    return li;
  }));
  block.append(head, list);
  if (sector.more > 0) {
    const more = document.createElement("p");
    more.className = "sector-more";
    more.textContent = `… ${sector.more} more`;
    block.append(more);
  }
  return block;
}

/** A span with a class and a text. */
function span(className, text) {
  const el = document.createElement("span");
  el.className = className;
  el.textContent = text;
  return el;
}

/** The words for a note's ⚑ flag: which link targets no note has yet. */
const danglingTitle = (dangling) =>
  `${plural(dangling.length, "link points", "links point")} at notes that don't exist yet: ${dangling.join(", ")}`;

/** One note of a sector: ◆ title →out ←in, ⚑ dangling, inherited and pinned marks; opens the note. */
function entryButton(entry) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "sector-entry";
  button.dataset.node = entry.node;
  const mark = span("sector-mark", entry.inherited ? "◇" : "◆");
  mark.setAttribute("aria-hidden", "true");
  button.append(mark, span("sector-entry-title", entry.title), span("sector-entry-links", `→${entry.out} ←${entry.in}`));
  const label = [`${entry.title}: ${plural(entry.out, "link", "links")} out, ${formatNumber(entry.in)} in`];
  if (entry.dangling.length > 0) {
    const flag = span("flag", `⚑${entry.dangling.length}`);
    flag.title = danglingTitle(entry.dangling);
    button.append(flag);
    label.push(danglingTitle(entry.dangling));
  }
  if (entry.inherited) {
    const inherited = span("mark inherited", "inherited");
    inherited.title = "No #tag of its own: the sector comes through its links";
    button.append(inherited);
    label.push("sector inherited through links");
  }
  if (entry.pinned) {
    const pinned = span("mark pinned", "pinned");
    pinned.title = "#pinned: kept in the prompt's digest";
    button.append(pinned);
    label.push("pinned");
  }
  button.setAttribute("aria-label", label.join("; "));
  button.addEventListener("click", () => openNote(entry.node));
  return button;
}

/** The summary under the report, in the words of `mnemo sectors` (numbers unformatted, as there). */
function renderSectorsSummary(s) {
  const lines = [
    [`${s.sectors} ${s.sectors === 1 ? "sector" : "sectors"} · ${s.memories} ${s.memories === 1 ? "memory" : "memories"} · ` +
      `${s.links} note↔note ${s.links === 1 ? "link" : "links"}`, "sectors-totals"],
    [`${s.linked}/${s.memories} notes are linked to another note ` +
      `(${s.memories === 0 ? 0 : Math.floor((s.linked * 100 + Math.floor(s.memories / 2)) / s.memories)}%)`, "sectors-linked"],
  ];
  if (s.dangling > 0) {
    lines.push([`⚑ ${s.dangling} ${s.dangling === 1 ? "link points" : "links point"} at notes that don't exist yet`, "sectors-dangling flag"]);
  }
  for (const c of s.collisions) {
    lines.push([`⚠ title "${c.title}" is shared by ${c.nodes.join(", ")}; links go to ${c.nodes[0]}`, "sectors-collision"]);
  }
  $("sectors-summary").replaceChildren(...lines.map(([text, className]) => {
    const p = document.createElement("p");
    p.className = className;
    p.textContent = text;
    return p;
  }));
}

/** Opens a note in the detail view and focuses its title. */
function openNote(node) {
  state.sectors.open = node;
  renderNote();
  $("sector-note-title").focus();
}

/** Shows the open note: its text, the notes it links to (and ⚑ missing ones), the notes linking to it. */
function renderNote() {
  const note = state.sectors.notes.get(state.sectors.open);
  const { entry } = note;
  const view = $("sector-note");
  view.dataset.node = entry.node;
  $("sector-note-title").textContent = entry.title || "(untitled note)";
  const store = storeOf(entry.target);
  const meta = [
    `${store?.label ?? entry.target} · entry ${entry.index + 1} (index ${entry.index})`,
    `sector ${note.sector}${entry.inherited ? " (inherited through links)" : ""}`,
    entry.node,
  ];
  if (entry.pinned) meta.splice(2, 0, "pinned");
  $("sector-note-meta").textContent = meta.join(" · ");
  $("sector-note-text").textContent = note.text;

  const out = [...note.out.map(noteLinkItem), ...entry.dangling.map(danglingItem)];
  $("sector-note-out").replaceChildren(...(out.length ? out : [noLinksItem("This note links to no other note.")]));
  $("sector-note-out").dataset.count = String(note.out.length);
  const inc = note.in.map(noteLinkItem);
  $("sector-note-in").replaceChildren(...(inc.length ? inc : [noLinksItem("No note links here.")]));
  $("sector-note-in").dataset.count = String(note.in.length);

  $("sectors-list").hidden = true;
  $("sectors-empty").hidden = true;
  view.hidden = false;
}

/** A linked note: its title and sector; moves the detail view to it. */
function noteLinkItem(other) {
  const li = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "note-link";
  button.dataset.node = other.entry.node;
  button.append(span("note-link-title", other.entry.title), " ", span("note-link-sector", other.sector));
  button.setAttribute("aria-label", `${other.entry.title} (sector ${other.sector})`);
  button.addEventListener("click", () => openNote(other.entry.node));
  li.append(button);
  return li;
}

/** A link target no note has: shown with ⚑, nothing to open. */
function danglingItem(target) {
  const li = document.createElement("li");
  li.className = "dangling";
  li.title = `No note is titled “${target}” yet`;
  li.append(span("flag", "⚑"), " ", span("note-link-title", target), " ", span("note-link-sector", "(no such note yet)"));
  return li;
}

function noLinksItem(text) {
  const li = document.createElement("li");
  li.className = "empty";
  li.textContent = text;
  return li;
}

/** Leaves the detail view for the list. */
function showSectorList() {
  state.sectors.open = null;
  $("sector-note").hidden = true;
  delete $("sector-note").dataset.node;
  $("sectors-list").hidden = false;
  $("sectors-empty").hidden = state.sectors.report === null || state.sectors.report.summary.memories !== 0;
}

/** Back to the list, focusing the note that was open (or the filter when it is not listed). */
function closeNote() {
  const node = state.sectors.open;
  showSectorList();
  const entry = [...$("sectors-list").querySelectorAll(".sector-entry")].find((b) => b.dataset.node === node);
  (entry ?? $("sectors-filter")).focus();
}

async function onSectorFilter() {
  showSectorList();
  await busy(refreshSectors);
}

// ---------------------------------------------------------------- star map

/** The star of the current layout with node id `id`. */
const starOf = (id) => state.starmap.model?.stars.find((s) => s.id === id) ?? null;

/** A first_seen time as the scrubber shows it; 0 is an entry from before dates were kept. */
function formatTime(ms) {
  if (!ms) return "undated";
  return new Date(ms).toLocaleString("en-GB", {
    day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit",
  });
}

/**
 * Draws the star map of a journey and the whole sectors report (the layout
 * is starmap.js's; sectors, links and membership are mnemo's), keeps the
 * time and the chosen star, and marks the stars that are new since the last
 * drawing so they appear with a flash.
 */
function renderStarMap(journey, report) {
  const map = state.starmap;
  const svg = $("starmap-svg");
  const before = map.model ? new Set(map.model.stars.map((s) => s.id)) : null;
  try {
    map.model = layout(journey, report, { width: STARMAP_WIDTH, height: STARMAP_HEIGHT });
    render(svg, map.model);
  } catch (e) {
    showError($("starmap-info"), e);
    return;
  }
  const empty = map.model.stars.length === 0;
  svg.toggleAttribute("hidden", empty); // (an SVG element has no `hidden` property)
  $("starmap-empty").hidden = !empty;
  if (before) {
    for (const g of svg.querySelectorAll(".starmap-star")) {
      if (!before.has(g.dataset.node)) g.classList.add("is-appearing");
    }
  }
  if (!starOf(map.selected)) map.selected = null;
  if (empty) stopReplay();
  syncScrubber();
  $("starmap").dataset.seq = String(Number($("starmap").dataset.seq) + 1);
}

/** The timeline step shown: the last one at or before the chosen time (the last one when live). */
function stepShown() {
  const { model, time } = state.starmap;
  const last = model.steps.length - 1;
  if (time === null) return Math.max(0, last);
  let i = 0;
  while (i < last && model.steps[i + 1] <= time) i += 1;
  return i;
}

/** Sets the scrubber to the layout's timeline and shows the step it points at. */
function syncScrubber() {
  const steps = state.starmap.model.steps;
  const range = $("starmap-time");
  range.max = String(Math.max(0, steps.length - 1));
  range.value = String(stepShown());
  range.disabled = steps.length < 2;
  $("starmap-play").disabled = steps.length < 2;
  showStep(stepShown());
}

/** Goes to step `i` of the timeline (the last step is "now": later writes show as they come). */
function goToStep(i) {
  const steps = state.starmap.model.steps;
  state.starmap.time = i >= steps.length - 1 ? null : steps[i];
  $("starmap-time").value = String(i);
  showStep(i);
}

/** Shows the stars and links of step `i`, and says when that was and how much there was. */
function showStep(i) {
  const map = state.starmap;
  const { model } = map;
  const svg = $("starmap-svg");
  const time = model.steps.length === 0 ? Infinity : model.steps[i];
  const shown = showTime(svg, model, time);
  if (map.selected && Number(svg.querySelector(`.starmap-star[data-node="${CSS.escape(map.selected)}"]`)?.dataset.time) > time) {
    map.selected = null;
  }
  select(svg, model, map.selected);
  renderStarInfo();
  svg.dataset.step = String(i);
  const range = $("starmap-time");
  if (model.steps.length === 0) {
    $("starmap-date").textContent = "";
    range.removeAttribute("aria-valuetext");
    return;
  }
  const links = Number(svg.dataset.links);
  const when = formatTime(model.steps[i]);
  $("starmap-date").textContent =
    `${when} · step ${i + 1} of ${model.steps.length} · ${shown} of ${plural(model.stars.length, "star", "stars")}, ` +
    `${plural(links, "link", "links")}`;
  range.setAttribute("aria-valuetext", `${when}: ${plural(shown, "star", "stars")}`);
}

function onScrub() {
  stopReplay();
  goToStep(Number($("starmap-time").value));
}

/** Play replays the timeline from its start (or from the step shown), one step a tick; Pause stops. */
function toggleReplay() {
  const map = state.starmap;
  if (map.timer !== null) {
    stopReplay();
    return;
  }
  if (map.model.steps.length < 2) return;
  if (stepShown() >= map.model.steps.length - 1) goToStep(0);
  map.timer = setInterval(() => {
    const last = map.model.steps.length - 1;
    const next = Math.min(stepShown() + 1, last);
    goToStep(next);
    if (next >= last) stopReplay();
  }, STARMAP_TICK);
  const button = $("starmap-play");
  button.textContent = "⏸ Pause";
  button.dataset.playing = "true";
}

function stopReplay() {
  const map = state.starmap;
  if (map.timer !== null) clearInterval(map.timer);
  map.timer = null;
  const button = $("starmap-play");
  button.textContent = "▶ Play";
  button.dataset.playing = "false";
}

/** Chooses a star (its neighbours light up), or none; choosing the chosen one again lets it go. */
function chooseStar(id) {
  const map = state.starmap;
  map.selected = id !== null && id === map.selected ? null : id;
  select($("starmap-svg"), map.model, map.selected);
  renderStarInfo();
}

/** Says what the chosen star links to and is linked from, with a way to open a note in Sectors. */
function renderStarInfo() {
  const info = $("starmap-info");
  const star = starOf(state.starmap.selected);
  info.classList.remove("error");
  delete info.dataset.code;
  if (!star) {
    info.dataset.node = "";
    info.replaceChildren(span("field-hint", state.starmap.model?.stars.length
      ? "Choose a star to light up its links: → the notes it links to, ← the notes that link to it."
      : ""));
    return;
  }
  info.dataset.node = star.id;
  const title = document.createElement("strong");
  title.textContent = star.node.title || "(untitled)";
  const head = document.createElement("p");
  head.append(title, ` · ${kindLabel(star)} · sector ${star.sector}`);
  if (star.node.pinned) head.append(" · pinned");
  if (star.node.blocked) head.append(" · blocked by the security scanner");
  const titles = (ids) => ids.map((id) => starOf(id)?.node.title || id).join(", ");
  const line = (className, label, ids) => {
    const p = document.createElement("p");
    p.className = className;
    p.textContent = `${label} ${ids.length ? titles(ids) : "none"}`;
    return p;
  };
  const lines = [head, line("starmap-out", "→ links to:", star.out), line("starmap-in", "← linked from:", star.in)];
  const dangling = star.node.dangling ?? [];
  if (dangling.length) {
    const p = document.createElement("p");
    p.className = "flag";
    p.textContent = `⚑ links to notes that don't exist yet: ${dangling.join(", ")}`;
    lines.push(p);
  }
  if (state.sectors.notes.has(star.id)) {
    const actions = document.createElement("div");
    actions.className = "actions";
    actions.append(smallButton("Open in Sectors", `Open ${star.node.title} in the sectors panel`, () => {
      $("sectors").scrollIntoView({ block: "start" });
      openNote(star.id);
    }));
    lines.push(actions);
  }
  info.replaceChildren(...lines);
}

/** Shows the hover/focus card of star element `g`, above it. */
function showStarTip(g) {
  const star = starOf(g.dataset.node);
  if (!star) return;
  const tip = $("starmap-tip");
  const title = document.createElement("strong");
  title.textContent = star.node.title || "(untitled)";
  const lines = [
    `${kindLabel(star)} · sector ${star.sector}`,
    `→${star.out.length} out · ←${star.in.length} in`,
    `first seen ${formatTime(star.time)}`,
  ];
  if (star.node.description) lines.splice(1, 0, star.node.description);
  if ((star.node.dangling ?? []).length) lines.push(`⚑ ${star.node.dangling.length} to notes not written yet`);
  if (star.node.pinned) lines.push("pinned");
  if (star.node.blocked) lines.push("blocked: its title is hidden");
  tip.replaceChildren(title, ...lines.map((text) => span("starmap-tip-line", text)));
  tip.dataset.node = star.id;
  tip.hidden = false;
  const frame = $("starmap-frame").getBoundingClientRect();
  const body = g.querySelector(".starmap-body").getBoundingClientRect();
  const half = tip.offsetWidth / 2;
  const x = body.left + body.width / 2 - frame.left;
  tip.style.left = `${Math.min(Math.max(x, half + 4), frame.width - half - 4)}px`;
  tip.style.top = `${body.top - frame.top}px`;
}

function hideStarTip() {
  $("starmap-tip").hidden = true;
  delete $("starmap-tip").dataset.node;
}

/** The stars shown now, in drawing order (sector by sector, oldest first). */
const visibleStars = () => [...$("starmap-svg").querySelectorAll(".starmap-star:not([display])")];

/** Keys on a star: Enter or Space choose it, Escape lets go, arrows and Home/End move between stars. */
function onStarKey(ev) {
  const g = ev.target.closest(".starmap-star");
  if (ev.key === "Escape") {
    ev.preventDefault();
    chooseStar(null);
    return;
  }
  if (!g) return;
  if (ev.key === "Enter" || ev.key === " ") {
    ev.preventDefault();
    chooseStar(g.dataset.node);
    return;
  }
  const stars = visibleStars();
  const at = stars.indexOf(g);
  const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: stars.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  stars[Math.min(Math.max(to, 0), stars.length - 1)]?.focus();
}

function wireStarMap() {
  const svg = $("starmap-svg");
  svg.addEventListener("click", (ev) => chooseStar(ev.target.closest(".starmap-star")?.dataset.node ?? null));
  svg.addEventListener("keydown", onStarKey);
  svg.addEventListener("pointerover", (ev) => {
    const g = ev.target.closest(".starmap-star");
    if (g) showStarTip(g);
  });
  svg.addEventListener("pointerout", (ev) => {
    const g = ev.target.closest(".starmap-star");
    if (g && !g.contains(ev.relatedTarget) && document.activeElement !== g) hideStarTip();
  });
  svg.addEventListener("focusin", (ev) => {
    const g = ev.target.closest(".starmap-star");
    if (g) showStarTip(g);
  });
  svg.addEventListener("focusout", hideStarTip);
  svg.addEventListener("animationend", (ev) => ev.target.closest(".starmap-star")?.classList.remove("is-appearing"));
  $("starmap-time").addEventListener("input", onScrub);
  $("starmap-play").addEventListener("click", toggleReplay);
}

// ---------------------------------------------------------------- frozen prompt

function showPrompt(prompt) {
  const pre = $("system-prompt");
  pre.textContent = prompt;
  pre.hidden = prompt === "";
  $("system-prompt-empty").hidden = prompt !== "";
  const time = new Date().toLocaleTimeString();
  $("session-info").textContent = `Session ${state.session} · frozen at ${time}`;
  pre.dataset.session = String(state.session);
}

/** Marks the prompt stale when the live stores differ from the session's start. */
function renderStale() {
  const a = state.sessionFiles;
  const b = state.liveFiles;
  const stale = !!a && !!b && STORES.some((s) => a[s.file] !== b[s.file]);
  $("prompt-stale").hidden = !stale;
  if (stale) {
    $("prompt-stale").textContent =
      "The live stores changed since this session started: start a new session to see the changes here.";
  }
}

async function onStartSession() {
  await busy(async () => {
    let prompt = null;
    try {
      prompt = await state.memory.startSession();
      state.sessionFiles = await state.memory.exportMarkdown();
      state.session += 1;
      showError($("session-error"), null);
    } catch (e) {
      showError($("session-error"), e);
    }
    await refreshStores();
    // Last, so a new session's prompt appears with the stores it was frozen from.
    if (prompt !== null) showPrompt(prompt);
  });
}

// ---------------------------------------------------------------- export / import

/** Offers `text` as a file download named `name`. */
function download(name, text) {
  const blob = new Blob([text], { type: "text/markdown;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function onExport(ev) {
  const file = ev.currentTarget.dataset.file;
  const status = $("files-status");
  await busy(async () => {
    try {
      const files = await state.memory.exportMarkdown();
      const text = files[file];
      download(file, text);
      const count = splitEntries(text).length;
      showMessage(status, `Downloaded ${file}: ${plural(count, "entry", "entries")}, ${plural(text.length, "char", "chars")}.`);
    } catch (e) {
      showError(status, e);
    }
  });
}

async function onImport(ev) {
  ev.preventDefault();
  const input = $("import-files");
  const status = $("files-status");
  if (input.files.length === 0) {
    showMessage(status, "Choose MEMORY.md and/or USER.md first.");
    input.focus();
    return;
  }
  await busy(async () => {
    let show;
    try {
      const files = {};
      for (const file of input.files) files[file.name] = await file.text();
      await state.memory.importMarkdown(files);
      const names = Object.keys(files).join(" and ");
      show = () => showMessage(status, `Imported ${names}. The frozen prompt shows it after you start a new session.`);
      input.value = "";
    } catch (e) {
      show = () => showError(status, e);
    }
    // As after a tool call: the stores are re-read before the outcome is shown.
    await refreshStores();
    show();
  });
}

// ---------------------------------------------------------------- delete

/** Closes the memory, removes every byte of it, then opens a fresh one. */
async function onDeleteMemory() {
  const ok = confirm(
    `Delete this memory ("${MEMORY_NAME}")? MEMORY.md, USER.md and everything kept with them ` +
      "are removed from this browser. This cannot be undone.",
  );
  if (!ok) return;
  const result = $("delete-result");
  // openMemory() enables it again once a memory is open.
  $("delete-memory").disabled = true;
  await busy(async () => {
    let show;
    try {
      await state.memory.close();
      const { removed } = await state.mnemo.Memory.delete(MEMORY_NAME);
      const places = removed.map((s) => STORAGE_LABELS[s] ?? s).join(" and ");
      show = () => showMessage(result, removed.length === 0
        ? "Deleted: this memory was kept in this tab only, so closing it removed it."
        : `Deleted: every byte of this memory was removed from ${places}.`);
      clearOutputs();
    } catch (e) {
      show = () => showError(result, e);
    }
    // Whether or not the delete worked, the page needs an open memory again;
    // the outcome is shown once the panels show that memory.
    try {
      await openMemory();
    } catch (e) {
      setAppStatus("error", "Could not open the memory again:", e);
    }
    show();
  });
}

/** Empties the panels that show text of a deleted memory: the last result, hits, context, messages. */
function clearOutputs() {
  $("tool-result-empty").hidden = false;
  $("tool-result-body").hidden = true;
  $("tool-result-live").textContent = "";
  $("search-status").replaceChildren();
  $("search-results").replaceChildren();
  $("search-results").hidden = true;
  $("context-status").replaceChildren();
  $("context-block").textContent = "";
  $("context-block").hidden = true;
  delete $("context-output").dataset.empty;
  $("samples-status").replaceChildren();
  $("files-status").replaceChildren();
  $("pending-status").replaceChildren();
  $("pending-status").hidden = true;
  $("tool-result-notification").hidden = true;
  $("curate-status").replaceChildren();
  $("curate-status").hidden = true;
  $("curate-report").replaceChildren();
  $("curate-report").hidden = true;
}

// ---------------------------------------------------------------- schema

function renderSchema() {
  const { Memory, errorCodes } = state.mnemo;
  $("tool-schema-json").textContent = JSON.stringify(Memory.toolSchema(), null, 2);
  const codes = errorCodes().map((code) => {
    const el = document.createElement("code");
    el.textContent = code;
    return el;
  });
  $("error-codes").replaceChildren(...codes);
}

// ---------------------------------------------------------------- start-up

function wireEvents() {
  $("tool-action").addEventListener("change", syncFormFields);
  $("tool-form").addEventListener("submit", onToolSubmit);
  $("raw-form").addEventListener("submit", onRawSubmit);
  $("raw-example").addEventListener("click", insertBatchExample);
  submitOnCtrlEnter($("tool-content"));
  submitOnCtrlEnter($("raw-args"));
  $("start-session").addEventListener("click", onStartSession);
  $("export-memory").addEventListener("click", onExport);
  $("export-user").addEventListener("click", onExport);
  $("import-form").addEventListener("submit", onImport);
  $("load-samples").addEventListener("click", onLoadSamples);
  $("search-form").addEventListener("submit", onSearch);
  $("recall-form").addEventListener("submit", onRecall);
  $("context-form").addEventListener("submit", onContext);
  submitOnCtrlEnter($("context-message"));
  $("sectors-filter").addEventListener("change", onSectorFilter);
  $("sectors-form").addEventListener("submit", (ev) => ev.preventDefault());
  $("sector-note-back").addEventListener("click", closeNote);
  $("sector-note").addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      closeNote();
    }
  });
  $("delete-memory").addEventListener("click", onDeleteMemory);
  $("approval-toggle").addEventListener("change", onApprovalToggle);
  $("approve-all").addEventListener("click", () => approveStaged("all"));
  $("reject-all").addEventListener("click", () => rejectStaged("all"));
  $("curate").addEventListener("click", onCurate);
  wireStarMap();
}

async function loadMnemo() {
  try {
    return await import(PKG);
  } catch (e) {
    throw Object.assign(new Error(
      "mnemo's WebAssembly package is missing: run scripts/build-js.sh and copy pkg/web to www/pkg " +
      `(${messageOf(e)})`,
    ), { code: "missing-package" });
  }
}

/** Opens the page's memory (kept in the browser where it can be), shows its prompt and stores. */
async function openMemory() {
  const { Memory, errorCodes } = state.mnemo;
  state.memory = await Memory.open({ storage: "auto", name: MEMORY_NAME });
  // The console handle (and the page tests) follow the open instance.
  window.mnemo = { Memory, memory: state.memory, errorCodes };
  state.session += 1;
  state.sessionFiles = await state.memory.exportMarkdown();
  const prompt = await state.memory.systemPrompt();
  await refreshStores();
  showPrompt(prompt);
  $("delete-memory").disabled = false;
}

async function main() {
  syncFormFields();
  wireEvents();
  state.mnemo = await loadMnemo();
  renderSchema();
  await openMemory();
  $("app").setAttribute("aria-busy", "false");
  if ($("app-status").dataset.state !== "error") setAppStatus("ready", READY);
}

main().catch((e) => {
  setAppStatus("error", "mnemo failed to start:", e);
  $("app").setAttribute("aria-busy", "false");
});
