#!/usr/bin/python3
"""Validates a JSON document (stdin) against one of docs/schema/*.json with Debian's
python3-jsonschema (draft 2020-12). Prints the first error and exits 1 when invalid.
Usage: validate.py SCHEMA.json < output.json"""
import json
import sys

import jsonschema

with open(sys.argv[1]) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
document = json.load(sys.stdin)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=str)
if errors:
    best = jsonschema.exceptions.best_match(errors)
    print(f"invalid: {best.message} at {'/'.join(map(str, best.absolute_path))}")
    sys.exit(1)
