// LoCoMo for the benchmarks: each conversation's turns ("speaker: text",
// with image captions) with their dialogue ids, and its questions with the
// evidence ids that exist (as examples/common/locomo.rs).
import { readFileSync } from "node:fs";

/** `D:11:26` → `D11:26`, `D30:05` → `D30:5` (as examples/locomo.rs). */
function normalise(e) {
  e = e.trim().replace("D:", "D");
  const i = e.indexOf(":");
  return i < 0 ? e : `${e.slice(0, i)}:${e.slice(i + 1).replace(/^0+/, "")}`;
}

export function loadLocomo(path) {
  const data = JSON.parse(readFileSync(path, "utf8"));
  return data.map((sample) => {
    const conv = sample.conversation;
    const docs = [];
    const ids = [];
    for (let s = 1; Array.isArray(conv[`session_${s}`]); s++) {
      for (const t of conv[`session_${s}`]) {
        let text = `${t.speaker ?? ""}: ${t.text ?? ""}`;
        if (typeof t.blip_caption === "string") text += ` [image: ${t.blip_caption}]`;
        docs.push(text);
        ids.push(t.dia_id ?? "");
      }
    }
    const known = new Set(ids);
    const questions = [];
    for (const qa of sample.qa) {
      const evidence = (qa.evidence ?? [])
        .filter((e) => typeof e === "string")
        .flatMap((e) => e.split(/[;\s]+/))
        .filter((e) => e !== "")
        .map(normalise)
        .filter((e) => known.has(e));
      if (evidence.length) questions.push({ text: qa.question ?? "", evidence });
    }
    return { docs, ids, questions };
  });
}

