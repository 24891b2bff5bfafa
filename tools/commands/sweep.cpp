// `mmt sweep`: a model solved or simulated at every point of a grid of parameter values.
#include "api/sweep.hpp"

#include <sstream>

#include "tools/commands/command.hpp"
#include "tools/sweep.hpp"

namespace mmt::tools {
namespace {

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
        solver(cmd, /*simulate=*/true, /*withFluid=*/false, /*withMeanField=*/true),
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
        out.series.push_back(api::sweepSeries(kind, solver.simulate(), solver.meanField()));
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

}  // namespace

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

}  // namespace mmt::tools
