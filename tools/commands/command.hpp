#pragma once
// What the commands of the command line share: the exit codes and version, the MPI
// session, the options every command reading or solving a model takes, TCLAP's error
// handling, and one entry point per command (tools/commands/<command>.cpp).
#include <tclap/CmdLine.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "api/parallel.hpp"
#include "api/settings.hpp"
#include "mpi/session.hpp"
#include "tools/format.hpp"
#include "tools/runs.hpp"

namespace mmt::tools {

inline constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 error in the input (command line, file, syntax, names, "
    "mapping, an unbounded, deadlocking or timeless-trapped model); 2 numerical failure "
    "(no convergence, a method that broke down, or a result that fails the accuracy check; "
    "nothing is printed but the reason); 3 internal error.";

/// The version and the git commit the binary was built from (tools/share/version.cmake).
extern const char* const kVersion;

/// The MPI run this process belongs to (one rank when not started by a launcher), and
/// the distribution of a study's points over its ranks (null with one rank: threads).
extern mpi::Session* session;
extern std::shared_ptr<const api::PointDistribution> distribution;

/// Whether this process reports: rank 0 of an MPI run, or the only process.
inline bool reports() { return !session || session->leads(); }

/// `-D NAME=VALUE` arguments as overrides; throws TCLAP::ArgException on a malformed one.
grammar::ParameterOverrides parseDefines(const std::vector<std::string>& defines);

/// Loads a model (api::loadModel) and prints its warnings; on failure prints its
/// diagnostics and returns the exit code.
/// `page` names the GSPN page of a PNPRO project (empty: the first).
int loadModel(const std::string& path, const grammar::ParameterOverrides& overrides,
              bool tracePasses, Model& model, const std::string& page = {});

/// The model file, its `-D` parameters and `--page`, shared by every command that reads a
/// model.
struct ModelArguments {
  TCLAP::MultiArg<std::string> defines;
  TCLAP::ValueArg<std::string> page;
  TCLAP::UnlabeledValueArg<std::string> file;
  explicit ModelArguments(TCLAP::CmdLine& cmd)
      : defines(
            "D", "define",
            "set parameter NAME (a `param` of a description or of a raw net) to VALUE (repeatable)",
            false, "NAME=VALUE", cmd),
        page("", "page",
             "the GSPN page of a .PNPRO project to read, by name (default: the first; a "
             "warning names the others)",
             false, "", "NAME", cmd),
        file("FILE",
             "model: .hdl system description, or a raw net: .gspn, .pnml, GreatSPN .net or .PNPRO",
             true, "", "FILE", cmd) {}
  int load(bool tracePasses, Model& model) const {
    return loadModel(file.getValue(), parseDefines(defines.getValue()), tracePasses, model,
                     page.getValue());
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
  static std::vector<std::string> methods(bool simulate, bool fluid, bool meanField) {
    std::vector<std::string> out = api::methodNames();
    if (simulate) out.insert(out.end(), {"exact", "simulate"});
    if (fluid) out.push_back("fluid");
    if (meanField) out.push_back("mean-field");
    return out;
  }
  /// `withFluid`: the command also offers `--method fluid` (mmt solve); `withMeanField`,
  /// `--method mean-field` (solve, sweep, explore, contract).
  explicit SolverArguments(TCLAP::CmdLine& cmd, bool simulate = false, bool withFluid = false,
                           bool withMeanField = false)
      : names(methods(simulate, withFluid, withMeanField)),
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
                   "clearly faster, then iad, gmres and bicgstab as each stalls). Gauss-Seidel "
                   "and sor extrapolate along the slowest mode where the residual falls at a "
                   "steady rate (said in the note). Every result "
                   "is then checked for flow balance across weakly coupled blocks and corrected "
                   "by aggregation-disaggregation (docs/modelling.md, Accuracy)" +
                   (withFluid ? std::string(". fluid: the fluid approximation, the net read as a "
                                            "continuous Petri net and its ODE's equilibrium, set "
                                            "beside the exact answer or a short simulation "
                                            "(docs/fluid.md)")
                              : std::string()) +
                   (withMeanField
                        ? std::string(". mean-field: the replicas of farms and maps (or those a "
                                      "raw net's automorphisms find) counted by local state "
                                      "beside the rest kept discrete, at any number of replicas "
                                      "in milliseconds") +
                              (withFluid ? ", set beside the exact answer at the asked size or "
                                           "at smaller ones with the distance's trend, or a "
                                           "short simulation"
                                         : ", every point approximated (mmt solve --method "
                                           "mean-field says how far from the exact answer)") +
                              " (docs/meanfield.md)"
                        : std::string()) +
                   ". Default " + (simulate ? "exact" : "auto"),
               false, simulate ? "exact" : "auto", &allowed, cmd),
        tolerance("t", "tolerance",
                  "convergence: relative residual ||pi Q||_inf / max|q_ii| at most this, and "
                  "for gauss-seidel, sor and iad their estimate of the error ||pi - pi*||_1 "
                  "at most 10 times this (default 1e-10)",
                  false, 1e-10, "X", cmd),
        maxIterations("", "max-iterations",
                      "iterations of an iterative method before giving up (default 100000); "
                      "Gauss-Seidel, SOR, IAD and the power method give up sooner once 50 "
                      "residual checks in a row find none below their lowest",
                      false, {100'000}, "N", cmd),
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
  /// `--method fluid` (mmt solve).
  bool fluid() const { return method.getValue() == "fluid"; }
  /// `--method mean-field` (mmt solve).
  bool meanField() const { return method.getValue() == "mean-field"; }
  /// Sets the solver's settings; throws TCLAP::ArgException for a value out of range.
  void apply(api::Settings& settings) const {
    const std::string& name = method.getValue();
    settings.method =
        name == "exact" || name == "simulate" || name == "fluid" || name == "mean-field"
            ? solver::Method::Auto
            : api::parseMethod(name);
    settings.tolerance = tolerance.getValue();
    settings.maxIterations = maxIterations.getValue().value;
    settings.relaxation = relaxation.getValue();
    settings.symmetry = symmetry.getValue() == "on";
    checkOptions(settings);
  }
};

/// The numbers of an option given as V1,V2,... or A..B:STEP (none when it is not set);
/// throws TCLAP::ArgException "expected WHAT, got '...'" otherwise.
std::vector<double> numberList(const TCLAP::ValueArg<std::string>& arg, const char* what);

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

/// `--colours`: a coloured net's tables list every colour and binding too (showColourRows),
/// set as soon as the option is read.
class ColoursArgument : public TCLAP::Visitor {
 public:
  explicit ColoursArgument(TCLAP::CmdLine& cmd)
      : colours_("", "colours",
                 "an unfolded coloured net's tables list each place's colours and each "
                 "transition's bindings beside the coloured totals (default: the totals, and "
                 "a line saying how many are left out; JSON and CSV hold every one)",
                 cmd, false, this) {}
  void visit() override { showColourRows(true); }

 private:
  TCLAP::SwitchArg colours_;
};

/// TCLAP with exceptions on, so that main decides the exit code. Every command but
/// `compile` and `serve` takes --digits and --colours.
template <typename Body>
int runCommand(const std::string& name, std::vector<std::string> args, const char* about,
               Body body) {
  try {
    TCLAP::CmdLine cmd(std::string(about) + "\n" + kExitCodes, ' ', kVersion);
    cmd.setExceptionHandling(false);
    std::optional<DigitsArgument> digits;
    std::optional<ColoursArgument> colours;
    if (name != "compile" && name != "serve") {
      digits.emplace(cmd);
      colours.emplace(cmd);
    }
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

// The commands: each parses its arguments (args[0] is "mmt <command>") and returns the
// exit code.
int solveCommand(std::vector<std::string> args);
int simulateCommand(std::vector<std::string> args);
int compareCommand(std::vector<std::string> args);
int sweepCommand(std::vector<std::string> args);
int exploreCommand(std::vector<std::string> args);
int contractCommand(std::vector<std::string> args);
int compileCommand(std::vector<std::string> args);
int statespaceCommand(std::vector<std::string> args);
int serveCommand(std::vector<std::string> args);

}  // namespace mmt::tools
