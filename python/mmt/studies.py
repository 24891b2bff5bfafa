"""Studies of many solutions: parameter sweeps, mapping explorations and contracts, as the
commands ``mmt sweep``, ``mmt explore`` and ``mmt contract`` run them (docs/sweeps.md,
docs/skeletons.md). Their rows come back as a pandas DataFrame when pandas is installed,
a list of dicts otherwise."""

import copy

from . import _mmt
from .errors import Error


def table(rows):
    """``rows`` (a list of dicts) as a pandas DataFrame, or as they are without pandas."""
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


_SOLVER_KEYS = ("method", "tolerance", "max_iterations", "relaxation", "max_states",
                "max_memory_mb", "symmetry")
_SIMULATION_KEYS = ("precision", "confidence", "replications", "max_replications",
                    "time_limit", "events", "warmup", "seed")


def _split(options, allowed):
    """The solver's and the simulation's keywords among ``options``; those not given keep
    the defaults of Model.solve and Model.simulate."""
    unknown = set(options) - set(allowed)
    if unknown:
        raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    solver = {k: v for k, v in options.items() if k in _SOLVER_KEYS}
    simulation = {k: v for k, v in options.items() if k in _SIMULATION_KEYS}
    return solver, simulation


def _values(name, values):
    if isinstance(values, (int, float)):
        values = [values]
    try:
        return [float(v) for v in values]
    except (TypeError, ValueError):
        raise TypeError(f"the values of {name!r} must be numbers") from None


class Sweep:
    """A sweep's points: ``rows`` (a DataFrame or list of dicts: the parameters, ``delays``,
    each metric and, for simulated series, ``METRIC_half_width``, ``states``, ``status``,
    ``reason``), ``metrics``, ``failed`` (the rows that failed) and ``to_dict()``, the
    document of ``mmt sweep --format json``."""

    def __init__(self, document):
        self._document = document
        self.metrics = list(document["metrics"])
        rows = []
        swept = list(document["parameters"])
        for point in document["points"]:
            # The swept parameters first, in the order given, then the fixed ones.
            row = {name: point["parameters"][name] for name in swept}
            row.update(point["parameters"])
            row["delays"] = point["delays"]
            for metric in self.metrics:
                value = point.get("results", {}).get(metric)
                if isinstance(value, dict):
                    row[metric] = value["mean"]
                    row[metric + "_half_width"] = value["half_width"]
                else:
                    row[metric] = value
            row["states"] = point.get("tangible_markings")
            row["status"] = point["status"]
            row["reason"] = point.get("reason")
            rows.append(row)
        self.failed = [r for r in rows if r["status"] != "ok"]
        self.rows = table(rows)

    def to_dict(self):
        return copy.deepcopy(self._document)

    def __repr__(self):
        return (f"<mmt.Sweep of {self._document['model']!r}: {len(self._document['points'])} "
                f"points, {len(self.failed)} failed>")


def sweep(model, params, metrics=None, delays=("exponential",), simulate=False, max_phases=10,
          threads=0, **options):
    """Solves ``model`` (a :class:`mmt.Model`, whose parameters stay fixed) at every point of
    the grid ``params`` (name to values: ``{"P": range(1, 9), "N": [512, 1024]}``, the first
    varying slowest) and returns a :class:`Sweep`.

    ``metrics``: paths of results (default: the application's throughput and response time,
    or a raw net's measures); ``delays``: one series per kind, "exponential" and "phases"
    solved exactly, "constant" and "declared" simulated (``simulate=True`` simulates
    exponential too). ``options``: the keywords of :meth:`mmt.Model.solve` (but
    ``threads``; ``method="mean-field"`` answers every point by the mean-field
    approximation, docs/meanfield.md) and of :meth:`mmt.Model.simulate` (but ``delays``).
    Exact points are solved
    ``threads`` at a time (0: one per core). A point that fails says why in its row; a
    metric that names no result raises UnknownMetricError.
    """
    solver, simulation = _split(options, _SOLVER_KEYS + _SIMULATION_KEYS)
    grid = [(str(name), _values(name, values)) for name, values in dict(params).items()]
    if isinstance(delays, str):
        delays = [delays]
    document = _mmt.sweep(model._core, grid, list(metrics or []), list(delays), bool(simulate),
                          solver, simulation, int(max_phases), int(threads))
    return Sweep(document)


class Exploration:
    """An exploration's ranking: ``rows`` (a DataFrame or list of dicts, best first:
    ``rank``, one column per placed task, the metric, ``states``, ``seconds``, ``status``,
    ``reason``), ``best`` (the best mapping as a dict task to processor), ``metric``,
    ``maximize``, ``candidates``, ``distinct`` and ``to_dict()``, the document of ``mmt
    explore --format json``."""

    def __init__(self, document):
        self._document = document
        self.metric = document["metric"]
        self.maximize = document["order"] == "max"
        self.candidates = document["mappings"]["candidates"]
        self.distinct = document["mappings"]["distinct"]
        rows = []
        for entry in document["ranking"]:
            row = {"rank": entry["rank"], **entry["mapping"]}
            row[self.metric] = entry.get("metric")
            row["states"] = entry.get("states", {}).get("tangible")
            row["seconds"] = entry.get("seconds")
            row["status"] = "failed" if "failed" in entry else "ok"
            row["reason"] = entry.get("failed")
            rows.append(row)
        ok = [e for e in document["ranking"] if "failed" not in e]
        self.best = dict(ok[0]["mapping"]) if ok else None
        self.rows = table(rows)

    def to_dict(self):
        return copy.deepcopy(self._document)

    def __repr__(self):
        return (f"<mmt.Exploration of {self._document['system']!r}: {self.distinct} distinct "
                f"candidates, best {self.best}>")


