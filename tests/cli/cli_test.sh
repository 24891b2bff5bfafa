#!/usr/bin/env bash
# Command-line behaviour: outputs and the documented exit codes (0 ok, 1 input error,
# 2 numerical failure). Usage: cli_test.sh MMT_BINARY SOURCE_DIR
set -u
mmt="$1"; src="$2"; tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0

expect() {  # expect NAME CODE PATTERN(stdout+stderr, grep -E) -- ARGS...
  local name="$1" code="$2" pattern="$3"; shift 4
  "$mmt" "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
  if [ "$rc" -ne "$code" ]; then
    echo "FAIL $name: exit $rc, expected $code"; cat "$tmp/out" "$tmp/err"; failed=$((failed+1)); return
  fi
  if ! cat "$tmp/out" "$tmp/err" | grep -Eq -- "$pattern"; then
    echo "FAIL $name: output does not match /$pattern/"; cat "$tmp/out" "$tmp/err"; failed=$((failed+1)); return
  fi
  echo "ok   $name"; passed=$((passed+1))
}

fj="$src/examples/forkjoin.hdl"
expect "solve prints the table"        0 "^links +utilization"               -- solve "$fj"
expect "solve --format json"           0 '"tangible": 18'                    -- solve "$fj" --format json
expect "json is one object"            0 '^\{'                               -- solve "$fj" -f json
expect "explicit gauss-seidel"         0 "solver: gauss-seidel"              -- solve "$fj" --method gauss-seidel
expect "help lists exit codes"         0 "Exit codes"                        -- --help
expect "solve --help"                  0 "--max-states"                      -- solve --help
expect "syntax error exits 1"          1 "missing_semicolon.hdl:3:33: error" -- solve "$src/tests/grammar/missing_semicolon.hdl"
expect "every error is listed"         1 "6 errors in"                       -- compile "$src/tests/grammar/many_syntax_errors.hdl"
expect "missing file exits 1"          1 "cannot read"                       -- solve "$tmp/nope.hdl"
expect "unknown command exits 1"       1 "unknown command 'slove'"           -- slove "$fj"
expect "bad option value exits 1"      1 "error: Value 'jacobi' .*(--method)"  -- solve "$fj" --method jacobi
expect "deadlock exits 1"              1 "deadlock: the reachable marking"   -- solve "$src/tests/cli/deadlock.hdl"
expect "state limit exits 1"           1 "more than 5 tangible markings"     -- solve "$fj" --max-states 5
expect "a bounded net is only large"    1 "the net is bounded .*only large"   -- solve "$fj" --max-states 5
expect "no convergence exits 2"        2 "did not converge"                  -- solve "$src/tests/grammar/auto_route_tie.hdl" --method gauss-seidel --max-iterations 1 --tolerance 1e-15
expect "iterations out: more offered"  2 "used every iteration allowed: try a larger --max-iterations" -- solve "$src/tests/grammar/auto_route_tie.hdl" --method gauss-seidel --max-iterations 1 --tolerance 1e-15
expect "no progress: no more offered"  2 "more --max-iterations would not help: the method stopped on its own" -- solve "$src/tools/bench/models/kanban.gspn" -D N=1 --method sor --relaxation 1.5
expect "solve --at: a column per time"  0 "^  P4 utilization +0 +0\.00598055 +0\.160009 +0\.159776$" -- solve "$fj" --at 0,10,100
expect "solve --at: times past any window" 0 "^  P4 utilization +0\.159776 +0\.159776 +0\.159776 +0\.159776$" -- solve "$fj" --at 1e15,1e20,1e300
expect "solve --at: no response time"   0 "response times have no value at an instant" -- solve "$fj" --at 1..3
expect "solve --at: csv rows"           0 "^10,processors,P4,utilization,0\.0059805" -- solve "$fj" --at 10 -f csv
expect "solve --at: a negative time"    1 "each time must be a finite number at least 0 \(Argument: --at\)" -- solve "$fj" --at 1,-2
expect "solve --at: not a time"         1 "expected times T1,T2,... or A..B:STEP, got 'soon'" -- solve "$fj" --at soon
expect "solve --cumulative needs --at"  1 "only with --at \(Argument: --cumulative\)"     -- solve "$fj" --cumulative
expect "solve --transient-only needs --at" 1 "only with --at \(Argument: --transient-only\)" -- solve "$fj" --transient-only
expect "solve --transient-only: no steady state" 0 "^no steady state: not solved: the transient measures only were asked for" -- solve "$fj" --at 10 --transient-only
expect "solve --plot needs --at"        1 "only with --at \(Argument: --plot\)" -- solve "$fj" --plot "$tmp/t.svg"
expect "solve --at --plot: no response time" 1 "'actors.A1.response_time' has no value at an instant" -- solve "$fj" --at 1,2 --plot "$tmp/t.svg" --metric actors.A1.response_time
expect "solve --at --plot: unknown metric" 1 "unknown metric 'actors.A9.throughput' \(known: application.throughput" -- solve "$fj" --at 1,2 --plot "$tmp/t.svg" --metric actors.A9.throughput
expect "solve --at --plot draws"        0 "^transient: uniformization"         -- solve "$fj" --at 0..100:10 --plot "$tmp/t.svg" --metric processors.P4.utilization --metric links.L12.utilization
if grep -q "processors.P4.utilization in steady state" "$tmp/t.svg"; then echo "ok   solve --at --plot: curves and steady-state lines"; else echo "FAIL solve --at --plot: no curve in the picture"; failed=$((failed+1)); fi
expect "solve --at: a deadlock still has transient measures" 0 "^no steady state: deadlock" -- solve "$src/tests/cli/deadlock.hdl" --at 1,5
expect "solve --percentiles: the iteration's" 0 "^  forkjoin +50\.0702 +46\.9621 +112\.613$" -- solve "$fj" --percentiles 50,99
expect "solve --percentiles: an actor's"  0 "^  A1 +4 +0\.993262 +11\.9829$"      -- solve "$fj" --cdf-at 20 --percentiles 95
expect "solve --percentiles: csv rows"    0 "^application,,response_time_p95,89\.27975" -- solve "$fj" --percentiles 95 -f csv
expect "solve --percentiles: out of range" 1 "each must lie in \(0, 100\) \(Argument: --percentiles\)" -- solve "$fj" --percentiles 100
expect "solve --from on a system"         1 "must not be given for a system.*\(Argument: --from\)" -- solve "$fj" --from '#a' --to '#b'
expect "solve --percentiles, open workload" 1 "closed\(1\) workload.*\(Argument: --percentiles\)" -- solve "$src/examples/farm.hdl" --percentiles 95
kb="$src/tools/bench/models/kanban.gspn"
expect "solve --from --to (net)"          0 "^  #pm1 == 1 -> #pout1 == 1 +2\.61905 +7\.43681$" -- solve "$kb" -D N=1 --from '#pm1 == 1' --to '#pout1 == 1' --percentiles 90
expect "solve --from: unknown place"      1 "^--from:1:2: error: unknown place 'pq'"  -- solve "$kb" -D N=1 --from '#pq == 1' --to '#pout1 == 1'
expect "solve --to needs --from"          1 "must be given with --to.*\(Argument: --from\)" -- solve "$kb" -D N=1 --to '#pout1 == 1'
expect "solve --deterministic exact: M/D/1/K" 0 "^  L +1\.47835$" -- solve "$src/tests/cli/md1k.gspn" --deterministic exact
expect "solve --deterministic exact: how"  0 "^constant delays solved exactly \(DSPN.*1 deterministic transition, 4 embedded markings" -- solve "$src/tests/cli/md1k.gspn" --deterministic exact
expect "solve --deterministic exact: two at once" 1 "'x' and 'y' are deterministic and enabled together in the marking \{a=1, b=1\}" -- solve "$src/tests/cli/two_deterministic.gspn" --deterministic exact
expect "solve --deterministic exact: alternatives" 1 "approximated by phases \('mmt solve --phases'\) or simulated" -- solve "$src/tests/cli/two_deterministic.gspn" --deterministic exact
expect "solve --deterministic exact --at"  1 "exact is for the steady state.*\(Argument: --deterministic\)" -- solve "$src/tests/cli/md1k.gspn" --deterministic exact --at 1
expect "contract on a percentile"        0 "^answer: P = 5 \(application\.response_time_p95 = 51\.8711, exact\)" -- contract "$src/examples/image_filter.hdl" --require "application.response_time_p95 <= 55" --vary P=1..6
expect "NCD chain: auto is accurate"   0 "^  left +0\.666667$"                  -- solve "$src/tests/cli/ncd.gspn"
expect "NCD chain: GS result corrected" 0 "corrected by 1 aggregation-disaggregation step" -- solve "$src/tests/cli/ncd.gspn" --method gauss-seidel
expect "NCD chain: json imbalance"     0 '"flow_imbalance": [0-9.e-]+'        -- solve "$src/tests/cli/ncd.gspn" -f json
c="$src/tests/cli"
expect "token overflow: solve exits 1"  1 "place 'q' would hold more than 4294967295 tokens" -- solve "$c/token_overflow.gspn"
# The simulator fires in place: the marking named is the one before the firing, undone.
expect "token overflow: simulate too"   1 "place 'q' would hold more than 4294967295 tokens after 't' fires in \\{p=1, q=2147483648\\}" -- simulate "$c/token_overflow.gspn" -r 2 --events 100
expect "rate 0 is a deadlock: solve"    0 "note: deadlock: .*'b' is enabled there, but its rate is 0" -- solve "$c/zero_rate.gspn"
# A raw net whose chain ends is solved until it ends: hypoexponential(1, 3), E[A] = 4/3.
expect "a net that ends: time to absorption" 0 "^  stages +1\.33333 +1\.05409$" -- solve "$c/stages.gspn"
expect "a net that ends: json" 0 '"probability": 1' -- solve "$c/stages.gspn" -f json
# A batch: the makespan of 32 frames on 2 renderers, exact and by simulation.
expect "batch: makespan" 0 "^makespan +mean +std dev" -- solve "$src/examples/batch.hdl" -D workers=2
expect "batch: over the run" 0 "^over the run \(time averages until the batch ends\):" -- solve "$src/examples/batch.hdl" -D workers=2
expect "batch: sweep its makespan" 0 "^ +1 +[0-9.]+$" -- sweep "$src/examples/batch.hdl" --param workers=1..2 --metric application.makespan
expect "batch: constant delays, one run" 0 "the batch's one run" -- simulate "$src/examples/batch.hdl" -D workers=2 --delays constant
expect "batch: no warm-up" 1 "a batch is observed from its start to its end" -- simulate "$src/examples/batch.hdl" -D workers=2 --warmup 10 --events 1000
expect "rate 0 is a deadlock: simulate" 1 "error: deadlock: every enabled transition has rate 0 in q=1" -- simulate "$c/zero_rate.gspn" -r 2 --events 100
expect "infinite total rate exits 1"    1 "total rate out of the marking \{p=1\} is not finite" -- solve "$c/infinite_rate.gspn"
expect "rate infinite in a marking: solve"    1 "the rate of 't' is inf"   -- solve "$c/infinite_rate_in_marking.gspn"
expect "rate infinite in a marking: simulate" 1 "the rate of 't' is inf"   -- simulate "$c/infinite_rate_in_marking.gspn" -r 2 --events 100
expect "measure over a zero throughput" 1 "measure 'per_firing' divides by a quantity that is 0" -- solve "$c/measure_zero.gspn"
expect "simulate: MSER's pilot in the header" 0 "\([0-9]+ warm-up, by MSER from a pilot of 25000\), seed 1: [0-9]+ events" -- simulate "$src/tools/bench/models/kanban.gspn" -D N=3 -r 2
expect "no completions, not 0 +- 0"     0 "ratio +undefined in 4 of 4 replications" -- simulate "$c/no_completions.gspn" -r 4 --events 1000
expect "no completions in json"         0 '"mean": null'                     -- simulate "$c/no_completions.gspn" -r 4 --events 1000 -f json
expect "system: no completions"         0 "^  A4 +0 ± 0 +no completions in 2 of 2 replications" -- simulate "$fj" -r 2 --events 2 --warmup 0
expect "compile writes the net"        0 "ok: 28 places, 20 transitions"     -- compile "$fj" --net "$tmp/fj.gspn" --dot "$tmp/fj.dot"
grep -q "subgraph cluster_A1" "$tmp/fj.dot" && grep -q "subgraph \"cluster_D1->A2\"" "$tmp/fj.dot" \
  && { echo "ok   dot has one cluster per element"; passed=$((passed+1)); } \
  || { echo "FAIL dot clusters"; failed=$((failed+1)); }
