#!/usr/bin/env bash
# Writes docs/cli.md, the command-line reference, from the --help text of the built
# binary: one source of text for `mmt COMMAND --help`, the man pages (man.sh) and this
# page. The test `cli_doc` fails when the committed page differs from what this prints.
# Usage: tools/share/cli.sh build/tools/mmt > docs/cli.md
set -euo pipefail
mmt="$1"
commands=(solve simulate compare sweep explore contract compile statespace serve)
cat <<'TEXT'
# Command-line reference

This page is made from `mmt --help` and `mmt COMMAND --help` by `tools/share/cli.sh`
(the man pages, `man mmt-solve`, come from the same text); a test fails when it differs
from the binary's help.

- **FILE** is a system description (`.hdl`, [language.md](language.md)) or a raw net:
  mmt's text format (`.gspn`, [gspn.md](gspn.md)), PNML (place/transition nets, and
  symmetric nets, which are unfolded), GreatSPN `.net` with its `.def` beside it, or a
  GreatSPN editor project (`.PNPRO`) ([formats.md](formats.md)).
- **Output**: a table by default; `--format json` prints one object under a versioned
  schema ([json.md](json.md)); `--format csv` prints `section,element,metric,value` rows.
  `--digits N` sets the significant digits of tables (JSON and CSV keep every digit).
- **Solver options** are the same in every command that solves: `--method`,
  `--tolerance`, `--max-iterations`, `--relaxation`, `--symmetry`
  ([modelling.md](modelling.md), "Solution"; [symmetry.md](symmetry.md)).
- **Progress**: a run that lasts more than a second shows its progress on a terminal, and
  under `--progress` anywhere.
- **Runs over MPI**: `mpirun -n P mmt sweep|explore|contract|solve …`
  ([distributed.md](distributed.md)).

TEXT
echo '## mmt'
echo
echo '```'
# The first line names the build's commit, which the page does not carry.
"$mmt" --help | sed '1s/ (commit [^)]*)//'
echo '```'
for command in "${commands[@]}"; do
  echo
  echo "## mmt $command"
  echo
  echo '```'
  "$mmt" "$command" --help | sed -e 's/[[:space:]]*$//'
  echo '```'
done
