#!/usr/bin/env node
// `npx mnemo`: the npm package's command, for a user who has Node but not
// the native CLI. It offers write approval over a memories directory in the
// native CLI's format (MEMORY.md, USER.md and state.db, shared with it and
// with `Memory.open({storage: "fs", dir})`): list the staged writes, approve
// (with an edit), reject, switch approval on or off; `mnemo mcp`, the
// memory as an MCP server over stdio (mcp.mjs); and `mnemo sessions import`,
// the transcripts agents keep. Everything it does is a call of the JS API;
// it decides nothing itself.

import { createRequire } from "node:module";
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, dirname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const USAGE = `Usage: mnemo <command> [--dir DIR | --scope global|project] [--workspace NAME]
                      [--config FILE] [--json]
       mnemo mcp [--dir DIR | --scope global|project] [--workspace NAME]
                 [--config FILE] [--agent NAME]
       mnemo sessions import [--from FORMAT] [PATH|-] [--json]
                 [--dir DIR | --scope global|project] [--workspace NAME]
                 [--config FILE] [--agent NAME]

Commands (the npm package's; the native mnemo CLI has them all but mcp, and
every other command). Write approval over a memories directory:
  pending                 list the staged writes waiting for approval
  approve ID|all          apply a staged write (or all, oldest first), checked
                          again against the stores as they are now
    --edit TEXT           approve one staged add or replace with this text
  reject ID|all           drop a staged write (or all); its text is kept in
                          the history
  approval [on|off]       show, or switch, write approval for this memory
                          (kept with the memory; it wins over the config)
Learned skills (<root>/skills beside the memories):
  skills [list]           the skills: name, category, description, usage
  skills pending          the staged skill writes, a one-line gist each
  skills diff ID          the full unified diff of a staged skill write
  skills approve ID|all   apply a staged skill write (checked again)
  skills reject ID|all    drop a staged skill write
  skills approval on|off  switch skill write approval for this memory (a
                          write the scanner flags waits anyway)
  skills restore NAME     bring back an archived skill
  mcp                     serve the memory as an MCP server over stdio: the
                          tools memory, skill, session_search, recall and
                          sectors and the resources mnemo://prompt,
                          mnemo://sectors, mnemo://skills and
                          mnemo://memory/{MEMORY,USER}.md (never approval:
                          approving is yours)
Past conversations:
  sessions import [PATH]  record transcripts in the session store: a file, a
                          directory searched for *.jsonl, or - (standard
                          input); idempotent for the agents' formats: a
                          second import adds nothing
    --from FORMAT         mnemo (JSON Lines of {session, role, text, time?,
                          source?}), claude-code or codex [default: mnemo];
                          without PATH, claude-code reads
                          $CLAUDE_CONFIG_DIR/projects (else
                          ~/.claude/projects), codex $CODEX_HOME/sessions
                          (else ~/.codex/sessions)

Options:
  --dir DIR       the memories directory [default: $MNEMO_HOME/memories,
                  else ~/.mnemo/memories]
  --config FILE   the config: JSON ({"memory": {...}}) or YAML, whose memory:
                  section and skills.write_approval are read [default:
                  $MNEMO_HOME/config.yaml, else ~/.mnemo/config.yaml;
                  defaults when missing]
  --json          print the results as JSON (the JS API's shapes)
  -h, --help      print this help
  -V, --version   print the version

Where the memory is, for every command (the native CLI's scope rules;
desktop apps start servers from any directory, so name the memory with
these):
  --dir DIR         the memories directory; overrides --scope and --workspace
                    [default: the scope's memories]
  --scope SCOPE     global ($MNEMO_HOME) or project (the nearest .mnemo/
                    above the working directory) [default: $MNEMO_SCOPE, else
                    project when one is found, else global]
  --workspace NAME  the scope's workspace NAME: <root>/workspaces/NAME/memories
                    [default: $MNEMO_WORKSPACE, else the scope's own memories]
  --agent NAME      (mcp and sessions import) the agent the writes are from
                    [default: $MNEMO_AGENT, else the MCP client's name]
  --config FILE     as above, but in a project's scope the project's
                    .mnemo/config.yaml comes before $MNEMO_HOME's

Exit status: 0 done; 1 an error (printed as "error [code]: message") or a
staged write that no longer applies (it stays pending as needs_review);
2 a wrong command line.

Examples:
  npx mnemo pending
  npx mnemo approve p3 --edit "Deploys happen on Thursdays"
  npx mnemo reject all
  npx mnemo approval on --dir ./memories
  npx mnemo mcp --scope global --workspace research
  npx mnemo sessions import --from claude-code
  npx mnemo sessions import --from codex ~/.codex/sessions/2026/11 --json`;

