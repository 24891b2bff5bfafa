"""Results as Python objects over the JSON documents of ``mmt solve``, ``mmt simulate``
and ``mmt compare``.

Each gives the sections of its document as dicts from element name to an
:class:`Element`, whose metrics read as attributes (``r.actors["A1"].throughput``): numbers
for a :class:`Solution`, :class:`Interval` for a :class:`Simulation`, :class:`Compared`
for a :class:`Comparison`. Times are in the model's time unit, throughputs per time unit
(docs/json.md says every key).
"""

import collections
import copy


class Element:
    """The metrics of one element (an actor, a processor, a place, ...): ``e.throughput``,
    ``e["throughput"]``, ``e.to_dict()``."""

    __slots__ = ("name", "_values")

    def __init__(self, name, values):
        self.name = name
        self._values = dict(values)

    def __getattr__(self, key):
        try:
            return self._values[key]
        except KeyError:
            known = ", ".join(self._values)
            raise AttributeError(f"{self.name!r} has no metric {key!r} (known: {known})") from None

    def __getitem__(self, key):
        return self._values[key]

    def __contains__(self, key):
        return key in self._values

    def keys(self):
        return self._values.keys()

    def to_dict(self):
        return dict(self._values)

    def __repr__(self):
        values = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Element({self.name!r}, {values})"


class Interval(collections.namedtuple("Interval", "mean half_width undefined", defaults=(None,))):
    """A simulated number: ``mean`` ± ``half_width``, the half-width of its confidence
    interval. Both are None, and ``undefined`` says why, when some replication had no value
    (a response time with no completion). A run without randomness has ``half_width`` 0
    when its schedule is periodic (the mean is exact) and None when it is not (no interval:
    ``low``, ``high`` are None and no value is ``in`` it)."""

    __slots__ = ()

    @property
    def low(self):
        return None if self.half_width is None else self.mean - self.half_width

    @property
    def high(self):
        return None if self.half_width is None else self.mean + self.half_width

    def __contains__(self, x):
        return self.half_width is not None and self.low <= x <= self.high


class Compared(collections.namedtuple("Compared",
                                      "exact simulated outside phases constant_exact")):
    """One number of a comparison: ``exact``, ``simulated`` (delay kind to
    :class:`Interval`: "exponential", "constant", and "declared" when the model declares
    delays), ``outside`` (the exact value lies outside the exponential simulation's
    interval), ``phases`` (the exact solution with declared delays as phases, or None) and
    ``constant_exact`` (the exact solution with every delay constant, a DSPN, or None when
    it has none: ``Comparison.constant_exact`` says why)."""

    __slots__ = ()


def _number(leaf):
    return leaf


def _interval(leaf):
    return Interval(leaf["mean"], leaf["half_width"], leaf.get("undefined"))


def _compared(leaf):
    kinds = {k: _interval(v) for k, v in leaf.items() if isinstance(v, dict)}
    return Compared(leaf["exact"], kinds, leaf["outside"], leaf.get("phases"),
                    leaf.get("constant_exact"))


class _Results:
    """The element sections of a results document, each number made by ``_leaf``."""

    _SYSTEM_SECTIONS = ("skeletons", "tasks", "actors", "processors", "messages", "links")
    _leaf = staticmethod(_number)

    def __init__(self, document):
        self._document = document
        self.is_system = "system" in document
        self.name = document["system"] if self.is_system else document["net"]
        leaf = self._leaf

        def elements(section):
            return {name: Element(name, {k: leaf(v) for k, v in values.items()})
                    for name, values in section.items()}

        # A solution without a steady state (transient measures only) has no sections.
        if self.is_system:
            self.application = (Element(self.name, {k: leaf(v) for k, v in
                                                    document["application"].items()})
                                if "application" in document else None)
            self.applications = {self.name: self.application} if self.application else {}
            for section in self._SYSTEM_SECTIONS:
                setattr(self, section, elements(document.get(section, {})))
        else:
            self.places = elements(document.get("places", {}))
            self.transitions = elements(document.get("transitions", {}))
            self.measures = {name: leaf(v) for name, v in document.get("measures", {}).items()}

    def to_dict(self):
        """The document the command line prints with ``--format json``."""
        return copy.deepcopy(self._document)


class TransientPoint(_Results):
    """The metrics at one time of ``Model.solve(at=...)``: ``time`` and the sections of
    :class:`Solution` with the instantaneous metrics only (no response times, which
    Little's law defines over the long run)."""

    def __init__(self, name, is_system, point):
        document = {("system" if is_system else "net"): name, **point}
        super().__init__(document)
        self.time = point["time"]

    def __repr__(self):
        return f"<mmt.TransientPoint of {self.name!r} at t = {self.time:g}>"


