// The solver's inner loops timed on one model's generator: a product with the uniformized
// matrix P = I + Q/q on every core, over the generator's columns and over its columns in
// slices of four (solver/sliced_columns.hpp, the transient's), a Gauss–Seidel sweep (one core)
// and the solver's sweep of two blocks on two cores (every entry through inflowSplit, then
// with the columns whose sources lie in their own block read from x alone), each over the
// columns in the lexicographic order of the markings (the transient's, solver/pipeline.hpp
// markingOrder), in the order exploration numbered the states, sorted by length within
// windows and breadth-first levels (BlockOrder::byColumnLength), and each breadth-first
// level in marking order (levelMarkingOrder, the steady state's); the least of `repeats`
// runs. Then the sweeps and seconds of solveSteadyState's defaults in each order but the
// first, and, in the last order (`mmt solve --at`'s), the transient at t = 10 and 100 from
// the first state with the steady state as its limit, as `mmt solve --at 10,100` runs it:
// its products and seconds (the slicing, the windows' sums, the limit's checks and the
// dropping included).
//
//   build/tools/mmt_bench_kernels tools/bench/models/kanban.gspn N=5 [repeats]
//   build/tools/mmt_bench_kernels tools/bench/models/kanban.gspn N=5 --transient [repeats]
//
// Prints the states, the entries, the seconds of each loop in each order, the sweeps and
// the solution's seconds, then the transient's line. With --transient, only the transient,
// the least of `repeats` runs.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "gspn/reachability.hpp"
#include "solver/ctmc.hpp"
#include "solver/pipeline.hpp"
#include "solver/sliced_columns.hpp"
#include "solver/steady_state.hpp"
#include "solver/transient.hpp"

using namespace mmt;

namespace {

template <typename Run>
double least(int repeats, Run run) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

struct Seconds {
  double product;    ///< y = x P on every core
  double sliced;     ///< the same over SlicedColumns
  double sweep;      ///< a Gauss–Seidel sweep on one core
  double split;      ///< two blocks on two cores, every entry through inflowSplit
  double ownColumn;  ///< the same, the columns with sources in their block alone read x
};

Seconds time(const solver::Generator& q, int repeats) {
  const auto n = static_cast<std::ptrdiff_t>(q.size());
  std::vector<double> x(q.size()), y(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) x[i] = double(1 + i % 7) / double(q.size());
  const double scale = 1 / (q.exitRate.largest() * 1.02);
  Seconds s{};
  s.product = least(repeats, [&] {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t j = 0; j < n; ++j)
      y[std::size_t(j)] = x[std::size_t(j)] + (q.inflow(std::size_t(j), x.data()) -
                                               x[std::size_t(j)] * q.exitRate[std::size_t(j)]) *
                                                  scale;
  });
  if (const auto columns = solver::SlicedColumns::of(q)) {
    s.sliced = least(repeats, [&] {
      const auto slices = static_cast<std::ptrdiff_t>(columns->slices());
#pragma omp parallel for schedule(static)
      for (std::ptrdiff_t b = 0; b < slices; ++b) {
        double inflow[solver::SlicedColumns::kSlice];
        const std::size_t count = columns->inflows(std::size_t(b), x.data(), inflow);
        for (std::size_t c = 0; c < count; ++c) {
          const std::size_t j = std::size_t(b) * solver::SlicedColumns::kSlice + c;
          y[j] = x[j] + (inflow[c] - x[j] * q.exitRate[j]) * scale;
        }
      }
    });
  }
  s.sweep = least(repeats, [&] {
    for (std::ptrdiff_t j = 0; j < n; ++j)
      x[std::size_t(j)] = q.inflow(std::size_t(j), x.data()) / q.exitRate[std::size_t(j)];
  });
  // The solver's two blocks (solver/steady_state_relaxation.cpp, RelaxationSweep): each reads the
  // other's states from a snapshot.
  const int half = int(n / 2);
  std::vector<char> own(q.size(), 1);
  for (std::ptrdiff_t j = 0; j < n; ++j)
    for (int k = q.offset[std::size_t(j)]; k < q.offset[std::size_t(j) + 1]; ++k)
      if ((q.source(std::size_t(k)) < half) != (j < half)) own[std::size_t(j)] = 0;
  std::vector<double> previous(x);
  auto twoBlocks = [&](bool flagged) {
#pragma omp parallel for schedule(static) num_threads(2)
    for (int b = 0; b < 2; ++b) {
      const int lo = b == 0 ? 0 : half, hi = b == 0 ? half : int(n);
      for (int j = lo; j < hi; ++j) {
        const std::size_t c = std::size_t(j);
        const double in = flagged && own[c] ? q.inflow(c, x.data())
                                            : q.inflowSplit(c, x.data(), previous.data(), lo, hi);
        x[c] = in / q.exitRate[c];
      }
    }
  };
  s.split = least(repeats, [&] { twoBlocks(false); });
  s.ownColumn = least(repeats, [&] { twoBlocks(true); });
  return s;
}