# Raw nets: .gspn in, measures out; the compiled net reads back; -D; PRISM export.
kanban="$src/tools/bench/models/kanban.gspn"
expect "raw net json"                  0 '"throughput": 0.092584634'          -- solve "$kanban" --format json
expect "raw net table has measures"    0 "^  throughput_in +0.173872"         -- solve "$kanban" -D N=2
expect "-D of an unknown parameter"    1 "declares no parameter 'M'; did you mean 'N'"  -- solve "$kanban" -D M=2
expect "malformed -D"                  1 "expected NAME=NUMBER"               -- solve "$kanban" -D N=two
expect "unknown file kind"             1 "unknown kind of file"               -- solve "$tmp/x.pnmlx"
expect "compiled net solves again"     0 '"tangible": 18'                     -- solve "$tmp/fj.gspn" --format json
expect "prism export"                  0 "^net kanban"                        -- solve "$kanban" --prism "$tmp/k"
head -1 "$tmp/k.tra" | grep -q "^160 616$" && grep -c . "$tmp/k.sta" | grep -q "^161$" \
  && { echo "ok   prism files"; passed=$((passed+1)); } || { echo "FAIL prism files"; failed=$((failed+1)); }
for m in sor power bicgstab gmres; do
  expect "method $m"                   0 "\"method\": \"$m\""                  -- solve "$kanban" -D N=2 --method $m --format json
