#!/usr/bin/env bash
# Copies the seed inputs of one reader (the test and example files of its kind) into a
# corpus folder, for tools/fuzz and the fuzz smoke tests.
# Usage: seeds.sh READER CORPUS_DIR   (READER: hdl gspn pnml greatspn pnpro)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
reader="$1" corpus="$2"
case "$reader" in
  hdl) files=("$root"/tests/grammar/*.hdl "$root"/examples/*.hdl "$root"/tests/cli/*.hdl) ;;
  gspn) files=("$root"/tests/grammar/*.gspn "$root"/tests/cli/*.gspn "$root"/tools/bench/models/*.gspn) ;;
  pnml) files=("$root"/tests/grammar/*.pnml "$root"/tests/mcc/TokenRing-COL-005.pnml
              "$root"/tests/mcc/Philosophers-COL-000005.pnml) ;;
  greatspn) files=("$root"/tests/grammar/*.net) ;;
  pnpro) files=("$root"/tests/grammar/*.PNPRO "$root"/tests/grammar/*.pnpro) ;;
  *) echo "seeds.sh: unknown reader '$reader' (hdl gspn pnml greatspn pnpro)" >&2; exit 1 ;;
esac
mkdir -p "$corpus"
for f in "${files[@]}"; do [ -f "$f" ] && cp -n "$f" "$corpus/" 2>/dev/null || true; done
# examples/farm_pipeline.hdl at its 1,000 workers a farm compiles to 12,016 places, past
# libFuzzer's 10 s an input under the sanitizers: seeded at two workers a farm.
if [ -f "$corpus/farm_pipeline.hdl" ]; then
  sed -i 's/^  param workers = 1000;/  param workers = 2;/' "$corpus/farm_pipeline.hdl"
  grep -q '^  param workers = 2;' "$corpus/farm_pipeline.hdl" ||
    { echo "seeds.sh: farm_pipeline.hdl no longer declares 'param workers = 1000'" >&2; exit 1; }
fi