class Distribution:
    """A response-time distribution of ``Model.solve(percentiles=..., cdf_at=...)``:
    ``section`` ("application", "actors" or "passage"), ``element`` (its name, or a raw
    net's "FROM -> TO"), ``mean`` (None when it may never end), ``reached`` (the
    probability that it ends), ``cdf`` (time to F(t)), ``percentiles`` (percentile to
    time; None where F never reaches it), and ``unavailable``: why the element has none
    (then the rest are empty), or None."""

    def __init__(self, entry):
        self.section = entry["section"]
        self.element = entry["element"]
        self.unavailable = entry.get("unavailable")
        self.mean = entry.get("mean")
        self.reached = entry.get("reached")
        self.cdf = {c["time"]: c["probability"] for c in entry.get("cdf", [])}
        self.percentiles = {p["percentile"]: p["time"] for p in entry.get("percentiles", [])}

    def __repr__(self):
        if self.unavailable:
            return f"<mmt.Distribution of {self.section} {self.element!r}: none>"
        return f"<mmt.Distribution of {self.section} {self.element!r}: mean {self.mean:g}>"


class End(collections.namedtuple("End", "marking markings dead probability")):
    """One end of a chain that ends: its lowest ``marking`` ("p=1, q=2"), how many
    ``markings`` it holds, whether it is ``dead`` (enables no transition) and the
    ``probability`` of ending in it."""


class Absorption:
    """A chain that ends (a dead marking, several bottom components): ``mean_time``,
    ``variance`` and ``standard_deviation`` of the time to absorption, ``components`` (a
    list of :class:`End`), ``transient_markings``, ``structure`` (why the chain has no single
    steady state) and, for a raw net, ``accumulated``: the expected totals until absorption,
    ``places`` (``token_time``), ``transitions`` (``firings``) and ``measures``, or None
    for a system."""

    def __init__(self, entry):
        self.structure = entry["structure"]
        self.transient_markings = entry["transient_markings"]
        self.mean_time = entry["time"]["mean"]
        self.variance = entry["time"]["variance"]
        self.standard_deviation = entry["time"]["standard_deviation"]
        self.components = [End(c["marking"], c["markings"], c["dead"], c["probability"])
                           for c in entry["components"]]
        self.accumulated = None
        if "accumulated" in entry:
            totals = entry["accumulated"]
            self.accumulated = collections.namedtuple("Accumulated", "places transitions measures")(
                {n: Element(n, v) for n, v in totals["places"].items()},
                {n: Element(n, v) for n, v in totals["transitions"].items()},
                dict(totals["measures"]))

    def __repr__(self):
        return (f"<mmt.Absorption: {len(self.components)} ends, mean time "
                f"{self.mean_time:g}>")


class Solution(_Results):
    """A model's exact steady state.

    For a system description: ``applications`` (one, by the system's name; also
    ``application``), ``actors``, ``processors``, ``messages``, ``links`` and, with
    skeletons, ``skeletons`` and ``tasks``. For a raw net: ``places`` (``mean_tokens``),
    ``transitions`` (``throughput``) and ``measures`` (name to number). Both: ``states``
    (tangible, vanishing, transient, edges) and ``solver`` (method, iterations, residual,
    ...), as dicts; ``to_dict()`` is the document of ``mmt solve --format json``. With
    ``solve(at=...)``, ``transient`` is a list of :class:`TransientPoint` in the order of
    the times (empty otherwise). A raw net whose chain ends (a deadlock, several bottom
    components) has ``absorption`` (an :class:`Absorption`; None otherwise) and its
    long-run averages in the sections. A system whose chain ends, solved with ``at``, has
    ``no_steady_state`` (the reason; None otherwise), ``absorption``, empty sections and
    its ``transient`` points. With ``solve(percentiles=...,
    cdf_at=...)``, ``response_time_distributions`` is a list of :class:`Distribution`
    (empty otherwise).
    """

    def __init__(self, document):
        super().__init__(document)
        self.states = dict(document["states"])
        self.solver = dict(document["solver"])
        self.no_steady_state = document.get("no_steady_state")
        self.absorption = (Absorption(document["absorption"]) if "absorption" in document
                           else None)
        self.transient = [TransientPoint(self.name, self.is_system, p)
                          for p in document.get("transient", [])]
        passages = document.get("response_time_distributions", {})
        self.response_time_distributions = [Distribution(d)
                                             for d in passages.get("distributions", [])]

    def __repr__(self):
        kind = "system" if self.is_system else "net"
        if self.absorption and not self.no_steady_state:
            return (f"<mmt.Solution of {kind} {self.name!r}: {self.states['tangible']} tangible "
                    f"markings, ends after {self.absorption.mean_time:g} on average>")
        if self.no_steady_state:
            return (f"<mmt.Solution of {kind} {self.name!r}: {self.states['tangible']} tangible "
                    f"markings, no steady state, {len(self.transient)} transient points>")
        return (f"<mmt.Solution of {kind} {self.name!r}: {self.states['tangible']} tangible "
                f"markings, {self.solver['method']}, residual {self.solver['residual']:.3g}>")


