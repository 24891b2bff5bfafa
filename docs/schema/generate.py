#!/usr/bin/env python3
"""Writes the JSON Schemas (draft 2020-12) of mmt's JSON outputs into this directory, one
per command: solve (and its fluid and mean-field approximations), simulate, compare, sweep, explore, contract, statespace. One definition of the result tree
serves the three commands that print it, with a different leaf: a number (solve), an
interval (simulate), a comparison cell (compare). The test suite checks that the files
are this script's output and validates every command's output against them
(tests/schema/schema_test.sh). docs/json.md documents every key.

Usage: docs/schema/generate.py [DIR]   (default: the directory of this script)
"""
import json
import os
import sys

MAJOR = 1
NUMBER = {"type": ["number", "null"], "description": "null: undefined (no completions, 0/0)"}
COUNT = {"type": "integer", "minimum": 0}


def obj(properties, required=None, extra=False):
    out = {"type": "object", "properties": properties, "additionalProperties": extra}
    out["required"] = list(properties) if required is None else required
    return out


def named(value):
    """An object of elements by name, each `value`."""
    return {"type": "object", "additionalProperties": value}


INTERVAL = obj({"mean": NUMBER, "half_width": NUMBER, "undefined": {"type": "string"}},
               required=["mean", "half_width"])
CELL = {"type": "object", "required": ["exact", "outside"],
        "properties": {"exact": NUMBER, "phases": NUMBER, "constant_exact": NUMBER,
                       "outside": {"type": "boolean"}},
        "additionalProperties": INTERVAL,
        "description": "exact value, then one interval per simulated delay kind"}


LITTLE = ("response_time", "synchronization_delay", "blocking_time")


def results(leaf, instantaneous=False):
    """The result tree of a system (application and elements) or of a raw net. At an
    instant (a transient point) the quantities Little's law defines are absent."""
    def fields(*keys, optional=()):
        if instantaneous:
            keys = tuple(k for k in keys if k not in LITTLE)
            optional = tuple(k for k in optional if k not in LITTLE)
        return obj({k: leaf for k in keys + tuple(optional)}, required=list(keys))
    station = fields("utilization", "throughput", "queue_length", "response_time")
    system = {
        "application": fields("throughput",
                              optional=("response_time", "arrival_rate", "loss_probability",
                                        "makespan")),
        "skeletons": named(fields("throughput", "response_time")),
        "tasks": named(fields("throughput", "utilization", "blocked", "blocking_time")),
        "actors": named(fields("throughput", "response_time", "synchronization_delay")),
        "processors": named(station),
        "messages": named(fields("throughput", "response_time")),
        "links": named(station),
    }
    net = {
        # An unfolded coloured net's totals per coloured place and transition (optional).
        "coloured_places": named(fields("mean_tokens")),
        "coloured_transitions": named(fields("throughput")),
        "places": named(fields("mean_tokens")),
        "transitions": named(fields("throughput")),
        "measures": named(leaf),
    }
    return system, net


SYMMETRY = obj({"lumped": {"type": "array", "items": obj({
                    "replica": {"type": "string"},
                    "group": {"enum": ["symmetric", "cyclic", "dihedral", "colour"]},
                    "blocks": COUNT,
                    # A coloured net's colour permutations: blocks is the group's order.
                    "classes": {"type": "array", "items": obj({
                        "class": {"type": "string"},
                        "group": {"enum": ["symmetric", "cyclic",
                                           "symmetric on each static subclass"]},
                        "colours": COUNT})}},
                    required=["replica", "group", "blocks"])},
                "log10_group_order": {"type": "number"},
                "unlumped_tangible": {"type": ["number", "null"],
                                      "description": "null: not lumped, or past a double"},
                "log10_unlumped_tangible": {"type": ["number", "null"],
                                            "description": "null: not lumped"},
                "notes": {"type": "array", "items": {"type": "string"}}})
STATES = obj({"tangible": COUNT, "vanishing": COUNT, "transient": COUNT, "edges": COUNT,
              "bytes_per_edge": COUNT, "symmetry": SYMMETRY},
             required=["tangible", "vanishing", "transient", "edges", "bytes_per_edge"])