done
expect "iad names its place"           0 "aggregated over the levels of place sm \(8 levels\)" -- solve "$src/tools/bench/models/tandem.gspn" -D c=7 --method iad
printf 'place a = 20; place b; place c;\ntimed ab rate 1 in a out b; timed bc rate 1 in b out c; timed ca rate 1 in c out a;\n' > "$tmp/cycle.gspn"
expect "iad without a weak place"      2 "iad found no place whose levels couple weakly" -- solve "$tmp/cycle.gspn" --method iad
expect "auto: GS stalls, iad"          0 "switched to iad over the levels of place sm" -- solve "$src/tools/bench/models/tandem.gspn" -D c=63

# Other tools' formats: convert Kanban N=2 to PNML and GreatSPN; each solves to the same
# throughput as the .gspn (0.173872...); a net GreatSPN cannot hold leaves no file behind.
expect "compile --pnml --greatspn"     0 "ok: 16 places, 16 transitions"      -- compile "$kanban" -D N=2 --pnml "$tmp/k2.pnml" --greatspn "$tmp/k2"
expect "solve a PNML net"              0 "^  throughput_in +0.173872"         -- solve "$tmp/k2.pnml"
expect "solve a GreatSPN net"          0 '"throughput_in": 0.17387'           -- solve "$tmp/k2.net" --format json
expect "PIPE PNML from the tests"      0 '"queue": \{'                        -- solve "$src/tests/grammar/pipe_gspn.pnml" --format json
expect "GreatSPN -D sets a parameter"  0 '"tangible": 3,'                     -- solve "$src/tests/grammar/greatspn_net.net" -D N=1 --format json
expect "GreatSPN .def error position"  1 "greatspn_bad_def.def:2:6: error"    -- solve "$src/tests/grammar/greatspn_bad_def.net"
expect "malformed PNML"                1 "pnml_malformed.pnml:5:5: error: malformed XML" -- compile "$src/tests/grammar/pnml_malformed.pnml"
# FMS's flush arcs (#P1s) go to GreatSPN as its editor writes them and come back.
expect "FMS to GreatSPN"                0 "ok: 22 places"                     -- compile "$src/tools/bench/models/fms.gspn" -D N=2 --greatspn "$tmp/fms"
grep -q ' 0 0 0.000000 0.000000 #P1s$' "$tmp/fms.net" && { echo "ok   flush arc written after its label position"; passed=$((passed+1)); } \
  || { echo "FAIL no marking-dependent arc in fms.net"; failed=$((failed+1)); }
"$mmt" solve "$src/tools/bench/models/fms.gspn" -D N=2 -f json | grep '"productivity"' > "$tmp/p1"
"$mmt" solve "$tmp/fms.net" -f json | grep '"productivity"' > "$tmp/p2"
cmp -s "$tmp/p1" "$tmp/p2" && [ -s "$tmp/p1" ] && { echo "ok   FMS through GreatSPN: same productivity"; passed=$((passed+1)); } \
  || { echo "FAIL FMS through GreatSPN: $(cat "$tmp/p1") vs $(cat "$tmp/p2")"; failed=$((failed+1)); }

