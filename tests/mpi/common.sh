# What the tests of tests/mpi share; sourced after `mmt` and `src` are set.
set -u
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
# Open MPI refuses root unless told, and more ranks than cores unless oversubscribed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Under AddressSanitizer (tools/test --sanitize), Open MPI's allocations that live until
# exit are reported as leaks from components it has already unloaded, which no
# suppression can name: leaks are not checked here (the other tests check mmt's own).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
# run P COMMAND...: COMMAND on P ranks, ended after 10 minutes (a hang fails the test),
# killed 10 s later if the launcher does not end on SIGTERM.
run() { timeout -k 10 600 mpirun -n "$1" --oversubscribe "${@:2}"; }
ok() { echo "ok   $1"; passed=$((passed+1)); }
fail() { echo "FAIL $1"; failed=$((failed+1)); }