/** A wrong command line: exit status 2. */
class UsageError extends Error {}

/** A failure with one of mnemo's codes, printed as `error [code]: message`. */
function failure(code, message) {
  return Object.assign(new Error(message), { name: "MnemoError", code });
}

/** Reads the command line: {command, args, dir, config, json, edit, scope, workspace, agent, from}. */
function parse(argv) {
  const out = {
    command: null,
    args: [],
    dir: null,
    config: null,
    json: false,
    edit: null,
    scope: null,
    workspace: null,
    agent: null,
    from: null,
  };
  const valued = {
    "--dir": "dir",
    "--config": "config",
    "--edit": "edit",
    "--scope": "scope",
    "--workspace": "workspace",
    "--agent": "agent",
    "--from": "from",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (name in valued) {
      let value;
      if (name !== arg) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) value = argv[++i];
      else throw new UsageError(`${name} needs a value (${name}=VALUE for one that starts with --)`);
      if (out[valued[name]] !== null) throw new UsageError(`${name} is given twice`);
      out[valued[name]] = value;
    } else if (arg === "--json") {
      out.json = true;
    } else if (arg === "-h" || arg === "--help" || arg === "help") {
      out.command = "help";
    } else if (arg === "-V" || arg === "--version") {
      out.command ??= "version";
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new UsageError(`unknown option ${arg}`);
    } else if (out.command === null) {
      out.command = arg;
    } else {
      out.args.push(arg);
    }
  }
  return out;
}

/** `$MNEMO_HOME`, else `~/.mnemo` (as the native CLI finds it); null without a home. */
function mnemoHome() {
  const env = (name) => (process.env[name] ? process.env[name] : null);
  if (env("MNEMO_HOME")) return env("MNEMO_HOME");
  const home = env("HOME") ?? env("USERPROFILE");
  return home ? join(home, ".mnemo") : null;
}

// ---------------------------------------------------------------- config

/**
 * The `memory:` section of a YAML config, for the subset a config is
 * written in: nested mappings of plain, quoted, boolean, null and number
 * scalars, comments. Other top-level sections (other tools') are skipped
 * unread; anything else inside `memory:` is refused with the way out.
 */