def explore(path, params=None, metric="application.throughput", order="auto", mappings=None,
            max_candidates=10_000, threads=0, **options):
    """Solves every placement of the skeleton tasks the description ``path`` leaves unplaced
    (each class of placements that identical processors make the same, once), or the
    ``mappings`` given (a list of dicts task to processor), and ranks them by ``metric``:
    ``order`` "max", "min" or "auto" (max for a throughput). Returns an
    :class:`Exploration`. ``options``: the keywords of :meth:`mmt.Model.solve` (but
    ``threads``; ``method="mean-field"`` as in :func:`sweep`). Raises ModelError, UnknownMetricError; ValueError when there are more
    than ``max_candidates`` assignments."""
    if order not in ("auto", "max", "min"):
        raise ValueError("order must be 'auto', 'max' or 'min'")
    solver, _ = _split(options, _SOLVER_KEYS)
    from . import _parameters
    listed = None
    if mappings is not None:
        listed = [[(str(t), str(p)) for t, p in dict(m).items()] for m in mappings]
    document = _mmt.explore(str(path), _parameters(params), metric,
                            None if order == "auto" else order == "max", listed,
                            int(max_candidates), solver, int(threads))
    return Exploration(document)


class Contract:
    """A contract's search: ``answer`` (the smallest value that meets the requirement, or
    None), ``met`` (whether one does), ``tries`` (a DataFrame or list of dicts in the order
    tried: ``value``, ``metric``, ``half_width``, ``method``, ``states``, ``bound``,
    ``met``, ``failed``; ``method`` "bound" for a value the bound rules out, not solved),
    ``best`` (with no answer, the try that came closest, a dict), ``impossible`` (the bound
    rules out every value: nothing was solved), ``diagnosis`` (with no answer, for a
    system of skeletons: ``reason``, ``bottleneck`` elements, ``suggestions``, a dict; see
    docs/json.md), ``surroundings`` (with an ``input`` target: ``varied``,
    ``arrival_time``, ``departure_time`` and where they come from, a dict; else None; the
    tries then have a ``service_time``) and ``to_dict()``, the document of ``mmt contract
    --format json``."""

    def __init__(self, document):
        self._document = document
        answer = document["answer"]
        self.met = answer is not None
        self.answer = answer["value"] if answer else None
        self.best = document.get("best")
        self.impossible = document["impossible"]
        self.diagnosis = document["diagnosis"]
        self.surroundings = document.get("surroundings")
        rows = []
        for t in document["tries"]:
            row = {"value": t["value"], "metric": t.get("metric"),
                   "half_width": t.get("half_width"), "method": t.get("method"),
                   "states": t.get("tangible_markings"), "bound": t.get("bound"),
                   "met": t.get("met"), "failed": t.get("failed")}
            if self.surroundings is not None:
                row["service_time"] = t.get("service_time")
            rows.append(row)
        self.tries = table(rows)

    def to_dict(self):
        return copy.deepcopy(self._document)

    def __repr__(self):
        r = self._document["requirement"]
        target = "input" if r.get("target") == "input" else f"{r['value']:g}"
        what = f"{r['metric']} {r['op']} {target}"
        if self.met:
            return f"<mmt.Contract {what}: {self._document['parameter']} = {self.answer:g}>"
        return f"<mmt.Contract {what}: no value meets it>"


def contract(model, require, vary, search="bisect", max_states=2_000_000, arrival_time=None,
             departure_time=None, **options):
    """Finds the smallest value of one parameter that meets ``require`` ("PATH OP NUMBER",
    e.g. "application.throughput >= 5"), trying the values of ``vary`` ({"workers":
    range(1, 13)}) by bisection (``search="linear"`` tries them in order). Each value is
    solved exactly up to ``max_states`` tangible markings and simulated beyond.
    "application.throughput >= input" asks for the first value at which the stages the
    parameter changes keep up with those around them (service time at most max{T_A, T_D};
    ``arrival_time`` and ``departure_time`` give T_A and T_D instead). Returns a
    :class:`Contract`. ``options``: the keywords of :meth:`mmt.Model.solve` (but
    ``max_states``, ``threads``; ``method="mean-field"`` answers every value by the
    mean-field approximation, docs/meanfield.md) and of :meth:`mmt.Model.simulate` (but
    ``delays``). A
    bisection that meets a value that fails (its metric unknown) raises Error, with the
    search so far in ``e.tries``."""
    if search not in ("bisect", "linear"):
        raise ValueError("search must be 'bisect' or 'linear'")
    vary = dict(vary)
    if len(vary) != 1:
        raise ValueError("vary names exactly one parameter")
    (name, values), = vary.items()
    options["max_states"] = max_states
    solver, simulation = _split(options, _SOLVER_KEYS + _SIMULATION_KEYS)
    document = _mmt.contract(model._core, str(require), str(name), _values(name, values),
                             search == "linear", solver, simulation, arrival_time,
                             departure_time)
    failed = document.pop("failed", None)
    if failed is not None:
        error = Error(f"{name} = {failed['value']:g} failed: {failed['failed']}")
        error.headline = str(error)
        error.tries = document["tries"]
        raise error
    return Contract(document)
