// mmt — performance prediction of parallel programs on parallel hardware.
// The command line: parses arguments (TCLAP), runs the pipeline, maps outcomes to exit codes.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tclap/CmdLine.h>

#include "compiler/compile.hpp"
#include "compiler/metrics.hpp"
#include "grammar/formats.hpp"
#include "grammar/load_gspn.hpp"
#include "grammar/parse.hpp"
#include "gspn/measure_source.hpp"
#include "gspn/reachability.hpp"
#include "gspn/writers.hpp"
#include "report.hpp"
#include "sim/replications.hpp"
#include "solver/ctmc.hpp"
#include "solver/measures.hpp"
#include "solver/steady_state.hpp"

namespace {

using namespace mmt;

/// Exit codes, documented in `mmt --help`.
enum ExitCode : int {
  kSuccess = 0,
  kInputError = 1,        ///< bad command line, unreadable file, syntax or model error
  kNumericalFailure = 2,  ///< the solver did not converge or failed numerically
  kInternalError = 3,     ///< a bug in mmt
};

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 error in the input (command line, file, syntax, names, "
    "mapping, an unbounded, deadlocking or timeless-trapped model); 2 numerical failure "
    "(no convergence: the residual is printed); 3 internal error.";

constexpr const char* kVersion = "0.1.0";

void printUsage(std::ostream& out) {
  out << "mmt " << kVersion << " — predicts utilization, queue lengths, throughputs and "
         "response times\nof parallel programs on parallel hardware, through GSPNs.\n\n"
         "usage: mmt <command> [options] FILE\n\n"
         "commands:\n"
         "  solve FILE     compile a system description, solve its CTMC, print the metrics\n"
         "  simulate FILE  simulate the model with exponential or constant delays; print the\n"
         "                 metrics with confidence intervals\n"
         "  compile FILE   check and compile a model; write the net (--net, --pnml, --greatspn,\n"
         "                 --dot), which also converts between net formats\n\n"
         "Run 'mmt <command> --help' for the options of a command.\n\n"
      << kExitCodes << '\n';
}

/// A model read from a file: a compiled system description, or a raw net. Keeps the
/// source alive for the positions in the parse tree.
struct Model {
  grammar::SourceFile source;
  std::optional<compiler::CompiledSystem> compiled;
  std::optional<gspn::Net> raw;
  const gspn::Net& net() const { return compiled ? compiled->net : *raw; }
};

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
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

/// Reads a model by its extension: `.hdl` descriptions are parsed and compiled; raw nets
/// (`.gspn`, `.pnml`, GreatSPN `.net` with its `.def` beside it) are loaded with
/// `overrides` applied. Prints diagnostics to stderr.
int loadModel(const std::string& path, const grammar::ParameterOverrides& overrides,
              bool tracePasses, Model& model) {
  const bool gspnText = endsWith(path, ".gspn"), pnml = endsWith(path, ".pnml"),
             greatSpn = endsWith(path, ".net"), hdl = endsWith(path, ".hdl");
  if (!gspnText && !pnml && !greatSpn && !hdl) {
    std::cerr << "mmt: error: '" << path
              << "': unknown kind of file; expected .hdl (system description), .gspn (raw "
                 "GSPN), .pnml (PNML) or .net (GreatSPN, with its .def beside it)\n";
    return kInputError;
  }
  grammar::SourceFile definitions{path.substr(0, path.size() - 4) + ".def", ""};
  try {
    model.source = grammar::readSourceFile(path);
    if (greatSpn && std::ifstream(definitions.path))
      definitions = grammar::readSourceFile(definitions.path);
  } catch (const std::exception& e) {
    std::cerr << "mmt: error: " << e.what() << '\n';
    return kInputError;
  }
  grammar::Diagnostics diagnostics(model.source), definitionDiagnostics(definitions);
  if (gspnText) {
    model.raw = grammar::loadGspn(model.source, diagnostics, overrides);
  } else if (pnml) {
    model.raw = grammar::loadPnml(model.source, diagnostics, overrides);
  } else if (greatSpn) {
    model.raw = grammar::loadGreatSpn(model.source, diagnostics, definitions,
                                      definitionDiagnostics, overrides);
  } else {
    if (!overrides.empty()) {
      std::cerr << "mmt: error: -D sets parameters of raw nets; a system description has "
                   "none\n";
      return kInputError;
    }
    auto parsed = grammar::parseSystem(model.source, diagnostics);
    if (parsed)
      model.compiled =
          compiler::compile(*parsed, diagnostics, tracePasses ? &std::cerr : nullptr);
  }
  diagnostics.print(std::cerr);
  definitionDiagnostics.print(std::cerr);
  if (!model.compiled && !model.raw) {
    const std::size_t n = diagnostics.errorCount() + definitionDiagnostics.errorCount();
    std::cerr << n << (n == 1 ? " error" : " errors") << " in " << path << '\n';
    return kInputError;
  }
  return kSuccess;
}

/// The model file and its `-D` parameters, shared by every command that reads a model.
struct ModelArguments {
  TCLAP::MultiArg<std::string> defines;
  TCLAP::UnlabeledValueArg<std::string> file;
  explicit ModelArguments(TCLAP::CmdLine& cmd)
      : defines("D", "define", "set parameter NAME of a raw net to VALUE (repeatable)", false,
                "NAME=VALUE", cmd),
        file("FILE",
             "model: .hdl system description, or a raw net: .gspn, .pnml or GreatSPN .net",
             true, "", "FILE", cmd) {}
  int load(bool tracePasses, Model& model) const {
    return loadModel(file.getValue(), parseDefines(defines.getValue()), tracePasses, model);
  }
};

/// `--format table|json`, shared by the commands that print results.
struct FormatArgument {
  std::vector<std::string> names{"table", "json"};
  TCLAP::ValuesConstraint<std::string> allowed{names};
  TCLAP::ValueArg<std::string> format;
  explicit FormatArgument(TCLAP::CmdLine& cmd)
      : format("f", "format", "output format (default table)", false, "table", &allowed, cmd) {}
  bool json() const { return format.getValue() == "json"; }
};

double peakMemoryMegabytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

/// TCLAP with exceptions on, so that main decides the exit code.
template <typename Body>
int runCommand(const std::string& name, std::vector<std::string> args, const char* about,
               Body body) {
  try {
    TCLAP::CmdLine cmd(std::string(about) + "\n" + kExitCodes, ' ', kVersion);
    cmd.setExceptionHandling(false);
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

int solveCommand(std::vector<std::string> args) {
  return runCommand("solve", std::move(args),
      "Solves a model's CTMC in steady state: a system description (.hdl) is compiled to a "
      "GSPN and reported with the MMT metrics per element; a raw net (.gspn, .pnml, or GreatSPN "
      ".net with its .def) is reported "
      "with mean tokens per place, throughput per transition and its measures.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        FormatArgument output(cmd);
        std::vector<std::string> methods{"auto", "lu", "gauss-seidel", "sor", "power",
                                         "bicgstab", "gmres"};
        TCLAP::ValuesConstraint<std::string> methodValues(methods);
        TCLAP::ValueArg<std::string> method(
            "m", "method",
            "steady-state method: lu (sparse direct), gauss-seidel, sor, power (uniformised), "
            "bicgstab or gmres (ILU-preconditioned Krylov), or auto (LU for small chains; "
            "otherwise an iterative method with a fallback when it stalls). Default auto",
            false, "auto", &methodValues, cmd);
        TCLAP::ValueArg<double> tolerance(
            "t", "tolerance",
            "convergence: relative residual ||pi Q||_inf / max|q_ii| at most this (default 1e-10)",
            false, 1e-10, "X", cmd);
        TCLAP::ValueArg<std::uint64_t> maxStates(
            "", "max-states", "stop with an error after this many tangible markings (default 50000000)",
            false, 50'000'000, "N", cmd);
        TCLAP::ValueArg<std::size_t> maxIterations(
            "", "max-iterations", "iterations of an iterative method before giving up (default 100000)",
            false, 100'000, "N", cmd);
        TCLAP::ValueArg<double> relaxation(
            "", "relaxation", "SOR relaxation factor in (0, 2) (default: adapted while solving)",
            false, 0, "W", cmd);
        TCLAP::ValueArg<std::string> prism(
            "", "prism", "also write the tangible CTMC in PRISM's explicit format to "
            "BASE.tra, BASE.sta and BASE.lab", false, "", "BASE", cmd);
        TCLAP::SwitchArg progress("", "progress",
                                  "print progress (states, edges, rate, memory; solver "
                                  "iterations and residual) to stderr on long runs", cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);
        if (!(tolerance.getValue() > 0)) throw TCLAP::ArgException("must be positive", "--tolerance");

        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        const gspn::Net& net = model.net();

        gspn::ExplorationSettings exploration;
        exploration.maxStates = maxStates.getValue();
        if (progress.getValue()) exploration.progress = &std::cerr;
        const auto start = std::chrono::steady_clock::now();
        gspn::ExplorationResult explored = gspn::exploreTangible(net, exploration);
        const double exploreSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (explored.status != gspn::ExplorationResult::Status::Ok) {
          std::cerr << input.file.getValue() << ": error: " << explored.message << '\n';
          return kInputError;
        }
        if (!prism.getValue().empty()) {
          try {
            gspn::writePrism(net, explored.graph, prism.getValue());
          } catch (const std::runtime_error& e) {
            std::cerr << "mmt: error: " << e.what() << '\n';
            return kInputError;
          }
        }
        solver::ChainStructure structure = solver::analyzeStructure(net, explored.graph);
        if (structure.kind != solver::ChainStructure::Kind::Ergodic) {
          std::cerr << input.file.getValue() << ": error: " << structure.message << '\n';
          return kInputError;
        }

        solver::SteadyStateSettings settings;
        settings.method = solver::parseMethod(method.getValue());
        settings.tolerance = tolerance.getValue();
        settings.maxIterations = maxIterations.getValue();
        settings.relaxation = relaxation.getValue();
        if (relaxation.isSet() && !(relaxation.getValue() > 0 && relaxation.getValue() < 2))
          throw TCLAP::ArgException("must be in (0, 2)", "--relaxation");
        if (progress.getValue()) settings.progress = &std::cerr;
        solver::SteadyStateResult solution = solver::solveSteadyState(
            solver::takeGenerator(explored.graph, structure.recurrent), settings);
        if (solution.status != solver::Status::Converged) {
          std::cerr << input.file.getValue() << ": error: the steady-state solver did not converge ("
                    << solver::toString(solution.method) << ", " << solution.iterations
                    << " iterations";
          if (solution.pi.size() != 0) std::cerr << ", relative residual " << solution.residual
                                                  << " > tolerance " << settings.tolerance;
          std::cerr << ")" << (solution.note.empty() ? "" : ": " + solution.note)
                    << "\nNo results are printed. Try another --method, a larger "
                       "--max-iterations or a looser --tolerance.\n";
          return kNumericalFailure;
        }

        solver::SteadyStateMeasures measures(net, explored.graph, structure.recurrent,
                                             solution.pi);
        tools::SolveReport report{net.name(), &explored.graph, structure.transientCount,
                                  &solution, exploreSeconds, peakMemoryMegabytes(),
                                  std::nullopt, {}};
        if (model.compiled) {
          report.name = model.compiled->system.name;
          report.metrics = compiler::computeMetrics(*model.compiled, measures);
        } else {
          report.net = tools::netMeasures(net, measures);
        }
        if (output.json())
          std::cout << tools::toJson(report).dump(2) << '\n';
        else
          tools::printTable(report, std::cout);
        return kSuccess;
      });
}

int simulateCommand(std::vector<std::string> args) {
  return runCommand("simulate", std::move(args),
      "Simulates a model (discrete events, race policy with enabling memory) in independent "
      "replications and prints every metric of 'mmt solve' as mean ± half-width of its "
      "confidence interval. Replications are added until every number's relative half-width "
      "is at most --precision, or the budget (--max-replications, --time-limit) runs out. "
      "The same --seed gives the same output.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        FormatArgument output(cmd);
        std::vector<std::string> delayNames{"exponential", "constant"};
        TCLAP::ValuesConstraint<std::string> delayValues(delayNames);
        TCLAP::ValueArg<std::string> delays(
            "", "delays", "exponential (the CTMC's assumption) or constant (each delay exactly "
            "its mean 1/rate). Default exponential", false, "exponential", &delayValues, cmd);
        TCLAP::ValueArg<double> precision(
            "", "precision", "target relative half-width of every number (default 0.01)", false,
            0.01, "P", cmd);
        TCLAP::ValueArg<double> confidence("", "confidence", "confidence level (default 0.95)",
                                           false, 0.95, "C", cmd);
        TCLAP::ValueArg<std::size_t> replications(
            "r", "replications", "run exactly N replications (no precision rule)", false, 0,
            "N", cmd);
        TCLAP::ValueArg<std::size_t> maxReplications(
            "", "max-replications", "budget: at most N replications (default 640)", false, 640,
            "N", cmd);
        TCLAP::ValueArg<double> timeLimit(
            "", "time-limit", "budget: start no new replications after S seconds (default 60)",
            false, 60, "S", cmd);
        TCLAP::ValueArg<std::uint64_t> events(
            "", "events", "timed firings observed per replication (default 200000)", false,
            200'000, "N", cmd);
        TCLAP::ValueArg<std::uint64_t> warmup(
            "", "warmup", "timed firings deleted at the start of each replication (default: "
            "a tenth of --events)", false, 0, "N", cmd);
        TCLAP::ValueArg<std::uint64_t> seed("", "seed", "random seed (default 1)", false, 1, "S",
                                            cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);
        if (!(confidence.getValue() > 0 && confidence.getValue() < 1))
          throw TCLAP::ArgException("must be in (0, 1)", "--confidence");
        if (!(precision.getValue() > 0)) throw TCLAP::ArgException("must be positive", "--precision");
        if (replications.isSet() && replications.getValue() < 2)
          throw TCLAP::ArgException("at least 2 are needed for an interval", "--replications");
        if (events.getValue() == 0) throw TCLAP::ArgException("must be positive", "--events");

        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        const gspn::Net& net = model.net();
        sim::ReplicationSettings settings;
        settings.delays = sim::parseDelays(delays.getValue());
        settings.seed = seed.getValue();
        settings.events = events.getValue();
        // Only expectations over markings need the time per marking: the metrics of a
        // system (multi-input actors) and mean(...)/prob(...) measures of a raw net.
        settings.recordMarkings =
            model.compiled.has_value() ||
            std::any_of(net.measures().begin(), net.measures().end(), [](const gspn::Measure& m) {
              return std::any_of(m.expression.code().begin(), m.expression.code().end(),
                                 [](const gspn::Expression::Instruction& i) {
                                   return i.op == gspn::Expression::Op::Mean ||
                                          i.op == gspn::Expression::Op::Probability;
                                 });
            });
        settings.warmupEvents = warmup.isSet() ? warmup.getValue() : events.getValue() / 10;

        // One replication reduced to its result tree and its counts, in the worker thread.
        struct Reduced {
          nlohmann::ordered_json tree;
          std::uint64_t events = 0;
          double time = 0;
        };
        const std::function<Reduced(const sim::Replication&)> reduce =
            [&](const sim::Replication& r) {
              std::optional<compiler::SystemMetrics> metrics;
              tools::NetMeasures values;
              if (model.compiled)
                metrics = compiler::computeMetrics(*model.compiled, r);
              else
                values = tools::netMeasures(net, r);
              return Reduced{tools::resultsJson(metrics, values), r.events(), r.observedTime()};
            };
        const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
        const auto start = std::chrono::steady_clock::now();
        auto elapsed = [&] {
          return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        std::vector<nlohmann::ordered_json> results;
        std::size_t batch = replications.isSet() ? replications.getValue() : 10;
        tools::IntervalSummary summary;
        std::uint64_t totalEvents = 0;
        double totalTime = 0;
        const bool interactive = isatty(fileno(stderr));
        try {
          for (;;) {
            auto more = sim::runReplications(net, settings, results.size(), batch, threads, reduce);
            for (Reduced& r : more) {
              totalEvents += r.events;
              totalTime += r.time;
              results.push_back(std::move(r.tree));
            }
            summary = tools::summarize(results, confidence.getValue(), precision.getValue());
            if (replications.isSet() || summary.imprecise == 0 ||
                results.size() >= maxReplications.getValue() || elapsed() > timeLimit.getValue())
              break;
            if (interactive)
              std::cerr << "\r" << results.size() << " replications, " << summary.imprecise
                        << " of " << summary.numbers << " numbers above the precision (worst "
                        << summary.worstPath << ": " << summary.worstRelative << ")   "
                        << std::flush;
            batch = std::min(results.size(), maxReplications.getValue() - results.size());
          }
        } catch (const sim::SimulationError& e) {
          if (interactive) std::cerr << '\n';
          std::cerr << input.file.getValue() << ": error: " << e.what() << '\n';
          return kInputError;
        }
        if (interactive && !replications.isSet()) std::cerr << "\r" << std::string(100, ' ') << "\r";
        const double seconds = elapsed();
        const bool reached = summary.imprecise == 0;
        std::string precisionNote =
            replications.isSet() ? "fixed number of replications"
            : reached ? "every relative half-width <= " + std::to_string(precision.getValue())
                      : std::to_string(summary.imprecise) + " of " +
                            std::to_string(summary.numbers) +
                            " numbers above the precision within the budget (worst: " +
                            summary.worstPath + ", relative half-width " +
                            std::to_string(summary.worstRelative) + ")";
        const std::string name = model.compiled ? model.compiled->system.name : net.name();
        if (output.json()) {
          nlohmann::ordered_json out;
          out[model.compiled ? "system" : "net"] = name;
          out["simulation"] = {{"delays", sim::toString(settings.delays)},
                               {"replications", results.size()},
                               {"events_per_replication", settings.events},
                               {"warmup_events", settings.warmupEvents},
                               {"events", totalEvents},
                               {"simulated_time", totalTime},
                               {"seconds", seconds},
                               {"threads", threads},
                               {"seed", settings.seed},
                               {"confidence", confidence.getValue()},
                               {"precision", precision.getValue()},
                               {"precision_reached", reached},
                               {"note", precisionNote}};
          out.update(summary.tree);
          std::cout << out.dump(2) << '\n';
        } else {
          std::cout << (model.compiled ? "system " : "net ") << name << ": simulated, "
                    << sim::toString(settings.delays) << " delays, " << results.size()
                    << " replications of " << settings.events << " timed firings (after "
                    << settings.warmupEvents << " warm-up), seed " << settings.seed << '\n'
                    << totalEvents << " events, simulated time " << totalTime << " t, "
                    << seconds << " s\n"
                    << confidence.getValue() * 100 << "% confidence intervals; " << precisionNote
                    << "\ntimes in model time units t; throughputs per t\n\n";
          tools::printIntervalTable(summary.tree, std::cout);
        }
        return kSuccess;
      });
}

/// Writes `text` to `path`, or to stdout for "-". Throws std::runtime_error on failure.
void writeOutput(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!(out << text) || !out.flush()) throw std::runtime_error("cannot write '" + path + "'");
}

int compileCommand(std::vector<std::string> args) {
  return runCommand("compile", std::move(args),
      "Checks a model and compiles it to a GSPN: a system description (.hdl), or a raw net "
      "(.gspn, .pnml, GreatSPN .net). Reports every error with file:line:column. Optionally "
      "writes the net as text (--net), PNML (--pnml), GreatSPN files (--greatspn) or "
      "Graphviz DOT (--dot, one cluster per element; draw it with 'dot -Tsvg'). This also "
      "converts between the net formats.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        TCLAP::ValueArg<std::string> dot("", "dot", "write the net as Graphviz DOT to OUT", false,
                                         "", "OUT", cmd);
        TCLAP::ValueArg<std::string> greatSpn(
            "", "greatspn", "write the net as GreatSPN files BASE.net and BASE.def", false, "",
            "BASE", cmd);
        TCLAP::ValueArg<std::string> pnml("", "pnml", "write the net as PNML to OUT ('-' for stdout)",
                                          false, "", "OUT", cmd);
        TCLAP::ValueArg<std::string> net("", "net", "write the net as .gspn text to OUT ('-' for stdout)",
                                         false, "", "OUT", cmd);
        TCLAP::SwitchArg trace("", "trace-passes", "print a summary after each compiler pass",
                               cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);

        Model model;
        if (int rc = input.load(trace.getValue(), model); rc != kSuccess) return rc;
        const gspn::Net& n = model.net();
        try {
          // Every output is rendered in memory first, so a net a format cannot hold leaves
          // no half-written file behind.
          std::ostringstream text, pnmlText, netFile, defFile;
          if (!net.getValue().empty()) gspn::writeText(n, text);
          if (!pnml.getValue().empty()) gspn::writePnml(n, pnmlText);
          if (!greatSpn.getValue().empty()) gspn::writeGreatSpn(n, netFile, defFile);
          if (!net.getValue().empty()) writeOutput(net.getValue(), text.str());
          if (!pnml.getValue().empty()) writeOutput(pnml.getValue(), pnmlText.str());
          if (!greatSpn.getValue().empty()) {
            writeOutput(greatSpn.getValue() + ".net", netFile.str());
            writeOutput(greatSpn.getValue() + ".def", defFile.str());
          }
          if (!dot.getValue().empty()) gspn::writeDot(n, dot.getValue());
        } catch (const std::exception& e) {
          std::cerr << "mmt: error: " << e.what() << '\n';
          return kInputError;
        }
        std::cerr << input.file.getValue() << ": ok: " << n.placeCount() << " places, "
                  << n.transitionCount() << " transitions\n";
        return kSuccess;
      });
}

}  // namespace

int main(int argc, char** argv) {
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
    if (command == "solve") return solveCommand(std::move(args));
    if (command == "compile") return compileCommand(std::move(args));
    if (command == "simulate") return simulateCommand(std::move(args));
    std::cerr << "mmt: error: unknown command '" << command << "'\n\n";
    printUsage(std::cerr);
    return kInputError;
  } catch (const std::exception& e) {
    std::cerr << "mmt: internal error: " << e.what() << '\n';
    return kInternalError;
  }
}