function yamlMemorySection(text, file) {
  const unsupported = (line, what) =>
    failure(
      "invalid-config",
      `${file}:${line + 1}: ${what} in the memory: section is YAML this command does not read; ` +
        'pass --config FILE.json holding {"memory": {...}}, or use the native mnemo CLI',
    );
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const start = lines.findIndex((l) => /^memory\s*:/.test(l));
  if (start < 0) return {};
  const inline = stripComment(lines[start].replace(/^memory\s*:/, "")).trim();
  if (["~", "null", "{}"].includes(inline)) return {};
  if (inline !== "") throw unsupported(start, "an inline value");
  // The section: the indented lines up to the next top-level line.
  const body = [];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (!/^\s/.test(line)) break;
    if (/^\s*\t/.test(line)) throw unsupported(i, "a tab in the indentation");
    body.push({ at: i, indent: line.match(/^ */)[0].length, text: stripComment(line).trim() });
  }
  let pos = 0;
  function mapping(indent) {
    const map = {};
    while (pos < body.length && body[pos].indent >= indent) {
      const { at, indent: here, text } = body[pos];
      if (here !== indent) throw unsupported(at, "an unexpected indentation");
      const m = text.match(/^([A-Za-z_][A-Za-z0-9_]*)\s*:(?:\s+(.*))?$/);
      if (!m) throw unsupported(at, text.startsWith("-") ? "a list" : `"${text}"`);
      pos++;
      if (m[2] === undefined || m[2] === "") {
        map[m[1]] = pos < body.length && body[pos].indent > indent ? mapping(body[pos].indent) : null;
      } else {
        map[m[1]] = scalar(m[2], at);
      }
    }
    return map;
  }
  function scalar(raw, at) {
    if (/^".*"$/.test(raw)) return JSON.parse(raw);
    if (/^'.*'$/.test(raw)) return raw.slice(1, -1).replaceAll("''", "'");
    if (/^[[{&*!|>%@`"']/.test(raw)) throw unsupported(at, `the value ${raw}`);
    if (/^(true|True|TRUE)$/.test(raw)) return true;
    if (/^(false|False|FALSE)$/.test(raw)) return false;
    if (/^(null|Null|NULL|~)$/.test(raw)) return null;
    if (/^[-+]?[0-9]+$/.test(raw)) return Number(raw);
    if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(raw)) return Number(raw);
    return raw;
  }
  if (body.length === 0) return {};
  return mapping(body[0].indent);
}

/**
 * `skills.write_approval` of a YAML config, the one key of its `skills:`
 * section mnemo reads (as the native CLI does; the section's other keys are
 * other tools'), or undefined when it is not set.
 */
function yamlSkillsApproval(text, file) {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const start = lines.findIndex((l) => /^skills\s*:/.test(l));
  if (start < 0) return undefined;
  const bad = (line, what) =>
    failure(
      "invalid-config",
      `${file}:${line + 1}: ${what}; write it as "skills:" and an indented "write_approval: true" (or false), ` +
        'or pass --config FILE.json holding {"skills": {"write_approval": true}}',
    );
  const inline = stripComment(lines[start].replace(/^skills\s*:/, "")).trim();
  if (["~", "null", "{}"].includes(inline)) return undefined;
  if (inline !== "") throw bad(start, "an inline value in the skills: section is YAML this command does not read");
  let indent = null;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (!/^\s/.test(line)) break;
    const here = line.match(/^ */)[0].length;
    indent ??= here;
    if (here !== indent) continue;
    const m = stripComment(line).trim().match(/^write_approval\s*:(.*)$/);
    if (!m) continue;
    const value = m[1].trim();
    if (/^(true|True|TRUE)$/.test(value)) return true;
    if (/^(false|False|FALSE)$/.test(value)) return false;
    if (/^(null|Null|NULL|~)?$/.test(value)) return undefined;
    throw bad(i, `skills.write_approval must be true or false, not ${JSON.stringify(value)}`);
  }
  return undefined;
}

/** `line` without a trailing ` # comment` (outside quotes). */
function stripComment(line) {
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]))) {
      return line.slice(0, i);
    }
  }
  return line;
}

/**
 * The config in force: `--config FILE` (JSON whole, YAML's memory: section
 * and skills.write_approval),
 * else the project's config.yaml when `project` (a `.mnemo/` root) has one,
 * else the home's config.yaml.
 */
function loadConfig(explicit, home, project = null) {
  const own = project && existsSync(join(project, "config.yaml")) ? join(project, "config.yaml") : null;
  const file = explicit ?? own ?? (home ? join(home, "config.yaml") : null);
  if (file === null) return undefined;
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (e.code === "ENOENT" && explicit === null) return undefined;
    throw failure("invalid-config", `cannot read the config file ${file}: ${e.message}`);
  }
  if (file.endsWith(".json")) {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw failure("invalid-config", `${file} is not valid JSON: ${e.message}`);
    }
  }
  const skills = yamlSkillsApproval(text, file);
  return { memory: yamlMemorySection(text, file), ...(skills === undefined ? {} : { skills: { write_approval: skills } }) };
}