class FluidSolution(_Results):
    """The fluid approximation of ``Model.solve_fluid`` (docs/fluid.md): the sections of
    :class:`Solution` at the equilibrium (a probability over markings is None); ``fluid``
    (a dict: residual, settled_at, steps, newton_iterations, spectral_abscissa, stable,
    neutral, kinks, dead, extrapolated, seconds); ``reference`` (a dict: method "exact" or
    "simulation" or None, and ``numbers``, each with its path, fluid value, reference,
    half_width and relative distance; None with ``reference="none"``); ``transient``, the
    trajectory's :class:`TransientPoint` at each asked time. ``to_dict()`` is the document
    of ``mmt solve --method fluid --format json``."""

    def __init__(self, document):
        super().__init__(document)
        self.fluid = dict(document["fluid"])
        self.reference = dict(document["reference"]) if "reference" in document else None
        self.transient = [TransientPoint(self.name, self.is_system, p)
                          for p in document.get("transient", [])]

    def __repr__(self):
        kind = "system" if self.is_system else "net"
        farthest = _farthest(self.reference)
        return (f"<mmt.FluidSolution of {kind} {self.name!r}: residual "
                f"{self.fluid['residual']:.3g}, stable {self.fluid['stable']}{farthest}>")


def _farthest(reference):
    """", 0.0123 from the exact reference" for an approximation's reference dict (empty
    without a reference)."""
    if not reference or not reference["method"]:
        return ""
    return f", {reference['farthest']['distance']:.3g} from the {reference['method']} reference"


class MeanFieldSolution(_Results):
    """The mean-field approximation of ``mmt.solve_mean_field`` (docs/meanfield.md): the
    sections of :class:`Solution` at the equilibrium (a counted farm's first replica
    standing for every one: ``population["stands_for"]``); ``population`` (a dict: the
    replica classes with their counts and local states, the discrete markings, the probes
    the system was compiled at); ``meanfield`` (a dict: residual, settled_at, steps,
    newton_iterations, spectral_abscissa, stable, neutral, kinks, dead, seconds);
    ``reference`` (a dict: method "exact", "exact at smaller sizes" or "simulation" or None,
    ``sizes``, and ``numbers``, each with its path, mean-field value, references and
    distances by size, the trend's exponent and the estimate at the asked size; None with
    ``reference="none"``); ``transient``, the trajectory's :class:`TransientPoint` at each
    asked time. ``to_dict()`` is the document of ``mmt solve --method mean-field --format
    json``."""

    def __init__(self, document):
        super().__init__(document)
        self.population = dict(document["population"])
        self.meanfield = dict(document["meanfield"])
        self.reference = dict(document["reference"]) if "reference" in document else None
        self.transient = [TransientPoint(self.name, self.is_system, p)
                          for p in document.get("transient", [])]

    def __repr__(self):
        kind = "system" if self.is_system else "net"
        counts = ", ".join(f"{r['count']} {r['replica']}" for r in self.population["replicas"])
        farthest = _farthest(self.reference)
        return (f"<mmt.MeanFieldSolution of {kind} {self.name!r}: {counts}, residual "
                f"{self.meanfield['residual']:.3g}{farthest}>")


class Simulation(_Results):
    """A simulation's results: the sections of :class:`Solution`, each number an
    :class:`Interval`; ``simulation`` (a dict: delays, replications, events, simulated
    time, seconds, seed, confidence, precision reached, note). ``to_dict()`` is the document
    of ``mmt simulate --format json``."""

    _leaf = staticmethod(_interval)

    def __init__(self, document):
        super().__init__(document)
        self.simulation = dict(document["simulation"])

    def __repr__(self):
        s = self.simulation
        return (f"<mmt.Simulation of {self.name!r}: {s['delays']} delays, "
                f"{s['replications']} replications, {s['note']}>")


class Comparison(_Results):
    """The exact solution beside simulations: the sections of :class:`Solution`, each
    number a :class:`Compared`; ``exact`` (tangible markings, method, residual),
    ``simulations`` (delay kind to its ``simulation`` dict), ``outside`` (the paths of the
    numbers whose exact value lies outside the exponential simulation's interval) and
    ``phases`` (the phase expansions, when the model declares delays) and ``constant_exact``
    (``{"deterministic": {...}}`` when every delay constant has an exact DSPN solution,
    ``{"unavailable": reason}`` otherwise). ``to_dict()`` is the
    document of ``mmt compare --format json``."""

    _leaf = staticmethod(_compared)

    def __init__(self, document):
        super().__init__(document)
        self.exact = dict(document["exact"])
        self.simulations = {k: dict(v) for k, v in document["simulations"].items()}
        self.outside = list(document["outside_exponential_interval"])
        self.phases = list(document.get("phases", []))
        self.constant_exact = dict(document.get("constant_exact", {}))

    def __repr__(self):
        return (f"<mmt.Comparison of {self.name!r}: {len(self.outside)} numbers outside the "
                f"exponential simulation's intervals>")
