#!/usr/bin/env bash
# docs/cli.md is what tools/share/cli.sh makes of the binary's --help text: an option added,
# renamed or described anew in a command's --help must reach the reference page too.
# Usage: cli_doc_test.sh MMT SOURCE_DIR
set -euo pipefail
mmt="$1"; source="$2"
if ! "$source/tools/share/cli.sh" "$mmt" | diff -u "$source/docs/cli.md" -; then
  echo "docs/cli.md differs from the --help text: run tools/share/cli.sh build/tools/mmt > docs/cli.md" >&2
  exit 1
fi
echo "docs/cli.md matches every command's --help"
