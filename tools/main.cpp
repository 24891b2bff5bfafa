// mmt — performance prediction of parallel programs on parallel hardware.
// The command line: parses arguments (TCLAP), runs the pipeline, maps outcomes to exit codes.
#include <tclap/CmdLine.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "api/allocator.hpp"
#include "api/contract.hpp"
#include "api/errors.hpp"
#include "api/explore.hpp"
#include "api/model.hpp"
#include "api/solve.hpp"
#include "api/sweep.hpp"
#include "compiler/picture.hpp"
#include "explore.hpp"
#include "gspn/invariants.hpp"
#include "gspn/writers.hpp"
#include "io/formats.hpp"
#include "mmt_version.hpp"
#include "mpi/points.hpp"
#include "mpi/session.hpp"
#include "mpi/solve.hpp"
#include "outputs.hpp"
#include "report.hpp"
#include "runs.hpp"
#include "sweep.hpp"

namespace {

using namespace mmt;
using namespace mmt::tools;

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 error in the input (command line, file, syntax, names, "
    "mapping, an unbounded, deadlocking or timeless-trapped model); 2 numerical failure "
    "(no convergence, a method that broke down, or a result that fails the accuracy check; "
    "nothing is printed but the reason); 3 internal error.";

/// The version and the git commit the binary was built from (tools/share/version.cmake).
constexpr const char* kVersion = MMT_VERSION " (commit " MMT_COMMIT ")";

/// The MPI run this process belongs to (one rank when not started by a launcher), and
/// the distribution of a study's points over its ranks (null with one rank: threads).
mpi::Session* session = nullptr;
std::shared_ptr<const api::PointDistribution> distribution;

/// Whether this process reports: rank 0 of an MPI run, or the only process.
bool reports() { return !session || session->leads(); }

void printUsage(std::ostream& out) {
  out << "mmt " << kVersion
      << " — predicts utilization, queue lengths, throughputs and "
         "response times\nof parallel programs on parallel hardware, through GSPNs.\n\n"
         "usage: mmt <command> [options] FILE\n\n"
         "commands:\n"
         "  solve FILE     compile a system description, solve its CTMC, print the metrics\n"
         "  simulate FILE  simulate the model with its declared, exponential or constant\n"
         "                 delays; print the metrics with confidence intervals\n"
         "  compare FILE   print each metric exact, simulated with exponential delays and\n"
         "                 simulated with constant delays, side by side\n"
         "  sweep FILE     solve a model at every point of a grid of parameter values; print\n"
         "                 a table, write CSV and draw the curves with gnuplot\n"
         "  explore FILE   solve every candidate mapping of the skeleton tasks left unplaced\n"
         "                 (distinct up to identical processors) and rank them\n"
         "  contract FILE  find the smallest value of a parameter that meets a requirement\n"
         "                 such as \"application.throughput >= 5\"\n"
         "  compile FILE   check and compile a model; write the net (--net, --pnml, --greatspn,\n"
         "                 --dot), which also converts between net formats\n\n"
         "Run 'mmt <command> --help' for the options of a command.\n\n"
      << kExitCodes << '\n';
}

/// `-D NAME=VALUE` arguments as overrides; throws TCLAP::ArgException on a malformed one.
grammar::ParameterOverrides parseDefines(const std::vector<std::string>& defines) {
  grammar::ParameterOverrides out;
  for (const std::string& d : defines) {
    const auto eq = d.find('=');
    std::size_t used = 0;
    double value = 0;
    try {
      if (eq != std::string::npos) value = std::stod(d.substr(eq + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (eq == std::string::npos || eq == 0 || used == 0 || used != d.size() - eq - 1)
      throw TCLAP::ArgException("expected NAME=NUMBER, got '" + d + "'", "-D");
    out[d.substr(0, eq)] = value;
  }
  return out;
}

/// Loads a model (api::loadModel) and prints its warnings; on failure prints its
/// diagnostics and returns the exit code.
int loadModel(const std::string& path, const grammar::ParameterOverrides& overrides,
              bool tracePasses, Model& model) {
  try {
    model = api::loadModel(path, overrides, tracePasses ? &std::cerr : nullptr);
  } catch (const api::ModelError& e) {
    return reportFailure(e, path, std::cerr);
  }
  std::cerr << model.warnings;
  return kSuccess;
}

/// The model file and its `-D` parameters, shared by every command that reads a model.
struct ModelArguments {
  TCLAP::MultiArg<std::string> defines;
  TCLAP::UnlabeledValueArg<std::string> file;
  explicit ModelArguments(TCLAP::CmdLine& cmd)
      : defines(
            "D", "define",
            "set parameter NAME (a `param` of a description or of a raw net) to VALUE (repeatable)",
            false, "NAME=VALUE", cmd),
        file("FILE",
             "model: .hdl system description, or a raw net: .gspn, .pnml, GreatSPN .net or .PNPRO",
             true, "", "FILE", cmd) {}
  int load(bool tracePasses, Model& model) const {
    return loadModel(file.getValue(), parseDefines(defines.getValue()), tracePasses, model);
  }
  /// The files the model is read from (a GreatSPN .net has its .def beside it), which no
  /// output may overwrite.
  std::vector<std::string> paths() const { return api::modelFiles(file.getValue()); }
};

/// `--max-states N` and `--max-memory MB`, shared by the commands that explore the state
/// space (defaults: api::Settings).
struct MaxStatesArgument {
  TCLAP::ValueArg<Count> maxStates;
  TCLAP::ValueArg<Count> maxMemory;
  explicit MaxStatesArgument(TCLAP::CmdLine& cmd)
      : maxStates("", "max-states",
                  "stop with an error after this many tangible markings (default: none "
                  "but --max-memory for a net proven bounded by its P-invariants or "
                  "inhibitor arcs, 2000000 otherwise: see 'mmt compile --invariants')",
                  false, {0}, "N", cmd),
        maxMemory("", "max-memory",
                  "stop exploring cleanly (exit 1, saying how far it got) before mmt's memory "
                  "passes MB megabytes, or before storing the generator would (default: 90% "
                  "of the physical memory)",
                  false, {0}, "MB", cmd) {}
  /// Sets the limits given; throws TCLAP::ArgException for a value out of range.
  void apply(api::Settings& settings) const {
    if (maxMemory.isSet()) settings.maxMemoryBytes = maxMemory.getValue().value << 20;
    if (maxStates.isSet()) settings.maxStates = maxStates.getValue().value;
    checkOptions(settings);
  }
};

/// The steady-state solver's options, shared by every command that solves: --method,
/// --tolerance, --max-iterations, --relaxation. `mmt sweep` also takes `--method simulate`
/// (and `exact`, the same as auto).
struct SolverArguments {
  std::vector<std::string> names;
  TCLAP::ValuesConstraint<std::string> allowed;
  TCLAP::ValueArg<std::string> method;
  TCLAP::ValueArg<double> tolerance;
  TCLAP::ValueArg<Count> maxIterations;
  TCLAP::ValueArg<double> relaxation;
  std::vector<std::string> switches{"on", "off"};
  TCLAP::ValuesConstraint<std::string> onOff{switches};
  TCLAP::ValueArg<std::string> symmetry;
  static std::vector<std::string> methods(bool simulate) {
    std::vector<std::string> out = solver::methodNames();
    if (simulate) out.insert(out.end(), {"exact", "simulate"});
    return out;
  }
  explicit SolverArguments(TCLAP::CmdLine& cmd, bool simulate = false)
      : names(methods(simulate)),
        allowed(names),
        method("m", "method",
               std::string(simulate ? "simulate (every point simulated), or exact (the same "
                                      "as auto) or one of the steady-state methods: "
                                    : "steady-state method: ") +
                   "gth (dense direct elimination without subtraction, accurate on any chain, "
                   "up to 10000 states), lu (sparse direct), gauss-seidel, sor, power "
                   "(uniformised), bicgstab or gmres (ILU-preconditioned Krylov), iad "
                   "(Gauss-Seidel with aggregation-disaggregation over the token levels of the "
                   "place that couples them most weakly), or auto (GTH up to 1000 states; "
                   "otherwise Gauss-Seidel, which tries sor at 1.2 and keeps it where it is "
                   "clearly faster, then iad, gmres and bicgstab as each stalls). Every result "
                   "is then checked for flow balance across weakly coupled blocks and corrected "
                   "by aggregation-disaggregation (docs/modelling.md, Accuracy). Default " +
                   (simulate ? "exact" : "auto"),
               false, simulate ? "exact" : "auto", &allowed, cmd),
        tolerance("t", "tolerance",
                  "convergence: relative residual ||pi Q||_inf / max|q_ii| at most this "
                  "(default 1e-10)",
                  false, 1e-10, "X", cmd),
        maxIterations("", "max-iterations",
                      "iterations of an iterative method before giving up (default 100000)", false,
                      {100'000}, "N", cmd),
        relaxation("", "relaxation",
                   "SOR relaxation factor in (0, 2) (default: adapted while solving)", false, 0,
                   "W", cmd),
        symmetry("", "symmetry",
                 "on: lump the chain by the model's interchangeable replicas (a farm's or a "
                 "map's workers; in a raw net, those its automorphisms show), one marking per "
                 "orbit, every element still reported with its exact value; off: solve the "
                 "full chain (docs/symmetry.md). Default on",
                 false, "on", &onOff, cmd) {}
  /// `--method simulate` (mmt sweep).
  bool simulate() const { return method.getValue() == "simulate"; }
  /// Sets the solver's settings; throws TCLAP::ArgException for a value out of range.
  void apply(api::Settings& settings) const {
    const std::string& name = method.getValue();
    settings.method =
        name == "exact" || name == "simulate" ? solver::Method::Auto : solver::parseMethod(name);
    settings.tolerance = tolerance.getValue();
    settings.maxIterations = maxIterations.getValue().value;
    settings.relaxation = relaxation.getValue();
    settings.symmetry = symmetry.getValue() == "on";
    checkOptions(settings);
  }
};

/// The numbers of an option given as V1,V2,... or A..B:STEP (none when it is not set);
/// throws TCLAP::ArgException "expected WHAT, got '...'" otherwise.
std::vector<double> numberList(const TCLAP::ValueArg<std::string>& arg, const char* what) {
  if (!arg.isSet()) return {};
  try {
    return api::parseSweepParameter("x=" + arg.getValue()).values;
  } catch (const std::invalid_argument&) {
    throw TCLAP::ArgException(std::string("expected ") + what + ", got '" + arg.getValue() + "'",
                              "--" + arg.getName());
  }
}

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

/// `--format table|json`, shared by the commands that print results.
struct FormatArgument {
  std::vector<std::string> names;
  TCLAP::ValuesConstraint<std::string> allowed;
  TCLAP::ValueArg<std::string> format;
  /// With `csv`, the results may also be printed as CSV rows (solve, simulate, compare).
  explicit FormatArgument(TCLAP::CmdLine& cmd, bool csv = false)
      : names(csv ? std::vector<std::string>{"table", "json", "csv"}
                  : std::vector<std::string>{"table", "json"}),
        allowed(names),
        format("f", "format",
               csv ? "output format (default table); csv: one row per element and metric, "
                     "section,element,metric,value[,...] (docs/json.md, \"CSV\")"
                   : "output format (default table)",
               false, "table", &allowed, cmd) {}
  bool json() const { return format.getValue() == "json"; }
  bool csv() const { return format.getValue() == "csv"; }
};

/// `--digits N`: the significant digits of every number printed for people (tools/format),
/// set as soon as the option is read.
class DigitsArgument : public TCLAP::Visitor {
 public:
  explicit DigitsArgument(TCLAP::CmdLine& cmd)
      : digits_("", "digits",
                "significant digits of the numbers in tables and lines, 1 to 17 (default 6; "
                "JSON and CSV keep every digit)",
                false, {6}, "N", cmd, this) {}
  void visit() override {
    const std::uint64_t n = digits_.getValue().value;
    if (n < 1 || n > 17) throw TCLAP::ArgException("must be between 1 and 17", "--digits");
    setDigits(static_cast<int>(n));
  }

 private:
  TCLAP::ValueArg<Count> digits_;
};

/// TCLAP with exceptions on, so that main decides the exit code. Every command but
/// `compile` takes --digits.
template <typename Body>
int runCommand(const std::string& name, std::vector<std::string> args, const char* about,
               Body body) {
  try {
    TCLAP::CmdLine cmd(std::string(about) + "\n" + kExitCodes, ' ', kVersion);
    cmd.setExceptionHandling(false);
    std::optional<DigitsArgument> digits;
    if (name != "compile") digits.emplace(cmd);
    return body(cmd, args);
  } catch (const TCLAP::ExitException& e) {
    return e.getExitStatus();
  } catch (const TCLAP::ArgException& e) {
    std::cerr << "mmt " << name << ": error: " << e.error()
              << (e.argId().empty() ? "" : " (" + e.argId() + ")") << "\nRun 'mmt " << name
              << " --help' for usage.\n";
    return kInputError;
  }
}

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
    gspn::writePrism(model.net(), graph, outputs.stage(base + ".tra"), outputs.stage(base + ".sta"),
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
  compiler::drawSystem(*model.compiled, *solution.metrics, outputs.stage(path), format);
}

int solveCommand(std::vector<std::string> args) {
  return runCommand(
      "solve", std::move(args),
      "Solves a model's CTMC in steady state: a system description (.hdl) is compiled to a "
      "GSPN and reported with the MMT metrics per element; a raw net (.gspn, .pnml, or GreatSPN "
      ".net with its .def) is reported "
      "with mean tokens per place, throughput per transition and its measures. Under "
      "'mpirun -n P' the state space is explored by the P ranks, each holding its share of "
      "the markings and of the generator, and solved by Gauss-Seidel sweeps over the ranks "
      "(then PETSc's BiCGStab and GMRES if they do not converge), with every rank's memory, "
      "seconds and bytes sent in the report (docs/distributed.md).",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        FormatArgument output(cmd, /*csv=*/true);
        SolverArguments solverArguments(cmd);
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
        const api::TransientRequest request = transient.request();
        const api::PassageRequest passageRequest = passage.request();
        transient.plotFormat();
        // On a terminal, a run that lasts more than a second shows progress anyway: a net
        // that turns out unbounded must not explore for minutes in silence.
        if (progress.getValue() || isatty(fileno(stderr))) settings.progress = &std::cerr;

        const std::uint32_t phaseLimit = maxPhases.value();
        const std::string pictureFormat =
            picture.isSet() ? pictureFormatOf(picture.getValue()) : "";
        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        if (picture.isSet() && !model.compiled) return refusePictureOfNet();
        if (phases.getValue()) model.expandPhases(phaseLimit);
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

int simulateCommand(std::vector<std::string> args) {
  return runCommand(
      "simulate", std::move(args),
      "Simulates a model (discrete events, race policy with enabling memory) in independent "
      "replications and prints every metric of 'mmt solve' as mean ± half-width of its "
      "confidence interval. Replications are added until every number's relative half-width "
      "is at most --precision, or the budget (--max-replications, --time-limit) runs out. "
      "The same --seed gives the same output.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        FormatArgument output(cmd, /*csv=*/true);
        std::vector<std::string> delayNames{"declared", "exponential", "constant"};
        TCLAP::ValuesConstraint<std::string> delayValues(delayNames);
        TCLAP::ValueArg<std::string> delays(
            "", "delays",
            "declared (each delay as the model declares it: exp, const, erlang, "
            "...; exponential where nothing else is declared), exponential (every delay "
            "exponential with its mean: the CTMC's assumption) or constant (every delay "
            "exactly its mean). Default declared",
            false, "declared", &delayValues, cmd);
        SimulationArguments simulation(cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);
        const api::SimulationSettings settings =
            simulation.settings(sim::parseDelays(delays.getValue()));

        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        std::optional<api::Simulation> run;
        try {
          run = simulateModel(model, settings);
        } catch (const api::Error& e) {
          return reportFailure(e, input.file.getValue(), std::cerr);
        }
        if (output.json()) {
          std::cout << run->json().dump(2) << '\n';
        } else if (output.csv()) {
          tools::writeResultsCsv(run->summary.tree, std::cout);
        } else {
          std::cout << (model.compiled ? "system " : "net ") << model.name() << ": simulated, "
                    << sim::toString(settings.delays) << " delays, ";
          printSimulationHeader(*run, std::cout);
          std::cout << "times in model time units t; throughputs per t\n\n";
          tools::printIntervalTable(run->summary.tree, std::cout, run->exact());
        }
        return kSuccess;
      });
}

int compareCommand(std::vector<std::string> args) {
  return runCommand(
      "compare", std::move(args),
      "Prints every metric three ways, side by side: the exact CTMC solution (exponential "
      "delays), a simulation with exponential delays (mean ± half-width), and a simulation "
      "with constant delays (each delay exactly its mean); plus a simulation with the "
      "declared delays when the model declares non-exponential ones, and then also the "
      "exact solution with those delays expanded into phases (see 'mmt solve --phases'). "
      "A '!' flags a metric "
      "whose exact value lies outside the exponential simulation's confidence interval: "
      "expect about 1 in 20 at 95% by chance; many flags point at a bug.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        FormatArgument output(cmd, /*csv=*/true);
        SolverArguments solverArguments(cmd);
        MaxStatesArgument maxStates(cmd);
        MaxPhasesArgument maxPhases(cmd);
        SimulationArguments simulation(cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);
        const api::SimulationSettings simulated = simulation.settings();
        api::Settings solverSettings;
        solverArguments.apply(solverSettings);
        maxStates.apply(solverSettings);
        const std::uint32_t phaseLimit = maxPhases.value();

        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        std::optional<api::Comparison> comparison;
        SimulationProgressLine line;
        try {
          comparison = api::compare(model, solverSettings, simulated, phaseLimit, std::ref(line));
          line.done();
        } catch (const api::Error& e) {
          line.done(true);
          return reportFailure(e, input.file.getValue(), std::cerr);
        }
        if (output.json())
          std::cout << comparison->json().dump(2) << '\n';
        else if (output.csv())
          tools::writeResultsCsv(comparison->tree.tree, std::cout);
        else
          printComparisonReport(*comparison, std::cout);
        return kSuccess;
      });
}

/// A count of finished tasks on stderr ("\rsweep: 3/10 points"), when asked for or on a
/// terminal; called from the threads that finish them.
class CountLine {
 public:
  CountLine(bool asked, std::string prefix, std::string unit)
      : on_(asked || isatty(fileno(stderr))), prefix_(std::move(prefix)), unit_(std::move(unit)) {}
  void operator()(std::size_t done, std::size_t total) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(lock_);
    shown_ = true;
    std::cerr << '\r' << prefix_ << done << "/" << total << unit_ << std::flush;
  }
  /// Ends the line, if one was shown.
  void end() {
    if (shown_) std::cerr << '\n';
    shown_ = false;
  }

 private:
  bool on_, shown_ = false;
  std::string prefix_, unit_;
  std::mutex lock_;
};

/// `mmt sweep`'s options.
struct SweepArguments {
  FormatArgument output;
  TCLAP::MultiArg<std::string> params;
  TCLAP::MultiArg<std::string> metrics;
  SolverArguments solver;
  TCLAP::ValueArg<std::string> delays;
  TCLAP::ValueArg<std::string> csv;
  TCLAP::ValueArg<std::string> plot;
  TCLAP::SwitchArg progress;
  MaxStatesArgument maxStates;
  MaxPhasesArgument maxPhases;
  SimulationArguments simulation;
  ModelArguments input;

  explicit SweepArguments(TCLAP::CmdLine& cmd)
      : output(cmd),
        params("p", "param",
               "a swept parameter and its values: NAME=A..B (whole steps), NAME=A..B:STEP or "
               "NAME=V1,V2,... (repeatable; the first is the x axis of --plot)",
               true, "NAME=VALUES", cmd),
        metrics("", "metric",
                "a result by its JSON path in 'mmt solve --format json', e.g. "
                "application.response_time or links.Ether.utilization (repeatable; default "
                "application.throughput and application.response_time, or every measure of a "
                "raw net)",
                false, "PATH", cmd),
        solver(cmd, /*simulate=*/true),
        delays("", "delays",
               "comma-separated delay kinds, one series each: exponential, constant, declared, "
               "phases (default exponential)",
               false, "exponential", "LIST", cmd),
        csv("", "csv", "also write the rows as CSV to OUT", false, "", "OUT", cmd),
        plot("", "plot", "also draw the first metric with gnuplot into OUT.svg or OUT.png", false,
             "", "OUT", cmd),
        progress("", "progress", "print a progress line (always on when stderr is a terminal)",
                 cmd),
        maxStates(cmd),
        maxPhases(cmd),
        simulation(cmd),
        input(cmd) {}

  /// The sweep's settings; throws TCLAP::ArgException for a bad option.
  api::SweepSettings settings() const {
    api::SweepSettings out;
    out.simulation = simulation.settings();
    out.maxPhases = maxPhases.value();
    solver.apply(out.solver);
    maxStates.apply(out.solver);
    out.metrics = metrics.getValue();
    for (const std::string& p : params.getValue()) {
      try {
        out.parameters.push_back(api::parseSweepParameter(p));
      } catch (const std::invalid_argument& e) {
        throw TCLAP::ArgException(e.what(), "--param");
      }
    }
    out.series.clear();
    std::stringstream kinds(delays.getValue());
    try {
      for (std::string kind; std::getline(kinds, kind, ',');)
        out.series.push_back(api::sweepSeries(kind, solver.simulate()));
    } catch (const api::SettingError& e) {
      throwOptionError(e);
    }
    return out;
  }
  /// "svg" or "png" for --plot ("" without it); throws TCLAP::ArgException otherwise.
  std::string plotFormat() const {
    const std::string& file = plot.getValue();
    if (file.empty()) return "";
    if (file.ends_with(".svg")) return "svg";
    if (file.ends_with(".png")) return "png";
    throw TCLAP::ArgException("the picture must be a .svg or .png file", "--plot");
  }
};

int runSweep(const SweepArguments& a) {
  api::SweepSettings settings = a.settings();
  settings.distribution = distribution;
  const std::string plotFormat = a.plotFormat();
  // The file once; the description parsed once, shared read-only by the points.
  Model base;
  if (int rc = a.input.load(false, base); rc != kSuccess) return rc;
  CountLine line(a.progress.getValue(), "sweep: ", " points");
  api::SweepResult result;
  try {
    result = api::sweep(base, settings, std::ref(line));
  } catch (const api::SettingError& e) {
    throwOptionError(e);
  } catch (const api::UnknownMetricError& e) {
    line.end();
    std::cerr << "mmt sweep: error: " << e.what() << '\n';
    return kInputError;
  }
  if (!reports()) return kSuccess;
  line.end();
  OutputFiles outputs(a.input.paths());
  if (!a.csv.getValue().empty()) {
    std::ostringstream text;
    writeSweepCsv(result, text);
    outputs.write(a.csv.getValue(), text.str());
  }
  if (!plotFormat.empty()) plotSweep(result, outputs.stage(a.plot.getValue()), plotFormat);
  if (a.output.json())
    std::cout << result.json().dump(2) << '\n';
  else
    printSweepTable(result, std::cout);
  outputs.commit();
  if (const std::size_t failed = result.failed()) {
    std::cerr << "mmt sweep: " << failed << " of " << result.points.size() << " points failed\n";
    return kInputError;
  }
  return kSuccess;
}

int sweepCommand(std::vector<std::string> args) {
  return runCommand(
      "sweep", std::move(args),
      "Solves a model at every point of a grid of parameter values (the exact solver on "
      "every core, one point per core; or simulation) and prints one row per point with "
      "the chosen metrics. A point that fails (state limit, no convergence, an error in "
      "the model at those values) is reported in its row and the others go on; the exit "
      "code is then 1. Under 'mpirun -n P' the points are handed out to the ranks one at "
      "a time, with the same output (docs/distributed.md). --csv writes the rows for a "
      "spreadsheet, --plot draws the first "
      "metric against the first parameter (one curve per value of the second parameter "
      "and per delay kind) with gnuplot.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        const SweepArguments arguments(cmd);
        cmd.parse(argv);
        return runSweep(arguments);
      });
}

/// One line of a `--mappings` file: `S2=P2 S3=P3` (spaces or commas between).
compiler::Placements parseMappingLine(const std::string& line) {
  compiler::Placements out;
  std::string text = line;
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == w.size())
      throw std::invalid_argument("expected TASK=PROCESSOR, got '" + w + "'");
    out.emplace_back(w.substr(0, eq), w.substr(eq + 1));
  }
  return out;
}

/// The mappings of a `--mappings` file, one per line ('#' starts a comment); throws
/// TCLAP::ArgException naming the file and line of a malformed one.
std::vector<compiler::Placements> readMappings(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw TCLAP::ArgException("cannot read '" + file + "'", "--mappings");
  std::vector<compiler::Placements> out;
  std::size_t lineNumber = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNumber;
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t\r,") == std::string::npos) continue;
    try {
      out.push_back(parseMappingLine(line));
    } catch (const std::invalid_argument& e) {
      throw TCLAP::ArgException(file + ":" + std::to_string(lineNumber) + ": " + e.what(),
                                "--mappings");
    }
  }
  return out;
}

/// `mmt explore`'s options.
struct ExploreArguments {
  FormatArgument output;
  SolverArguments solver;
  TCLAP::ValueArg<std::string> mappings;
  TCLAP::ValueArg<std::string> metric;
  std::vector<std::string> orders{"auto", "max", "min"};
  TCLAP::ValuesConstraint<std::string> orderValues{orders};
  TCLAP::ValueArg<std::string> order;
  TCLAP::ValueArg<Count> top;
  TCLAP::SwitchArg progress;
  TCLAP::ValueArg<Count> limit;
  MaxStatesArgument maxStates;
  ModelArguments input;

  explicit ExploreArguments(TCLAP::CmdLine& cmd)
      : output(cmd),
        solver(cmd),
        mappings("", "mappings",
                 "'all' (every assignment of the unplaced tasks; default) or a file with one "
                 "mapping per line, e.g. 'S2=P2 S3=P1' ('#' starts a comment)",
                 false, "all", "all|FILE", cmd),
        metric("", "metric",
               "the result to rank by, as its JSON path in 'mmt solve --format json' (default "
               "application.throughput)",
               false, "application.throughput", "PATH", cmd),
        order("", "order",
              "max: the largest value is best; min: the smallest; auto (default): max for a "
              "throughput, min otherwise",
              false, "auto", &orderValues, cmd),
        top("", "top", "print only the best K candidates", false, {0}, "K", cmd),
        progress("", "progress", "print a progress line (always on when stderr is a terminal)",
                 cmd),
        limit("", "max-candidates", "refuse to enumerate more candidates than this (default 10000)",
              false, {10000}, "N", cmd),
        maxStates(cmd),
        input(cmd) {}

  /// The exploration's settings; throws TCLAP::ArgException for a bad option.
  api::ExploreSettings settings() const {
    api::ExploreSettings out;
    solver.apply(out.solver);
    maxStates.apply(out.solver);
    if (!input.file.getValue().ends_with(".hdl"))
      throw TCLAP::ArgException("explore needs a system description (.hdl) with skeleton tasks",
                                "FILE");
    out.parameters = parseDefines(input.defines.getValue());
    out.metric = metric.getValue();
    if (order.getValue() != "auto") out.maximize = order.getValue() == "max";
    out.maxCandidates = limit.getValue().value;
    if (mappings.getValue() != "all") out.mappings = readMappings(mappings.getValue());
    return out;
  }
};

int runExplore(const ExploreArguments& a) {
  api::ExploreSettings settings = a.settings();
  settings.distribution = distribution;
  const std::string& path = a.input.file.getValue();
  CountLine line(a.progress.getValue(), "explore: ", " candidates solved");
  api::ExploreResult result;
  try {
    result = api::explore(api::readModel(path), settings, std::ref(line));
  } catch (const api::ModelError& e) {
    return reportFailure(e, path, std::cerr);
  } catch (const api::UnknownMetricError& e) {
    line.end();
    std::cerr << "mmt explore: error: " << e.what() << '\n';
    return kInputError;
  } catch (const api::SettingError& e) {
    std::cerr << "mmt explore: error: " << e.what() << '\n';
    return kInputError;
  }
  if (!reports()) return kSuccess;
  line.end();
  if (result.allPlaced)
    std::cerr << "mmt explore: note: every task is placed in " << path
              << "; there is one candidate\n";
  result.shown = a.top.getValue().value;
  if (a.output.json())
    std::cout << result.json().dump(2) << '\n';
  else
    printExploreTable(result, std::cout);
  if (const std::size_t failed = result.failed()) {
    std::cerr << "mmt explore: " << failed << " of " << result.entries.size()
              << " candidates failed\n";
    return kInputError;
  }
  return kSuccess;
}

int exploreCommand(std::vector<std::string> args) {
  return runCommand(
      "explore", std::move(args),
      "Design-space exploration of a description with skeletons (AMoGeT, Benoit et al. "
      "2005): every assignment of the tasks the mapping leaves unplaced to the processors "
      "that may run them (or the mappings listed in a file) is solved exactly, on every "
      "core, and the candidates are printed best first by a metric. Mappings that are the "
      "same model up to identical processors and links exchanged are solved once. Ties keep "
      "the order of enumeration, so the ranking is the same on every run.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        const ExploreArguments arguments(cmd);
        cmd.parse(argv);
        return runExplore(arguments);
      });
}

/// `mmt contract`'s options.
struct ContractArguments {
  TCLAP::ValueArg<std::string> require;
  TCLAP::ValueArg<std::string> vary;
  std::vector<std::string> searches{"bisect", "linear"};
  TCLAP::ValuesConstraint<std::string> searchValues{searches};
  TCLAP::ValueArg<std::string> search;
  TCLAP::ValueArg<Count> maxStates;
  TCLAP::ValueArg<double> arrivalTime, departureTime;
  SolverArguments solver;
  FormatArgument output;
  SimulationArguments simulation;
  ModelArguments input;