# Simulation: intervals in JSON, constant delays differ visibly, same seed same output.
expect "simulate json has intervals"   0 '"half_width"'                       -- simulate "$fj" -r 4 --events 20000 -f json
expect "simulate constant delays"      0 "^  application .* 47\.[0-9]+ ± "   -- simulate "$fj" --delays constant -r 4 --events 50000
declared="$src/tests/grammar/declared_delays.hdl"
expect "solve notes declared delays"   0 "note: 4 timed transitions declare a non-exponential" -- solve "$declared"
expect "no randomness: one period, exact" 0 "^  application +0\.0181652 +55\.0502$" -- simulate "$src/examples/image_filter.hdl" -D P=1 --delays constant
expect "no randomness: the period said"  0 "repeats every 3 timed firings \(55\.0502 t\) after the first 4" -- simulate "$src/examples/image_filter.hdl" -D P=1 --delays constant
expect "no randomness, no period"       0 "no state recurred within 2000 timed firings" -- simulate "$c/incommensurable.gspn" --events 2000
expect "compare: the constant column exact" 0 "^[! ] response_time +55\.0502 +55\.0502 +5[45]\.[0-9]+ ± [0-9.e-]+ +55\.0502$" -- compare "$src/examples/image_filter.hdl" -D P=1
expect "compare: the exact constant-delay solution" 0 "^'constant exact': the exact solution with every delay constant" -- compare "$src/examples/image_filter.hdl" -D P=1
expect "compare: no exact constant-delay solution" 0 "^note: no exact constant-delay solution: 'A2\.exec' and 'D1->A3\.exec' are deterministic and enabled together in the marking" -- compare "$fj" -r 2 --events 2000
expect "simulate declared by default"  0 "simulated, declared delays"         -- simulate "$declared" -r 3 --events 20000
expect "compare: three columns"        0 "^[! ] response_time +50\.07[0-9]* +[0-9.]+ ± [0-9.e-]+ +47\.[0-9]+ ± " -- compare "$fj" --seed 3
expect "compare adds declared column"  0 "declared sim"                       -- compare "$declared" -r 4 --events 20000
expect "compare json flags"            0 '"outside_exponential_interval": \['  -- compare "$fj" -r 4 --events 20000 -f json
expect "compare a deadlock exits 1"    1 "deadlock.hdl: error: deadlock: the reachable marking" -- compare "$src/tests/cli/deadlock.hdl" -r 2
expect "simulate a deadlock exits 1"   1 "error: deadlock"                    -- simulate "$src/tests/cli/deadlock.hdl" -r 2
expect "simulate needs 2 replications" 1 "at least 2"                         -- simulate "$fj" -r 1
"$mmt" simulate "$kanban" -D N=1 -r 3 --events 5000 --seed 9 -f json | grep -v seconds > "$tmp/s1"
"$mmt" simulate "$kanban" -D N=1 -r 3 --events 5000 --seed 9 -f json | grep -v seconds > "$tmp/s2"
cmp -s "$tmp/s1" "$tmp/s2" && { echo "ok   same seed, same output"; passed=$((passed+1)); } \
  || { echo "FAIL same seed gave different output"; failed=$((failed+1)); }

# Nothing half-written on failure: no stdout when the solver fails.
"$mmt" solve "$src/tests/grammar/auto_route_tie.hdl" --method gauss-seidel --max-iterations 1 --tolerance 1e-15 > "$tmp/out" 2>/dev/null
[ ! -s "$tmp/out" ] && { echo "ok   no results on failure"; passed=$((passed+1)); } \
  || { echo "FAIL results printed on failure"; failed=$((failed+1)); }

expect "every unknown -D is reported"   1 "2 errors in"                       -- solve "$src/tools/bench/models/kanban.gspn" -D M=1 -D Q=2
expect "-D sets a description's param"  0 "S\[6\] "                           -- solve "$src/tests/grammar/loops.hdl" -D Y=3
expect "-D grows the loops"             0 "S\[8\] "                           -- solve "$src/tests/grammar/loops.hdl" -D Y=4
expect "unknown -D lists the params"    1 "its parameters: P, X, Y, work"     -- solve "$src/tests/grammar/loops.hdl" -D Z=4
expect "solve --phases reports each"   0 "note: phases: .*erlang"            -- solve "$src/tests/grammar/declared_delays.hdl" --phases
expect "phases in json"                 0 '"reached_cv2"'                     -- solve "$src/tests/grammar/declared_delays.hdl" --phases -f json
expect "--max-phases 0 refused"         1 "max-phases"                        -- solve "$src/tests/grammar/declared_delays.hdl" --phases --max-phases 0
expect "compare has a phases column"    0 "exact +phases +exponential sim"    -- compare "$src/tests/grammar/declared_delays.hdl" --max-replications 2 --events 2000
expect "sweep: a row per point"        0 "^3 +0\.0281448"                    -- sweep "$src/examples/image_filter.hdl" --param P=1..3
expect "sweep: csv header"              0 "^P,N,delays,application.response_time,status$" -- sweep "$src/examples/image_filter.hdl" --param P=1,2 --param N=512 --metric application.response_time --csv - -f json
expect "sweep: csv row, full digits"    0 "^2,512,exponential,42\.685551178564[0-9]{2,},ok$" -- sweep "$src/examples/image_filter.hdl" --param P=1,2 --param N=512 --metric application.response_time --csv - -f json
expect "sweep: simulated half-widths"   0 "response_time_half_width"          -- sweep "$src/examples/image_filter.hdl" --param P=1..2 --delays constant --metric application.response_time --replications 2 --events 2000 --csv -
expect "sweep: failed point, exit 1"    1 "^5  failed: more than 500 tangible" -- sweep "$src/examples/image_filter.hdl" --param P=4..6 --max-states 500
expect "sweep: the others still run"    1 "^4 +0\.0324037"                    -- sweep "$src/examples/image_filter.hdl" --param P=4..6 --max-states 500
expect "sweep: misspelt metric"         1 "unknown metric 'application.respone_time'" -- sweep "$src/examples/image_filter.hdl" --param P=1..2 --metric application.respone_time
expect "sweep: bad range"               1 "the range ends before it starts"   -- sweep "$src/examples/image_filter.hdl" --param P=3..1
expect "sweep: -D and --param clash"    1 "both swept and set by -D"          -- sweep "$src/examples/image_filter.hdl" --param P=1..2 -D P=3
p3="$src/examples/pipeline3.hdl"
expect "explore: 9 candidates, 5 distinct"  0 "9 candidate mappings, 5 distinct up to 1 symmetry" -- explore "$p3"
expect "explore: best of E4 set 1"          0 "^1 +S2=P2 S3=P3 +5\.63467 +27 "  -- explore "$p3"
expect "explore: asymmetric, 9 distinct"    0 "9 candidate mappings, 9 distinct" -- explore "$p3" -D nl12=10 -D nl23=1 -D nl13=1
expect "explore: json ranking"              0 '"distinct": 5'                    -- explore "$p3" -f json --top 2
expect "explore: a list of mappings"        0 "2 candidate mappings, 2 distinct" -- explore "$p3" --mappings "$src/tests/cli/e4_mappings.txt"
expect "explore: misspelt metric"           1 "unknown metric 'application.thruput'" -- explore "$p3" --metric application.thruput
expect "explore: solve needs a mapping"     1 "let 'mmt explore' try every placement" -- solve "$p3"
expect "explore: raw nets refused"          1 "explore needs a system description" -- explore "$src/tests/gspn/../../examples/forkjoin.hdl.gspn"
farm="$src/examples/farm.hdl"
for command in compare sweep explore contract; do
  expect "$command --help: the solver's options" 0 "--tolerance <X>.*" -- $command --help
  expect "$command --help: --method"              0 "-m <auto\|gth\|lu\|gauss-seidel" -- $command --help
