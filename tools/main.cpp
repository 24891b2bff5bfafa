// mmt — performance prediction of parallel programs on parallel hardware.
// The command line: parses arguments (TCLAP), runs the pipeline, maps outcomes to exit codes.
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <tclap/CmdLine.h>

#include "compiler/compile.hpp"
#include "compiler/metrics.hpp"
#include "grammar/parse.hpp"
#include "gspn/reachability.hpp"
#include "gspn/writers.hpp"
#include "report.hpp"
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
         "  compile FILE   check and compile a description; write the net (--net, --dot)\n\n"
         "Run 'mmt <command> --help' for the options of a command.\n\n"
      << kExitCodes << '\n';
}

/// Reads, parses and compiles a description; prints diagnostics (errors and warnings) to
/// stderr. Keeps the source alive for the positions in the parse tree.
struct Loaded {
  grammar::SourceFile source;
  std::optional<compiler::CompiledSystem> compiled;
};

int load(const std::string& path, Loaded& loaded, bool tracePasses) {
  try {
    loaded.source = grammar::readSourceFile(path);
  } catch (const std::exception& e) {
    std::cerr << "mmt: error: " << e.what() << '\n';
    return kInputError;
  }
  grammar::Diagnostics diagnostics(loaded.source);
  auto parsed = grammar::parseSystem(loaded.source, diagnostics);
  if (parsed) loaded.compiled = compiler::compile(*parsed, diagnostics, tracePasses ? &std::cerr : nullptr);
  diagnostics.print(std::cerr);
  if (!loaded.compiled) {
    const std::size_t n = diagnostics.errorCount();
    std::cerr << n << (n == 1 ? " error" : " errors") << " in " << path << '\n';
    return kInputError;
  }
  return kSuccess;
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
      "Compiles a system description (.hdl) to a GSPN, explores its tangible reachability "
      "graph, solves the CTMC's steady state and prints the MMT metrics per element.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        std::vector<std::string> formats{"table", "json"};
        TCLAP::ValuesConstraint<std::string> formatValues(formats);
        TCLAP::ValueArg<std::string> format("f", "format", "output format (default table)", false,
                                            "table", &formatValues, cmd);
        std::vector<std::string> methods{"auto", "lu", "gauss-seidel"};
        TCLAP::ValuesConstraint<std::string> methodValues(methods);
        TCLAP::ValueArg<std::string> method(
            "m", "method",
            "steady-state method: sparse LU, Gauss-Seidel, or auto (LU up to 20000 states, "
            "Gauss-Seidel above, and Gauss-Seidel if LU fails). Default auto",
            false, "auto", &methodValues, cmd);
        TCLAP::ValueArg<double> tolerance(
            "t", "tolerance",
            "convergence: relative residual ||pi Q||_inf / max|q_ii| at most this (default 1e-10)",
            false, 1e-10, "X", cmd);
        TCLAP::ValueArg<std::uint64_t> maxStates(
            "", "max-states", "stop with an error after this many tangible markings (default 20000000)",
            false, 20'000'000, "N", cmd);
        TCLAP::ValueArg<std::size_t> maxIterations(
            "", "max-iterations", "Gauss-Seidel sweeps before giving up (default 100000)", false,
            100'000, "N", cmd);
        TCLAP::UnlabeledValueArg<std::string> file("FILE", "system description (.hdl)", true, "",
                                                   "FILE", cmd);
        cmd.parse(argv);
        if (!(tolerance.getValue() > 0)) throw TCLAP::ArgException("must be positive", "--tolerance");

        Loaded loaded;
        if (int rc = load(file.getValue(), loaded, false); rc != kSuccess) return rc;
        const compiler::CompiledSystem& compiled = *loaded.compiled;

        gspn::ExplorationSettings exploration;
        exploration.maxStates = maxStates.getValue();
        const auto start = std::chrono::steady_clock::now();
        gspn::ExplorationResult explored = gspn::exploreTangible(compiled.net, exploration);
        const double exploreSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (explored.status != gspn::ExplorationResult::Status::Ok) {
          std::cerr << file.getValue() << ": error: " << explored.message << '\n';
          return kInputError;
        }
        solver::ChainStructure structure = solver::analyzeStructure(compiled.net, explored.graph);
        if (structure.kind != solver::ChainStructure::Kind::Ergodic) {
          std::cerr << file.getValue() << ": error: " << structure.message << '\n';
          return kInputError;
        }

        solver::SteadyStateSettings settings;
        settings.method = method.getValue() == "lu"             ? solver::Method::LU
                          : method.getValue() == "gauss-seidel" ? solver::Method::GaussSeidel
                                                                : solver::Method::Auto;
        settings.tolerance = tolerance.getValue();
        settings.maxIterations = maxIterations.getValue();
        solver::SteadyStateResult solution = solver::solveSteadyState(
            solver::buildGenerator(explored.graph, structure.recurrent), settings);
        if (solution.status != solver::Status::Converged) {
          std::cerr << file.getValue() << ": error: the steady-state solver did not converge ("
                    << solver::toString(solution.method) << ", " << solution.iterations
                    << " iterations, relative residual " << solution.residual << " > tolerance "
                    << settings.tolerance << ")" << (solution.note.empty() ? "" : ": " + solution.note)
                    << "\nNo results are printed. Try --method lu, a larger --max-iterations "
                       "or a looser --tolerance.\n";
          return kNumericalFailure;
        }

        solver::SteadyStateMeasures measures(compiled.net, explored.graph, structure.recurrent,
                                             solution.pi);
        tools::SolveReport report{compiled.system.name, &explored.graph, structure.transientCount,
                                  &solution, exploreSeconds,
                                  compiler::computeMetrics(compiled, measures)};
        if (format.getValue() == "json")
          std::cout << tools::toJson(report).dump(2) << '\n';
        else
          tools::printTable(report, std::cout);
        return kSuccess;
      });
}

