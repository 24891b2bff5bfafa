"""The failures of mmt's pipeline, as exception classes carrying their data.

Every class derives from :class:`Error` (itself a ``RuntimeError``); ``str(e)`` is the
message the command line prints, ``e.headline`` its first line.

    Error
    ├── ModelError             the model cannot be read: file, syntax, names, mapping
    ├── ExplorationError       the state space could not be explored
    │   ├── StateLimitError    more tangible markings (or CTMC edges) than allowed
    │   ├── MemoryLimitError   the memory limit would be passed
    │   └── TimelessTrapError  vanishing markings that can be entered but never left
    ├── StructureError         no unique steady state (a deadlock, several bottom components)
    ├── SolverError            the steady-state solver did not converge or broke down
    ├── UndefinedMeasureError  a measure divides by a quantity that is 0 in steady state
    ├── UnknownMetricError     a metric path (of a sweep, an exploration, a contract) that
    │                          names no result
    ├── SimulationError        the simulation cannot run the model
    └── FluidError             the fluid approximation cannot read the net, or its
                               trajectory does not settle
"""


class Error(RuntimeError):
    """A failure of mmt's pipeline. ``headline``: its first line."""

    headline = ""


class ModelError(Error):
    """The model cannot be read or compiled.

    ``file``, ``line``, ``column``: the first error (line 0 when it has no position, such as
    an unreadable file); ``diagnostics``: every error and warning as dicts with ``file``,
    ``line``, ``column``, ``message`` and ``severity``; ``rendered``: them as printed, with
    the source lines and carets.
    """

    file = None
    line = 0
    column = 0
    diagnostics = ()
    rendered = ""


class ExplorationError(Error):
    """Exploration stopped before the state space was complete. ``states``: the tangible
    markings found by then."""

    states = 0


class StateLimitError(ExplorationError):
    """More tangible markings than ``limit`` (or more CTMC edges than the solvers index).

    ``proven_bounded``: the net's P-invariants or inhibitor arcs prove it bounded, so it is
    only large; ``unproven_places``: the places nothing proves bounded; ``fullest_place``
    and ``fullest_tokens``: the place with the most tokens seen, the likely unbounded one;
    ``mean_field``: the chain grows with interchangeable replicas, and
    :func:`mmt.solve_mean_field` answers it approximately.
    """

    limit = 0
    proven_bounded = False
    unproven_places = ()
    fullest_place = None
    fullest_tokens = 0
    mean_field = False


class MemoryLimitError(ExplorationError):
    """Exploration stopped before mmt's memory passed ``limit_bytes``; ``mean_field`` as
    :class:`StateLimitError`'s."""

    limit_bytes = 0
    mean_field = False


class TimelessTrapError(ExplorationError):
    """Vanishing markings that can be entered but never left (the message names one)."""


class StructureError(Error):
    """The chain has no unique steady state: ``kind`` is "deadlock" or "multiple bottom
    components"."""

    kind = ""


class DeterministicError(Error):
    """``solve(deterministic="exact")`` cannot solve the constant delays exactly: ``first``
    and ``second`` are deterministic and enabled together in ``marking`` (the same name
    twice when one is enabled twice with several servers), or ``first`` names a delay that
    is neither constant nor exponential (``second`` and ``marking`` empty)."""

    first = ""
    second = ""
    marking = ""


class SolverError(Error):
    """The steady-state solver gave no result that can be trusted; no numbers go with it.

    ``status`` ("no convergence", "inaccurate", "numerical issue"), ``method``,
    ``iterations``, ``residual`` (‖πQ‖∞ / max|q_ii| of the last iterate), ``tolerance``,
    ``flow_imbalance``, ``note``, ``iteration_limit`` (True when the iterations allowed ran
    out, so that more might converge; False when the method stopped on its own).
    """

    status = ""
    method = ""
    iterations = 0
    residual = float("nan")
    tolerance = float("nan")
    flow_imbalance = float("nan")
    note = ""
    iteration_limit = False


class UndefinedMeasureError(Error):
    """The measure ``measure`` divides by a quantity that is 0 in steady state."""

    measure = ""


class UnknownMetricError(Error):
    """The metric path ``metric`` names no result; ``known`` lists those that do."""

    metric = ""
    known = ()


class SimulationError(Error):
    """The simulation cannot run the model (no timed transition, ...)."""


class FluidError(Error):
    """The fluid approximation has no answer. ``unsupported``: the net has an element no
    continuous flow reads (``element``: a transition with an inhibitor arc, a guard, a
    conflict that is not a free choice); otherwise its trajectory did not settle
    (``element`` the place that moved most, at model time ``time``, with the relative drift
    ``residual``)."""

    element = ""
    unsupported = False
    time = 0.0
    residual = 0.0


__all__ = [
    "Error",
    "ModelError",
    "ExplorationError",
    "StateLimitError",
    "MemoryLimitError",
    "TimelessTrapError",
    "StructureError",
    "DeterministicError",
    "SolverError",
    "UndefinedMeasureError",
    "UnknownMetricError",
    "SimulationError",
    "FluidError",
]