done
kanban="$src/tools/bench/models/kanban.gspn"
expect "sweep: a method that gives up, in its row" 1 "^2  failed: the steady-state solver did not converge \(gauss-seidel, 1 iterations" -- sweep "$kanban" --param N=1..2 --method gauss-seidel --max-iterations 1 --tolerance 1e-15
expect "sweep: the method is used"      0 "^2 +0\.173872 "                    -- sweep "$kanban" --param N=1..2 --method lu
expect "explore: --method reaches each candidate" 1 "^1 .*failed: the steady-state solver did not converge \(gauss-seidel" -- explore "$src/examples/pipeline3.hdl" -D cp3=1 --method gauss-seidel --max-iterations 1 --tolerance 1e-15
expect "compare: --method reaches the exact solution" 2 "did not converge \(power" -- compare "$fj" --method power --max-iterations 1 --tolerance 1e-15 --replications 2 --events 1000
expect "contract: past --max-states, simulated" 0 "\(simulated\)" -- contract "$farm" --require "application.throughput >= 1" --vary workers=1..2 --max-states 3 --replications 2 --events 2000
expect "--digits: the tables' digits"   0 "^  forkjoin +0\.02 +50\.1$"       -- solve "$fj" --digits 3
expect "--digits: times in ms"           0 "explored in [0-9.]+ ms, solved in [0-9.e-]+ ms" -- solve "$fj"
expect "--digits: JSON keeps every digit" 0 '"throughput": 0\.0199719402492366' -- solve "$fj" --digits 2 -f json
expect "--digits: a sweep's rows"        0 "^3 +0\.028 "                        -- sweep "$src/examples/image_filter.hdl" --param P=3 --digits 2
expect "--digits out of range"           1 "must be between 1 and 17"           -- solve "$fj" --digits 18
expect "contract: bisection answer"         0 "^answer: workers = 5 "           -- contract "$farm" --require "application.throughput >= 5" --vary workers=1..12
expect "contract: linear scan agrees"       0 "^answer: workers = 5 "           -- contract "$farm" --require "application.throughput >= 5" --vary workers=1..12 --search linear
expect "contract: the bound beside it"      0 "bound-based estimate at that value is 7.5" -- contract "$farm" --require "application.throughput >= 5" --vary workers=1..12
expect "contract: unreachable, exit 1"      1 "no value of workers can meet .*nothing was solved" -- contract "$farm" --require "application.throughput >= 50" --vary workers=1..4
expect "contract: ruled out, not solved"    0 "^workers = 3: bound 4\.5 < 5: ruled out, not solved" -- contract "$farm" --require "application.throughput >= 5" --vary workers=1..12 --search linear
slow=(contract "$farm" -D emit_rate=4 --require "application.throughput >= 5" --vary workers=1..12)
expect "contract: impossible, said first"   1 "^why: the bound-based estimate, an upper bound on the throughput, is below 5 at every value of workers" -- "${slow[@]}"
expect "contract: the bottleneck named"     1 "^bottleneck: Emit on Host, 0\.5 per item \(work 0\.25 x 2 sharing / speed 1\), sharing it with Collect" -- "${slow[@]}"
expect "contract: what would help"          1 "^  give Emit a processor of its own \(it shares Host with Collect\): the bound rises to at least 4" -- "${slow[@]}"
expect "contract: the speed-up needed"      1 "^  or run Emit on a processor 2\.5 times as fast" -- "${slow[@]}"
expect "contract: more workers first"       1 "^  more workers: F needs at least 6 replicas for a bound of 8 \(it has 4\)" -- contract "$farm" --require "application.throughput >= 8" --vary workers=1..4
expect "contract: bad requirement"          1 "expected 'PATH OP NUMBER'"       -- contract "$farm" --require "throughput = 5" --vary workers=1..4
expect "contract: input, the surroundings"  0 "^input: workers changes F; T_A = 0\.1 per item \(Emit\), T_D = 0\.1 per item \(Collect\)" -- contract "$farm" --require "application.throughput >= input" --vary workers=1..12
expect "contract: input, the answer"        0 "^answer: workers = 7, the first at which" -- contract "$farm" --require "application.throughput >= input" --vary workers=1..12
expect "contract: input, T_A given"         0 "^answer: workers = 3," -- contract "$farm" --require "application.throughput >= input" --vary workers=1..12 --arrival-time 0.3
expect "contract: input needs skeletons"    1 "needs a system of one skeleton"  -- contract "$src/examples/image_filter.hdl" --require "application.throughput >= input" --vary P=1..2
expect "contract: faster processors"        0 "^answer: fast = 2 "              -- contract "$farm" --require "application.throughput >= 6" --vary fast=0..4
expect "--picture needs an image file"  1 "must be a .svg, .png or .dot"       -- solve "$fj" --picture out.txt
expect "--picture needs a system"       1 "draws a system description"        -- solve "$src/tools/bench/models/kanban.gspn" --picture out.svg
expect "trace shows the elaboration"    0 "after elaborate: 46 items from 28 loop iterations" -- compile "$src/tests/grammar/loops.hdl" --trace-passes