// ---------------------------------------------------------------- output

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function when(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

function describeApproval(status) {
  const state = status.enabled ? "on" : "off";
  const source = status.source === "override" ? "kept with this memory" : "from the config";
  return `Write approval is ${state} (${source}); ${plural(status.pending, "staged write waits", "staged writes wait")}` +
    (status.needs_review ? `, ${status.needs_review} of them need${status.needs_review === 1 ? "s" : ""} review.` : ".");
}

function printPending(items, status) {
  if (items.length === 0) {
    console.log(`Nothing is waiting for approval. ${describeApproval(status)}`);
    return;
  }
  console.log(`${plural(items.length, "staged write waits", "staged writes wait")} for approval:`);
  for (const item of items) {
    const meta = [item.origin, item.agent, when(item.created), item.batch ? `batch of ${item.operations.length}` : null]
      .filter(Boolean)
      .join(" · ");
    const state = item.state === "needs_review" ? "needs review" : "pending";
    console.log(`  ${item.id}  ${state}  ${meta}`);
    console.log(`      ${item.summary}`);
    if (item.reason) console.log(`      not applied: ${item.reason}`);
  }
  console.log("Approve with `mnemo approve ID|all` (--edit TEXT to change one), reject with `mnemo reject ID|all`.");
}

// ---------------------------------------------------------------- commands

/** The one ID|all argument of approve and reject. */
function target(cli) {
  if (cli.args.length !== 1) {
    throw new UsageError(`${cli.command} takes one argument: the id of a staged write (see \`mnemo pending\`) or "all"`);
  }
  return cli.args[0];
}

async function run(cli) {
  if (cli.command === null || cli.command === "help") {
    console.log(USAGE);
    return 0;
  }
  if (cli.command === "version") {
    const { version } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
    console.log(`mnemo ${version} (npm)`);
    return 0;
  }
  if (cli.command === "mcp") return mcp(cli);
  if (cli.command === "sessions") return sessions(cli);
  if (cli.command === "skills") return skills(cli);
  if (cli.agent !== null) throw new UsageError("--agent goes with mcp and sessions import");
  if (cli.from !== null) throw new UsageError("--from goes with sessions import");
  const known = ["pending", "approve", "reject", "approval", "skills", "mcp", "sessions import"];
  if (!known.includes(cli.command)) {
    throw new UsageError(
      `unknown command ${JSON.stringify(cli.command)}; this command has ${known.join(", ")} (the native mnemo CLI has the others)`,
    );
  }
  if (cli.edit !== null && cli.command !== "approve") throw new UsageError("--edit goes with approve");
  if (cli.command === "pending" && cli.args.length > 0) throw new UsageError("pending takes no argument");
  let switchTo;
  if (cli.command === "approval") {
    if (cli.args.length > 1 || (cli.args.length === 1 && !["on", "off"].includes(cli.args[0]))) {
      throw new UsageError('approval takes "on", "off" or nothing (to show it)');
    }
    switchTo = cli.args.length === 1 ? cli.args[0] === "on" : undefined;
  }
  const which = cli.command === "approve" || cli.command === "reject" ? target(cli) : null;

  // Approving is the user's act: no agent names it.
  const { memory } = await openLocated(cli, { named: false });
  try {
    const print = (value, human) => (cli.json ? console.log(JSON.stringify(value, null, 2)) : human());
    switch (cli.command) {
      case "pending": {
        const items = await memory.pending();
        const { approval } = await memory.status();
        print(items, () => printPending(items, approval));
        return 0;
      }
      case "approve": {
        const report = await memory.approve(which, cli.edit === null ? undefined : { content: cli.edit });
        print(report, () => {
          if (report.applied.length > 0) console.log(`Applied ${report.applied.join(", ")}.`);
          for (const m of report.messages) console.log(`  ${m}`);
          if (report.notification) console.log(report.notification);
          if (report.applied.length === 0 && report.failed.length === 0) console.log("Nothing was waiting for approval.");
          console.log(`${plural(report.pending, "staged write", "staged writes")} still pending.`);
        });
        for (const f of report.failed) {
          console.error(`not applied [${f.code}]: ${f.id}: ${f.reason}; it stays pending as needs_review: edit it (--edit) or reject it`);
        }
        return report.failed.length > 0 ? 1 : 0;
      }
      case "reject": {
        const report = await memory.reject(which);
        print(report, () => {
          console.log(report.rejected.length > 0
            ? `Rejected ${report.rejected.join(", ")}; their texts are kept in the history.`
            : "Nothing was waiting for approval.");
          console.log(`${plural(report.pending, "staged write", "staged writes")} still pending.`);
        });
        return 0;
      }
      case "approval": {
        const status = switchTo === undefined ? (await memory.status()).approval : await memory.setApproval(switchTo);
        print(status, () => console.log(describeApproval(status)));
        return 0;
      }
    }
  } finally {
    await memory.close();
  }
  return 0;
}

/** `mnemo skills …`: the user's side of the learned skills. */
async function skills(cli) {
  if (cli.agent !== null) throw new UsageError("--agent goes with mcp and sessions import");
  if (cli.from !== null) throw new UsageError("--from goes with sessions import");
  if (cli.edit !== null) throw new UsageError("--edit goes with approve");
  const [action = "list", ...rest] = cli.args;
  const one = (what) => {
    if (rest.length !== 1) throw new UsageError(`skills ${action} takes one argument: ${what}`);
    return rest[0];
  };
  const none = () => {
    if (rest.length > 0) throw new UsageError(`skills ${action} takes no argument`);
  };
  let argument;
  switch (action) {
    case "list":
    case "pending":
      none();
      break;
    case "diff":
      argument = one("the id of a staged skill write (see `mnemo skills pending`)");
      break;
    case "approve":
    case "reject":
      argument = one('the id of a staged skill write (see `mnemo skills pending`) or "all"');
      break;
    case "restore":
      argument = one("the name of an archived skill");
      break;
    case "approval":
      if (rest.length !== 1 || !["on", "off"].includes(rest[0])) {
        throw new UsageError('skills approval takes "on" or "off"');
      }
      argument = rest[0] === "on";
      break;
    default:
      throw new UsageError(
        `unknown skills command ${JSON.stringify(action)}; this command has list, pending, diff, approve, reject, approval and restore (the native mnemo CLI has the others)`,
      );
  }
  // Approving is the user's act: no agent names it.
  const { memory } = await openLocated(cli, { named: false });
  try {
    const print = (value, human) => (cli.json ? console.log(JSON.stringify(value, null, 2)) : human());
    switch (action) {
      case "list": {
        const listed = await memory.skills();
        print(listed, () => {
          if (listed.length === 0) console.log("No skills yet; an agent creates them with the skill tool.");
          for (const s of listed) {
            const flags = [s.pinned ? "pinned" : null, s.blocked ? "⚠ flagged by the scanner" : null, s.problem ? `⚠ ${s.problem}` : null]
              .filter(Boolean)
              .join(" · ");
            console.log(`${s.name}  (${s.category})  ${s.description}  · viewed ${s.views} · used ${s.uses} · patched ${s.patches}${flags ? ` · ${flags}` : ""}`);
          }
        });
        return 0;
      }
      case "pending": {
        const items = await memory.pendingSkills();
        print(items, () => {
          if (items.length === 0) console.log("No skill write is waiting for approval.");
          for (const s of items) {
            const meta = [s.origin, s.agent, when(s.created)].filter(Boolean).join(" · ");
            console.log(`  ${s.id}  ${s.gist}  ${meta}`);
            if (s.state === "needs_review") console.log(`      needs review: ${s.reason}`);
          }
          if (items.length > 0) console.log("`mnemo skills diff ID` shows the whole change; approve ID|all, reject ID|all.");
        });
        return 0;
      }
      case "diff": {
        const diff = await memory.skillDiff(argument);
        print({ id: argument, diff }, () => process.stdout.write(diff));
        return 0;
      }
      case "approve": {
        const report = await memory.approveSkill(argument);
        print(report, () => {
          for (const line of report.applied) console.log(line);
          if (report.applied.length === 0 && report.not_applied.length === 0) console.log("Nothing was waiting for approval.");
        });
        for (const [id, reason] of report.not_applied) {
          console.error(`not applied: ${id}: ${reason}; it stays as needs_review: reject it with \`mnemo skills reject ${id}\``);
        }
        return report.not_applied.length > 0 ? 1 : 0;
      }
      case "reject": {
        const ids = await memory.rejectSkill(argument);
        print(ids, () => console.log(ids.length > 0 ? `Rejected ${ids.join(", ")}.` : "Nothing was waiting for approval."));
        return 0;
      }
      case "approval": {
        const on = await memory.setSkillApproval(argument);
        print({ enabled: on }, () =>
          console.log(`Skill write approval is ${on ? "on: skill writes wait for `mnemo skills approve`" : "off: skill writes apply at once (a write the scanner flags still waits)"}.`),
        );
        return 0;
      }
      case "restore": {
        const message = await memory.restoreSkill(argument);
        print({ message }, () => console.log(message));
        return 0;
      }
    }
  } finally {
    await memory.close();
  }
  return 0;
}

/** A non-empty environment variable, else null. */
const env = (name) => (process.env[name] ? process.env[name] : null);

/** The directory that makes its parent a project, as git's `.git`. */
const PROJECT_DIR = ".mnemo";

/**
 * Where the memories are, by the native CLI's rules (src/bin/mnemo/paths.rs):
 * `dir` (`--dir`) names the memories directory outright and overrides
 * scope and workspace; otherwise `scope` `"project"` is the nearest
 * `.mnemo/` in `cwd` or above it (not the global home), `"global"` is
 * `home`, and none picks the project when one is found, else the global
 * scope. `workspace` picks `<scope root>/workspaces/<name>/memories` (the
 * name is checked by the core when the memory opens). Resolves to
 * `{scope, root, dir, base, workspace}`: `base` is the `dir` to hand
 * `Memory.open` with `workspace` (the scope's default memories, the JS
 * API derives the workspace's own), `dir` the directory the files are in.
 */
function locate({ dir, scope, workspace, home, cwd }) {
  if (dir) return { scope: "dir", root: null, dir: resolve(dir), base: resolve(dir), workspace: null };
  if (scope && scope !== "global" && scope !== "project") {
    throw failure("invalid-input", `--scope takes global or project, not ${JSON.stringify(scope)}`);
  }
  const isHome = (candidate) =>
    [home, process.env.HOME && join(process.env.HOME, PROJECT_DIR)].some((h) => {
      if (!h) return false;
      try {
        return resolve(h) === resolve(candidate) || statSync(h).ino === statSync(candidate).ino;
      } catch {
        return false;
      }
    });
  const findProject = () => {
    for (let at = resolve(cwd); ; at = dirname(at)) {
      const candidate = join(at, PROJECT_DIR);
      try {
        if (statSync(candidate).isDirectory() && !isHome(candidate)) return candidate;
      } catch {}
      if (dirname(at) === at) return null;
    }
  };
  let root = null;
  let which = scope;
  if (scope !== "global") {
    root = findProject();
    if (root === null && scope === "project") {
      throw failure(
        "invalid-input",
        `--scope project (or MNEMO_SCOPE=project): no ${PROJECT_DIR} directory in ${cwd} or above it; ` +
          "`mnemo init` makes the current directory a project, or use --scope global",
      );
    }
    if (root !== null) which = "project";
  }
  if (root === null) {
    if (!home) throw failure("invalid-input", "cannot find your home directory; set MNEMO_HOME or pass --dir DIR");
    root = home;
    which = "global";
  }
  const base = join(root, "memories");
  const dir_ = workspace ? join(root, "workspaces", workspace, "memories") : base;
  if (which === "project") projectLinks(root, workspace);
  return { scope: which, root, dir: dir_, base, workspace: workspace || null };
}

/**
 * Refuses a project whose folders under `.mnemo/` are links: they come with
 * the project's sources, and a link would send its memories and skills
 * anywhere (as the native CLI refuses, src/bin/mnemo/paths.rs).
 */
function projectLinks(root, workspace) {
  const parts = workspace
    ? [join(root, "workspaces"), join(root, "workspaces", workspace), join(root, "workspaces", workspace, "memories"), join(root, "workspaces", workspace, "skills")]
    : [join(root, "memories"), join(root, "skills")];
  for (const part of parts) {
    let link = false;
    try {
      link = lstatSync(part).isSymbolicLink();
    } catch {}
    if (link) {
      throw failure(
        "storage",
        `${part} is a symbolic link: a project's memories and skills live in its own .mnemo folder, and mnemo ` +
          "follows no link there (one could point at any folder, which would be read and written); replace it with the folder itself",
      );
    }
  }
}

/**
 * Where the memory of `mcp` and `sessions import` is, by the native CLI's
 * scope rules (`locate`: --dir, --scope, --workspace and their variables),
 * and the config in force there.
 */
function locateMemory(cli) {
  const home = mnemoHome();
  const location = locate({
    dir: cli.dir,
    scope: cli.scope ?? env("MNEMO_SCOPE"),
    workspace: cli.workspace ?? env("MNEMO_WORKSPACE"),
    home,
    cwd: process.cwd(),
  });
  const config = loadConfig(cli.config, home, location.scope === "project" ? location.root : null);
  return { location, config };
}

/**
 * Opens the memory `locateMemory` finds, its writes named by `--agent` or
 * `MNEMO_AGENT` when `named` and given: `{location, memory, Memory, agent}`.
 */
async function openLocated(cli, { named = true } = {}) {
  const { location, config } = locateMemory(cli);
  const agent = named ? (cli.agent ?? env("MNEMO_AGENT")) : null;
  const { Memory } = require(join(here, "node", "mnemo.js"));
  const memory = await Memory.open({
    storage: "fs",
    dir: location.base,
    ...(location.workspace ? { workspace: location.workspace } : {}),
    ...(config ? { config } : {}),
    ...(agent ? { agent } : {}),
  });
  return { location, memory, Memory, agent };
}

/** `mnemo mcp`: serves until the client closes stdin. */
async function mcp(cli) {
  if (cli.args.length > 0) throw new UsageError("mcp takes no argument (its options: --dir, --scope, --workspace, --config, --agent)");
  if (cli.json || cli.edit !== null || cli.from !== null) throw new UsageError("--json, --edit and --from do not go with mcp");
  const opened = await openLocated(cli);
  const { serve } = await import("./mcp.mjs");
  await serve(opened);
  return undefined;
}

// ---------------------------------------------------------------- sessions import

/**
 * Where each agent keeps its transcripts when no PATH is named (the native
 * CLI's rule): Claude Code in `$CLAUDE_CONFIG_DIR/projects` (default
 * `~/.claude/projects`), Codex in `$CODEX_HOME/sessions` (default
 * `~/.codex/sessions`).
 */
const AGENT_DIRS = {
  "claude-code": { variable: "CLAUDE_CONFIG_DIR", home: ".claude", under: "projects" },
  codex: { variable: "CODEX_HOME", home: ".codex", under: "sessions" },
};

/** The fields of `importTranscript`'s report, which several files' reports add up to. */
const REPORT_FIELDS = ["files", "sessions", "messages", "present", "skipped", "too_long", "ignored"];

/**
 * The transcript files `path` names: itself, or the `*.jsonl` files under
 * it, sorted as the native CLI sorts them (by path component), links not
 * followed.
 */
function transcriptFiles(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch (e) {
    throw failure("invalid-input", `cannot read ${path}: ${e.message}`);
  }
  if (!stat.isDirectory()) return [path];
  const files = [];
  const dirs = [path];
  while (dirs.length > 0) {
    const dir = dirs.pop();
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      throw failure("storage", `cannot list ${dir}: ${e.message}`);
    }
    for (const entry of entries) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) dirs.push(file);
      else if (entry.isFile() && entry.name.endsWith(".jsonl")) files.push(file);
    }
  }
  const byComponent = (a, b) => {
    const [x, y] = [a.split(sep), b.split(sep)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return x.length - y.length;
  };
  return files.sort(byComponent);
}

