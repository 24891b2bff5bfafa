// `mmt compare`: the exact solution beside simulations, metric by metric.
#include "api/simulate.hpp"
#include "tools/commands/command.hpp"
#include "tools/report.hpp"

namespace mmt::tools {

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
        } catch (const api::SettingError& e) {
          line.done(true);
          throwOptionError(e);
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

}  // namespace mmt::tools