# Command-line values: no wrap-around, no silent substitutes.
expect "negative count refused"         1 "from string '-1'.*--max-iterations" -- solve "$fj" --max-iterations -1
expect "negative seed refused"          1 "from string '-3'.*--seed"          -- simulate "$fj" --seed -3 -r 2
expect "negative time limit refused"    1 "must be positive.*--time-limit"    -- simulate "$fj" --time-limit -5
expect "warmup below events"            1 "must be fewer than --events \(100\)" -- simulate "$fj" --warmup 500 --events 100
expect "max-replications below 2"       1 "at least 2.*--max-replications"    -- simulate "$fj" --max-replications 1
expect "max-replications 3 runs 3"      0 "3 replications of 1000"            -- simulate "$fj" --max-replications 3 --events 1000
expect "relaxation printed as given"    0 "relaxation factor 0\.912345678"    -- solve "$fj" --method sor --relaxation 0.912345678
expect "diverging SOR: failed numerically" 2 "failed numerically \(sor\): .*relaxation 1\.23456789" -- solve "$fj" --method sor --relaxation 1.23456789
mkdir -p "$tmp/dir.hdl"
expect "a directory cannot be read"     1 "cannot read '.*dir.hdl': it is a directory" -- solve "$tmp/dir.hdl"

# GreatSPN editor projects. ReaderWriter's tangible markings, counted by hand for N
# tokens: with the write lock free, no reader queued and no writer waiting unless a read is
# on, C(N+2,2) - N; with a writer writing, C(N+1,2). N = 5: 16 + 15 = 31; N = 3: 7 + 6 = 13.
expect "PNPRO solves"                   0 "^net ReaderWriter: 31 tangible markings" -- solve "$src/tests/grammar/greatspn_ReaderWriter.PNPRO"
expect "PNPRO constant via -D"          0 "^net ReaderWriter: 13 tangible markings" -- solve "$src/tests/grammar/greatspn_ReaderWriter.PNPRO" -D N=3
expect "coloured PNPRO solves"          0 "^net multiproc: 23 tangible markings" -- solve "$src/tests/grammar/greatspn_Multiprocessor.PNPRO"
expect "coloured PNPRO lumped by colour" 0 "^lumped by symmetry: the colour class P \(every permutation of 4\), 24 permutations \(340 tangible markings unlumped\)" -- solve "$src/tests/grammar/greatspn_Multiprocessor.PNPRO"
expect "coloured PNPRO whole"           0 "^net multiproc: 340 tangible markings" -- solve "$src/tests/grammar/greatspn_Multiprocessor.PNPRO" --symmetry off
expect "coloured: totals, colours hidden" 0 "^per colour: 33 places and 40 transitions of the unfolded net, listed with --colours \(JSON and CSV hold them\)$" -- solve "$src/tests/grammar/greatspn_Multiprocessor.PNPRO"
expect "coloured: --colours lists them"  0 "^  ExtMemAcc_p1_p2 +0\.0586" -- solve "$src/tests/grammar/greatspn_Multiprocessor.PNPRO" --colours
expect "compile: the unfolding's bindings" 0 "ok: 107 places, 96 transitions, unfolded from 96 bindings kept of 120 colour values tried$" -- compile "$src/tests/grammar/greatspn_DatabaseCPN.PNPRO"
# Two GSPN pages in one project: the first by default, with a warning; --page names another.
{ echo '<?xml version="1.0"?>'; echo '<project name="two" version="121">'
  for f in greatspn_ReaderWriter greatspn_Multiprocessor; do
    sed -n '/<gspn /,/<\/gspn>/p' "$src/tests/grammar/$f.PNPRO"; done
  echo '</project>'; } > "$tmp/two.PNPRO"
