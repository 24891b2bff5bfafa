// `mmt statespace`: explores a model's state space and reports it without solving: markings,
// firings, bounds, dead markings and bottom components (api/statespace.hpp).
#include "api/statespace.hpp"

#include <algorithm>
#include <iomanip>

#include "tools/commands/command.hpp"

namespace mmt::tools {

namespace {

/// A count with the unlumped figure beside it when there is one: "364 (2125764 unlumped)".
std::string withUnlumped(std::uint64_t count, const std::optional<double>& unlumped) {
  std::string out = std::to_string(count);
  if (unlumped) out += " (" + shortNumber(*unlumped) + " unlumped)";
  return out;
}

void printStateSpace(const api::StateSpace& s, std::size_t boundsShown, std::ostream& out) {
  out << (s.system ? "system " : "net ") << s.name << ": explored in "
      << duration(s.explorationSeconds) << ", analysed in " << duration(s.analysisSeconds)
      << ", peak memory " << shortNumber(s.peakMemoryMegabytes) << " MB\n";
  if (s.symmetry.used())
    out << "lumped by symmetry: " << s.symmetry.describe()
        << " (counts of orbits; the net's own markings in brackets)\n";
  for (const std::string& note : s.symmetry.notes) out << "note: " << note << '\n';
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"tangible markings", withUnlumped(s.tangible, s.symmetry.unlumpedTangible)},
      {"vanishing markings", std::to_string(s.vanishing)},
      {"firings", withUnlumped(s.firings, s.unlumpedFirings)},
      {"CTMC edges", std::to_string(s.edges)},
      {"max tokens in a place", std::to_string(s.maxTokensInPlace)},
      {"max tokens in a marking", std::to_string(s.maxTokensPerMarking)},
      {"dead markings", withUnlumped(s.deadMarkings, s.unlumpedDeadMarkings)},
      {"bottom components", std::to_string(s.bottomComponents.size())},
      {"transient markings", std::to_string(s.transientMarkings)}};
  std::size_t width = 0;
  for (const auto& [label, value] : rows) width = std::max(width, label.size());
  out << '\n';
  for (const auto& [label, value] : rows)
    out << "  " << std::left << std::setw(int(width)) << label << "  " << value << '\n';
  if (!s.firstDead.empty()) {
    out << "\ndead markings" << (s.deadMarkings > s.firstDead.size() ? " (the first)" : "")
        << ":\n";
    for (const std::string& m : s.firstDead) out << "  {" << m << "}\n";
  }
  const std::size_t componentsShown = std::min<std::size_t>(s.bottomComponents.size(), 10);
  if (s.bottomComponents.size() > 1 || (componentsShown == 1 && !s.bottomComponents[0].dead)) {
    out << "\nbottom components"
        << (s.bottomComponents.size() > componentsShown ? " (the first 10)" : "")
        << "  markings  first marking\n";
    for (std::size_t i = 0; i < componentsShown; ++i) {
      const api::StateSpace::BottomComponent& c = s.bottomComponents[i];
      out << "  B" << i + 1 << (c.dead ? " (dead)" : "") << "  "
          << withUnlumped(c.markings, c.unlumpedMarkings) << "  {" << c.witness << "}\n";
    }
  }
  // The places' bounds, the largest first (a net of thousands of places: the first few).
  std::vector<const api::StateSpace::PlaceBound*> order;
  for (const api::StateSpace::PlaceBound& b : s.bounds) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->bound > b->bound; });
  const std::size_t shown = std::min(order.size(), boundsShown);
  if (shown == 0) return;
  std::size_t name = 5;
  for (std::size_t i = 0; i < shown; ++i) name = std::max(name, order[i]->place.size());
  out << "\n"
      << std::left << std::setw(int(name + 4)) << "places"
      << "bound"
      << (shown < order.size() ? "  (the " + std::to_string(shown) + " largest of " +
                                     std::to_string(order.size()) + "; --bounds N)"
                               : "")
      << '\n';
  for (std::size_t i = 0; i < shown; ++i)
    out << "  " << std::left << std::setw(int(name + 2)) << order[i]->place << order[i]->bound
        << '\n';
}

}  // namespace

int statespaceCommand(std::vector<std::string> args) {
  return runCommand(
      "statespace", std::move(args),
      "Explores a model's state space and reports it without solving the chain: tangible and "
      "vanishing markings, the reachability graph's edges counted as firings (as the Model "
      "Checking Contest counts them) and the CTMC's edges, each place's bound, the most "
      "tokens in one place and in one marking, the dead markings and the bottom strongly "
      "connected components. A chain lumped by symmetry reports orbits, with the unlumped "
      "counts from their sizes.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        FormatArgument output(cmd);
        MaxStatesArgument maxStates(cmd);
        TCLAP::ValueArg<Count> bounds("", "bounds",
                                      "places whose bounds the table lists, the largest first "
                                      "(default 20; JSON lists every place)",
                                      false, {20}, "N", cmd);
        std::vector<std::string> switches{"on", "off"};
        TCLAP::ValuesConstraint<std::string> onOff(switches);
        TCLAP::ValueArg<std::string> symmetry(
            "", "symmetry",
            "on: explore one marking per orbit of the model's interchangeable replicas and "
            "count the net's own markings from the orbits' sizes; off: every marking "
            "(docs/symmetry.md). Default on",
            false, "on", &onOff, cmd);
        TCLAP::SwitchArg everyOrder(
            "", "every-order",
            "fire immediate transitions that commute in every order, so that the vanishing "
            "count is every reachable vanishing marking (as GreatSPN's reachability graph "
            "has them); by default they fire in one order, which meets fewer (docs/modelling.md)",
            cmd);
        TCLAP::SwitchArg progress("", "progress",
                                  "print progress (states, edges, rate, memory) to stderr on "
                                  "long runs (always on when stderr is a terminal)",
                                  cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);
        api::Settings settings;
        maxStates.apply(settings);
        settings.symmetry = symmetry.getValue() == "on";
        settings.everyOrder = everyOrder.getValue();
        if (progress.getValue() || isatty(fileno(stderr))) settings.run.progress = &std::cerr;
        Model model;
        if (int rc = input.load(false, model); rc != kSuccess) return rc;
        std::optional<api::StateSpace> space;
        try {
          space = api::exploreStateSpace(model, settings);
        } catch (const api::Error& e) {
          return reportFailure(e, input.file.getValue(), std::cerr);
        } catch (const api::SettingError& e) {
          throwOptionError(e);
        }
        if (!reports()) return kSuccess;
        if (output.json())
          std::cout << space->json().dump(2) << '\n';
        else
          printStateSpace(*space, bounds.getValue().value, std::cout);
        return kSuccess;
      });
}

}  // namespace mmt::tools