int compileCommand(std::vector<std::string> args) {
  return runCommand("compile", std::move(args),
      "Checks a system description (.hdl) and compiles it to a GSPN. Reports every error with "
      "file:line:column. Optionally writes the net as text (--net) or Graphviz DOT (--dot, one "
      "cluster per element; draw it with 'dot -Tsvg').",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        TCLAP::ValueArg<std::string> dot("", "dot", "write the net as Graphviz DOT to OUT", false,
                                         "", "OUT", cmd);
        TCLAP::ValueArg<std::string> net("", "net", "write the net as text to OUT ('-' for stdout)",
                                         false, "", "OUT", cmd);
        TCLAP::SwitchArg trace("", "trace-passes", "print a summary after each compiler pass",
                               cmd);
        TCLAP::UnlabeledValueArg<std::string> file("FILE", "system description (.hdl)", true, "",
                                                   "FILE", cmd);
        cmd.parse(argv);

        Loaded loaded;
        if (int rc = load(file.getValue(), loaded, trace.getValue()); rc != kSuccess) return rc;
        const gspn::Net& n = loaded.compiled->net;
        try {
          if (!net.getValue().empty()) {
            if (net.getValue() == "-") {
              gspn::writeText(n, std::cout);
            } else {
              std::ostringstream text;
              gspn::writeText(n, text);
              std::ofstream out(net.getValue());
              if (!(out << text.str())) throw std::runtime_error("cannot write '" + net.getValue() + "'");
            }
          }
          if (!dot.getValue().empty()) gspn::writeDot(n, dot.getValue());
        } catch (const std::runtime_error& e) {
          std::cerr << "mmt: error: " << e.what() << '\n';
          return kInputError;
        }
        std::cerr << file.getValue() << ": ok: " << n.placeCount() << " places, "
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
    std::cerr << "mmt: error: unknown command '" << command << "'\n\n";
    printUsage(std::cerr);
    return kInputError;
  } catch (const std::exception& e) {
    std::cerr << "mmt: internal error: " << e.what() << '\n';
    return kInternalError;
  }
}
