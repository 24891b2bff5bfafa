#!/usr/bin/env bash
# Installs mmt into a scratch prefix and checks what a user gets: the binary runs an
# example from share/doc/mmt/examples, `man -l` renders every page without warnings, the
# bash completion completes commands and options; then builds the Debian package, unpacks
# it with `dpkg -x` and runs the packaged binary the same way.
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build="$1"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=0
check() {  # NAME, then a command that must succeed
  local name="$1"; shift
  if "$@" > "$scratch/out" 2>&1; then echo "ok   $name"; else echo "FAIL $name"; cat "$scratch/out"; failed=1; fi
}

# solves_on_two_ranks MMT EXAMPLE: MMT solves EXAMPLE on two ranks, which loads its PETSc
# module (mpi/module.cpp) from where it was installed.
solves_on_two_ranks() {
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
    timeout 300 mpirun -n 2 --oversubscribe "$1" solve "$2" > "$scratch/ranks.out" &&
    grep -q '^ranks' "$scratch/ranks.out"
}

# serves_page MMT FOLDER: `MMT serve FOLDER` answers with the page carried in the binary
# (no source tree, no network) and solves the fork-join through its API.
serves_page() {
  local out="$scratch/serve.out" address token base status=0
  "$1" serve "$2" --port 0 > "$out" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q 'token=' "$out" && break; sleep 0.1; done
  address="$(grep -o 'http://[^ ]*token=[0-9a-f]*' "$out")" || status=1
  token="${address##*=}"; base="${address%%/\?*}"
  # Each answer goes to a file first: `grep -q` closing the pipe early would fail curl.
  curl -sf "$address" > "$scratch/page" && grep -q '<script src="app.js">' "$scratch/page" || status=1
  curl -sf -H "X-MMT-Token: $token" "$base/app.js" > "$scratch/app.js" &&
    grep -q 'cm-content' "$scratch/app.js" || status=1
  curl -sf -H "X-MMT-Token: $token" -X POST "$base/api/run" \
    -d '{"channel":"c","kind":"solve","path":"forkjoin.hdl"}' > "$scratch/run" &&
    grep -q '"throughput":0.0199719' "$scratch/run" || status=1
  kill -INT $pid; wait $pid || status=1
  return $status
}

cmake --install "$build" --prefix "$scratch/prefix" > /dev/null
mmt="$scratch/prefix/bin/mmt"
check "installed binary prints its version and commit" bash -c "'$mmt' --version | grep -q 'commit'"
check "installed binary solves an installed example" \
  bash -c "'$mmt' solve '$scratch/prefix/share/doc/mmt/examples/forkjoin.hdl' | grep -q 'application'"
check "installed binary solves on two ranks with its PETSc module" \
  solves_on_two_ranks "$mmt" "$scratch/prefix/share/doc/mmt/examples/forkjoin.hdl"
check "installed binary serves the workbench over the installed examples" \
  serves_page "$mmt" "$scratch/prefix/share/doc/mmt/examples"
check "README and docs installed" test -f "$scratch/prefix/share/doc/mmt/docs/skeletons.md"
for page in mmt mmt-solve mmt-simulate mmt-compare mmt-compile mmt-statespace mmt-sweep mmt-explore mmt-contract mmt-serve; do
  file="$scratch/prefix/share/man/man1/$page.1"
  check "man page $page renders without warnings" \
    bash -c "test -f '$file' && out=\$(MANWIDTH=80 man --warnings -l '$file' 2>&1 >/dev/null) && test -z \"\$out\" && MANWIDTH=80 man -l '$file' | grep -q 'USAGE\|usage'"
