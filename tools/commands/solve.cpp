// `mmt solve`: explores and solves a model; steady state, transient measures and response-time
// distributions.
#include "api/solve.hpp"

#include <sstream>

#include "api/fluid.hpp"
#include "api/meanfield.hpp"
#include "api/writers.hpp"
#include "mpi/solve.hpp"
#include "tools/commands/command.hpp"
#include "tools/report.hpp"
#include "tools/sweep.hpp"

namespace mmt::tools {
namespace {

/// `mmt solve --at T1,T2,... [--cumulative] [--transient-error E]`: transient measures.
struct TransientArguments {
  TCLAP::ValueArg<std::string> at;
  TCLAP::SwitchArg cumulative;
  TCLAP::SwitchArg only;
  TCLAP::ValueArg<double> error;
  TCLAP::ValueArg<std::string> plot;
  TCLAP::MultiArg<std::string> metric;
  explicit TransientArguments(TCLAP::CmdLine& cmd)
      : at("", "at",
           "also report every instantaneous metric (utilizations, queue lengths, throughputs, "
           "mean tokens, measures; no response times) at these times from the initial "
           "marking, by uniformization: T1,T2,... or A..B:STEP, model time units "
           "(docs/transient.md)",
           false, "", "TIMES", cmd),
        cumulative("", "cumulative",
                   "with --at: time averages over [0, t] instead of the values at t", cmd),
        only("", "transient-only",
             "with --at: the transient measures only, without solving the steady state (no "
             "steady-state column or results)",
             cmd),
        error("", "transient-error",
              "with --at: error of each transient distribution in total variation "
              "(probability mass), in (0, 0.5) (default 1e-10)",
              false, 1e-10, "E", cmd),
        plot("", "plot",
             "with --at: draw the --metric paths against t with gnuplot into OUT.svg or OUT.png, "
             "each with its steady-state value dashed",
             false, "", "OUT", cmd),
        metric("", "metric",
               "with --plot: a result's JSON path, e.g. processors.P1.utilization (repeatable; "
               "default application.throughput, or a raw net's first measure)",
               false, "PATH", cmd) {}
  /// "svg" or "png" for --plot ("" without it); throws TCLAP::ArgException otherwise.
  std::string plotFormat() const {
    if (!plot.isSet()) return "";
    if (!at.isSet()) throw TCLAP::ArgException("only with --at", "--plot");
    for (const char* f : {"svg", "png"})
      if (plot.getValue().ends_with(std::string(".") + f)) return f;
    throw TCLAP::ArgException("the picture must be a .svg or .png file", "--plot");
  }
  /// Draws the --plot picture, staged in `outputs`; on an unknown metric prints the error
  /// and returns kInputError.
  int stagePlot(const api::Solution& solution, OutputFiles& outputs) const {
    if (!plot.isSet()) return kSuccess;
    try {
      plotTransient(solution, metric.getValue(), outputs.stage(plot.getValue()), plotFormat());
    } catch (const api::UnknownMetricError& e) {
      std::cerr << "mmt solve: error: " << e.what() << '\n';
      return kInputError;
    } catch (const std::invalid_argument& e) {
      std::cerr << "mmt solve: error: " << e.what() << '\n';
      return kInputError;
    }
    return kSuccess;
  }
  /// The request; throws TCLAP::ArgException for a malformed or out-of-range value.
  api::TransientRequest request() const {
    api::TransientRequest out;
    if ((cumulative.isSet() || error.isSet() || only.isSet()) && !at.isSet())
      throw TCLAP::ArgException("only with --at", cumulative.isSet() ? "--cumulative"
                                                  : only.isSet()     ? "--transient-only"
                                                                     : "--transient-error");
    out.times = numberList(at, "times T1,T2,... or A..B:STEP");
    out.cumulative = cumulative.getValue();
    out.only = only.getValue();
    out.epsilon = error.getValue();
    checkOptions(out);
    return out;
  }
};

/// `mmt solve --percentiles P1,P2,... --cdf-at T1,T2,... [--from EXPR --to EXPR]`:
/// response-time distributions (api/passage.hpp).
struct PassageArguments {
  TCLAP::ValueArg<std::string> percentiles;
  TCLAP::ValueArg<std::string> cdfAt;
  TCLAP::ValueArg<std::string> from;
  TCLAP::ValueArg<std::string> to;
  TCLAP::ValueArg<double> error;
  explicit PassageArguments(TCLAP::CmdLine& cmd)
      : percentiles("", "percentiles",
                    "also report these percentiles of each response-time distribution in "
                    "steady state: a closed(1) system's iteration and each actor's execution, "
                    "or a raw net's passage --from/--to (e.g. 50,90,95,99; docs/transient.md)",
                    false, "", "P1,P2,...", cmd),
        cdfAt("", "cdf-at",
              "also report each response-time distribution function F(t) = P(time <= t) at "
              "these times: T1,T2,... or A..B:STEP, model time units",
              false, "", "TIMES", cmd),
        from("", "from",
             "raw nets: the passage starts on entering the markings where this condition holds "
             "(the .gspn expression language, e.g. '#busy >= 1')",
             false, "", "EXPR", cmd),
        to("", "to", "raw nets: the passage ends on first entering the markings where this holds",
           false, "", "EXPR", cmd),
        error("", "passage-error",
              "error of each value of a distribution function (probability mass), in (0, 0.5) "
              "(default 1e-10)",
              false, 1e-10, "E", cmd) {}
  /// The request; throws TCLAP::ArgException for a malformed or out-of-range value.
  api::PassageRequest request() const {
    api::PassageRequest out;
    out.percentiles = numberList(percentiles, "percentiles P1,P2,...");
    out.times = numberList(cdfAt, "times T1,T2,... or A..B:STEP");
    out.from = from.getValue();
    out.to = to.getValue();
    out.epsilon = error.getValue();
    if (error.isSet() && !out.any())
      throw TCLAP::ArgException("only with --percentiles, --cdf-at or --from/--to",
                                "--passage-error");
    checkOptions(out);
    return out;
  }
};

/// The format of a --picture file by its extension; throws TCLAP::ArgException otherwise.
std::string pictureFormatOf(const std::string& file) {
  for (const char* f : {"svg", "png", "dot"})
    if (file.ends_with(std::string(".") + f)) return f;
  throw TCLAP::ArgException("the picture must be a .svg, .png or .dot file", "--picture");
}

/// Writes the tangible CTMC in PRISM's explicit format to BASE.tra, .sta and .lab (nothing
/// when `base` is empty), staged in `outputs`: they appear only if the command succeeds.
api::ExploredHook prismExport(const Model& model, const std::string& base, OutputFiles& outputs) {
  if (base.empty()) return {};
  return [&model, base, &outputs](const gspn::TangibleReachabilityGraph& graph) {
    api::writePrism(model, graph, outputs.stage(base + ".tra"), outputs.stage(base + ".sta"),
                    outputs.stage(base + ".lab"));
  };
}

/// `mmt solve`'s output in the format asked for (the transient rows as CSV with --at).
void printSolution(const api::Solution& solution, const FormatArgument& output, std::ostream& out) {
  if (output.json())
    out << solution.json().dump(2) << '\n';
  else if (output.csv() && solution.transient)
    tools::writeTransientCsv(*solution.transient, out);
  else if (output.csv()) {
    tools::writeResultsCsv(solution.results(), out);
    if (solution.passages) tools::writePassageCsv(*solution.passages, out);
  } else {
    tools::printTable(solution, out);
  }
}

/// `mpirun -n P mmt solve`: the steady state over the ranks (mpi/solve.hpp); rank 0
/// prints the states, the solver, every rank's figures and the same tables as one process.
int solveOverRanks(const Model& model, const api::Settings& settings, const FormatArgument& output,
                   const ModelArguments& input) {
  std::optional<mpi::DistributedSolution> solution;
  try {
    solution = mpi::solve(*session, model, settings);
  } catch (const api::Error& e) {
    return reportFailure(e, input.file.getValue(), std::cerr);
  } catch (const api::SettingError& e) {
    throwOptionError(e);
  }
  if (!reports()) return kSuccess;
  const mpi::DistributedSolution& s = *solution;
  if (output.json()) {
    std::cout << s.json().dump(2) << '\n';
    return kSuccess;
  }
  if (output.csv()) {
    writeResultsCsv(s.results(), std::cout);
    return kSuccess;
  }
  printDistributedTable(s, std::cout);
  return kSuccess;
}

/// Under mpirun: the options one process answers alone end the command with the option
/// named (a TCLAP::ArgException).
void refuseOverRanks(bool at, bool passage, bool deterministic, bool prism, bool picture) {
  const char* alone = at ? "--at" : nullptr;
  if (passage) alone = "--percentiles and --cdf-at";
  if (deterministic) alone = "--deterministic";
  if (prism) alone = "--prism";
  if (picture) alone = "--picture";
  if (alone)
    throw TCLAP::ArgException(std::string("not over several ranks: run one process ") +
                                  "(mmt solve without mpirun) for " + alone,
                              "mpirun");
}

int refusePictureOfNet() {
  std::cerr << "mmt solve: error: --picture draws a system description (.hdl); for "
               "a raw net, 'mmt compile FILE --dot OUT' draws the net\n";
  return kInputError;
}

/// --picture: the system drawn with its results into `path` (staged in `outputs`), or a
/// note when there is no steady state to colour it by.
void stagePicture(const Model& model, const api::Solution& solution, const std::string& path,
                  const std::string& format, OutputFiles& outputs) {
  if (!solution.hasSteadyState()) {
    std::cerr << "mmt solve: note: no picture: there is no steady state to colour it by\n";
    return;
  }
  api::drawSystem(model, *solution.metrics, outputs.stage(path), format);
}

/// `--method fluid` or `mean-field` (`method`): the options that belong to the exact solution
/// end the command with the option named (a TCLAP::ArgException).
void refuseWithApproximation(const std::string& method, const TransientArguments& transient,
                             const PassageArguments& passage, bool deterministic, bool phases,
                             bool prism, bool picture) {
  const char* exactOnly = transient.cumulative.isSet()  ? "--cumulative"
                          : transient.only.isSet()      ? "--transient-only"
                          : transient.error.isSet()     ? "--transient-error"
                          : transient.plot.isSet()      ? "--plot"
                          : passage.percentiles.isSet() ? "--percentiles"
                          : passage.cdfAt.isSet()       ? "--cdf-at"
                          : passage.from.isSet()        ? "--from"
                          : passage.to.isSet()          ? "--to"
                          : deterministic               ? "--deterministic"
                          : phases                      ? "--phases"
                          : prism                       ? "--prism"
                          : picture                     ? "--picture"
                                                        : nullptr;
  if (exactOnly)
    throw TCLAP::ArgException("not with --method " + method +
                                  ": it belongs to the exact solution (the " + method +
                                  " one takes --at and --reference)",
                              exactOnly);
}

/// An approximation's solve (`--method fluid` or `mean-field`): its document, CSV rows or
/// tables (`table`), or its failure reported.
template <typename Solve, typename Table>
int runApproximation(Solve&& solve, Table&& table, const FormatArgument& output,
                     const ModelArguments& input) {
  try {
    const auto solution = solve();
    if (output.json())
      std::cout << solution.json().dump(2) << '\n';
    else if (output.csv())
      tools::writeResultsCsv(solution.results(), std::cout);
    else
      table(solution, std::cout);
  } catch (const api::Error& e) {
    return reportFailure(e, input.file.getValue(), std::cerr);
  } catch (const api::SettingError& e) {
    throwOptionError(e);
  }
  return kSuccess;
}

/// mmt solve --help's description.
constexpr const char* kSolveDescription =
    "Solves a model's CTMC in steady state: a system description (.hdl) is compiled to a "
    "GSPN and reported with the MMT metrics per element; a raw net (.gspn, .pnml, or GreatSPN "
    ".net with its .def) is reported "
    "with mean tokens per place, throughput per transition and its measures. A raw net whose "
    "chain ends (dead markings, several bottom components) is solved until it ends: the "
    "probability of each end, the mean and standard deviation of the time to absorption, "
    "the expected token-time and firings until then, and the long-run averages with each "
    "end weighted by its probability (docs/modelling.md, \"Chains that end\"); a system "
    "whose chain ends is an error that names the dead marking. With --method fluid the net is "
    "read as a continuous Petri net and its ODE's equilibrium reported, with its stability, "
    "beside the exact answer or a short simulation (docs/fluid.md). Under "
    "'mpirun -n P' the state space is explored by the P ranks, each holding its share of "
    "the markings and of the generator (owned by the tokens of a few places chosen to keep "
    "edges on one rank), and solved by Gauss-Seidel and SOR sweeps over the ranks (then "
    "PETSc's BiCGStab and GMRES if they do not converge), with every rank's memory, "
    "seconds, bytes sent and edges between ranks in the report (docs/distributed.md). "
    "Block Jacobi between ranks leaves more error at a given residual than one process, "
    "so the ranks' sweeps also go on until the error of the distribution they estimate "
    "is within 10 times the tolerance, and the Krylov methods to a residual 1000 times "
    "below it: the answer is at least as close as one process's.";

}  // namespace

int solveCommand(std::vector<std::string> args) {
  return runCommand(
      "solve", std::move(args), kSolveDescription,
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        FormatArgument output(cmd, /*csv=*/true);
        SolverArguments solverArguments(cmd, /*simulate=*/false, /*withFluid=*/true,
                                        /*withMeanField=*/true);
        MaxStatesArgument maxStates(cmd);
        TCLAP::ValueArg<std::string> prism(
            "", "prism",
            "also write the tangible CTMC in PRISM's explicit format to "
            "BASE.tra, BASE.sta and BASE.lab",
            false, "", "BASE", cmd);
        TCLAP::ValueArg<std::string> picture(
            "", "picture",
            "also draw the system with its results into OUT (.svg, .png or .dot): processors "
            "as boxes holding their actors and data nodes, links and buses, dataflow arcs, each "
            "processor and link coloured by its utilization, the bottleneck marked",
            false, "", "OUT", cmd);
        TCLAP::SwitchArg phases(
            "", "phases",
            "replace each declared non-exponential delay by a phase-type expansion with the "
            "same mean and (as closely as --max-phases allows) the same variance: Erlang for "
            "cv^2 < 1, a balanced two-phase hyperexponential for cv^2 > 1; each expansion is "
            "reported (docs/modelling.md, Delays as phases)",
            cmd);
        MaxPhasesArgument maxPhases(cmd);
        std::vector<std::string> deterministicValues{"exact"};
        TCLAP::ValuesConstraint<std::string> deterministicAllowed(deterministicValues);
        TCLAP::ValueArg<std::string> deterministic(
            "", "deterministic",
            "exact: solve constant delays (const(t)) exactly, as a deterministic and stochastic "
            "Petri net (embedded Markov renewal process), when at most one is enabled in each "
            "tangible marking; otherwise the error names two enabled together "
            "(docs/transient.md, \"Exact constant delays\"). Without it a constant delay is an "
            "exponential one of the same mean",
            false, "", &deterministicAllowed, cmd);
        TransientArguments transient(cmd);
        PassageArguments passage(cmd);
        std::vector<std::string> referenceValues{"auto", "exact", "simulation", "none"};
        TCLAP::ValuesConstraint<std::string> referenceAllowed(referenceValues);
        TCLAP::ValueArg<std::string> reference(
            "", "reference",
            "with --method fluid or mean-field: what the answer is set beside, with each "
            "number's relative distance: exact (the exact steady state), simulation (10 "
            "replications with exponential delays, each of at least 50000 timed firings and "
            "about 20 time constants of the slowest transition, at most 4000000: none where 5 "
            "would take more), none, or auto (fluid: exact when the chain has at most 200000 "
            "tangible markings, else the simulation; mean-field: exact when the chain at the "
            "asked size has at most 20000, else for a system whose replica counts read "
            "parameters the exact answers at smaller sizes, the parameters halved, with the "
            "trend of each distance, and for others the simulation). Default auto",
            false, "auto", &referenceAllowed, cmd);
        TCLAP::SwitchArg progress("", "progress",
                                  "print progress (states, edges, rate, memory; solver "
                                  "iterations and residual) to stderr on long runs (always "
                                  "on when stderr is a terminal)",
                                  cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);
        api::Settings settings;
        solverArguments.apply(settings);
        maxStates.apply(settings);
        settings.deterministicExact = deterministic.isSet();
        if (deterministic.isSet() && phases.getValue())
          throw TCLAP::ArgException("not with --phases: the delays are either expanded or exact",
                                    "--deterministic");
        const bool approximate = solverArguments.fluid() || solverArguments.meanField();
        if (reference.isSet() && !approximate)
          throw TCLAP::ArgException("only with --method fluid or mean-field", "--reference");
        if (approximate)
          refuseWithApproximation(solverArguments.method.getValue(), transient, passage,
                                  deterministic.isSet(), phases.getValue(), prism.isSet(),
                                  picture.isSet());
        const api::TransientRequest request = transient.request();
        const api::PassageRequest passageRequest = passage.request();
        transient.plotFormat();
        // On a terminal, a run that lasts more than a second shows progress anyway: a net
        // that turns out unbounded must not explore for minutes in silence.
        if (progress.getValue() || isatty(fileno(stderr))) settings.run.progress = &std::cerr;

        if (solverArguments.meanField()) {
          if (session->size() > 1)
            throw TCLAP::ArgException("not over several ranks: run one process",
                                      "--method mean-field");
          api::MeanFieldRequest meanFieldRequest;
          meanFieldRequest.times = request.times;
          meanFieldRequest.reference = api::parseReference(reference.getValue());
          // Read, never built at the asked size: the farm may hold a million workers.
          return runApproximation(
              [&] {
                return api::solveMeanField(
                    api::readModel(input.file.getValue(), std::nullopt, input.page.getValue()),
                    parseDefines(input.defines.getValue()), settings, meanFieldRequest);
              },
              tools::printMeanFieldTable, output, input);
        }
        const std::uint32_t phaseLimit = maxPhases.value();
        const std::string pictureFormat =
            picture.isSet() ? pictureFormatOf(picture.getValue()) : "";
        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        if (picture.isSet() && !model.compiled) return refusePictureOfNet();
        if (phases.getValue()) model.expandPhases(phaseLimit);
        if (solverArguments.fluid()) {
          if (session->size() > 1)
            throw TCLAP::ArgException("not over several ranks: run one process", "--method fluid");
          api::FluidRequest fluidRequest;
          fluidRequest.times = request.times;
          fluidRequest.reference = api::parseReference(reference.getValue());
          return runApproximation([&] { return api::solveFluid(model, settings, fluidRequest); },
                                  tools::printFluidTable, output, input);
        }
        if (session->size() > 1) {
          refuseOverRanks(!request.times.empty(), passageRequest.any(), settings.deterministicExact,
                          prism.isSet(), picture.isSet());
          return solveOverRanks(model, settings, output, input);
        }
        OutputFiles outputs(input.paths());
        std::optional<api::Solution> solution;
        try {
          solution = api::solve(model, settings, prismExport(model, prism.getValue(), outputs),
                                request, passageRequest);
        } catch (const api::Error& e) {
          return reportFailure(e, input.file.getValue(), std::cerr);
        } catch (const api::SettingError& e) {
          throwOptionError(e);
        } catch (const std::runtime_error& e) {
          std::cerr << "mmt: error: " << e.what() << '\n';
          return kInputError;
        }
        if (picture.isSet())
          stagePicture(model, *solution, picture.getValue(), pictureFormat, outputs);
        if (int rc = transient.stagePlot(*solution, outputs); rc != kSuccess) return rc;
        outputs.commit();
        printSolution(*solution, output, std::cout);
        return kSuccess;
      });
}

}  // namespace mmt::tools