  explicit ContractArguments(TCLAP::CmdLine& cmd)
      : require("", "require",
                "the requirement: \"PATH OP NUMBER\", PATH a result of 'mmt solve --format "
                "json' or a percentile of a closed(1) system's response time "
                "(application.response_time_p95, actors.A1.response_time_p99; solved exactly "
                "only), OP one of >= > <= <; or \"application.throughput >= input\": the "
                "stages the parameter changes keep up with the stages around them (their "
                "service time at most max{T_A, T_D}, GridCOMP's rule)",
                true, "", "REQUIREMENT", cmd),
        vary("", "vary",
             "the parameter and its candidate values: NAME=A..B, NAME=A..B:STEP or "
             "NAME=V1,V2,...",
             true, "", "NAME=VALUES", cmd),
        search("", "search", "bisect (default) or linear", false, "bisect", &searchValues, cmd),
        maxStates("", "max-states",
                  "solve exactly up to this many tangible markings, simulate beyond (default "
                  "2000000)",
                  false, {2'000'000}, "N", cmd),
        arrivalTime("", "arrival-time",
                    "with an 'input' target: T_A, the time between the items that reach the "
                    "varied stages (default: the slowest stage before them)",
                    false, 0, "T", cmd),
        departureTime("", "departure-time",
                      "with an 'input' target: T_D, the time per item of what takes them "
                      "(default: the slowest stage after them)",
                      false, 0, "T", cmd),
        solver(cmd),
        output(cmd),
        simulation(cmd),
        input(cmd) {}