expect "two pages: the first, warned"   0 "warning: the project holds 2 GSPN pages \('ReaderWriter', 'multiproc'\); reading the first" -- solve "$tmp/two.PNPRO"
expect "two pages: --page names one"    0 "^net multiproc: 23 tangible markings" -- solve "$tmp/two.PNPRO" --page multiproc
expect "two pages: an unknown page"     1 "error: the project has no GSPN page named 'nope'; its pages are 'ReaderWriter', 'multiproc'" -- statespace "$tmp/two.PNPRO" --page nope
expect "--page of a file without pages" 1 "has no pages to choose from \(the page 'A' was named\): only a PNPRO project holds several" -- solve "$fj" --page A
# The fluid approximation (docs/fluid.md): the repairman's closed form, min(λμN/(λ+μ), μC) =
# min(40, 20) = 20, beside the exact chain of N + 1 markings; its refusals and its options.
rep="$src/tools/bench/models/repairman.gspn"
expect "fluid: repairman"               0 "^  repair +20$" -- solve "$rep" --method fluid
expect "fluid: exact reference"         0 "^reference: the exact steady state, 61 tangible markings" -- solve "$rep" --method fluid
expect "fluid: critical load said"      0 "note: at a critical load: the flow of repair" -- solve "$rep" --method fluid -D C=20
expect "fluid: trajectory --at"         0 "^  up mean tokens +60 +[0-9.]+ +20 +20$" -- solve "$rep" --method fluid --at 0,1,50
expect "fluid: simulated reference"     0 "^reference: a simulation with exponential delays, 10 replications" -- solve "$rep" --method fluid --reference simulation
expect "fluid: inhibitor arc refused"   1 "no fluid approximation: transition arrive has an inhibitor arc \(on q\)" -- solve "$src/tests/cli/md1k.gspn" --method fluid
expect "fluid: conflict refused"        1 "immediate transition .* shares input place .* with" -- solve "$fj" --method fluid
expect "fluid: unbounded net"           2 "the fluid trajectory grows without bound: place p" -- solve "$src/tests/cli/source.gspn" --method fluid
expect "fluid: --reference alone"       1 "only with --method fluid or mean-field" -- solve "$rep" --reference exact
expect "fluid: exact-only option"       1 "not with --method fluid" -- solve "$rep" --method fluid --percentiles 50
# The mean-field approximation (docs/meanfield.md): the farm counted at a million workers
# from two compilations; its throughput at the critical load is 1 / (1/10 + 1/100).
farm="$src/examples/farm.hdl"
expect "mean-field: a million workers"  0 "^  task_farm +9\.09091 " -- solve "$farm" --method mean-field -D workers=1000000 --reference none
expect "mean-field: counted from probes" 0 "^counted: compiled at workers = 2 and at workers = 3" -- solve "$farm" --method mean-field -D workers=1000000 --reference none
expect "mean-field: one row stands for all" 0 "^note: W\[1\] stands for each of the 1000000 replicas of W$" -- solve "$farm" --method mean-field -D workers=1000000 --reference none
expect "mean-field: smaller exact sizes" 0 "^reference: the exact steady state at smaller sizes: workers=64 \(8580 tangible markings\)" -- solve "$farm" --method mean-field -D workers=1000
expect "mean-field: exact at the size"  0 "^reference: the exact steady state at the asked size, 612 tangible markings" -- solve "$farm" --method mean-field -D workers=16
expect "mean-field: critical load said" 0 "note: at a critical load: the count of W in \{W\[k\]\.full\}" -- solve "$farm" --method mean-field -D workers=1000 --reference none
expect "mean-field: not interchangeable" 1 "no mean-field approximation: the replicas of W are not interchangeable" -- solve "$farm" --method mean-field -D fast=1
expect "mean-field: no replicas"        1 "no mean-field approximation: .* has no interchangeable replicas" -- solve "$fj" --method mean-field
expect "mean-field: exact-only option"  1 "not with --method mean-field" -- solve "$farm" --method mean-field --percentiles 50
expect "mean-field: a sweep to a million" 0 "^  1e\+06 +9\.09091 " -- sweep "$farm" --method mean-field --param workers=10,1000000
expect "mean-field: a sweep says so"    0 "^every point by the mean-field approximation" -- sweep "$farm" --method mean-field --param workers=10,20
expect "mean-field: no constant series" 1 "has no mean-field series" -- sweep "$farm" --method mean-field --param workers=10,20 --delays constant
expect "mean-field: a contract bisects 1e6 values" 0 "^answer: workers = [0-9]+ \(application\.throughput = 9\.09091, by the mean-field approximation\)" -- contract "$farm" --require "application.throughput >= 9.09" --vary workers=1..1000000 --method mean-field
expect "mean-field: no input target"    1 "the mean-field approximation compiles none at its size" -- contract "$farm" --require "application.throughput >= input" --vary workers=1..12 --method mean-field
expect "state limit offers mean-field"  1 "the 300 replicas of W make the chain grow with their number, even lumped: --method mean-field" -- solve "$farm" -D workers=300 --max-states 20000
expect "mean-field: --reference alone"  1 "only with --method fluid or mean-field" -- solve "$farm" --reference exact
"$mmt" compile "$fj" --pnpro "$tmp/fj.pnpro" 2>/dev/null
"$mmt" solve "$fj" -f json | grep -o '"throughput": [0-9.e-]*' | head -1 > "$tmp/x1"
"$mmt" solve "$tmp/fj.pnpro" -f json | grep -A1 '"A4.exec"' | grep -o '"throughput": [0-9.e-]*' > "$tmp/x2"
cmp -s "$tmp/x1" "$tmp/x2" && [ -s "$tmp/x1" ] && { echo "ok   fork-join through PNPRO: same throughput"; passed=$((passed+1)); } \
  || { echo "FAIL fork-join through PNPRO: $(cat "$tmp/x1") vs $(cat "$tmp/x2")"; failed=$((failed+1)); }

# Boundedness: an unbounded net stops at the state limit, naming what is not proven
# bounded (one run, the longest of this script: both lines are checked on its output).
expect "unbounded net stops at the limit" 1 "more than 2000000 tangible markings"  -- solve "$src/tests/grammar/storm_gspn_simple.pnpro"
if cat "$tmp/out" "$tmp/err" | grep -Eq "could not prove the net bounded: .* place_2"; then
  echo "ok   unbounded net: why"; passed=$((passed+1))
else
  echo "FAIL unbounded net: why"; cat "$tmp/out" "$tmp/err"; failed=$((failed+1))
fi
expect "memory limit stops cleanly"      1 "past the memory limit of 40 MB; raise --max-memory" -- solve "$src/tests/grammar/storm_gspn_simple.pnpro" --max-states 100000000 --max-memory 40
expect "memory limit: states reached"    1 "exploration stopped at [0-9]+ tangible markings" -- solve "$src/tests/grammar/storm_gspn_simple.pnpro" --max-states 100000000 --max-memory 40
expect "memory limit, small model"        1 "past the memory limit of 12 MB"      -- solve "$src/tools/bench/models/kanban.gspn" -D N=3 --max-memory 12
expect "--max-memory 0 refused"          1 "must be at least 1"                -- solve "$src/examples/forkjoin.hdl" --max-memory 0
expect "compile --invariants"           0 "pkan2 \+ pm3 \+ pb3 \+ pout3 = 2"    -- compile "$src/tools/bench/models/kanban.gspn" -D N=2 --invariants
expect "invariants: bounded"            0 "^bounded: every place"             -- compile "$src/tools/bench/models/tandem.gspn" --invariants
expect "invariants: unproven places"   0 "^not proven bounded \(1 place\):$"  -- compile "$c/source.gspn" --invariants
expect "invariants: a place a line"     0 "^  p$"                              -- compile "$c/source.gspn" --invariants

