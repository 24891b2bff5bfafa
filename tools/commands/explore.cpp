// `mmt explore`: every candidate mapping of the unplaced skeleton tasks, solved and ranked.
#include "api/explore.hpp"

#include <fstream>
#include <sstream>

#include "tools/commands/command.hpp"
#include "tools/explore.hpp"

namespace mmt::tools {
namespace {

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
        solver(cmd, /*simulate=*/false, /*withFluid=*/false, /*withMeanField=*/true),
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
    out.meanField = solver.meanField();
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
    result = api::explore(api::readModel(path, std::nullopt, a.input.page.getValue()), settings,
                          std::ref(line));
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

}  // namespace

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

}  // namespace mmt::tools
