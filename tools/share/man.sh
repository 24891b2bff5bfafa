#!/usr/bin/env bash
# Writes the man pages of mmt into DIR from the --help text of the built binary, with
# help2man: mmt(1) and mmt-COMMAND(1) for every command (one source of text, no copy that
# could drift). Usage: man.sh MMT VERSION DIR
set -euo pipefail
mmt="$1"; version="$2"; dir="$3"
mkdir -p "$dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# help2man runs PROGRAM --help; a command's page comes from `mmt COMMAND --help`.
declare -A about=(
  [solve]="compile a model, solve its Markov chain exactly and print the metrics"
  [simulate]="simulate a model with declared, exponential or constant delays"
  [compare]="exact and simulated metrics side by side"
  [sweep]="solve a model over a grid of parameter values"
  [explore]="rank every candidate mapping of a description's skeleton tasks"
  [contract]="the smallest parameter value that meets a performance requirement"
  [compile]="check a model and write its net in another format"
  [statespace]="explore a model's state space and report it without solving"
  [serve]="the workbench in a browser: edit, check and solve models as you type"
)
for command in "${!about[@]}"; do
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$mmt" "$command" > "$work/mmt-$command"
  chmod +x "$work/mmt-$command"
  help2man --no-info --no-discard-stderr --version-string="$version" \
    --name="${about[$command]}" --section=1 --source="mmt $version" \
    --output="$dir/mmt-$command.1" "$work/mmt-$command"
done
printf '#!/bin/sh\nexec "%s" "$@"\n' "$mmt" > "$work/mmt"
chmod +x "$work/mmt"
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name="performance prediction of parallel programs on parallel hardware through GSPNs" \
  --section=1 --source="mmt $version" --output="$dir/mmt.1" "$work/mmt"