# Outputs: never over an input, all or nothing, safe DOT names.
cp "$fj" "$tmp/self.hdl"
expect "output over the input refused"  1 "is an input of this command"       -- compile "$tmp/self.hdl" --net "$tmp/self.hdl"
cmp -s "$fj" "$tmp/self.hdl" && { echo "ok   input left as it was"; passed=$((passed+1)); } \
  || { echo "FAIL the input was overwritten"; failed=$((failed+1)); }
expect "GreatSPN refuses: nothing written" 1 "error: GreatSPN cannot hold the declared delay const\(2\) of 'Src.exec'" -- compile "$src/tests/grammar/declared_delays.hdl" --net "$tmp/dd.gspn" --pnml "$tmp/dd.pnml" --greatspn "$tmp/dd"
[ ! -e "$tmp/dd.gspn" ] && [ ! -e "$tmp/dd.pnml" ] && [ -z "$(ls "$tmp" | grep -E '^dd|mmt-')" ] \
  && { echo "ok   no file left by a failed compile"; passed=$((passed+1)); } \
  || { echo "FAIL a failed compile left files: $(ls "$tmp")"; failed=$((failed+1)); }
expect "failed solve writes no PRISM"   2 "did not converge"                  -- solve "$src/tests/grammar/auto_route_tie.hdl" --method gauss-seidel --max-iterations 1 --tolerance 1e-15 --prism "$tmp/chain"
[ -z "$(ls "$tmp" | grep -E '^chain')" ] && { echo "ok   no PRISM files after a failed solve"; passed=$((passed+1)); } \
  || { echo "FAIL PRISM files left: $(ls "$tmp")"; failed=$((failed+1)); }
expect "PRISM files on success"         0 "solver: gth"                       -- solve "$src/tests/grammar/auto_route_tie.hdl" --prism "$tmp/chain"
[ -s "$tmp/chain.tra" ] && [ -s "$tmp/chain.sta" ] && [ -s "$tmp/chain.lab" ] \
  && { echo "ok   PRISM files written"; passed=$((passed+1)); } || { echo "FAIL no PRISM files"; failed=$((failed+1)); }
expect "DOT with backslash names"       0 "ok: 2 places"                      -- compile "$c/backslash_names.gspn" --dot "$tmp/bs.dot"
dot -Tsvg "$tmp/bs.dot" > "$tmp/bs.svg" 2> "$tmp/dot.err" && grep -q 'a\\ (1)' "$tmp/bs.svg" \
  && { echo "ok   dot reads names ending in a backslash"; passed=$((passed+1)); } \
  || { echo "FAIL dot: $(cat "$tmp/dot.err")"; failed=$((failed+1)); }

# Started again with glibc's huge-page tunable where the kernel gives huge pages on request
# (api/allocator.hpp), its arguments intact; a tunable the user set is kept. The model is
# read from a FIFO, held open while the process that reads it is looked at.
thp_on_request=0
grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null && thp_on_request=1
mkfifo "$tmp/fifo.hdl"
tunables_of() {  # tunables_of GLIBC_TUNABLES-or-"unset" [VAR=VALUE ...]: the reader's GLIBC_TUNABLES
  if [ "$1" = unset ]; then env -u GLIBC_TUNABLES "${@:2}" "$mmt" solve "$tmp/fifo.hdl" > "$tmp/fifo.out" 2>&1 &
  else env GLIBC_TUNABLES="$1" "${@:2}" "$mmt" solve "$tmp/fifo.hdl" > "$tmp/fifo.out" 2>&1 & fi
  local pid=$!
  exec 3> "$tmp/fifo.hdl"  # returns once mmt has opened the model
  # glibc ends each tunable's value with a NUL in place as it reads them: the words that
  # follow GLIBC_TUNABLES and begin with glibc. are its other tunables.
  tr '\0' '\n' < "/proc/$pid/environ" |
    awk '/^GLIBC_TUNABLES=/ { v = substr($0, 16); on = 1; next }
         on && /^glibc\./ { v = v ":" $0; next } { on = 0 } END { print v }'
  cat "$fj" >&3; exec 3>&-
  wait "$pid" || echo "exit $?"
}
got="$(tunables_of unset)"
if { [ "$thp_on_request" = 1 ] && [ "$got" = "glibc.malloc.hugetlb=1" ]; } ||
   { [ "$thp_on_request" = 0 ] && [ -z "$got" ]; }; then
  echo "ok   huge pages asked for where the kernel gives them on request"; passed=$((passed+1))
else
  echo "FAIL huge pages: GLIBC_TUNABLES '$got' with the kernel's $(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null)"; failed=$((failed+1))
fi
grep -Eq "^  P4 +0\.159776" "$tmp/fifo.out" && { echo "ok   started again, the same model solved"; passed=$((passed+1)); } \
  || { echo "FAIL started again: $(cat "$tmp/fifo.out")"; failed=$((failed+1)); }
got="$(tunables_of unset MMT_RESTARTED_WITH_HUGE_PAGES=1)"
[ -z "$got" ] && grep -Eq "^  P4 +0\.159776" "$tmp/fifo.out" \
  && { echo "ok   a program started again does not start again"; passed=$((passed+1)); } \
  || { echo "FAIL started again twice: '$got' $(cat "$tmp/fifo.out")"; failed=$((failed+1)); }
got="$(tunables_of glibc.malloc.hugetlb=0)"
[ "$got" = "glibc.malloc.hugetlb=0" ] && { echo "ok   the user's hugetlb tunable kept"; passed=$((passed+1)); } \
  || { echo "FAIL the user's tunable: '$got'"; failed=$((failed+1)); }
got="$(tunables_of glibc.malloc.tcache_count=7)"
want="glibc.malloc.tcache_count=7"; [ "$thp_on_request" = 1 ] && want="glibc.malloc.tcache_count=7:glibc.malloc.hugetlb=1"
[ "$got" = "$want" ] && { echo "ok   other tunables kept beside it"; passed=$((passed+1)); } \
  || { echo "FAIL other tunables: '$got', expected '$want'"; failed=$((failed+1)); }

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