  /// The contract's settings; throws TCLAP::ArgException for a bad option.
  api::ContractSettings settings() const {
    api::ContractSettings out;
    if (arrivalTime.isSet()) out.arrivalTime = arrivalTime.getValue();
    if (departureTime.isSet()) out.departureTime = departureTime.getValue();
    out.simulation = simulation.settings();
    solver.apply(out.solver);
    out.solver.maxStates = maxStates.getValue().value;
    out.linear = search.getValue() == "linear";
    try {
      out.requirement = api::parseRequirement(require.getValue());
      out.parameter = api::parseSweepParameter(vary.getValue());
    } catch (const api::SettingError& e) {
      throwOptionError(e);
    } catch (const std::invalid_argument& e) {
      throw TCLAP::ArgException(e.what(), "--vary");
    }
    std::sort(out.parameter.values.begin(), out.parameter.values.end());
    return out;
  }
};

int runContract(const ContractArguments& a) {
  api::ContractSettings settings = a.settings();
  // Only a linear search over the values spreads them over the ranks; otherwise rank 0
  // alone searches.
  if (settings.linear && !settings.requirement.fromSurroundings)
    settings.distribution = distribution;
  else if (!reports())
    return kSuccess;
  const grammar::ParameterOverrides fixed = parseDefines(a.input.defines.getValue());
  if (fixed.count(settings.parameter.name))
    throw TCLAP::ArgException("'" + settings.parameter.name + "' is both varied and set by -D",
                              "--vary");
  Model base;
  if (int rc = loadModel(a.input.file.getValue(), fixed, false, base); rc != kSuccess) return rc;
  // The lines of the search, on stdout as a table; with JSON, one object at the end.
  std::ostringstream discarded;
  std::ostream& lines = a.output.json() ? static_cast<std::ostream&>(discarded) : std::cout;
  // An `input` target's number comes from the stages around the varied ones.
  api::ContractSettings shown = settings;
  std::optional<api::Surroundings> around;
  if (settings.requirement.fromSurroundings) {
    try {
      around = api::surroundings(base, settings);
    } catch (const api::SettingError& e) {
      throwOptionError(e);
    } catch (const api::Error& e) {  // a value whose model does not build
      std::cerr << "mmt contract: " << e.what() << '\n';
      return kInputError;
    }
    shown.requirement.bound = 1 / around->serviceTime();
  }
  printContractStart(shown, around, lines);
  api::ContractResult result;
  try {
    result = api::contract(base, settings,
                           [&](const api::ContractTry& t) { printContractTry(shown, t, lines); });
  } catch (const api::SettingError& e) {
    throwOptionError(e);
  }
  if (!reports()) return kSuccess;
  if (result.failed) {
    const api::ContractTry& t = result.tries[*result.failed];
    std::cerr << "mmt contract: error: " << settings.parameter.name << " = " << shortNumber(t.value)
              << " failed: " << t.reason << '\n';
    return kInputError;
  }
  if (a.output.json()) std::cout << result.json().dump(2) << '\n';
  printContractOutcome(result, a.require.getValue(), lines);
  return result.answer ? kSuccess : kInputError;
}

int contractCommand(std::vector<std::string> args) {
  return runCommand(
      "contract", std::move(args),
      "Finds the smallest value of a parameter that meets a performance requirement, e.g. "
      "the fewest farm workers for a throughput of 5. Each value tried is solved exactly "
      "while its state space fits under --max-states, and simulated (exponential delays) "
      "beyond; every try is printed with how it was obtained. The search is a bisection, "
      "which assumes the metric moves one way with the parameter (--search linear tries "
      "every value in order instead). Beside the answer, for a system of skeletons, the "
      "quick bound-based estimate of the throughput (a pipeline is as fast as its slowest "
      "stage, a farm of n workers n times its worker: Alt et al. 2002, GridCOMP D.NFCF.03) "
      "shows how far the structural estimate is from the model. The bound is an upper bound "
      "on the throughput: a value it rules out for a throughput target is not solved, and "
      "when it rules out every value nothing is solved at all. When no value meets the "
      "requirement, the command names the bottleneck (the element whose service time makes "
      "the bound) and what would help, by GridCOMP's rules: more workers while a farm is the "
      "bottleneck (or smaller partitions of a map), otherwise a faster or separate processor "
      "or a faster link. Exit code 1 "
      "when no value meets the requirement.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        const ContractArguments arguments(cmd);
        cmd.parse(argv);
        return runContract(arguments);
      });
}

