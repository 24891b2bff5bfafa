"""mmt: performance of parallel programs on parallel hardware, through GSPNs.

    import mmt
    m = mmt.load("examples/forkjoin.hdl")            # or .gspn, .pnml, GreatSPN .net, .PNPRO
    r = m.solve(method="auto", tolerance=1e-10)
    r.applications["forkjoin"].throughput             # 0.0199719...
    r.actors["A1"].response_time
    r.to_dict()                                       # what `mmt solve --format json` prints
    mmt.sweep(m, {"P": range(1, 9)})                  # studies: sweep, explore, contract,
                                                      # as pandas DataFrames when installed

Failures raise the classes of :mod:`mmt.errors` (``mmt.ModelError`` with ``.file``,
``.line``, ``.column``; ``mmt.SolverError`` with ``.residual``; ``mmt.StateLimitError``,
...). The work runs in C++ with the GIL released. docs/python.md has the whole story.
"""

from . import errors
from .errors import (
    DeterministicError,
    Error,
    ExplorationError,
    FluidError,
    MemoryLimitError,
    ModelError,
    SimulationError,
    SolverError,
    StateLimitError,
    StructureError,
    TimelessTrapError,
    UndefinedMeasureError,
    UnknownMetricError,
)
from . import _mmt
from .results import (Absorption, Compared, Comparison, Distribution, Element, End,
                      FluidSolution, Interval, MeanFieldSolution, Simulation, Solution,
                      TransientPoint)

__version__ = _mmt.__version__

#: The steady-state methods ``Model.solve`` takes, "auto" first.
methods = tuple(_mmt.methods())


def _parameters(params):
    if params is None:
        return {}
    try:
        return {str(k): float(v) for k, v in dict(params).items()}
    except (TypeError, ValueError) as e:
        raise TypeError(f"params must map names to numbers: {e}") from None


