#!/usr/bin/env bash
# A short fuzzing run of one reader's target in the test suite (the sanitizer build, with
# clang): from its seeds, SECONDS of libFuzzer's mutations, each input read, explored,
# solved and measured. Fails, printing the input, on any crash, hang (10 s) or
# out-of-memory; `tools/fuzz SECONDS READER` fuzzes longer and keeps what it finds.
# Usage: smoke.sh FUZZ_BINARY READER SECONDS
set -euo pipefail
binary="$1" reader="$2" seconds="$3"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$(dirname "${BASH_SOURCE[0]}")/seeds.sh" "$reader" "$tmp/seeds"
mkdir -p "$tmp/new" "$tmp/found"
# New inputs go to the first folder (a temporary); the seeds are read only.
if ! "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$tmp/found/" "$tmp/new" "$tmp/seeds" > "$tmp/log" 2>&1; then
  tail -n 60 "$tmp/log"
  for f in "$tmp/found"/*; do
    echo "fuzz smoke ($reader): found $(basename "$f"); base64 of the input:"
    base64 "$f"
  done
  echo "fuzz smoke ($reader): replay it with tools/fuzz or add it to tests/fuzz/regressions/$reader/"
  exit 1
fi
grep -E '^#[0-9]+[[:space:]]+DONE' "$tmp/log" | tail -n 1 || true
