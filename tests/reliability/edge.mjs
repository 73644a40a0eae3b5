// The crash campaign and load on the Cloudflare example under workerd
// (tests/edge/hosts.mjs serves it on 127.0.0.1, Durable Object storage on
// disk): workerd killed while requests are in flight, and many HTTP clients
// writing to one workspace's Durable Object at once. Shared by
// tests/edge/cloudflare.test.mjs and bench/crash.mjs, bench/load.mjs.
import { noteText, sleep } from "./harness.mjs";
import { serve } from "../edge/hosts.mjs";

const entriesOf = (text) => (text === "" ? [] : text.split("\n§\n"));

/**
 * What the workspace holds, read through the JSON API: its notes
 * (`/export`), after `/status` answered and agreed with them. Throws when
 * either does not answer 200 or they disagree.
 */
export async function readWorkspace(w, workspace) {
  const status = await w.call(`/w/${workspace}/status`);
  const files = await w.call(`/w/${workspace}/export`);
  if (status.status !== 200 || files.status !== 200) {
    throw new Error(`status ${status.status}, export ${files.status}: ${JSON.stringify([status.body, files.body])}`);
  }
  const entries = entriesOf(files.body["MEMORY.md"]);
  if (status.body.memory.entries !== entries.length) {
    throw new Error(`status counts ${status.body.memory.entries} notes, the export holds ${entries.length}`);
  }
  return entries;
}

/**
 * One trial: workerd serving the staged `dir` on `disk`; `clients` HTTP
 * clients add notes to `workspace` one after another until workerd is
 * killed (SIGKILL) `killAfter` ms after the first acknowledged one; then it is restarted on the same
 * disk and every acknowledged write (a 200 with success) must be there,
 * each note whole and once, nothing that was never sent. `known` holds the
 * notes of earlier trials (updated). Returns {acked, inFlight, problems,
 * restartMs}.
 */
export async function workerdCrashTrial({ dir, disk, workspace, clients, killAfter, known, counter }) {
  let w = await serve(dir, disk);
  const sent = new Set();
  const acked = [];
  const problems = [];
  let killed = false;
  let inFlight = 0;
  const client = async (c) => {
    while (!killed) {
      const text = noteText(`c${c}`, counter.next++);
      sent.add(text);
      inFlight++;
      try {
        const r = await w.call(`/w/${workspace}/tool?agent=c${c}`, { action: "add", target: "memory", content: text });
        if (r.status === 200 && r.body.success) acked.push(text);
        else if (!killed) problems.push(`a write was refused: ${r.status} ${JSON.stringify(r.body)}`);
      } catch {
        // No answer: the kill came first. The write may or may not be there.
      } finally {
        inFlight--;
      }
    }
  };
  const writers = Array.from({ length: clients }, (_, c) => client(c));
  // The kill comes `killAfter` ms after the first acknowledgement (a
  // restarted workerd first compiles the wasm).
  for (let waited = 0; acked.length === 0 && waited < 30_000; waited += 5) await sleep(5);
  await sleep(killAfter);
  const pending = inFlight;
  killed = true;
  await w.kill();
  await Promise.all(writers);
  const t0 = performance.now();
  w = await serve(dir, disk);
  const restartMs = performance.now() - t0;
  try {
    const entries = await readWorkspace(w, workspace);
    const found = new Set(entries);
    if (found.size !== entries.length) problems.push(`${entries.length - found.size} notes twice`);
    for (const text of acked) if (!found.has(text)) problems.push(`acknowledged note lost: ${text}`);
    for (const text of known) if (!found.has(text)) problems.push(`note of an earlier trial lost: ${text}`);
    for (const text of entries) if (!sent.has(text) && !known.has(text)) problems.push(`a note nobody sent: ${JSON.stringify(text)}`);
    entries.forEach((e) => known.add(e));
  } catch (e) {
    problems.push(`reading back failed: ${e.message}`);
  } finally {
    await w.stop();
  }
  return { acked: acked.length, inFlight: pending, problems, restartMs };
}

/**
 * Load: `clients` HTTP clients adding `each` notes at once to one
 * workspace of a running workerd `w`. Resolves with {texts, ms, wallMs, lost}.
 */
export async function workerdLoad(w, workspace, { clients, each }) {
  const texts = [];
  const ms = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < each; i++) {
        const text = noteText(`do${c}`, i);
        const t0 = performance.now();
        const r = await w.call(`/w/${workspace}/tool?agent=do${c}`, { action: "add", target: "memory", content: text });
        ms.push(performance.now() - t0);
        if (r.status !== 200 || !r.body.success) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
        texts.push(text);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const found = new Set(await readWorkspace(w, workspace));
  return { texts, ms, wallMs, lost: texts.filter((t) => !found.has(t)) };
}
