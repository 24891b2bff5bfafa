"""The Python module against independent truths: the M/M/1/K closed form (Kleinrock,
Queueing Systems I, §3.6), the command line's own JSON for the same model, positions
counted by hand in broken files, and the limits the settings set."""

import json
import math
import os
import signal
import sys
import subprocess
import threading
import time

import pytest

import mmt

SOURCE = os.environ.get("MMT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("MMT_BINARY")


def example(name):
    return os.path.join(SOURCE, "examples", name)


MM1K = """param K = 4; param lambda = 0.7; param mu = 1.3;
place queue;
timed arrive rate lambda out queue inhibit queue * K;
timed serve rate mu in queue;
measure L = mean(#queue);
"""


def mm1k_mean(lam, mu, k):
    rho = lam / mu
    norm = (1 - rho) / (1 - rho ** (k + 1))
    return sum(n * rho ** n * norm for n in range(k + 1))


@pytest.fixture
def mm1k(tmp_path):
    path = tmp_path / "mm1k.gspn"
    path.write_text(MM1K)
    return path


def test_forkjoin_throughput():
    r = mmt.load(example("forkjoin.hdl")).solve()
    assert r.is_system and r.name == "forkjoin"
    x = r.applications["forkjoin"].throughput
    assert round(x, 7) == 0.0199719
    # The laws the model obeys exactly: closed(1), so R = 1 / X; U = X * demand.
    assert r.application.response_time == pytest.approx(1 / x, rel=1e-12)
    assert r.processors["P4"].utilization == pytest.approx(8 * x, rel=1e-9)
    assert r.actors["A1"].response_time == pytest.approx(4, rel=1e-9)
    assert r.states["tangible"] == 18


def test_farm_lumped_by_symmetry_and_not():
    farm = mmt.load(example("farm.hdl")).at(workers=5)
    lumped = farm.solve(method="lu", tolerance=1e-13)
    full = farm.solve(method="lu", tolerance=1e-13, symmetry=False)
    # 4 C(7, 2) orbits of the 4 * 3^5 markings.
    assert lumped.states["tangible"] == 84 and full.states["tangible"] == 972
    assert lumped.states["symmetry"]["unlumped_tangible"] == 972
    assert lumped.states["symmetry"]["lumped"] == [
        {"replica": "W", "group": "symmetric", "blocks": 5}]
    assert full.states["symmetry"]["lumped"] == []
    for name in ("W[1]", "W[5]"):
        assert lumped.tasks[name].utilization == pytest.approx(
            full.tasks[name].utilization, rel=1e-9)
    assert lumped.application.throughput == pytest.approx(full.application.throughput, rel=1e-9)


@pytest.mark.parametrize("k", [1, 4, 9])
def test_raw_net_closed_form(mm1k, k):
    m = mmt.load(mm1k, params={"K": k})
    assert not m.is_system and m.parameters == {"K": k}
    r = m.solve(method="gauss-seidel", tolerance=1e-13)
    assert r.solver["method"] == "gauss-seidel"
    assert r.states["tangible"] == k + 1
    assert r.measures["L"] == pytest.approx(mm1k_mean(0.7, 1.3, k), rel=1e-11)
    assert r.places["queue"].mean_tokens == pytest.approx(mm1k_mean(0.7, 1.3, k), rel=1e-11)
    rho = 0.7 / 1.3
    served = 1.3 * (1 - (1 - rho) / (1 - rho ** (k + 1)))
    assert r.transitions["serve"].throughput == pytest.approx(served, rel=1e-11)


@pytest.mark.skipif(not BINARY, reason="needs the mmt binary (MMT_BINARY, set by CTest)")
def test_to_dict_is_the_command_lines_json():
    path = example("image_filter.hdl")
    cli = json.loads(subprocess.run([BINARY, "solve", path, "-D", "P=3", "-D", "N=64", "-f", "json"],
                                    check=True, capture_output=True, text=True).stdout)
    doc = mmt.load(path, {"P": 3, "N": 64}).solve().to_dict()
    for timing in ("exploration_seconds", "solution_seconds", "peak_memory_mb"):
        del cli["solver"][timing], doc["solver"][timing]
    assert doc == cli


def test_at_rebuilds_with_other_parameters():
    m = mmt.load(example("image_filter.hdl"), {"P": 2, "N": 64})
    p3 = m.at(P=3)  # N keeps its 64
    assert p3.parameters == {"P": 3, "N": 64}
    fresh = mmt.load(example("image_filter.hdl"), {"P": 3, "N": 64}).solve()
    assert p3.solve().application.throughput == fresh.application.throughput
    assert m.solve().application.throughput != fresh.application.throughput


GREATSPN_CYCLE = """|0|
|
f 0 2 0 2 0 0 0
here 5 1.0 1.0 0
there 0 2.0 1.0 0
go {go} 0 1 0 1.0 2.0 0
   1   1   0 0
   1
   1   2   0 0
   0
back {back} 0 1 0 2.0 2.0 0
{rates}   1   2   0 0
   1
   1   1   0 0
   0
"""


def test_greatspn_min_and_max_rates(tmp_path):
    # Five tokens: `go` at Min[#here, 3] * 0.5 (a 3-server station), `back` at
    # Max[#there, 2]. The closed form of the two-station cycle: P(k there) is proportional
    # to the product over i = 1..k of 0.5 min(6 - i, 3) / max(i, 2).
    (tmp_path / "cycle.net").write_text(
        GREATSPN_CYCLE.format(go="-1 1", back="-2 1", rates=""))
    (tmp_path / "cycle.def").write_text(
        "|256\nMin[#here, 3] * 0.5\n|\nMax[#there, 2]\n|\n%\n|mean_there 0 0 : E{#there}\n|\n")
    weights = [1.0]
    for k in range(1, 6):
        weights.append(weights[-1] * 0.5 * min(6 - k, 3) / max(k, 2))
    mean_there = sum(k * w for k, w in enumerate(weights)) / sum(weights)
    r = mmt.load(tmp_path / "cycle.net").solve(method="gth")
    assert r.measures["mean_there"] == pytest.approx(mean_there, rel=1e-12)
    # The same rates written explicitly: 3 servers, and load-dependent rates 2, 2, 3, 4, 5.
    (tmp_path / "explicit.net").write_text(
        GREATSPN_CYCLE.format(go="0.5 3", back="2 -5", rates="2\n3\n4\n5\n"))
    explicit = mmt.load(tmp_path / "explicit.net").solve(method="gth")
    assert explicit.places["there"].mean_tokens == pytest.approx(mean_there, rel=1e-12)


def test_greatspn_expression_error_has_the_def_position(tmp_path):
    (tmp_path / "cycle.net").write_text(
        GREATSPN_CYCLE.format(go="-1 1", back="-2 1", rates=""))
    (tmp_path / "cycle.def").write_text("|256\nMin[#here, 3\n|\nMax[#there, 2]\n|\n%\n|\n")
    with pytest.raises(mmt.ModelError) as caught:
        mmt.load(tmp_path / "cycle.net")
    e = caught.value
    assert (e.file, e.line, e.column) == (str(tmp_path / "cycle.def"), 2, 13)


def test_pnpro_page_by_name(tmp_path):
    # GreatSPN's ReaderWriter and Multiprocessor pages in one project; page= reads the second,
    # which is lumped by its colour class P (24 permutations of 340 markings).
    pages = []
    for name in ("greatspn_ReaderWriter.PNPRO", "greatspn_Multiprocessor.PNPRO"):
        text = open(os.path.join(SOURCE, "tests", "grammar", name)).read()
        pages.append(text[text.index("<gspn "):text.index("</gspn>") + len("</gspn>")])
    path = tmp_path / "two.PNPRO"
    path.write_text('<project name="two" version="121">\n' + "\n".join(pages) + "\n</project>\n")
    assert mmt.load(path).solve().states["tangible"] != 23
    r = mmt.load(path, page="multiproc").solve()
    assert r.states["tangible"] == 23
    assert r.states["symmetry"]["unlumped_tangible"] == 340
    assert r.states["symmetry"]["lumped"][0]["group"] == "colour"
    with pytest.raises(mmt.ModelError) as caught:
        mmt.load(path, page="nope")
    assert "no GSPN page named 'nope'" in str(caught.value)


def test_model_error_has_the_position(tmp_path):
    path = tmp_path / "broken.hdl"
    # Line 3, column 35: the ';' where the demand's value should be.
    path.write_text("system s {\n  hardware { processor P1; }\n"
                    "  application { actor A { demand: ; } }\n  mapping { A on P1; }\n}\n")
    with pytest.raises(mmt.ModelError) as caught:
        mmt.load(path)
    e = caught.value
    assert (e.file, e.line, e.column) == (str(path), 3, 35)
    assert e.diagnostics[0]["severity"] == "error"
    assert "^" in e.rendered and str(e).startswith("1 error in ")
    assert isinstance(e, mmt.Error) and isinstance(e, RuntimeError)


def test_every_error_at_once(tmp_path):
    path = tmp_path / "names.hdl"
    path.write_text("system s {\n  hardware { processor P1; }\n"
                    "  application { actor A { demand: 1; } }\n  mapping { A on P2; }\n}\n")
    with pytest.raises(mmt.ModelError) as caught:
        mmt.load(path)
    where = [(d["line"], d["column"]) for d in caught.value.diagnostics]
    assert where == [(3, 17), (4, 18)]
    assert caught.value.diagnostics[1]["message"] == "unknown name 'P2'; did you mean 'P1'?"


def test_unreadable_file_and_unknown_parameter(tmp_path, mm1k):
    with pytest.raises(mmt.ModelError) as caught:
        mmt.load(tmp_path / "missing.gspn")
    assert caught.value.line == 0
    with pytest.raises(mmt.ModelError):
        mmt.load(mm1k, {"nope": 1})
    with pytest.raises(TypeError):
        mmt.load(mm1k, {"K": "four"})


def test_solver_error_carries_the_residual(mm1k):
    m = mmt.load(mm1k, {"K": 60})
    with pytest.raises(mmt.SolverError) as caught:
        m.solve(method="gauss-seidel", max_iterations=2, tolerance=1e-15)
    e = caught.value
    assert e.status == "no convergence" and e.method == "gauss-seidel"
    assert e.iterations <= 2 and e.residual > 1e-15 and e.tolerance == 1e-15
    assert e.iteration_limit


def test_state_limit_error(tmp_path, mm1k):
    path = tmp_path / "open.gspn"
    path.write_text("place q;\ntimed arrive rate 1 out q;\ntimed serve rate 2 in q;\n")
    with pytest.raises(mmt.StateLimitError) as caught:
        mmt.load(path).solve(max_states=300)
    e = caught.value
    assert e.limit == 300 and e.states == 301 and not e.proven_bounded
    assert e.unproven_places == ["q"] and e.fullest_place == "q" and e.fullest_tokens == 300
    with pytest.raises(mmt.StateLimitError) as caught:
        mmt.load(mm1k, {"K": 10}).solve(max_states=3)
    assert caught.value.proven_bounded


def test_structure_trap_and_measure_errors(tmp_path):
    trap = tmp_path / "trap.gspn"
    trap.write_text("place a = 1; place b;\nimmediate ab in a out b;\nimmediate ba in b out a;\n"
                    "place c = 1;\ntimed t rate 1 in c out c;\n")
    with pytest.raises(mmt.TimelessTrapError):
        mmt.load(trap).solve()
    with pytest.raises(mmt.StructureError) as caught:
        mmt.load(os.path.join(SOURCE, "tests", "cli", "deadlock.hdl")).solve()
    assert caught.value.kind == "deadlock"
    with pytest.raises(mmt.UndefinedMeasureError) as caught:
        mmt.load(os.path.join(SOURCE, "tests", "cli", "measure_zero.gspn")).solve()
    assert caught.value.measure == "per_firing"


def test_settings_out_of_range(mm1k):
    m = mmt.load(mm1k)
    for bad in ({"method": "jacobi"}, {"tolerance": 0}, {"relaxation": 2.5},
                {"max_memory_mb": 0.5}):
        with pytest.raises(ValueError):
            m.solve(**bad)
    assert mmt.methods[0] == "auto" and "gth" in mmt.methods


def test_solving_releases_the_gil():
    """Another Python thread runs while a solution is computed: the main thread records
    times all through the middle of the solve (it could not if the GIL were held)."""
    model = mmt.load(os.path.join(SOURCE, "tools", "bench", "models", "kanban.gspn"), {"N": 3})
    span = {}

    def work():
        span["start"] = time.monotonic()
        model.solve(threads=1)
        span["end"] = time.monotonic()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    worker.join()
    d = span["end"] - span["start"]
    assert d > 0.02, "the solve was too short to tell"
    middle = [t for t in ticks if span["start"] + 0.25 * d < t < span["start"] + 0.75 * d]
    assert len(middle) >= 5


def test_the_image_filter_study_runs(tmp_path):
    """examples/python/image_filter_sweep.py: its CSV agrees with the model solved here."""
    script = os.path.join(SOURCE, "examples", "python", "image_filter_sweep.py")
    out = tmp_path / "sweep.csv"
    env = dict(os.environ)
    subprocess.run([sys.executable, script, "--max-p", "3", "--sizes", "64,128", "--csv", str(out)],
                   check=True, capture_output=True, text=True, env=env)
    import csv
    rows = list(csv.DictReader(out.open()))
    assert [(int(r["P"]), int(r["N"])) for r in rows] == [(p, n) for n in (64, 128) for p in (1, 2, 3)]
    direct = mmt.load(example("image_filter.hdl"), {"P": 3, "N": 128}).solve()
    assert float(rows[-1]["response_time"]) == pytest.approx(direct.application.response_time, rel=1e-12)


def test_simulation_interval_holds_the_closed_form(mm1k):
    s = mmt.load(mm1k, {"K": 4}).simulate(delays="exponential", replications=20, events=20000,
                                          seed=7)
    L = s.measures["L"]
    assert isinstance(L, mmt.Interval) and L.half_width > 0
    assert mm1k_mean(0.7, 1.3, 4) in L
    assert s.simulation["replications"] == 20 and s.simulation["seed"] == 7
    assert s.places["queue"].mean_tokens.mean == pytest.approx(L.mean, rel=1e-12)


def test_a_run_without_randomness_is_exact_or_has_no_interval():
    # One workstation, constant delays: S, A[1] and M in turn, 55.05024 t an iteration.
    s = mmt.load(example("image_filter.hdl"), {"P": 1}).simulate(delays="constant")
    r = s.application.response_time
    assert r.mean == pytest.approx(55.05024, rel=1e-12) and r.half_width == 0
    assert 55.05024 in r
    assert s.simulation["replications"] == 1
    assert s.simulation["deterministic"]["periodic"]
    assert s.simulation["deterministic"]["period"] == pytest.approx(55.05024, rel=1e-12)
    # Loops of 1 and the square root of 2 never line up: one run's averages, no interval.
    path = os.path.join(SOURCE, "tests", "cli", "incommensurable.gspn")
    f = mmt.load(path).simulate(events=2000).transitions["f"].throughput
    assert f.half_width is None and f.low is None and 1.0 not in f
    assert f.mean == pytest.approx(1, rel=1e-3)


@pytest.mark.skipif(not BINARY, reason="needs the mmt binary (MMT_BINARY, set by CTest)")
@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_simulate_and_compare_documents_are_the_command_lines(command):
    path = example("forkjoin.hdl")
    cli = json.loads(subprocess.run([BINARY, command, path, "-r", "3", "--events", "4000",
                                     "--seed", "5", "-f", "json"],
                                    check=True, capture_output=True, text=True).stdout)
    m = mmt.load(path)
    if command == "simulate":
        doc = m.simulate(replications=3, events=4000, seed=5).to_dict()
        blocks = [cli["simulation"], doc["simulation"]]
    else:
        doc = m.compare(replications=3, events=4000, seed=5).to_dict()
        blocks = [*cli["simulations"].values(), *doc["simulations"].values()]
    for block in blocks:
        del block["seconds"], block["threads"]
    assert doc == cli


def test_comparison_cells(mm1k):
    m = mmt.load(mm1k, {"K": 3})
    c = m.compare(replications=4, events=5000, seed=3)
    exact = m.solve().measures["L"]
    cell = c.measures["L"]
    assert cell.exact == exact and cell.phases is None
    assert set(cell.simulated) == {"exponential", "constant"}
    assert cell.outside == (exact not in cell.simulated["exponential"])
    assert ("measures.L" in c.outside) == cell.outside
    assert c.exact["tangible_markings"] == 4


def test_simulation_settings_and_failures():
    m = mmt.load(example("forkjoin.hdl"))
    with pytest.raises(ValueError, match="warmup must be fewer than events \\(100\\)"):
        m.simulate(events=100, warmup=300)
    for bad in ({"replications": 1}, {"confidence": 1.5}, {"delays": "gamma"}):
        with pytest.raises(ValueError):
            m.simulate(**bad)
    with pytest.raises(mmt.SimulationError):
        mmt.load(os.path.join(SOURCE, "tests", "cli", "deadlock.hdl")).simulate(replications=2)


def rows_of(rows):
    """A study's rows as a list of dicts, whether pandas made them a DataFrame or not."""
    return rows.to_dict("records") if hasattr(rows, "to_dict") else rows


def test_sweep_rows_are_the_points_solved_one_by_one():
    m = mmt.load(example("image_filter.hdl"), {"N": 64})
    s = mmt.sweep(m, {"P": range(1, 4)}, metrics=["application.response_time"])
    rows = rows_of(s.rows)
    assert [r["P"] for r in rows] == [1, 2, 3] and not s.failed
    for r in rows:
        direct = mmt.load(example("image_filter.hdl"), {"N": 64, "P": r["P"]}).solve()
        assert r["application.response_time"] == direct.application.response_time
        assert r["states"] == direct.states["tangible"]


def test_sweep_failures_simulated_series_and_unknown_metrics():
    m = mmt.load(example("image_filter.hdl"))
    s = mmt.sweep(m, {"P": [4, 5]}, max_states=500)
    assert [r["P"] for r in s.failed] == [5]
    assert s.failed[0]["reason"].startswith("more than 500 tangible markings")
    c = mmt.sweep(m, {"P": [1, 2]}, delays=["exponential", "constant"],
                  metrics=["application.response_time"], replications=2, events=2000)
    rows = rows_of(c.rows)
    assert [r["delays"] for r in rows] == ["exponential", "constant"] * 2
    constant = [r for r in rows if r["delays"] == "constant"]
    assert all(r["application.response_time_half_width"] >= 0 for r in constant)
    with pytest.raises(mmt.UnknownMetricError) as caught:
        mmt.sweep(m, {"P": [1, 2]}, metrics=["application.respone_time"])
    assert "application.response_time" in caught.value.known
    with pytest.raises(ValueError):
        mmt.sweep(m, {"P": [1]}, delays=["gamma"])


@pytest.mark.skipif(not BINARY, reason="needs the mmt binary (MMT_BINARY, set by CTest)")
def test_study_documents_are_the_command_lines():
    def cli(*args):
        return json.loads(subprocess.run([BINARY, *args, "-f", "json"], check=True,
                                         capture_output=True, text=True).stdout)

    image = example("image_filter.hdl")
    doc = mmt.sweep(mmt.load(image, {"N": 64}), {"P": range(1, 4)}).to_dict()
    assert doc == cli("sweep", image, "-D", "N=64", "--param", "P=1..3")
    pipeline = example("pipeline3.hdl")
    ours, theirs = mmt.explore(pipeline).to_dict(), cli("explore", pipeline)
    for d in (ours, theirs):
        for entry in d["ranking"]:
            del entry["seconds"]
    assert ours == theirs
    farm = example("farm.hdl")
    doc = mmt.contract(mmt.load(farm), "application.throughput >= 5",
                       {"workers": range(1, 13)}).to_dict()
    assert doc == cli("contract", farm, "--require", "application.throughput >= 5",
                      "--vary", "workers=1..12")


def test_explore_ranks_the_candidates():
    e = mmt.explore(example("pipeline3.hdl"))
    rows = rows_of(e.rows)
    assert e.best == {"S2": "P2", "S3": "P3"} and e.candidates == 9 and e.distinct == 5
    values = [r["application.throughput"] for r in rows]
    assert values == sorted(values, reverse=True)
    best = rows[0]
    assert best["application.throughput"] == pytest.approx(5.63467, rel=1e-5)
    listed = mmt.explore(example("pipeline3.hdl"), mappings=[{"S2": "P1", "S3": "P1"}])
    assert listed.distinct == 1 and listed.best == {"S2": "P1", "S3": "P1"}
    with pytest.raises(ValueError):
        mmt.explore(example("pipeline3.hdl"), max_candidates=3)


def test_contract_answer_and_its_tries():
    farm = mmt.load(example("farm.hdl"))
    c = mmt.contract(farm, "application.throughput >= 5", {"workers": range(1, 13)})
    assert c.met and c.answer == 5
    for t in rows_of(c.tries):
        direct = farm.at(workers=t["value"]).solve().application.throughput
        assert t["metric"] == direct and t["met"] == (direct >= 5)
    linear = mmt.contract(farm, "application.throughput >= 5", {"workers": range(1, 13)},
                          search="linear")
    assert linear.answer == 5
    # The bound (at most 6 at 4 workers) rules 50 out: nothing is solved, and the workers,
    # the bottleneck, are what would help.
    none = mmt.contract(farm, "application.throughput >= 50", {"workers": range(1, 5)})
    assert not none.met and none.answer is None and none.impossible and none.best is None
    assert rows_of(none.tries) == []
    assert none.diagnosis["bottleneck"][0]["element"] == "F"
    assert none.diagnosis["suggestions"][0]["change"] == "more_workers"
    # The bound allows 9.5 but queueing does not: the closest try and the reason.
    short = mmt.contract(farm, "application.throughput >= 9.5", {"workers": [7, 8]})
    assert not short.met and not short.impossible and short.best["value"] == 8
    assert "blocking" in short.diagnosis["reason"]
    with pytest.raises(ValueError):
        mmt.contract(farm, "throughput = 5", {"workers": [1, 2]})


def test_contract_keeps_up_with_the_input():
    # Emit and Collect take 0.1 per item; a farm of n workers (1/1.5 each) 0.667 / n: 7.
    farm = mmt.load(example("farm.hdl"))
    c = mmt.contract(farm, "application.throughput >= input", {"workers": range(1, 13)})
    assert c.met and c.answer == 7
    assert c.surroundings["arrival_from"] == "Emit" and c.surroundings["varied"] == ["F"]
    rows = rows_of(c.tries)
    assert [r["value"] for r in rows] == list(range(1, 8))
    assert abs(rows[-1]["service_time"] - 1 / 1.5 / 7) < 1e-12
    assert rows[-1]["metric"] == farm.at(workers=7).solve().application.throughput
    assert "input" in repr(c)
    given = mmt.contract(farm, "application.throughput >= input", {"workers": range(1, 13)},
                         arrival_time=0.3)
    assert given.answer == 3 and given.surroundings["arrival_from"] == "given"
    with pytest.raises(ValueError):
        mmt.contract(farm, "application.throughput >= 5", {"workers": [1, 2]}, arrival_time=1)


def test_tables_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    s = mmt.sweep(mmt.load(example("image_filter.hdl"), {"N": 64}), {"P": [1, 2]})
    assert isinstance(s.rows, list) and s.rows[1]["P"] == 2


def test_tables_with_pandas():
    pandas = pytest.importorskip("pandas")
    s = mmt.sweep(mmt.load(example("image_filter.hdl"), {"N": 64}), {"P": [1, 2]})
    assert isinstance(s.rows, pandas.DataFrame) and list(s.rows["P"]) == [1, 2]


def test_the_forkjoin_delays_study_runs(tmp_path):
    script = os.path.join(SOURCE, "examples", "python", "forkjoin_delays.py")
    out = subprocess.run([sys.executable, script, "--replications", "4", "--events", "20000"],
                         check=True, capture_output=True, text=True).stdout
    application = next(line for line in out.splitlines() if line.startswith("application"))
    assert application.split()[1] == "50.0702"


def test_the_image_filter_study_plots(tmp_path):
    pytest.importorskip("matplotlib")
    script = os.path.join(SOURCE, "examples", "python", "image_filter_sweep.py")
    picture = tmp_path / "sweep.png"
    subprocess.run([sys.executable, script, "--max-p", "3", "--sizes", "64", "--plot",
                    str(picture)], check=True, capture_output=True, text=True)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def interrupt_soon(seconds=0.3):
    """Sends this process SIGINT (Ctrl-C) after `seconds`, from another thread."""
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.mark.parametrize("phase", ["exploring", "solving", "simulating", "replicating"])
def test_ctrl_c_interrupts_a_long_run(phase):
    """Ctrl-C ends a run that would take far longer (Kanban N = 5 explores 2.5 million
    markings; Gauss-Seidel on the tandem queue, c = 383, sweeps for 1.5 s towards 1e-300
    before its residual stops falling, where Kanban N = 3 stopped in 0.4 s, a race with
    the 0.3 s interrupt on an idle machine; a simulation to a precision of 1e-6 within 10
    minutes; 100,000 replications in one batch) with KeyboardInterrupt, and the model is
    still usable after it."""
    kanban = os.path.join(SOURCE, "tools", "bench", "models", "kanban.gspn")
    tandem = os.path.join(SOURCE, "tools", "bench", "models", "tandem.gspn")
    if phase == "exploring":
        model, run = mmt.load(kanban, {"N": 5}), lambda m: m.solve()
    elif phase == "solving":
        model = mmt.load(tandem, {"c": 383})
        run = lambda m: m.solve(method="gauss-seidel", tolerance=1e-300, max_iterations=10**9)
    elif phase == "simulating":
        model = mmt.load(example("forkjoin.hdl"))
        run = lambda m: m.simulate(precision=1e-6, max_replications=10**6, time_limit=600)
    else:  # one batch of a fixed number of replications
        model = mmt.load(example("forkjoin.hdl"))
        run = lambda m: m.simulate(replications=100_000)
    timer = interrupt_soon()
    try:
        with pytest.raises(KeyboardInterrupt):
            run(model)
    finally:
        timer.cancel()
    small = model if model.is_system else model.at(**({"c": 3} if phase == "solving" else {"N": 1}))
    assert small.solve().states["tangible"] > 0


ON_OFF = """param a = 2; param b = 0.5;
place on = 1; place off;
timed fail rate a in on out off;
timed repair rate b in off out on;
"""


def test_transient_on_off_closed_form(tmp_path):
    path = tmp_path / "onoff.gspn"
    path.write_text(ON_OFF)
    a, b = 2.0, 0.5
    r = mmt.load(path).solve(at=[0.1, 1, 10])
    assert [p.time for p in r.transient] == [0.1, 1, 10]
    for p in r.transient:
        on = b / (a + b) + a / (a + b) * math.exp(-(a + b) * p.time)
        assert abs(p.places["on"].mean_tokens - on) <= 1e-9
    average = mmt.load(path).solve(at=2, cumulative=True).transient[0]
    s = a + b
    assert abs(average.places["on"].mean_tokens
               - (b / s + a / (s * s * 2) * (1 - math.exp(-2 * s)))) <= 1e-9
    assert r.to_dict()["solver"]["transient"]["method"] == "uniformization"
    with pytest.raises(ValueError, match="at"):
        mmt.load(path).solve(at=[-1])
    only = mmt.load(path).solve(at=[0.1, 1, 10], transient_only=True)
    assert "not solved" in only.no_steady_state and only.places == {}
    # Both within the error bound; stationarity told from the iterates instead of the limit.
    for p, q in zip(only.transient, r.transient):
        assert abs(p.places["on"].mean_tokens - q.places["on"].mean_tokens) <= 1e-10


def test_transient_system_has_no_response_time_at_an_instant():
    r = mmt.load(example("forkjoin.hdl")).solve(at=[5])
    point = r.transient[0]
    assert "response_time" not in point.actors["A1"]
    assert point.processors["P1"].utilization == pytest.approx(
        point.actors["A1"].throughput * 4, rel=1e-9)
    assert mmt.load(example("forkjoin.hdl")).solve().transient == []


def test_response_time_distributions_of_a_system():
    r = mmt.load(example("forkjoin.hdl")).solve(percentiles=[50, 95], cdf_at=[100])
    application, *actors = r.response_time_distributions
    assert application.section == "application" and application.element == "forkjoin"
    assert application.mean == pytest.approx(r.application.response_time, rel=1e-8)
    assert 0 < application.cdf[100] < 1
    assert application.percentiles[50] < application.mean < application.percentiles[95]
    a1 = next(d for d in actors if d.element == "A1")  # Exp(mean 4): p50 = 4 ln 2
    assert a1.percentiles[50] == pytest.approx(4 * math.log(2), abs=1e-6)
    assert mmt.load(example("forkjoin.hdl")).solve().response_time_distributions == []
    with pytest.raises(ValueError, match="from_"):
        mmt.load(example("forkjoin.hdl")).solve(from_="#a", to="#b")


def test_passage_between_conditions_of_a_raw_net(tmp_path):
    path = tmp_path / "stages.gspn"
    path.write_text("place w = 1; place a; place b;\n"
                    "timed go rate 1 in w out a; timed s1 rate 1 in a out b;\n"
                    "timed s2 rate 3 in b out w;\n")
    r = mmt.load(path).solve(from_="#a == 1", to="#w == 1", cdf_at=[0.5], percentiles=[90])
    (d,) = r.response_time_distributions
    cdf = 1 - 1.5 * math.exp(-0.5) + 0.5 * math.exp(-1.5)  # hypoexponential(1, 3)
    assert d.section == "passage" and abs(d.cdf[0.5] - cdf) <= 1e-9
    assert d.mean == pytest.approx(1 + 1 / 3, rel=1e-12)
    with pytest.raises(mmt.ModelError):
        mmt.load(path).solve(from_="#nowhere == 1", to="#w == 1", percentiles=[90])


def test_deterministic_exact_m_d_1_k_and_refusal():
    md1k = os.path.join(SOURCE, "tests", "cli", "md1k.gspn")
    exact = mmt.load(md1k).solve(deterministic="exact")
    assert exact.solver["deterministic"]["embedded_markings"] == 4
    assert exact.measures["L"] == pytest.approx(1.47835, abs=5e-6)
    # As exponential delays of the same mean: the M/M/1/K queue, a different number.
    assert mmt.load(md1k).solve().measures["L"] == pytest.approx(mm1k_mean(0.8, 1, 4), rel=1e-9)
    with pytest.raises(mmt.DeterministicError) as caught:
        mmt.load(os.path.join(SOURCE, "tests", "cli", "two_deterministic.gspn")).solve(
            deterministic="exact")
    assert (caught.value.first, caught.value.second) == ("x", "y")
    assert caught.value.marking == "{a=1, b=1}"


def test_transient_without_a_steady_state(tmp_path):
    path = tmp_path / "stages.gspn"
    path.write_text("place s0 = 1; place s1; place done;\n"
                    "timed t0 rate 1 in s0 out s1;\n"
                    "timed t1 rate 3 in s1 out done;\n")
    # The chain ends: hypoexponential(1, 3), E[A] = 4/3, Var[A] = 1 + 1/9.
    ends = mmt.load(path).solve()
    assert ends.absorption is not None and ends.no_steady_state is None
    assert abs(ends.absorption.mean_time - 4 / 3) <= 1e-12
    assert abs(ends.absorption.variance - 10 / 9) <= 1e-12
    assert [(c.marking, c.probability) for c in ends.absorption.components] == [("done=1", 1.0)]
    assert abs(ends.absorption.accumulated.places["s1"].token_time - 1 / 3) <= 1e-12
    assert ends.places["done"].mean_tokens == 1.0
    r = mmt.load(path).solve(at=[0.5, 2])
    assert r.absorption is not None
    for p in r.transient:  # hypoexponential(1, 3): 1 - 3/2 e^-t + 1/2 e^-3t
        cdf = 1 - 1.5 * math.exp(-p.time) + 0.5 * math.exp(-3 * p.time)
        assert abs(p.places["done"].mean_tokens - cdf) <= 1e-9


def test_batch_makespan():
    # 32 frames through the farm: its makespan, and the throughput over the run 32 / makespan.
    r = mmt.load(os.path.join(SOURCE, "examples", "batch.hdl"), {"workers": 2}).solve()
    makespan = r.application.makespan
    assert r.absorption is not None and abs(r.absorption.mean_time - makespan) <= 1e-12
    assert abs(r.application.throughput - 32 / makespan) <= 1e-9 * (32 / makespan)
    assert r.absorption.accumulated is None and len(r.absorption.components) == 1


def test_fluid_repairman_closed_form_and_failures(mm1k):
    # N = 60 machines failing at rate 1, C repairers of rate 2: the fluid throughput is
    # min(λμN/(λ+μ), μC) (docs/fluid.md).
    path = os.path.join(SOURCE, "tools", "bench", "models", "repairman.gspn")
    for c, closed in ((10, 20.0), (30, 40.0)):
        f = mmt.load(path, {"C": c}).solve_fluid(at=[0, 1])
        assert f.transitions["repair"].throughput == pytest.approx(closed, rel=1e-9)
        assert f.fluid["stable"] and f.fluid["residual"] <= 1e-10
        assert f.reference["method"] == "exact"
        exact = mmt.load(path, {"C": c}).solve().transitions["repair"].throughput
        row = next(n for n in f.reference["numbers"]
                   if n["path"] == "transitions.repair.throughput")
        assert row["reference"] == exact
        assert row["distance"] == pytest.approx(abs(closed - exact) / exact)
        assert [p.time for p in f.transient] == [0, 1]
        assert f.transient[0].places["up"].mean_tokens == 60
    assert mmt.load(path).solve_fluid(reference="none").reference is None
    with pytest.raises(mmt.FluidError) as refused:
        mmt.load(mm1k).solve_fluid()
    assert refused.value.unsupported and refused.value.element == "arrive"
    with pytest.raises(ValueError, match="reference"):
        mmt.load(path).solve_fluid(reference="closest")


def test_solve_mean_field_counts_a_million_workers_without_loading_them():
    # examples/farm.hdl at its critical load: 1 / (1/10 + 1/100) items per time unit,
    # whatever the workers (docs/meanfield.md).
    farm = os.path.join(SOURCE, "examples", "farm.hdl")
    m = mmt.solve_mean_field(farm, {"workers": 1_000_000}, reference="none", at=[0, 5])
    assert m.application.throughput == pytest.approx(1 / 0.11, rel=1e-9)
    assert m.population["replicas"][0]["count"] == 1_000_000
    assert m.population["probes"] == [{"workers": 2.0}, {"workers": 3.0}]
    assert list(m.tasks) == ["Emit", "W[1]", "Collect"]
    assert m.reference is None and [p.time for p in m.transient] == [0, 5]
    assert "1000000 W" in repr(m)
    # A loaded model gives the same answer; the reference at a size that fits is exact.
    small = mmt.load(farm, {"workers": 16}).solve_mean_field()
    assert small.reference["method"] == "exact"
    exact = mmt.load(farm, {"workers": 16}).solve().application.throughput
    row = next(n for n in small.reference["numbers"] if n["path"] == "application.throughput")
    assert row["reference"] == [exact]
    # Studies take method="mean-field".
    sweep = mmt.sweep(mmt.load(farm), {"workers": [100, 1_000_000]}, method="mean-field")
    assert [p["method"] for p in sweep.to_dict()["points"]] == ["mean-field", "mean-field"]
    contract = mmt.contract(mmt.load(farm), "application.throughput >= 9",
                            {"workers": range(1, 2000)}, method="mean-field")
    assert contract.answer is not None
    with pytest.raises(mmt.FluidError) as refused:
        mmt.solve_mean_field(farm, {"workers": 100, "fast": 1})
    assert refused.value.unsupported
