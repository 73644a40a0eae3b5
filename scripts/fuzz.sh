#!/usr/bin/env bash
# Runs the cargo-fuzz targets of fuzz/ (nightly + libFuzzer), by hand, not
# in CI:
#
#   scripts/fuzz.sh [target|all] [seconds]     # default: all, 600 s each
#
# FUZZ_ARGS adds libFuzzer flags: `FUZZ_ARGS="-fork=1 -ignore_crashes=1"`
# keeps a run going past failing inputs (each is saved in fuzz/artifacts/).
#
# Installs cargo-fuzz when missing. Each target starts from its committed
# corpus (fuzz/corpus/<target>/) and seeds drawn from tests/fixtures;
# what it finds lands in fuzz/corpus-work/<target>/ (not committed) and a
# failing input in fuzz/artifacts/<target>/. After the run the corpus is
# minimised (a libFuzzer merge) into fuzz/corpus/<target>/, which
# `cargo test` replays on stable (tests/fuzz_replay.rs). Save a failing
# input in fuzz/regressions/<target>/ once its bug is fixed. The run's
# last line (cov, ft, corpus, execs) is appended to fuzz/runs.log.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# cargo-fuzz builds with nightly and sanitizers: its own target directory.
unset CARGO_TARGET_DIR

targets=(store tool config scanner text wikilinks approval skills transcripts)
which=${1:-all}
seconds=${2:-600}
if [ "$which" != all ]; then targets=("$which"); fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

# Seeds from the fixtures, written into the working corpus.
seed() {
  local t=$1 dir=fuzz/corpus-work/$1
  mkdir -p "$dir"
  if [ -d "fuzz/corpus/$t" ]; then cp -rn "fuzz/corpus/$t/." "$dir/"; fi
  case $t in
    store | wikilinks)
      for f in tests/fixtures/*.md; do
        if [ "$t" = store ]; then { printf '\x40'; cat "$f"; } >"$dir/seed-$(basename "$f")"
        else cp "$f" "$dir/seed-$(basename "$f")"; fi
      done ;;
    text)
      for f in tests/fixtures/*.md; do
        { sed 's/^§$//' "$f"; printf '\ndeploy build tuesday'; } >"$dir/seed-$(basename "$f")"
      done ;;
    scanner)
      python3 - "$dir" tests/fixtures/scan/*.jsonl tests/fixtures/scan/dev/*.jsonl tests/fixtures/scan/heldout/*.jsonl <<'PY'
import hashlib, json, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    for line in open(path, encoding="utf-8"):
        if line.strip():
            case = json.loads(line)
            # Split attacks ("parts") are read as the prompt shows them.
            text = (case.get("text") or "\n".join(case["parts"])).encode()
            open(f"{out}/seed-{hashlib.sha1(text).hexdigest()[:16]}", "wb").write(text)
PY
      ;;
    skills) for f in tests/fixtures/skills/*.md; do cp "$f" "$dir/seed-$(basename "$f")"; done ;;
    transcripts)
      { printf '\x01'; cat tests/fixtures/transcripts/claude-code.jsonl; } >"$dir/seed-claude-code"
      { printf '\x02'; cat tests/fixtures/transcripts/codex.jsonl; } >"$dir/seed-codex"
      { printf '\x02'; cat tests/fixtures/transcripts/codex-legacy.jsonl; } >"$dir/seed-codex-legacy"
      printf '\x00{"session":"s1","role":"user","text":"hello","time":"2026-01-02T03:04:05Z"}\n{"session":"s1","role":"assistant","text":"hi"}\n' >"$dir/seed-mnemo" ;;
    config)
      cp tests/fixtures/options.json "$dir/seed-options.json"
      printf '{"memory": {"memory_char_limit": 300, "user_char_limit": 200, "write_approval": true, "recall": {"enabled": false}}, "skills": {"write_approval": true}}' >"$dir/seed-config"
      printf '{}' >"$dir/seed-empty" ;;
    approval)
      printf '{"version":1,"next_id":3,"approval":true,"items":[{"id":"p1","origin":"foreground","created":1,"summary":"add","operations":[{"action":"add","target":"memory","content":"Deploys go out on Fridays","importance":0.5}],"state":"pending"},{"id":"p2","origin":"review","agent":"a","created":2,"summary":"batch","operations":[{"action":"replace","target":"memory","old_text":"cargo","content":"The build uses make"},{"action":"remove","target":"user","old_text":"x"}],"batch":true,"state":"needs_review","reason":"r"}]}' >"$dir/seed-queue" ;;
    tool)
      printf '+m Deploys go out on Tuesdays\n+u Prefers short answers\n=m Tuesdays|Deploys go out on Fridays\n?deploy\n.\n-u short\n!\n' >"$dir/seed-compact"
      printf '{"operations": [{"action": "add", "target": "memory", "content": "a b c"}, {"action": "replace", "target": "memory", "old_text": "a b", "content": "c d e"}]}\n{"action": "remove", "target": "memory", "old_text": "c d"}\n"{\\"action\\": \\"add\\", \\"target\\": \\"user\\", \\"content\\": \\"x\\"}"\n' >"$dir/seed-json" ;;
  esac
}

for t in "${targets[@]}"; do
  seed "$t"
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="fuzz/$t.log"
  echo "== $t: ${seconds}s (log: $log)"
  status=0
  cargo +nightly fuzz run --fuzz-dir fuzz -O "$t" "fuzz/corpus-work/$t" -- \
    -max_total_time="$seconds" -max_len=16384 -timeout=20 -rss_limit_mb=3072 \
    -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 ${FUZZ_ARGS:-} >"$log" 2>&1 || status=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  echo "$(date -u +%FT%TZ) $t ${seconds}s status=$status execs=${execs:-?} $last" | tee -a fuzz/runs.log
  # The committed corpus: the working one minimised to the inputs that
  # reach new edges (hit counts aside, so that `cargo test` replays it in
  # seconds); the working corpus stays whole for the next run.
  rm -rf "fuzz/corpus/$t" && mkdir -p "fuzz/corpus/$t"
  cargo +nightly fuzz run --fuzz-dir fuzz -O "$t" "fuzz/corpus/$t" "fuzz/corpus-work/$t" -- \
    -merge=1 -use_counters=0 -max_len=16384 -timeout=20 >>"$log" 2>&1 || true
  if [ "$status" != 0 ]; then
    echo "$t found a failing input: see $log and fuzz/artifacts/$t/" >&2
  fi
done
