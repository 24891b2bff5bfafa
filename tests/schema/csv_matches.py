#!/usr/bin/python3
"""Checks that `--format csv` holds the numbers of `--format json`: every row's values are
the JSON leaf at section/element/metric, and every JSON leaf has its row.
Usage: csv_matches.py OUTPUT.json OUTPUT.csv"""
import csv
import json
import math
import sys

tree = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
sections = {"application", "skeletons", "tasks", "actors", "processors", "messages", "links",
            "places", "transitions", "measures"}


def same(text, value):
    if value is None:
        return text == ""
    return text != "" and math.isclose(float(text), value, rel_tol=1e-15, abs_tol=0)


leaves = 0
for section, elements in tree.items():
    if section not in sections:
        continue
    for name, node in elements.items():
        for metric, leaf in (node.items() if isinstance(node, dict) and "mean" not in node else [(None, node)]):
            element, key = (name, metric) if metric is not None else ("", name)
            if section == "measures":
                element, key = name, "value"
            match = [r for r in rows if (r["section"], r["element"], r["metric"]) == (section, element, key)]
            if len(match) != 1:
                sys.exit(f"{section}/{element}/{key}: {len(match)} rows")
            r = match[0]
            ok = same(r["value"], leaf["mean"]) and same(r["half_width"], leaf["half_width"]) \
                if isinstance(leaf, dict) else same(r["value"], leaf)
            if not ok:
                sys.exit(f"{section}/{element}/{key}: csv {r} but json {leaf}")
            leaves += 1
if leaves != len(rows):
    sys.exit(f"{len(rows)} rows but {leaves} numbers")
print(f"{leaves} numbers match")