/// The transient at t = 10 and 100 from state 0 over q (in the levels' marking order), with
/// the steady state as its limit (`mmt solve --at 10,100`'s run); prints the least seconds
/// of `repeats` runs.
void transientAt10And100(const solver::Generator& q, int repeats) {
  const solver::SteadyStateResult steady = solver::solveSteadyState(q, {});
  solver::TransientSettings transient;
  transient.times = {10, 100};
  transient.limit = &steady.pi;
  solver::TransientResult r;
  const double seconds = least(repeats, [&] {
    r = solver::solveTransient(q, {{0u, 1.0}}, transient);
  });
  std::printf(
      "transient at t = 10, 100 (levels in marking order, the steady state its limit): "
      "%llu products in %.3f s, %.4f s each\n",
      static_cast<unsigned long long>(r.iterations), seconds,
      seconds / double(std::max<std::uint64_t>(r.iterations, 1)));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [NAME=VALUE ...] [--transient] [repeats]\n", argv[0]);
    return 2;
  }
  api::Parameters parameters;
  int repeats = 5;
  bool transientOnly = false;
  for (int a = 2; a < argc; ++a) {
    const std::string arg = argv[a];
    const auto equals = arg.find('=');
    if (arg == "--transient")
      transientOnly = true;
    else if (equals == std::string::npos)
      repeats = std::stoi(arg);
    else
      parameters[arg.substr(0, equals)] = std::stod(arg.substr(equals + 1));
  }
  const api::Model model = api::loadModel(argv[1], parameters);
  gspn::ExplorationResult explored = gspn::exploreTangible(model.net());
  if (explored.status != gspn::ExplorationResult::Status::Ok) {
    std::fprintf(stderr, "exploration failed\n");
    return 1;
  }
  solver::Generator q = solver::takeGenerator(explored.graph);
  std::printf(
      "%zu states, %zu entries (%zu bytes each), %zu breadth-first levels, %d threads, "
      "least of %d\n",
      q.size(), q.entries(), q.bytesPerEntry(), explored.graph.levelStarts.size(),
      omp_get_max_threads(), repeats);
  const std::size_t places = model.net().placeCount();
  if (transientOnly) {
    solver::renumberWithin(q, solver::levelMarkingOrder(explored.graph, nullptr, places));
    transientAt10And100(q, repeats);
    return 0;
  }
  std::printf("%-28s %10s %10s %10s %10s %10s %7s %8s\n", "order", "product s", "sliced s",
              "sweep s", "2 blocks s", "own cols s", "sweeps", "solve s");
  // Each order's loops, and (but in marking order, where Gauss–Seidel needs three times
  // the sweeps and Auto goes on to GMRES) solveSteadyState's defaults on it.
  auto show = [repeats](const char* order, const solver::Generator& g, bool solve) {
    const Seconds s = time(g, repeats);
    std::printf("%-28s %10.4f %10.4f %10.4f %10.4f %10.4f", order, s.product, s.sliced, s.sweep,
                s.split, s.ownColumn);
    if (solve) {
      const auto start = std::chrono::steady_clock::now();
      const solver::SteadyStateResult r = solver::solveSteadyState(g, {});
      std::printf(" %7zu %8.3f", r.iterations,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("\n");
  };
  show("marking", q.renumbered(solver::markingOrder(explored.graph, places)), false);
  show("breadth-first", q, true);
  {
    solver::Generator byLength = q;
    solver::renumberWithin(byLength,
                           solver::BlockOrder::byColumnLength(q, explored.graph.levelStarts));
    show("sorted in windows and levels", byLength, true);
  }
  solver::renumberWithin(q, solver::levelMarkingOrder(explored.graph, nullptr, places));
  show("levels in marking order", q, true);
  transientAt10And100(q, 1);
}
