#!/usr/bin/env bash
# `mmt statespace` against the Model Checking Contest's oracle (ORIGIN.md): for each net,
# the reachable markings, the firings, the most tokens in a place and in a marking must be
# the published ones; then the dead markings and bottom components known of some of them,
# and a lumped farm's unlumped counts against its full chain.
# Usage: statespace_test.sh MMT SOURCE_DIR small|large
set -uo pipefail
mmt="$1"; src="$2"; which="$3"
dir="$src/tests/mcc"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failed=1; }
# expect NAME JSON_FILE JQ_EXPRESSION VALUE [JQ_OPTIONS...]
expect() {
  local got
  got="$(jq -r "${@:5}" "$3" "$2")"
  if [ "$got" = "$4" ]; then ok "$1: $3 = $4"; else fail "$1: $3 is $got, expected $4"; fi
}

if [ "$which" = large ]; then
  nets=(ParamProductionCell-PT-5 EisenbergMcGuire-PT-04)
else
  nets=(TokenRing-PT-005 SharedMemory-PT-000005 Philosophers-PT-000005 HouseConstruction-PT-00002
        ResAllocation-PT-R003C005 StigmergyElection-PT-03a
        TokenRing-COL-005 SharedMemory-COL-000005 Philosophers-COL-000005
        DatabaseWithMutex-COL-02 Peterson-COL-2)
fi
for net in "${nets[@]}"; do
  out="$scratch/$net.json"
  if ! "$mmt" statespace "$dir/$net.pnml" -f json > "$out" 2> "$scratch/err"; then
    fail "$net: mmt statespace failed"; cat "$scratch/err"; continue
  fi
  # One warning line for the untimed net, not one per transition.
  warnings=$(grep -c 'warning:' "$scratch/err")
  [ "$warnings" = 1 ] && ok "$net: one warning for its untimed transitions" ||
    fail "$net: $warnings warnings"
  oracle() { awk -v k="$1" '$1 == "STATE_SPACE" && $2 == k { print $3 }' "$dir/$net-SS.out"; }
  # A net lumped by its symmetry (a coloured net by its colour classes) gives the counts
  # from its orbits' sizes, and the same counts explored whole.
  expect "$net" "$out" '(.unlumped.tangible // .tangible) | floor' "$(oracle STATES)"
  expect "$net" "$out" '(.unlumped.firings // .firings) | floor' "$(oracle TRANSITIONS)"
  expect "$net" "$out" .max_tokens_in_place "$(oracle MAX_TOKEN_IN_PLACE)"
  expect "$net" "$out" .max_tokens_per_marking "$(oracle MAX_TOKEN_PER_MARKING)"
  if [ "$(jq '.unlumped != null' "$out")" = true ]; then
    whole="$scratch/$net-whole.json"
    if "$mmt" statespace "$dir/$net.pnml" --symmetry off -f json > "$whole" 2> /dev/null; then
      expect "$net whole" "$whole" .tangible "$(oracle STATES)"
      expect "$net whole" "$whole" .firings "$(oracle TRANSITIONS)"
    else
      fail "$net: mmt statespace --symmetry off failed"
    fi
  fi
done