TRANSIENT_SOLVER = obj({"method": {"const": "uniformization"}, "cumulative": {"type": "boolean"},
                        "error_bound": {"type": "number"}, "rate": {"type": "number"},
                        "iterations": COUNT, "stationary_at": {"type": ["integer", "null"]},
                        "dropped": {"type": "number"}, "held_products": COUNT,
                        "most_held": COUNT, "seconds": {"type": "number"}})
DETERMINISTIC = obj({"method": {"const": "embedded Markov renewal process"},
                     "deterministic_transitions": COUNT, "embedded_markings": COUNT,
                     "subordinated_ctmcs": COUNT, "iterations": COUNT,
                     "embedded_method": {"type": "string"}, "embedded_residual": {"type": "number"},
                     "seconds": {"type": "number"}})
SOLVER = obj({"method": {"type": "string"}, "iterations": COUNT, "residual": {"type": "number"},
              "flow_imbalance": {"type": "number"}, "aggregations": COUNT,
              "exploration_seconds": {"type": "number"}, "solution_seconds": {"type": "number"},
              "peak_memory_mb": {"type": "number"}, "note": {"type": "string"},
              "error_estimate": {"type": ["number", "null"]},
              "delays_note": {"type": "string"}, "transient": TRANSIENT_SOLVER,
              "deterministic": DETERMINISTIC},
             required=["method", "iterations", "residual", "flow_imbalance", "aggregations",
                       "exploration_seconds", "solution_seconds", "peak_memory_mb"])
PHASES = {"type": "array", "items": obj({
    "transition": {"type": "string"}, "declared": {"type": "string"}, "phases": {"type": "string"},
    "declared_cv2": {"type": "number"}, "reached_cv2": {"type": "number"}})}
SIMULATION = obj({"delays": {"enum": ["declared", "exponential", "constant"]},
                  "replications": COUNT, "events_per_replication": COUNT, "warmup_events": COUNT,
                  "events": COUNT, "simulated_time": {"type": "number"},
                  "seconds": {"type": "number"}, "threads": COUNT, "seed": COUNT,
                  "confidence": {"type": "number"}, "precision": {"type": "number"},
                  "precision_reached": {"type": "boolean"}, "note": {"type": "string"},
                  "warmup": obj({"rule": {"enum": ["given", "mser"]},
                                 "batch_firings": COUNT, "at_bound": {"type": "boolean"},
                                 "pilot_firings": COUNT, "pilot_events": COUNT},
                                required=["rule"]),
                  "deterministic": obj({"periodic": {"type": "boolean"},
                                        "firings_before_period": COUNT,
                                        "firings_per_period": COUNT,
                                        "period": {"type": "number"}},
                                       required=["periodic"])},
                 required=["delays", "replications", "events_per_replication", "warmup_events",
                           "events", "simulated_time", "seconds", "threads", "seed",
                           "confidence", "precision", "precision_reached", "note", "warmup"])


PASSAGES = obj({
    "method": {"const": "uniformization"}, "error_bound": {"type": "number"},
    "tagged": {"type": ["string", "null"],
               "description": "the transition whose firings the net solved tags (workload.restart)"},
    "iterations": COUNT, "seconds": {"type": "number"},
    "distributions": {"type": "array", "items": obj({
        "section": {"enum": ["application", "actors", "passage", "absorption"]},
        "element": {"type": "string"},
        "mean": NUMBER, "reached": {"type": "number"},
        "cdf": {"type": "array", "items": obj({"time": {"type": "number"},
                                               "probability": {"type": "number"}})},
        "percentiles": {"type": "array", "items": obj({"percentile": {"type": "number"},
                                                       "time": NUMBER})},
        "unavailable": {"type": "string", "description": "why the element has no distribution"}},
        required=["section", "element"])}})


ABSORPTION_SOLVER = obj({
    "method": {"type": ["string", "null"],
               "description": "the renewal chains' solver; null when the initial marking is an end"},
    "iterations": COUNT, "residual": {"type": "number"}, "seconds": {"type": "number"}})