int compileCommand(std::vector<std::string> args) {
  return runCommand(
      "compile", std::move(args),
      "Checks a model and compiles it to a GSPN: a system description (.hdl), or a raw net "
      "(.gspn, .pnml, GreatSPN .net or .PNPRO). Reports every error with file:line:column. "
      "Optionally writes the net as text (--net), PNML (--pnml), a GreatSPN project "
      "(--pnpro), GreatSPN files (--greatspn) or "
      "Graphviz DOT (--dot, one cluster per element; draw it with 'dot -Tsvg'). This also "
      "converts between the net formats.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        TCLAP::ValueArg<std::string> dot("", "dot", "write the net as Graphviz DOT to OUT", false,
                                         "", "OUT", cmd);
        TCLAP::ValueArg<std::string> greatSpn(
            "", "greatspn", "write the net as GreatSPN files BASE.net and BASE.def", false, "",
            "BASE", cmd);
        TCLAP::ValueArg<std::string> pnml(
            "", "pnml", "write the net as PNML to OUT ('-' for stdout)", false, "", "OUT", cmd);
        TCLAP::ValueArg<std::string> pnpro(
            "", "pnpro",
            "write the net as a GreatSPN editor project (PNPRO) to OUT ('-' for stdout)", false, "",
            "OUT", cmd);
        TCLAP::ValueArg<std::string> net("", "net",
                                         "write the net as .gspn text to OUT ('-' for stdout)",
                                         false, "", "OUT", cmd);
        TCLAP::SwitchArg trace("", "trace-passes", "print a summary after each compiler pass", cmd);
        TCLAP::SwitchArg invariants(
            "", "invariants",
            "print the net's P-invariants (minimal P-semiflows, Farkas' algorithm) with their "
            "token sums, and which places they or inhibitor arcs prove bounded",
            cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);

        Model model;
        if (int rc = input.load(trace.getValue(), model); rc != kSuccess) return rc;
        const gspn::Net& n = model.net();
        try {
          // All or nothing: a net a format cannot hold, or an output that cannot be
          // written, leaves no file behind (OutputFiles).
          OutputFiles outputs(input.paths());
          // One text format, written to `path` when that option was given.
          const auto render = [&](const std::string& path,
                                  void (*writer)(const gspn::Net&, std::ostream&)) {
            if (path.empty()) return;
            std::ostringstream text;
            writer(n, text);
            outputs.write(path, text.str());
          };
          render(net.getValue(), gspn::writeText);
          render(pnml.getValue(), io::writePnml);
          render(pnpro.getValue(), io::writePnpro);
          if (!greatSpn.getValue().empty()) {
            std::ostringstream netFile, defFile;
            io::writeGreatSpn(n, netFile, defFile);
            outputs.write(greatSpn.getValue() + ".net", netFile.str());
            outputs.write(greatSpn.getValue() + ".def", defFile.str());
          }
          if (!dot.getValue().empty()) gspn::writeDot(n, outputs.stage(dot.getValue()));
          outputs.commit();
        } catch (const std::exception& e) {
          std::cerr << "mmt: error: " << e.what() << '\n';
          return kInputError;
        }
        if (invariants.getValue()) {
          const gspn::PSemiflows flows = gspn::computePSemiflows(n);
          if (!flows.complete)
            std::cout << "P-invariants: too many to enumerate (Farkas' algorithm gave up)\n";
          else
            std::cout << "P-invariants (" << flows.flows.size() << "):\n";
          for (const auto& f : flows.flows) std::cout << "  " << gspn::formatSemiflow(n, f) << '\n';
          const gspn::Boundedness bounds = gspn::analyzeBoundedness(n, flows);
          if (bounds.allBounded())
            std::cout << "bounded: every place is covered by a P-invariant or bounded by an "
                         "inhibitor arc\n";
          else
            std::cout << "not proven bounded: " << bounds.unproven(n) << '\n';
        }
        std::cerr << input.file.getValue() << ": ok: " << n.placeCount() << " places, "
                  << n.transitionCount() << " transitions\n";
        return kSuccess;
      });
}

}  // namespace