class Model:
    """A model read from a file with its parameters bound: a compiled system description
    (``is_system``) or a raw net. Load one with :func:`load`."""

    __slots__ = ("_core",)

    def __init__(self, core):
        self._core = core

    name = property(lambda self: self._core.name, doc="the system's or the net's name")
    path = property(lambda self: self._core.path, doc="the file it was read from")
    is_system = property(lambda self: self._core.is_system,
                         doc="True for a system description (.hdl), False for a raw net")
    parameters = property(lambda self: dict(self._core.parameters),
                          doc="the parameter values it was built with")
    warnings = property(lambda self: self._core.warnings,
                        doc="the load's warnings as printed (empty when none)")
    places = property(lambda self: self._core.place_count, doc="places of its GSPN")
    transitions = property(lambda self: self._core.transition_count,
                           doc="transitions of its GSPN")

    def at(self, **params):
        """The same model built again with other values of some parameters (the others keep
        theirs), from the text already read and parsed: ``m.at(P=4, N=1024)``."""
        return Model(self._core.at({**self.parameters, **_parameters(params)}))

    def solve(self, method="auto", tolerance=1e-10, max_iterations=100_000, relaxation=0.0,
              max_states=None, max_memory_mb=None, threads=0, at=None, cumulative=False,
              transient_error=1e-10, transient_only=False, percentiles=None, cdf_at=None,
              from_=None, to=None, passage_error=1e-10, deterministic=None, symmetry=True):
        """Explores the tangible reachability graph, solves the CTMC in steady state and
        returns a :class:`Solution`.

        ``at``: a time or a list of times (model time units) at which to report the
        transient metrics too, from the initial marking (``Solution.transient``: one
        :class:`TransientPoint` per time; docs/transient.md); ``cumulative``: their time
        averages over [0, t] instead; ``transient_error``: the error of each transient
        distribution in total variation; ``transient_only``: those alone, without solving
        the steady state (the Solution then has none).

        ``percentiles`` (in (0, 100)) and ``cdf_at`` (times): the response-time
        distributions in steady state (``Solution.response_time_distributions``: one
        :class:`Distribution` per element; docs/transient.md): a closed(1) system's
        iteration and each actor's execution, or a raw net's passage from entering the
        markings where the condition ``from_`` holds to first entering those where ``to``
        holds (the ``.gspn`` expression language, ``"#busy >= 1"``); ``passage_error``: the
        error of each value of a distribution function.

        ``deterministic="exact"``: constant delays (``const(t)``) solved exactly as a DSPN
        (``solver["deterministic"]`` says how) when at most one is enabled in each tangible
        marking, else DeterministicError naming two enabled together; by default a constant
        delay is an exponential one of the same mean.

        A raw net whose chain ends (dead markings, several bottom components) is solved
        until it ends: ``Solution.absorption`` gives the probability of each end, the mean
        and variance of the time to absorption and the totals until then, and the sections
        hold the long-run averages, each end weighted by its probability
        (docs/modelling.md, "Chains that end"). A system's is a StructureError.

        ``symmetry``: lump the chain by the model's interchangeable replicas (a farm's or a
        map's workers), one marking per orbit, every element still reported with its exact
        value; ``states["symmetry"]`` says what was lumped (docs/symmetry.md). False solves
        the full chain.

        ``method``: one of :data:`methods` (default "auto"); ``tolerance``: the relative
        residual ‖πQ‖∞ / max|q_ii| to reach; ``max_iterations``; ``relaxation``: SOR's
        factor in (0, 2), 0 to adapt it; ``max_states``: the state limit (default: none
        but memory for a net proven bounded, 2,000,000 otherwise); ``max_memory_mb``
        (default 90 % of the machine's memory); ``threads`` of exploration (0: every core).

        Raises StateLimitError, MemoryLimitError, TimelessTrapError, StructureError,
        DeterministicError,
        SolverError (never unconverged numbers), UndefinedMeasureError; ValueError for a
        setting out of range or a passage the model has none of (a workload other than
        closed(1), ``from_`` on a system); ModelError for a condition that does not read.
        """
        return Solution(self._core.solve(dict(
            method=method, tolerance=tolerance, max_iterations=max_iterations,
            relaxation=relaxation, max_states=max_states, max_memory_mb=max_memory_mb,
            threads=threads, at=at, cumulative=cumulative, transient_error=transient_error,
            transient_only=transient_only,
            percentiles=percentiles, cdf_at=cdf_at, from_=from_, to=to,
            passage_error=passage_error, deterministic=deterministic, symmetry=symmetry)))

    def solve_fluid(self, at=None, reference="auto", tolerance=1e-10):
        """The fluid approximation (docs/fluid.md): the net read as a continuous Petri net,
        the equilibrium its ODE reaches from the initial marking, and a
        :class:`FluidSolution` with the sections of :class:`Solution` (a probability over
        markings is None), ``fluid`` (residual, stability, kinks, ...), ``reference`` and,
        with ``at`` (a time or a list of times), the trajectory's ``transient`` points.

        ``reference``: "auto" (the exact steady state when the chain has at most 200,000
        tangible markings, else a short simulation), "exact", "simulation" or "none";
        ``reference["numbers"]`` gives each number beside it with its relative distance.
        ``tolerance``: ‖C f(x)‖∞ against the largest flow at the equilibrium.

        Raises FluidError (an element no continuous flow reads, such as an inhibitor arc or
        a conflict that is not a free choice, or a trajectory that does not settle);
        ValueError for a setting out of range.
        """
        return FluidSolution(self._core.solve_fluid(at, reference, tolerance))

    def solve_mean_field(self, at=None, reference="auto", tolerance=1e-10):
        """The mean-field approximation of the model's replicas (docs/meanfield.md), as
        :func:`mmt.solve_mean_field` gives it for this model's file and parameters (which
        need a model small enough to load; that function needs none)."""
        return MeanFieldSolution(self._core.solve_mean_field(at, reference, tolerance))

    def simulate(self, delays="declared", precision=0.01, confidence=0.95, replications=None,
                 max_replications=640, time_limit=60.0, events=200_000, warmup=None, seed=1):
        """Simulates the model in independent replications on every core and returns a
        :class:`Simulation` (every metric an :class:`Interval`).

        ``delays``: "declared" (each as the model declares it), "exponential" (each with
        its mean: the CTMC's assumption) or "constant" (each exactly its mean). Replications
        (10, then doubling) are added until every number's relative half-width is at most
        ``precision`` at ``confidence``, within ``max_replications`` and ``time_limit``
        seconds; ``replications`` runs exactly that many. Each observes ``events`` timed
        firings after ``warmup`` (default: chosen from a pilot run by MSER, as the command
        line does). The same ``seed`` gives the
        same numbers. Raises SimulationError; ValueError for a setting out of range.
        """
        return Simulation(self._core.simulate(dict(
            delays=delays, precision=precision, confidence=confidence,
            replications=replications, max_replications=max_replications,
            time_limit=time_limit, events=events, warmup=warmup, seed=seed)))

    def compare(self, method="auto", tolerance=1e-10, max_iterations=100_000, relaxation=0.0,
                max_states=None, max_memory_mb=None, max_phases=10, precision=0.01,
                confidence=0.95, replications=None, max_replications=640, time_limit=60.0,
                events=200_000, warmup=None, seed=1, symmetry=True):
        """The exact solution beside simulations with exponential and constant delays (and
        the declared ones, and the exact solution with them as up to ``max_phases`` phases,
        when the model declares non-exponential delays): a :class:`Comparison`. The
        solver's settings are those of :meth:`solve`, the simulations' those of
        :meth:`simulate`. Raises what both raise."""
        return Comparison(self._core.compare(
            dict(method=method, tolerance=tolerance, max_iterations=max_iterations,
                 relaxation=relaxation, max_states=max_states, max_memory_mb=max_memory_mb,
                 symmetry=symmetry),
            max_phases, dict(precision=precision, confidence=confidence,
                             replications=replications, max_replications=max_replications,
                             time_limit=time_limit, events=events, warmup=warmup, seed=seed)))

    def __repr__(self):
        kind = "system" if self.is_system else "net"
        return (f"<mmt.Model {kind} {self.name!r} from {self.path!r}: {self.places} places, "
                f"{self.transitions} transitions>")


