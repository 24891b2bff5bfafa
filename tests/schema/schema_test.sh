#!/usr/bin/env bash
# Every command's JSON output against its schema in docs/schema (validated by Debian's
# python3-jsonschema, tests/schema/validate.py): every example and raw-net fixture that
# solves, and each command; a deliberately changed key must fail; the schema files must be
# what docs/schema/generate.py writes. Usage: schema_test.sh MMT SOURCE_DIR
set -uo pipefail
mmt="$1"; src="$2"
schemas="$src/docs/schema"
validate="$src/tests/schema/validate.py"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=0; validated=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failed=1; }
check() {  # NAME SCHEMA, then the mmt arguments; the run must succeed and validate
  local name="$1" schema="$2"; shift 2
  if ! "$mmt" "$@" > "$scratch/out.json" 2> "$scratch/err"; then
    fail "$name: mmt failed"; cat "$scratch/err"; return
  fi
  if result="$("$validate" "$schemas/$schema.json" < "$scratch/out.json")"; then
    ok "$name"; validated=$((validated + 1))
  else
    fail "$name: $result"
  fi
}

# The schema files are the generator's output.
python3 "$schemas/generate.py" "$scratch" && for f in "$schemas"/*.json; do
  if cmp -s "$f" "$scratch/$(basename "$f")"; then ok "$(basename "$f") is generated"; else fail "$(basename "$f") differs from generate.py's output"; fi
done

# solve: every example that solves as written in seconds, every raw net that solves.
for hdl in forkjoin image_filter lu_paragon pipeline5 replication farm batch; do
  check "solve examples/$hdl.hdl" solve solve "$src/examples/$hdl.hdl" -f json
done
check "solve --at (system)" solve solve "$src/examples/farm.hdl" -f json --at 0,1,5
check "solve --at, no steady state (system)" solve solve "$src/tests/cli/deadlock.hdl" -f json --at 1,5
check "solve --percentiles --cdf-at (system)" solve solve "$src/examples/forkjoin.hdl" -f json --percentiles 50,99 --cdf-at 10,100
check "solve --from --to (net)" solve solve "$src/tools/bench/models/kanban.gspn" -D N=1 -f json --from '#pm1 == 1' --to '#pout1 == 1' --percentiles 90
check "solve --deterministic exact (net)" solve solve "$src/tests/cli/md1k.gspn" -f json --deterministic exact
check "solve a net that ends"         solve solve "$src/tests/cli/stages.gspn" -f json
check "solve a net that ends, --at"   solve solve "$src/tests/cli/stages.gspn" -f json --at 0.5,2
check "solve a net of two bottom components" solve solve "$src/tools/bench/models/choice.gspn" -D N=3 -f json
check "solve --at --cumulative (net)" solve solve "$src/tools/bench/models/kanban.gspn" -D N=1 -f json --at 0,2 --cumulative
check "solve --method fluid (net)"    fluid solve "$src/tools/bench/models/repairman.gspn" --method fluid -f json
check "solve --method fluid --at, simulated reference (net)" fluid solve "$src/tools/bench/models/repairman.gspn" --method fluid --reference simulation --at 0,1 -f json
check "solve --method mean-field (system, smaller exact sizes)" meanfield solve "$src/examples/farm.hdl" --method mean-field -D workers=1000 -f json
check "solve --method mean-field --at (system)" meanfield solve "$src/examples/farm.hdl" --method mean-field -D workers=100 --at 0,1 --reference none -f json
for net in "$src"/tests/grammar/*.gspn "$src"/tests/grammar/*.pnml "$src"/tests/grammar/*.net \
           "$src"/tests/grammar/*.PNPRO "$src"/tests/cli/*.gspn; do
  "$mmt" solve "$net" -f json --max-states 20000 > "$scratch/out.json" 2>/dev/null || continue
  if result="$("$validate" "$schemas/solve.json" < "$scratch/out.json")"; then
    ok "solve ${net#$src/}"; validated=$((validated + 1))
  else
    fail "solve ${net#$src/}: $result"
  fi
done
check "solve kanban N=2"                      solve solve "$src/tools/bench/models/kanban.gspn" -D N=2 -f json
check "solve --phases (phases block)"         solve solve "$src/tests/grammar/declared_delays.hdl" --phases -f json
check "simulate a system"                     simulate simulate "$src/examples/forkjoin.hdl" -f json -r 2 --events 2000
check "simulate skeletons"                    simulate simulate "$src/examples/pipeline5.hdl" -f json -r 2 --events 2000
check "simulate a raw net"                    simulate simulate "$src/tools/bench/models/kanban.gspn" -D N=1 -f json -r 2 --events 2000
check "simulate without randomness, periodic"  simulate simulate "$src/examples/image_filter.hdl" -D P=1 --delays constant -f json
check "simulate without randomness, no period" simulate simulate "$src/tests/cli/incommensurable.gspn" -f json --events 2000
check "compare a system"                      compare compare "$src/examples/forkjoin.hdl" -f json -r 2 --events 2000
check "compare with declared delays"          compare compare "$src/tests/grammar/declared_delays.hdl" -f json -r 2 --events 2000
check "sweep, exact"                          sweep sweep "$src/examples/image_filter.hdl" --param P=1..2 -f json
check "sweep, simulated"                      sweep sweep "$src/examples/image_filter.hdl" --param P=1..2 --delays constant -r 2 --events 2000 -f json
check "explore"                               explore explore "$src/examples/pipeline3.hdl" -f json
check "contract"                              contract contract "$src/examples/farm.hdl" --require "application.throughput >= 5" --vary workers=1..8 -f json
check "contract, input target"                contract contract "$src/examples/farm.hdl" --require "application.throughput >= input" --vary workers=5..8 -f json
check "statespace (system, lumped)"            statespace statespace "$src/examples/farm.hdl" -D workers=6 -f json
check "statespace (net, dead markings)"          statespace statespace "$src/tests/mcc/Philosophers-PT-000005.pnml" -f json
"$mmt" contract "$src/examples/farm.hdl" --require "application.throughput >= 50" --vary workers=1..3 -f json > "$scratch/out.json" 2>/dev/null
if result="$("$validate" "$schemas/contract.json" < "$scratch/out.json")"; then ok "contract, unmet"; validated=$((validated + 1)); else fail "contract, unmet: $result"; fi

# A changed key must fail: the schemas are closed.
"$mmt" solve "$src/examples/forkjoin.hdl" -f json | sed 's/"application"/"aplication"/' > "$scratch/bad.json"
if "$validate" "$schemas/solve.json" < "$scratch/bad.json" > /dev/null; then
  fail "a renamed key is caught"
else
  ok "a renamed key is caught"
fi
"$mmt" solve "$src/examples/forkjoin.hdl" -f json | sed 's|"mmt/solve/1"|"mmt/solve/2"|' > "$scratch/bad.json"
if "$validate" "$schemas/solve.json" < "$scratch/bad.json" > /dev/null; then
  fail "another major version is caught"
else
  ok "another major version is caught"
fi
# --format csv holds the same numbers as --format json.
csv_check() {  # NAME, then the mmt arguments without --format
  local name="$1"; shift
  "$mmt" "$@" -f json > "$scratch/a.json" && "$mmt" "$@" -f csv > "$scratch/a.csv" \
    && result="$("$src/tests/schema/csv_matches.py" "$scratch/a.json" "$scratch/a.csv")" \
    && ok "csv = json: $name ($result)" || { fail "csv = json: $name"; echo "$result"; }
}
csv_check "solve a system"        solve "$src/examples/forkjoin.hdl"
csv_check "solve skeletons"       solve "$src/examples/farm.hdl"
csv_check "solve a raw net"       solve "$src/tools/bench/models/kanban.gspn" -D N=1
csv_check "simulate a system"     simulate "$src/examples/forkjoin.hdl" -r 2 --events 2000
csv_check "simulate a raw net"    simulate "$src/tools/bench/models/kanban.gspn" -D N=1 -r 2 --events 2000
"$mmt" compare "$src/examples/forkjoin.hdl" -r 2 --events 2000 -f csv > "$scratch/c.csv"
if head -1 "$scratch/c.csv" | grep -q '^section,element,metric,exact,exponential,exponential_half_width,constant,constant_half_width,outside$' \
   && [ "$(wc -l < "$scratch/c.csv")" -gt 10 ]; then ok "compare csv: exact and intervals per kind"; else fail "compare csv"; fi

[ "$validated" -ge 20 ] || fail "only $validated outputs validated"
echo "$validated outputs validated"
exit $failed
