"""Results as Python objects over the documents of ``mmt solve --format json``.

A :class:`Solution` gives each section of the document as a dict from element name to an
:class:`Element`, whose metrics read as attributes (``r.actors["A1"].throughput``). Times
are in the model's time unit, throughputs per time unit (docs/json.md says every key).
"""

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


def _elements(section):
    return {name: Element(name, values) for name, values in section.items()}


class Solution:
    """A model's exact steady state.

    For a system description: ``applications`` (one, by the system's name; also
    ``application``), ``actors``, ``processors``, ``messages``, ``links`` and, with
    skeletons, ``skeletons`` and ``tasks``. For a raw net: ``places`` (``mean_tokens``),
    ``transitions`` (``throughput``) and ``measures`` (name to number). Both: ``states``
    (tangible, vanishing, transient, edges) and ``solver`` (method, iterations, residual,
    ...), as dicts; ``to_dict()`` is the whole document.
    """

    _SYSTEM_SECTIONS = ("skeletons", "tasks", "actors", "processors", "messages", "links")

    def __init__(self, document):
        self._document = document
        self.is_system = "system" in document
        self.name = document["system"] if self.is_system else document["net"]
        self.states = dict(document["states"])
        self.solver = dict(document["solver"])
        if self.is_system:
            self.application = Element(self.name, document["application"])
            self.applications = {self.name: self.application}
            for section in self._SYSTEM_SECTIONS:
                setattr(self, section, _elements(document.get(section, {})))
        else:
            self.places = _elements(document["places"])
            self.transitions = _elements(document["transitions"])
            self.measures = dict(document["measures"])

    def to_dict(self):
        """The document ``mmt solve --format json`` prints (docs/schema/solve.json)."""
        return copy.deepcopy(self._document)

    def __repr__(self):
        kind = "system" if self.is_system else "net"
        return (f"<mmt.Solution of {kind} {self.name!r}: {self.states['tangible']} tangible "
                f"markings, {self.solver['method']}, residual {self.solver['residual']:.3g}>")