from .studies import Contract, Exploration, Sweep, contract, explore, sweep  # noqa: E402


def solve_mean_field(path, params=None, page=None, at=None, reference="auto", tolerance=1e-10):
    """The mean-field approximation of the replicas of the model in ``path`` at ``params``
    (docs/meanfield.md), the model never compiled at that size: a farm whose count reads a
    parameter is compiled at two small values of it and counted at the asked one, so a
    million workers take milliseconds. Returns a :class:`MeanFieldSolution`: the sections
    of :class:`Solution` (a counted farm's first replica standing for all), ``population``
    (how the model became counts), ``meanfield`` (residual, stability, kinks, ...),
    ``reference`` and, with ``at`` (a time or a list of times), the trajectory's
    ``transient`` points.

    ``reference``: "auto" (the exact steady state at the asked size when its chain has at
    most 20,000 tangible markings; else, for a system whose counts read parameters, the
    exact ones at smaller sizes with each distance's trend, and for others a short
    simulation), "exact", "simulation" or "none". ``tolerance``: the drift against the
    largest flow at the equilibrium.

    Raises ModelError; FluidError (no interchangeable replicas, probes that differ in more
    than their counts, an element the counts cannot read, or a trajectory that does not
    settle); ValueError for a setting out of range.
    """
    return MeanFieldSolution(_mmt.solve_mean_field(str(path), _parameters(params), page or "",
                                                   at, reference, tolerance))


def load(path, params=None, page=None):
    """Reads a model by its extension: a system description (``.hdl``) is parsed and
    compiled; a raw net (``.gspn``, ``.pnml``, GreatSPN ``.net`` with its ``.def``,
    ``.PNPRO``) is loaded. ``params`` binds parameters by name (``{"P": 4}``, as ``-D``);
    ``page`` names the GSPN page of a ``.PNPRO`` project (as ``--page``; default the first).
    Raises ModelError with every diagnostic and the first one's position."""
    return Model(_mmt.load(str(path), _parameters(params), page or ""))


__all__ = [
    "load",
    "solve_mean_field",
    "sweep",
    "explore",
    "contract",
    "Model",
    "Sweep",
    "Exploration",
    "Contract",
    "Solution",
    "FluidSolution",
    "MeanFieldSolution",
    "TransientPoint",
    "Distribution",
    "Absorption",
    "End",
    "Simulation",
    "Comparison",
    "Element",
    "Interval",
    "Compared",
    "methods",
    "errors",
] + errors.__all__