/** The agent's own transcript directory, which must exist. */
function agentDir(format) {
  const { variable, home, under } = AGENT_DIRS[format];
  const userHome = env("HOME") ?? env("USERPROFILE");
  const root = env(variable) ?? (userHome ? join(userHome, home) : null);
  if (root === null) throw failure("invalid-input", "cannot find your home directory; name the transcripts' directory");
  const dir = join(root, under);
  let found = false;
  try {
    found = statSync(dir).isDirectory();
  } catch {}
  if (!found) {
    throw failure("invalid-input", `no ${format} transcripts at ${dir} (the default); name the file or directory to import`);
  }
  return dir;
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** One line, as the native CLI prints it: files, sessions, messages added, what was not. */
function importSummary(r) {
  const n = (x) => x.toLocaleString("en-US");
  const count = (x, one, many) => `${n(x)} ${x === 1 ? one : many}`;
  let line = `imported ${count(r.files, "file", "files")}: ${count(r.sessions, "session", "sessions")}, ` +
    `${count(r.messages, "message", "messages")} added`;
  if (r.present > 0) line += `, ${n(r.present)} already there`;
  if (r.skipped > 0) line += `, ${count(r.skipped, "line", "lines")} skipped (not readable)`;
  if (r.too_long > 0) line += `, ${count(r.too_long, "message", "messages")} left out (too long to scan)`;
  return line;
}

/**
 * `mnemo sessions import [--from FORMAT] [PATH|-]`: each file through
 * `memory.importTranscript`, their reports added up. What a transcript
 * holds and what is recorded of it are the core's rules.
 */
async function sessions(cli) {
  const [sub, ...rest] = cli.args;
  if (sub !== "import") {
    throw new UsageError(
      sub === undefined
        ? "sessions needs a subcommand: this command has sessions import (the native mnemo CLI has the others)"
        : `unknown sessions subcommand ${JSON.stringify(sub)}; this command has sessions import (the native mnemo CLI has the others)`,
    );
  }
  if (rest.length > 1) throw new UsageError("sessions import takes one PATH: a file, a directory or - (standard input)");
  if (cli.edit !== null) throw new UsageError("--edit goes with approve");
  const format = cli.from ?? "mnemo";
  const path = rest[0] ?? null;

  const { memory } = await openLocated(cli);
  try {
    // A format this command has no default directory for is the core's
    // to refuse: it does, naming the ones it knows, before reading the
    // (here empty) text.
    if (!(format in AGENT_DIRS) && format !== "mnemo") await memory.importTranscript(format, "");
    let files;
    if (path === "-") files = [null];
    else if (path !== null) files = transcriptFiles(path);
    else if (format in AGENT_DIRS) files = transcriptFiles(agentDir(format));
    else throw failure("invalid-input", "name the transcript file to import (`-` reads standard input)");
    // Every file is read before anything is recorded.
    const texts = [];
    for (const file of files) {
      if (file === null) {
        texts.push(await readStdin());
        continue;
      }
      try {
        texts.push(readFileSync(file, "utf8"));
      } catch (e) {
        throw failure("storage", `could not read ${file}: ${e.message}`);
      }
    }
    const total = Object.fromEntries(REPORT_FIELDS.map((field) => [field, 0]));
    for (const [i, file] of files.entries()) {
      let report;
      try {
        report = await memory.importTranscript(format, texts[i], file === null ? undefined : { name: file });
      } catch (e) {
        if (file !== null && e?.code === "invalid-input") e.message = `${file}: ${e.message}`;
        // Each file is its own transaction: say what the run did record.
        if (i > 0) e.message += `; the ${plural(i, "file", "files")} before it ${i === 1 ? "was" : "were"} recorded`;
        throw e;
      }
      for (const field of REPORT_FIELDS) total[field] += report[field];
    }
    if (cli.json) console.log(JSON.stringify(total, null, 2));
    // mnemo's own format keeps the line it always printed.
    else if (format === "mnemo" && files.length === 1) console.log(`recorded ${total.messages} messages`);
    else console.log(importSummary(total));
    return 0;
  } finally {
    await memory.close();
  }
}

try {
  process.exitCode = await run(parse(process.argv.slice(2)));
} catch (e) {
  if (e instanceof UsageError) {
    console.error(`error: ${e.message}\n\nRun \`mnemo --help\` for the commands.`);
    process.exitCode = 2;
  } else if (e?.name === "MnemoError") {
    console.error(`error [${e.code}]: ${e.message}`);
    process.exitCode = 1;
  } else {
    console.error(`error: ${e?.message ?? e}`);
    process.exitCode = 1;
  }
}