int main(int argc, char** argv) {
  api::useMappedLargeBlocks();
  mpi::Session mpiSession(argc, argv);
  session = &mpiSession;
  mpiSession.silenceFollowers();
  if (mpiSession.size() > 1) distribution = std::make_shared<mpi::RankDistribution>(mpiSession);
  try {
    if (argc < 2) {
      printUsage(std::cerr);
      return kInputError;
    }
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
      printUsage(std::cout);
      return kSuccess;
    }
    if (command == "--version") {
      std::cout << "mmt " << kVersion << '\n';
      return kSuccess;
    }
    std::vector<std::string> args(argv + 1, argv + argc);
    args[0] = "mmt " + command;
    // The commands that spread their points over the ranks; rank 0 alone runs the others.
    const bool spread =
        command == "sweep" || command == "explore" || command == "contract" || command == "solve";
    if (!reports() && !spread) return kSuccess;
    if (command == "solve") return solveCommand(std::move(args));
    if (command == "compile") return compileCommand(std::move(args));
    if (command == "simulate") return simulateCommand(std::move(args));
    if (command == "compare") return compareCommand(std::move(args));
    if (command == "sweep") return sweepCommand(std::move(args));
    if (command == "explore") return exploreCommand(std::move(args));
    if (command == "contract") return contractCommand(std::move(args));
    std::cerr << "mmt: error: unknown command '" << command << "'\n\n";
    printUsage(std::cerr);
    return kInputError;
  } catch (const std::exception& e) {
    // In a run of several ranks the others may be waiting for this one: end them all.
    if (mpiSession.size() > 1)
      mpiSession.abort(kInternalError, std::string("internal error: ") + e.what());
    std::cerr << "mmt: internal error: " << e.what() << '\n';
    return kInternalError;
  }
}