ABSORPTION = obj({
    "structure": {"type": "string", "description": "why there is no single steady state"},
    "transient_markings": COUNT,
    "time": obj({"mean": {"type": "number"}, "variance": {"type": "number"},
                 "standard_deviation": {"type": "number"}}),
    "components": {"type": "array", "items": obj({
        "marking": {"type": "string"}, "markings": COUNT, "dead": {"type": "boolean"},
        "probability": {"type": "number"},
        # A raw net's bottom component of more than one marking: under its own steady state.
        "results": obj(results(NUMBER)[1], required=["places", "transitions", "measures"])},
        required=["marking", "markings", "dead", "probability"])},
    "accumulated": obj({
        "places": named(obj({"token_time": NUMBER})),
        "transitions": named(obj({"firings": NUMBER})),
        "measures": named(NUMBER)})},
    required=["structure", "transient_markings", "time", "components"])


# Result sections that only some models have: skeletons, and an unfolded coloured net's
# totals.
OPTIONAL_SECTIONS = {"skeletons", "tasks", "coloured_places", "coloured_transitions"}


def transient_points(body):
    """`mmt solve --at`: one object per time, its instantaneous results (`body`)."""
    return {"type": "array",
            "items": obj({"time": {"type": "number"}, **body},
                         required=["time"] + [k for k in body if k not in OPTIONAL_SECTIONS])}


def tagged(command, title, head, leaf, transient=False):
    """A command's schema: its tag, its head keys, then a system's or a raw net's results
    (and, with `transient`, the optional array of transient points after them)."""
    system, net = results(leaf)
    instant_system, instant_net = results(leaf, instantaneous=True)
    tag = {"const": f"mmt/{command}/{MAJOR}"}
    def variant(kind, body, required_body):
        extra = {}
        if transient:
            extra = {"transient": transient_points(instant_system if kind == "system" else instant_net),
                     "response_time_distributions": PASSAGES}
        props = {"schema": tag, kind: {"type": "string"}, **head, **body, **extra}
        required = ["schema", kind] + [k for k in head if k not in OPTIONAL_HEAD] + required_body
        return {"type": "object", "properties": props, "required": required,
                "additionalProperties": False}
    variants = [variant("system", system, ["application", "actors", "processors", "messages", "links"]),
                variant("net", net, ["places", "transitions", "measures"])]
    if transient:
        # A chain without a steady state asked for transient measures: those only, with the
        # ends of a chain that ends (a system's; a raw net's has the variant below).
        for kind, instant in (("system", instant_system), ("net", instant_net)):
            props = {"schema": tag, kind: {"type": "string"}, "states": head["states"],
                     "solver": obj({"exploration_seconds": {"type": "number"},
                                    "peak_memory_mb": {"type": "number"},
                                    "absorption": ABSORPTION_SOLVER,
                                    "transient": TRANSIENT_SOLVER},
                                   required=["exploration_seconds", "peak_memory_mb", "transient"]),
                     "absorption": ABSORPTION,
                     "no_steady_state": {"type": "string",
                                         "description": "why: a dead marking, several bottom components"},
                     "transient": transient_points(instant)}
            variants.append({"type": "object", "properties": props,
                             "required": [k for k in props if k != "absorption"],
                             "additionalProperties": False})
        # A raw net whose chain ends: its ends, the totals until then, the long-run averages;
        # a system with a batch workload: its end and its metrics over the run.
        for kind, body, instant, required_body in (
                ("net", net, instant_net, [k for k in net if k not in OPTIONAL_SECTIONS]),
                ("system", system, instant_system,
                 ["application", "actors", "processors", "messages", "links"])):
            props = {"schema": tag, kind: {"type": "string"}, "states": head["states"],
                     "solver": obj({"exploration_seconds": {"type": "number"},
                                    "peak_memory_mb": {"type": "number"},
                                    "absorption": ABSORPTION_SOLVER,
                                    "transient": TRANSIENT_SOLVER},
                                   required=["exploration_seconds", "peak_memory_mb",
                                             "absorption"]),
                     "absorption": ABSORPTION, **body,
                     "transient": transient_points(instant),
                     "response_time_distributions": PASSAGES}
            variants.append({"type": "object", "properties": props,
                             "required": ["schema", kind, "states", "solver", "absorption"]
                                         + required_body,
                             "additionalProperties": False})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://mmt.example.org/schema/{command}/{MAJOR}",
        "title": title,
        "oneOf": variants,
    }


