// `mmt simulate`: simulates a model with its declared, exponential or constant delays.
#include "api/simulate.hpp"

#include "tools/commands/command.hpp"
#include "tools/report.hpp"

namespace mmt::tools {

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
            simulation.settings(api::parseDelays(delays.getValue()));

        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        std::optional<api::Simulation> run;
        try {
          run = simulateModel(model, settings);
        } catch (const api::Error& e) {
          return reportFailure(e, input.file.getValue(), std::cerr);
        } catch (const api::SettingError& e) {
          throwOptionError(e);
        }
        if (output.json()) {
          std::cout << run->json().dump(2) << '\n';
        } else if (output.csv()) {
          tools::writeResultsCsv(run->summary.tree, std::cout);
        } else {
          std::cout << (model.compiled ? "system " : "net ") << model.name() << ": simulated, "
                    << api::toString(settings.delays) << " delays, ";
          printSimulationHeader(*run, std::cout);
          std::cout << "times in model time units t; throughputs per t\n\n";
          tools::printIntervalTable(run->summary.tree, std::cout, run->exact());
        }
        return kSuccess;
      });
}

}  // namespace mmt::tools
