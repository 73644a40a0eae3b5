// The README's whole programs, for the tests that run them: every ```js
// block that imports the package (`from "mnemo…"`), the ones a user copies
// to start with. Other js blocks are fragments over a `memory` opened
// elsewhere and are left to the API tests. A program followed by a line
// "prints" and a fenced block says what it prints: `prints` holds that
// block's lines.

/** The README's js blocks that import the package: `{line, code, entry, prints?}` (`entry`: the package name imported). */
export function programs(readme) {
  const lines = readme.split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```js") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== "```") end++;
    const code = lines.slice(start, end).join("\n") + "\n";
    i = end;
    const entry = code.match(/^import\b[^;]*?from\s+"(mnemo(?:\/[\w/]+)?)"/m)?.[1];
    if (!entry) continue;
    const program = { line: start, code, entry };
    // "prints", then the fenced block it announces.
    let j = end + 1;
    while (j < lines.length && lines[j].trim() === "") j++;
    if (lines[j]?.trim() === "prints") {
      j++;
      while (j < lines.length && lines[j].trim() === "") j++;
      if (lines[j]?.startsWith("```")) {
        let k = j + 1;
        while (k < lines.length && !lines[k].startsWith("```")) k++;
        program.prints = lines.slice(j + 1, k);
      }
    }
    out.push(program);
  }
  return out;
}