OPTIONAL_HEAD = {"phases", "reference"}


FLUID = obj({"method": {"const": "fluid"}, "residual": {"type": "number"},
             "settled_at": {"type": "number"}, "steps": COUNT, "newton_iterations": COUNT,
             "spectral_abscissa": {"type": "number"}, "stable": {"type": "boolean"},
             "neutral": {"type": "boolean"}, "kinks": {"type": "array", "items": {"type": "string"}},
             "dead": {"type": "boolean"}, "extrapolated": {"type": "boolean"},
             "trajectory_steps": COUNT, "seconds": {"type": "number"},
             "peak_memory_mb": {"type": "number"}})
FLUID_REFERENCE = obj({
    "method": {"enum": ["exact", "simulation", None]},
    "unavailable": {"type": "string"}, "exact_missing": {"type": "string"},
    "tangible_markings": COUNT, "replications": COUNT, "events": COUNT,
    "confidence": {"type": "number"}, "seconds": {"type": "number"},
    "farthest": obj({"path": {"type": "string"}, "distance": {"type": "number"}}),
    "numbers": {"type": "array",
                "items": obj({"path": {"type": "string"}, "fluid": {"type": "number"},
                              "reference": {"type": "number"}, "half_width": {"type": "number"},
                              "distance": NUMBER})}})


def fluid_schema():
    """`mmt solve --method fluid`: the equilibrium's account, its reference, the results,
    and the trajectory's points with --at."""
    schema = tagged("fluid", "mmt solve --method fluid --format json",
                    {"fluid": FLUID, "reference": FLUID_REFERENCE}, NUMBER)
    instant_system, instant_net = results(NUMBER, instantaneous=True)
    for variant, instant in zip(schema["oneOf"], (instant_system, instant_net)):
        variant["properties"]["transient"] = transient_points(instant)
    return schema


MEAN_FIELD = obj({"method": {"const": "mean-field"}, "residual": {"type": "number"},
                  "settled_at": {"type": "number"}, "steps": COUNT, "newton_iterations": COUNT,
                  "spectral_abscissa": {"type": "number"}, "stable": {"type": "boolean"},
                  "neutral": {"type": "boolean"},
                  "kinks": {"type": "array", "items": {"type": "string"}},
                  "dead": {"type": "boolean"}, "trajectory_steps": COUNT,
                  "seconds": {"type": "number"}, "peak_memory_mb": {"type": "number"}})
POPULATION = obj({
    "replicas": {"type": "array", "items": obj({
        "replica": {"type": "string"}, "count": COUNT,
        "parameters": {"type": "array", "items": {"type": "string"}},
        "local_states": COUNT, "counted_exactly": COUNT})},
    "discrete_markings": COUNT, "transition_classes": COUNT,
    "probes": {"type": "array", "items": named({"type": "number"})},
    "notes": {"type": "array", "items": {"type": "string"}},
    "stands_for": {"type": "array", "items": {"type": "string"}}})
NUMBERS = {"type": "array", "items": NUMBER}
MEAN_FIELD_REFERENCE = obj({
    "method": {"enum": ["exact", "exact at smaller sizes", "simulation", None]},
    "unavailable": {"type": "string"}, "exact_missing": {"type": "string"},
    "sizes": {"type": "array", "items": obj({
        "parameters": named({"type": "number"}),
        "replicas": {"type": "array", "items": COUNT},
        "tangible_markings": COUNT, "seconds": {"type": "number"}})},
    "replications": COUNT, "events": COUNT, "confidence": {"type": "number"},
    "seconds": {"type": "number"},
    "farthest": obj({"path": {"type": "string"}, "distance": {"type": "number"}}),
    "numbers": {"type": "array", "items": obj({
        "path": {"type": "string"}, "mean_field": {"type": "number"},
        "reference": NUMBERS, "mean_field_at": NUMBERS, "half_width": {"type": "number"},
        "distances": NUMBERS, "exponent": NUMBER, "estimate": NUMBER})}})