if [ "$which" = small ]; then
  # Every order meets every reachable vanishing marking: the ring's 91,521 at N = 10, as
  # a plain breadth-first search counts them (tests/gspn/benchmarks.cpp); one order meets
  # fewer, with the same tangible markings.
  ring="$src/tools/bench/models/ring8.gspn"
  "$mmt" statespace "$ring" -D N=10 --every-order -f json > "$scratch/every.json" 2> /dev/null
  "$mmt" statespace "$ring" -D N=10 -f json > "$scratch/one.json" 2> /dev/null
  expect "ring, every order" "$scratch/every.json" .vanishing 91521
  expect "ring, one order" "$scratch/one.json" .tangible "$(jq .tangible "$scratch/every.json")"
  one=$(jq .vanishing "$scratch/one.json")
  [ "$one" -lt 91521 ] && ok "ring, one order: $one vanishing markings" ||
    fail "ring, one order: $one vanishing markings, not fewer than every order's"
  r="$scratch"
  expect Philosophers "$r/Philosophers-PT-000005.json" .dead_markings.count 2
  expect Philosophers "$r/Philosophers-PT-000005.json" '[.bottom_components[] | select(.dead)] | length' 2
  expect HouseConstruction "$r/HouseConstruction-PT-00002.json" .dead_markings.first[0] '(empty marking)'
  expect HouseConstruction "$r/HouseConstruction-PT-00002.json" .transient_markings 1500
  expect ResAllocation "$r/ResAllocation-PT-R003C005.json" .dead_markings.count 4
  expect StigmergyElection "$r/StigmergyElection-PT-03a.json" '.bottom_components | length' 3
  expect StigmergyElection "$r/StigmergyElection-PT-03a.json" .dead_markings.count 0
  expect TokenRing "$r/TokenRing-PT-005.json" '.bottom_components[0].markings' 36
  expect TokenRing "$r/TokenRing-PT-005.json" .transient_markings 130
  expect SharedMemory "$r/SharedMemory-PT-000005.json" '.bottom_components[0].markings' 1863

  # The farm of 6 workers lumped: its unlumped counts are the full chain's.
  "$mmt" statespace "$src/examples/farm.hdl" -D workers=6 -f json > "$r/lumped.json" &&
    "$mmt" statespace "$src/examples/farm.hdl" -D workers=6 --symmetry off -f json > "$r/full.json" ||
    fail "farm: mmt statespace failed"
  expect "farm lumped" "$r/lumped.json" .unlumped.tangible "$(jq .tangible "$r/full.json")"
  expect "farm lumped" "$r/lumped.json" .unlumped.firings "$(jq .firings "$r/full.json")"
  expect "farm lumped" "$r/lumped.json" '.bottom_components[0].unlumped_markings' "$(jq .tangible "$r/full.json")"
  expect "farm lumped" "$r/lumped.json" .max_tokens_per_marking "$(jq .max_tokens_per_marking "$r/full.json")"
  expect "farm lumped" "$r/lumped.json" '[.bounds[]] | add' "$(jq '[.bounds[]] | add' "$r/full.json")"
  expect "farm lumped" "$r/lumped.json" .tangible 112

  # Every small net is solved, those whose chain ends until it ends: the ends are the
  # statespace's bottom components, their probabilities sum to 1, and the solvers agree.
  for net in "${nets[@]}"; do
    if ! "$mmt" solve "$dir/$net.pnml" -f json > "$r/$net.solve.json" 2> "$scratch/err"; then
      fail "$net: mmt solve failed"; cat "$scratch/err"; continue
    fi
    ok "$net: solved"
    if [ "$(jq 'has("absorption")' "$r/$net.solve.json")" = true ]; then
      expect "$net ends" "$r/$net.solve.json" '.absorption.components | length' \
        "$(jq '.bottom_components | length' "$r/$net.json")"
      expect "$net ends" "$r/$net.solve.json" '[.absorption.components[].probability] | add - 1 | fabs < 1e-12' true
    fi
  done
  # A symmetric net solves as its P/T twin: every place and transition of the twin has the
  # same mean tokens and throughput in the unfolding (which may hold places the twin drops
  # as never marked: SharedMemory's Ext_Mem_Acc_1_1).
  for twin in TokenRing-X-005 SharedMemory-X-000005 Philosophers-X-000005; do
    col="$r/${twin/X/COL}.solve.json" pt="$r/${twin/X/PT}.solve.json"
    expect "${twin/X/COL} = ${twin/X/PT}" "$pt" "[(.places | to_entries[] | .value.mean_tokens - (\$c[0].places[.key].mean_tokens // 1e300)), (.transitions | to_entries[] | .value.throughput - (\$c[0].transitions[.key].throughput // 1e300)) | fabs < 1e-9] | all" true --slurpfile c "$col"
  done
  # An unfolded net's coloured totals are its colours' sums; a P/T net has none.
  expect "SharedMemory-COL-000005 totals" "$r/SharedMemory-COL-000005.solve.json" \
    '.coloured_places.Memory.mean_tokens - ([.places | to_entries[] | select(.key | startswith("Memory_")) | .value.mean_tokens] | add) | fabs < 1e-12' true
  expect "SharedMemory-COL-000005 totals" "$r/SharedMemory-COL-000005.solve.json" \
    '.coloured_transitions.Begin_Ext_Acc.throughput - ([.transitions | to_entries[] | select(.key | startswith("Begin_Ext_Acc_")) | .value.throughput] | add) | fabs < 1e-12' true
  expect "SharedMemory-PT-000005 totals" "$r/SharedMemory-PT-000005.solve.json" 'has("coloured_places")' false
  expect "Philosophers ends" "$r/Philosophers-PT-000005.solve.json" \
    '[.absorption.components[].probability | . - 0.5 | fabs < 1e-12] | all' true
  "$mmt" solve "$dir/ResAllocation-PT-R003C005.pnml" --method gth -f json > "$r/gth.json" 2> /dev/null
  expect "ResAllocation gth = gauss-seidel" "$r/gth.json" \
    "[.absorption.components[].probability] | . as \$g | $(jq -c '[.absorption.components[].probability]' "$r/ResAllocation-PT-R003C005.solve.json") | to_entries | map(.value - \$g[.key] | fabs < 1e-9) | all" true
  expect "ResAllocation gth = gauss-seidel" "$r/gth.json" \
    ".absorption.time.mean - $(jq .absorption.time.mean "$r/ResAllocation-PT-R003C005.solve.json") | fabs < 1e-9" true

  # The table names the same figures.
  "$mmt" statespace "$dir/Philosophers-PT-000005.pnml" > "$r/table" 2> /dev/null
  grep -qE '^  dead markings +2$' "$r/table" && ok "table: dead markings" || fail "table: dead markings"
  grep -q '{Catch1_1=1' "$r/table" && ok "table: a dead marking shown" || fail "table: no dead marking shown"
fi
exit $failed