done
completion="$scratch/prefix/share/bash-completion/completions/mmt"
complete_words() {  # the words completion offers for the command line "$@" (last word partial)
  PATH="$scratch/prefix/bin:$PATH" bash -c "source '$completion'; COMP_WORDS=($*); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _mmt; echo \"\${COMPREPLY[*]}\""
}
check "completion is registered"      bash -c "source '$completion'; complete -p mmt | grep -q _mmt"
check "mmt so<Tab> completes to solve" test "$(complete_words mmt so)" = "solve"
check "mmt ex<Tab> completes to explore" test "$(complete_words mmt ex)" = "explore"
check "mmt solve --pha<Tab> completes to --phases" test "$(complete_words mmt solve --pha)" = "--phases"
check "mmt solve --method g<Tab> offers the methods" test "$(complete_words mmt solve --method g)" = "gth gauss-seidel gmres"
check "mmt solve -m <Tab>: every method, read from --help" \
  test "$(complete_words mmt solve -m "''")" = "auto gth lu gauss-seidel sor power bicgstab gmres iad fluid mean-field"
check "mmt sweep --method <Tab>: that command's own values" \
  test "$(complete_words mmt sweep --method "''")" = "auto gth lu gauss-seidel sor power bicgstab gmres iad exact simulate mean-field"
check "mmt simulate --format c<Tab>" test "$(complete_words mmt simulate --format c)" = "csv"
check "mmt solve --max-states <Tab>: nothing to offer" test -z "$(complete_words mmt solve --max-states "''")"
mkdir -p "$scratch/comp/models" && touch "$scratch/comp/model.hdl"
check "mmt serve <Tab> offers folders, not model files" \
  test "$(complete_words mmt serve "$scratch/comp/mo")" = "$scratch/comp/models"
check "mmt solve <Tab> offers both" \
  test "$(complete_words mmt solve "$scratch/comp/mo")" = "$scratch/comp/model.hdl $scratch/comp/models"

# The Python module, where the build has one (docs/python.md): installed under the prefix
# in Debian's layout, imported by Debian's interpreter from there.
python_solves() {  # python_solves DIR: mmt imported from DIR solves the fork-join example
  PYTHONPATH="$1" /usr/bin/python3 -c "import mmt, sys; sys.exit(round(mmt.load('$src_examples/forkjoin.hdl').solve().applications['forkjoin'].throughput, 7) != 0.0199719)"
}
src_examples="$scratch/prefix/share/doc/mmt/examples"
if [ -d "$build/python/mmt" ]; then
  check "the installed Python module solves an example" \
    python_solves "$scratch/prefix/lib/python3/dist-packages"
fi

# The Debian package, unpacked without installing it.
(cd "$build" && cpack -G DEB -B "$scratch/package" > "$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; exit 1; }
deb="$(ls "$scratch"/package/mmt_*.deb)"
check "the package declares runtime dependencies, not -dev ones" \
  bash -c "dpkg-deb -f '$deb' Depends | grep -q libgvc6 && ! dpkg-deb -f '$deb' Depends | grep -q -- -dev"
dpkg -x "$deb" "$scratch/root"
check "the packaged binary solves a packaged example" \
  bash -c "'$scratch/root/usr/bin/mmt' solve '$scratch/root/usr/share/doc/mmt/examples/forkjoin.hdl' | grep -q 'application'"
check "the packaged binary solves on two ranks with its PETSc module" \
  solves_on_two_ranks "$scratch/root/usr/bin/mmt" "$scratch/root/usr/share/doc/mmt/examples/forkjoin.hdl"
check "the packaged binary serves the workbench" \
  serves_page "$scratch/root/usr/bin/mmt" "$scratch/root/usr/share/doc/mmt/examples"
check "the package holds the man pages and completion" \
  test -f "$scratch/root/usr/share/man/man1/mmt-solve.1" -a -f "$scratch/root/usr/share/bash-completion/completions/mmt"
if [ -d "$build/python/mmt" ]; then
  check "the packaged Python module is where /usr/bin/python3 looks, and solves" \
    python_solves "$scratch/root/usr/lib/python3/dist-packages"
fi
exit $failed