def meanfield_schema():
    """`mmt solve --method mean-field`: how the model became counts, the equilibrium's
    account, its reference, the results, and the trajectory's points with --at."""
    schema = tagged("meanfield", "mmt solve --method mean-field --format json",
                    {"population": POPULATION, "meanfield": MEAN_FIELD,
                     "reference": MEAN_FIELD_REFERENCE}, NUMBER)
    instant_system, instant_net = results(NUMBER, instantaneous=True)
    for variant, instant in zip(schema["oneOf"], (instant_system, instant_net)):
        variant["properties"]["transient"] = transient_points(instant)
    return schema


def schemas():
    out = {}
    out["solve"] = tagged("solve", "mmt solve --format json",
                          {"states": STATES, "solver": SOLVER, "phases": PHASES}, NUMBER,
                          transient=True)
    out["fluid"] = fluid_schema()
    out["meanfield"] = meanfield_schema()
    out["simulate"] = tagged("simulate", "mmt simulate --format json",
                             {"simulation": SIMULATION}, INTERVAL)
    out["compare"] = tagged("compare", "mmt compare --format json", {
        "exact": obj({"tangible_markings": COUNT, "method": {"type": "string"},
                      "residual": {"type": "number"}, "symmetry": SYMMETRY},
                     required=["tangible_markings", "method", "residual"]),
        "simulations": named(SIMULATION),
        "phases": PHASES,
        "constant_exact": {"oneOf": [obj({"deterministic": DETERMINISTIC}),
                                     obj({"unavailable": {"type": "string"}})]},
        "outside_exponential_interval": {"type": "array", "items": {"type": "string"}},
    }, CELL)
    value = {"oneOf": [NUMBER, obj({"mean": NUMBER, "half_width": NUMBER})]}
    point = obj({"parameters": named({"type": "number"}),
                 "delays": {"enum": ["exponential", "constant", "declared", "phases"]},
                 "method": {"enum": ["exact", "simulate", "mean-field"]},
                 "status": {"enum": ["ok", "failed"]},
                 "reason": {"type": "string"},
                 "tangible_markings": COUNT,
                 "results": named(value)},
                required=["parameters", "delays", "method", "status"])
    out["sweep"] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://mmt.example.org/schema/sweep/{MAJOR}",
        "title": "mmt sweep --format json",
        **obj({"schema": {"const": f"mmt/sweep/{MAJOR}"}, "model": {"type": "string"},
               "parameters": named({"type": "array", "items": {"type": "number"}}),
               "metrics": {"type": "array", "items": {"type": "string"}},
               "points": {"type": "array", "items": point}}),
    }
    entry = obj({"rank": COUNT, "mapping": named({"type": "string"}), "failed": {"type": "string"},
                 "metric": {"type": "number"},
                 "application": results(NUMBER)[0]["application"],
                 "states": obj({"tangible": COUNT, "vanishing": COUNT, "edges": COUNT}),
                 "seconds": {"type": "number"}}, required=["rank", "mapping"])
    out["explore"] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://mmt.example.org/schema/explore/{MAJOR}",
        "title": "mmt explore --format json",
        **obj({"schema": {"const": f"mmt/explore/{MAJOR}"}, "system": {"type": "string"},
               "metric": {"type": "string"}, "order": {"enum": ["max", "min"]},
               "ranking": {"type": "array", "items": entry},
               "mappings": obj({"candidates": COUNT, "distinct": COUNT, "symmetries": COUNT,
                                "symmetries_searched": {"type": "boolean"}})}),
    }
    attempt = obj({"value": {"type": "number"}, "failed": {"type": "string"},
                   "metric": {"type": "number"}, "half_width": {"type": "number"},
                   "method": {"enum": ["exact", "simulate", "mean-field", "bound", "service_time"]},
                   "tangible_markings": COUNT,
                   "bound": {"type": "number"}, "service_time": {"type": "number"},
                   "met": {"type": "boolean"}},
                  required=["value"])
    element = obj({"element": {"type": "string"},
                   "kind": {"enum": ["task", "farm", "deal", "map", "move"]},
                   "service_time": {"type": "number"}, "processor": {"type": "string"},
                   "speed": {"type": "number"}, "work": {"type": "number"},
                   "shared_with": {"type": "array", "items": {"type": "string"}},
                   "replicas": COUNT, "transfers": COUNT},
                  required=["element", "kind", "service_time"])
    suggestion = obj({"change": {"enum": ["more_workers", "separate_processor",
                                          "faster_processor", "faster_link"]},
                      "element": {"type": "string"}, "needed": {"type": "number"},
                      "text": {"type": "string"}},
                     required=["change", "element", "text"])
    diagnosis = obj({"value": {"type": "number"}, "bound": {"type": "number"},
                     "service_time": {"type": "number"},
                     "bottleneck": {"type": "array", "items": element},
                     "bound_without_bottleneck": {"type": ["number", "null"]},
                     "impossible": {"type": "boolean"}, "reason": {"type": "string"},
                     "suggestions": {"type": "array", "items": suggestion}})
    contract = {"schema": {"const": f"mmt/contract/{MAJOR}"},
                "requirement": obj({"metric": {"type": "string"},
                                    "op": {"enum": [">=", ">", "<=", "<"]},
                                    "value": {"type": "number"},
                                    "target": {"const": "input"}},
                                   required=["metric", "op", "value"]),
                "parameter": {"type": "string"}, "search": {"enum": ["bisect", "linear"]},
                "tries": {"type": "array", "items": attempt},
                "answer": {"oneOf": [attempt, {"type": "null"}]}, "best": attempt,
                "impossible": {"type": "boolean"},
                "diagnosis": {"oneOf": [diagnosis, {"type": "null"}]},
                "surroundings": obj({"varied": {"type": "array", "items": {"type": "string"}},
                                     "arrival_time": {"type": "number"},
                                     "arrival_from": {"type": "string"},
                                     "departure_time": {"type": "number"},
                                     "departure_from": {"type": "string"}})}
    required = ["schema", "requirement", "parameter", "search", "tries", "answer",
                "impossible", "diagnosis"]
    out["contract"] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://mmt.example.org/schema/contract/{MAJOR}",
        "title": "mmt contract --format json",
        "oneOf": [{"type": "object", "properties": {**contract, kind: {"type": "string"}},
                   "required": required + [kind], "additionalProperties": False}
                  for kind in ("system", "net")],
    }
    maybe = {"type": ["number", "null"]}
    component = obj({"markings": COUNT, "unlumped_markings": maybe, "dead": {"type": "boolean"},
                     "witness": {"type": "string"}})
    space = {"schema": {"const": f"mmt/statespace/{MAJOR}"},
             "tangible": COUNT, "vanishing": COUNT, "edges": COUNT, "firings": COUNT,
             "max_tokens_in_place": COUNT, "max_tokens_per_marking": COUNT,
             "unlumped": {"oneOf": [{"type": "null"},
                                    obj({"tangible": maybe, "log10_tangible": maybe,
                                         "firings": maybe, "dead_markings": maybe})]},
             "symmetry": SYMMETRY,
             "dead_markings": obj({"count": COUNT,
                                   "first": {"type": "array", "items": {"type": "string"}}}),
             "bottom_components": {"type": "array", "items": component},
             "transient_markings": COUNT,
             "bounds": named(COUNT),
             "seconds": obj({"exploration": {"type": "number"}, "analysis": {"type": "number"}}),
             "peak_memory_mb": {"type": "number"}}
    out["statespace"] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://mmt.example.org/schema/statespace/{MAJOR}",
        "title": "mmt statespace --format json",
        "oneOf": [{"type": "object", "properties": {**space, kind: {"type": "string"}},
                   "required": [k for k in space if k != "symmetry"] + [kind],
                   "additionalProperties": False}
                  for kind in ("system", "net")],
    }
    return out


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for command, schema in schemas().items():
        with open(os.path.join(directory, command + ".json"), "w") as f:
            json.dump(schema, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
