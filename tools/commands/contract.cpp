// `mmt contract`: the smallest value of a parameter that meets a requirement.
#include "api/contract.hpp"

#include <sstream>

#include "api/sweep.hpp"
#include "tools/commands/command.hpp"
#include "tools/report.hpp"

namespace mmt::tools {
namespace {

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
             "NAME=V1,V2,... (a range of at most 10000000 values to bisect, 10000 to search "
             "linearly)",
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
        solver(cmd, /*simulate=*/false, /*withFluid=*/false, /*withMeanField=*/true),
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
    out.meanField = solver.meanField();
    out.solver.maxStates = maxStates.getValue().value;
    out.linear = search.getValue() == "linear";
    try {
      out.requirement = api::parseRequirement(require.getValue());
      out.parameter = api::parseSweepParameter(vary.getValue(), out.linear ? 10'000 : 10'000'000);
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
  if (int rc = loadModel(a.input.file.getValue(), fixed, false, base, a.input.page.getValue());
      rc != kSuccess)
    return rc;
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

}  // namespace

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

}  // namespace mmt::tools
