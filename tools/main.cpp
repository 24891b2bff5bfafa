// mmt — performance prediction of parallel programs on parallel hardware.
// The command line: the usage, and each command dispatched to its own file
// (tools/commands/), which parses its arguments (TCLAP), runs the pipeline through api/
// and maps the outcome to an exit code.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "api/allocator.hpp"
#include "mmt_version.hpp"
#include "mpi/points.hpp"
#include "mpi/session.hpp"
#include "tools/commands/command.hpp"

namespace mmt::tools {

const char* const kVersion = MMT_VERSION " (commit " MMT_COMMIT ")";
mpi::Session* session = nullptr;
std::shared_ptr<const api::PointDistribution> distribution;

}  // namespace mmt::tools

namespace {

using namespace mmt;
using namespace mmt::tools;

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
         "                 --dot), which also converts between net formats\n"
         "  statespace FILE  explore the state space without solving: markings, firings,\n"
         "                 bounds, dead markings, bottom components\n"
         "  serve FOLDER   the workbench in a browser: edit the models under FOLDER (default\n"
         "                 .), see their errors, pictures and numbers as you type\n\n"
         "Run 'mmt <command> --help' for the options of a command.\n\n"
      << kExitCodes << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  // A rank of an MPI job stays the process its launcher started.
  if (!mpi::Session::launched()) api::restartWithHugePages(argv);
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
    if (command == "statespace") return statespaceCommand(std::move(args));
    if (command == "simulate") return simulateCommand(std::move(args));
    if (command == "compare") return compareCommand(std::move(args));
    if (command == "sweep") return sweepCommand(std::move(args));
    if (command == "explore") return exploreCommand(std::move(args));
    if (command == "contract") return contractCommand(std::move(args));
    if (command == "serve") return serveCommand(std::move(args));
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
