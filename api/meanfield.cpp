#include "api/meanfield.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "api/reference.hpp"
#include "api/symmetry.hpp"
#include "meanfield/hybrid.hpp"
#include "meanfield/population.hpp"

namespace mmt::api {

void MeanFieldRequest::check() const {
  for (double t : times)
    if (!(t >= 0) || !std::isfinite(t))
      throw SettingError("at", "each time must be a finite number at least 0");
  if (reference == Reference::Simulation && (replications < 2 || events == 0))
    throw SettingError("reference", "a simulation needs at least 2 replications of 1 event");
}

std::string PopulationReport::describe() const {
  std::string out;
  for (const Replicas& r : replicas) {
    out += (out.empty() ? "" : ", ") + std::to_string(r.count) + " " + r.label + " (" +
           std::to_string(r.localStates) + " local states";
    if (r.small > 0) out += ", " + std::to_string(r.small) + " counted exactly";
    out += ")";
  }
  return out + " beside " + std::to_string(discreteStates) +
         (discreteStates == 1 ? " marking" : " markings") + " of the rest, " +
         std::to_string(transitionClasses) + " transition classes";
}

nlohmann::ordered_json PopulationReport::json() const {
  using json = nlohmann::ordered_json;
  json classes = json::array();
  for (const Replicas& r : replicas)
    classes.push_back({{"replica", r.label},
                       {"count", r.count},
                       {"parameters", r.parameters},
                       {"local_states", r.localStates},
                       {"counted_exactly", r.small}});
  json probes = json::array();
  for (const Parameters& p : this->probes) {
    json values = json::object();
    for (const auto& [name, value] : p) values[name] = value;
    probes.push_back(std::move(values));
  }
  return {{"replicas", std::move(classes)},
          {"discrete_markings", discreteStates},
          {"transition_classes", transitionClasses},
          {"probes", std::move(probes)},
          {"notes", notes}};
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Probe values tried for the population parameters: the system is compiled at the first
/// two whose counts are all between 2 and kMostProbeReplicas and differ.
constexpr int kMostProbeValue = 16;
constexpr long long kMostProbeReplicas = 64;

/// The exact references try sizes whose largest population parameter is at most this.
constexpr double kLargestReferenceValue = 256;

std::string show(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

std::string parametersText(const Parameters& p) {
  std::string out;
  for (const auto& [name, value] : p) out += (out.empty() ? "" : ", ") + name + " = " + show(value);
  return out;
}

FluidError unsupported(const std::string& why, const std::string& element = "") {
  return FluidError("no mean-field approximation: " + why,
                    "the mean-field approximation counts the interchangeable replicas of a "
                    "farm or map, or those a raw net's automorphisms find (docs/meanfield.md); "
                    "--method fluid reads a raw net's places as amounts",
                    element, true);
}

/// A model read as counts of replicas, ready to be solved at any counts.
class PopulationSource {
  using elabCount = compiler::elab::ReplicaCount;

 public:
  PopulationSource(std::shared_ptr<const ModelSource> source, const Parameters& parameters,
                   const compiler::Placements& placements, const meanfield::Limits& limits)
      : source_(std::move(source)),
        parameters_(parameters),
        placements_(placements),
        limits_(limits) {
    if (source_->isDescription()) {
      counted_ = replicaCounts(*source_, parameters_);
      std::set<std::string> names;
      for (const auto& c : counted_) {
        names.insert(c.parameters.begin(), c.parameters.end());
        // Each population parameter at its value, the description's where none is asked.
        for (std::size_t i = 0; i < c.parameters.size(); ++i)
          parameters_.try_emplace(c.parameters[i], c.values[i]);
      }
      populationParameters_.assign(names.begin(), names.end());
    }
    if (populationParameters_.empty())
      readAtSize();
    else
      readByProbes();
    for (std::size_t f = 0; f < population_.replicas.size(); ++f)
      report_.replicas.push_back({population_.replicas[f].label, population_.replicas[f].count,
                                  classParameters_[f], population_.replicas[f].localStates.size(),
                                  0});
    report_.transitionClasses = population_.classes.size();
  }

  const Model& model() const { return model_; }
  const PopulationReport& report() const { return report_; }
  bool probed() const { return !populationParameters_.empty(); }
  const std::vector<std::string>& populationParameters() const { return populationParameters_; }
  const Parameters& parameters() const { return parameters_; }
  const compiler::Placements& placements() const { return placements_; }
  std::shared_ptr<const ModelSource> source() const { return source_; }

  /// The counts of each class at `parameters`.
  std::vector<std::uint64_t> countsAt(const Parameters& parameters) const {
    std::vector<std::uint64_t> out;
    for (const meanfield::Replicas& r : population_.replicas) out.push_back(r.count);
    if (!probed()) return out;
    const auto counted = replicaCounts(*source_, parameters);
    for (std::size_t f = 0; f < countIndex_.size(); ++f)
      if (countIndex_[f] >= 0)
        out[f] = std::uint64_t(counted.at(std::size_t(countIndex_[f])).replicas);
    return out;
  }
  std::vector<std::uint64_t> counts() const {
    std::vector<std::uint64_t> out;
    for (const meanfield::Replicas& r : population_.replicas) out.push_back(r.count);
    return out;
  }

  /// The population model with these counts.
  meanfield::PopulationModel at(const std::vector<std::uint64_t>& counts) const {
    meanfield::PopulationModel out = population_;
    for (std::size_t f = 0; f < counts.size(); ++f) out.setCount(f, counts[f]);
    return out;
  }

  /// How many tasks each task of model() stands for at these counts, and which are shown.
  std::vector<double> taskCopies(const std::vector<std::uint64_t>& counts) const {
    if (!model_.compiled) return {};
    std::vector<double> out(model_.compiled->system.tasks.size(), 1.0);
    if (!probed()) return out;
    for (std::size_t f = 0; f < factors_.size(); ++f)
      for (const auto& block : factors_[f].places)
        for (compiler::Index t = 0; t < out.size(); ++t)
          if (std::find(block.begin(), block.end(), model_.compiled->ports.tasks[t].idle) !=
              block.end())
            out[t] = double(counts[f]) / double(factors_[f].blockCount());
    return out;
  }
  /// The tasks of every replica but the first of each counted farm (none when read at
  /// size): their rows are left out.
  std::set<compiler::Index> hiddenTasks() const {
    std::set<compiler::Index> out;
    if (!probed() || !model_.compiled) return out;
    for (const gspn::SymmetryFactor& f : factors_)
      for (std::size_t b = 1; b < f.blockCount(); ++b)
        for (compiler::Index t = 0; t < model_.compiled->system.tasks.size(); ++t)
          if (std::find(f.places[b].begin(), f.places[b].end(),
                        model_.compiled->ports.tasks[t].idle) != f.places[b].end())
            out.insert(t);
    return out;
  }
  /// The name to show for processor `name`.
  const std::string& shownName(const std::string& name) const {
    const auto it = renamed_.find(name);
    return it == renamed_.end() ? name : it->second;
  }

  /// "W[1] stands for each of the 1000000 replicas of W".
  std::vector<std::string> standsFor(const std::vector<std::uint64_t>& counts) const {
    std::vector<std::string> out;
    if (!probed() || !model_.compiled) return out;
    const compiler::System& s = model_.compiled->system;
    for (std::size_t f = 0; f < factors_.size(); ++f) {
      std::string first;
      for (compiler::Index t = 0; t < s.tasks.size(); ++t)
        if (std::find(factors_[f].places[0].begin(), factors_[f].places[0].end(),
                      model_.compiled->ports.tasks[t].idle) != factors_[f].places[0].end())
          first += (first.empty() ? "" : ", ") + s.tasks[t].name;
      out.push_back(first + " stands for each of the " + std::to_string(counts[f]) +
                    " replicas of " + factors_[f].label);
    }
    return out;
  }

 private:
  /// A raw net, or a system whose counts read no parameter: read at its own size.
  void readAtSize() {
    model_ = buildModel(source_, parameters_, placements_);
    factors_ = replicaFactors(model_, model_.net(), report_.notes);
    if (factors_.empty())
      throw unsupported(model_.name() + " has no interchangeable replicas to count" +
                        (report_.notes.empty() ? "" : " (" + report_.notes.front() + ")"));
    population_ = translated(model_.net(), factors_);
    classParameters_.assign(factors_.size(), {});
    countIndex_.assign(factors_.size(), -1);
  }

  /// A system whose counts read parameters: compiled at two small values of them, whose
  /// population models must agree but for their counts, and counted at the asked values.
  void readByProbes() {
    std::vector<Parameters> probes;
    std::vector<std::vector<elabCount>> probeCounts;
    for (int v = 2; v <= kMostProbeValue && probes.size() < 2; ++v) {
      Parameters p = parameters_;
      for (const std::string& name : populationParameters_) p[name] = v;
      std::vector<elabCount> counted;
      try {
        counted = replicaCounts(*source_, p);
      } catch (const ModelError&) {
        continue;  // a value the description does not take
      }
      const bool small = std::all_of(counted.begin(), counted.end(), [](const elabCount& c) {
        return c.replicas >= 2 && c.replicas <= kMostProbeReplicas;
      });
      const bool differs = probeCounts.empty() || counted.size() != probeCounts.back().size() ||
                           !std::equal(counted.begin(), counted.end(), probeCounts.back().begin(),
                                       [](const elabCount& a, const elabCount& b) {
                                         return a.replicas == b.replicas;
                                       });
      if (small && differs && counted.size() == counted_.size()) {
        probes.push_back(std::move(p));
        probeCounts.push_back(std::move(counted));
      }
    }
    if (probes.size() < 2)
      throw unsupported("no two values of " + grammar::join(populationParameters_) + " up to " +
                        std::to_string(kMostProbeValue) +
                        " give every farm and map between 2 and " +
                        std::to_string(kMostProbeReplicas) + " replicas to compile it at");
    std::optional<meanfield::PopulationModel> first;
    Model firstModel;
    for (std::size_t i = 0; i < 2; ++i) {
      std::vector<std::string> notes;
      Model m = compiledAt(probes[i]);
      std::vector<gspn::SymmetryFactor> factors = replicaFactors(m, m.net(), notes);
      // Every counted farm must be interchangeable replicas at the probe.
      std::vector<int> index(factors.size(), -1);
      for (std::size_t c = 0; c < counted_.size(); ++c) {
        if (counted_[c].parameters.empty()) continue;
        const auto it = std::find_if(factors.begin(), factors.end(),
                                     [&](const auto& f) { return f.label == counted_[c].label; });
        if (it == factors.end())
          throw unsupported(
              notes.empty() ? "the replicas of " + counted_[c].label + " are not interchangeable"
                            : notes.front(),
              counted_[c].label);
        if (it->blockCount() != std::size_t(probeCounts[i][c].replicas))
          throw unsupported("the farm of " + counted_[c].label + " has " +
                                std::to_string(it->blockCount()) + " replicas at " +
                                parametersText(probes[i]) + ", not the " +
                                std::to_string(probeCounts[i][c].replicas) + " counted",
                            counted_[c].label);
        index[std::size_t(it - factors.begin())] = int(c);
      }
      meanfield::PopulationModel population = translated(m.net(), factors);
      if (i == 0) {
        first = std::move(population);
        firstModel = std::move(m);
        continue;
      }
      if (const auto difference = meanfield::signatureDifference(*first, population))
        throw unsupported("the system compiled at " + parametersText(probes[0]) + " and at " +
                          parametersText(probes[1]) +
                          " differs in more than its replica counts, so its counts cannot be "
                          "read at other values: " +
                          *difference);
      model_ = std::move(m);
      factors_ = std::move(factors);
      population_ = std::move(population);
      countIndex_ = std::move(index);
      report_.notes = std::move(notes);
    }
    renameProcessors(firstModel);
    classParameters_.assign(factors_.size(), {});
    for (std::size_t f = 0; f < factors_.size(); ++f) {
      if (countIndex_[f] < 0) continue;
      const auto& c = counted_[std::size_t(countIndex_[f])];
      classParameters_[f] = c.parameters;
      population_.setCount(f, std::uint64_t(c.replicas));
    }
    report_.probes = std::move(probes);
  }

  /// A processor whose name moves with the counts (P[workers + k]) names no processor of
  /// the system at the asked size: it is shown as the processor of its tasks. `first` is
  /// the other probe, where the same tasks' processor has another name then.
  void renameProcessors(const Model& first) {
    const compiler::System& a = first.compiled->system;
    const compiler::System& b = model_.compiled->system;
    for (const compiler::Processor& p : b.processors) {
      if (p.tasks.empty()) continue;
      const std::string& task = b.tasks[p.tasks.front()].name;
      const auto there = std::find_if(a.processors.begin(), a.processors.end(), [&](const auto& q) {
        return std::any_of(q.tasks.begin(), q.tasks.end(),
                           [&](compiler::Index t) { return a.tasks[t].name == task; });
      });
      if (there == a.processors.end() || there->name == p.name) continue;
      std::string tasks;
      for (compiler::Index t : p.tasks) tasks += (tasks.empty() ? "" : ", ") + b.tasks[t].name;
      renamed_[p.name] = "processor of " + tasks;
    }
  }

  /// The system compiled at probe values `p`; a mapping that names elements beyond the
  /// probe's few replicas cannot be, and says so.
  Model compiledAt(const Parameters& p) const {
    try {
      return buildModel(source_, p, placements_);
    } catch (const ModelError& e) {
      if (placements_.empty()) throw;
      throw unsupported("the mapping does not compile at " + parametersText(p) + " (" +
                        e.summary() +
                        "): the mean-field approximation compiles the system at a few "
                        "replicas, so a mapping may name only what those have");
    }
  }

  meanfield::PopulationModel translated(const gspn::Net& net,
                                        const std::vector<gspn::SymmetryFactor>& factors) const {
    try {
      return meanfield::populationModel(net, factors, limits_);
    } catch (const meanfield::UnsupportedModel& e) {
      throw unsupported(e.what(), e.element());
    }
  }

  std::shared_ptr<const ModelSource> source_;
  Parameters parameters_;
  compiler::Placements placements_;
  meanfield::Limits limits_;
  std::vector<elabCount> counted_;
  std::vector<std::string> populationParameters_;
  Model model_;
  std::vector<gspn::SymmetryFactor> factors_;
  meanfield::PopulationModel population_;
  /// By class: its entry in counted_, or −1 (read at the net's size).
  std::vector<int> countIndex_;
  std::vector<std::vector<std::string>> classParameters_;
  PopulationReport report_;
  /// Processors shown under another name: those whose names move with the counts.
  std::map<std::string, std::string> renamed_;
};

/// Runs `f`, turning the mean-field library's failures into the api's.
template <typename F>
auto translated(F&& f) {
  try {
    return f();
  } catch (const meanfield::UnsupportedModel& e) {
    throw unsupported(e.what(), e.element());
  } catch (const fluid::NotSettledError& e) {
    throw FluidError(std::string("no mean-field equilibrium: ") + e.what(), "", e.place(), false,
                     e.time(), e.residual());
  } catch (const fluid::InterruptedError& e) {
    throw InterruptedError(e.what());
  }
}

meanfield::Settings meanFieldSettings(const Settings& settings) {
  meanfield::Settings out;
  out.tolerance = settings.tolerance;
  out.run = settings.run;
  return out;
}

/// A population model solved at its counts.
struct Solved {
  std::unique_ptr<meanfield::PopulationModel> population;
  std::unique_ptr<meanfield::Hybrid> hybrid;
  meanfield::Equilibrium equilibrium;
};

Solved solveAt(const PopulationSource& source, const std::vector<std::uint64_t>& counts,
               const Settings& settings) {
  Solved out;
  out.population = std::make_unique<meanfield::PopulationModel>(source.at(counts));
  out.hybrid = translated([&] { return std::make_unique<meanfield::Hybrid>(*out.population); });
  out.equilibrium =
      translated([&] { return meanfield::equilibrium(*out.hybrid, meanFieldSettings(settings)); });
  return out;
}

/// The metrics (or a raw net's measures) at state y with class flows `flows`, farms' rows
/// past their first replica left out.
void evaluate(const PopulationSource& source, const meanfield::Hybrid& hybrid,
              const Eigen::VectorXd& y, const std::vector<double>& flows,
              const std::vector<std::uint64_t>& counts,
              std::optional<compiler::SystemMetrics>& metrics, NetMeasures& values) {
  const Model& model = source.model();
  const meanfield::Measures measures(model.net(), hybrid, y, flows);
  if (!model.compiled) {
    values = netMeasures(model.net(), measures);
    return;
  }
  const std::vector<double> copies = source.taskCopies(counts);
  metrics = compiler::computeMetrics(*model.compiled, measures, copies);
  const std::set<compiler::Index> hidden = source.hiddenTasks();
  if (hidden.empty()) return;
  const compiler::System& s = model.compiled->system;
  std::vector<compiler::TaskMetrics> tasks;
  for (compiler::Index t = 0; t < metrics->tasks.size(); ++t)
    if (!hidden.count(t)) tasks.push_back(metrics->tasks[t]);
  metrics->tasks = std::move(tasks);
  std::vector<compiler::StationMetrics> processors;
  for (compiler::Index i = 0; i < metrics->processors.size(); ++i) {
    const compiler::Processor& p = s.processors[i];
    const bool replica = !p.tasks.empty() && p.actors.empty() &&
                         std::all_of(p.tasks.begin(), p.tasks.end(),
                                     [&](compiler::Index t) { return hidden.count(t) > 0; });
    if (replica) continue;
    processors.push_back(metrics->processors[i]);
    processors.back().name = source.shownName(processors.back().name);
  }
  metrics->processors = std::move(processors);
}

NamedResults resultsAt(const PopulationSource& source, const Solved& solved,
                       const std::vector<std::uint64_t>& counts) {
  std::optional<compiler::SystemMetrics> metrics;
  NetMeasures values;
  evaluate(source, *solved.hybrid, solved.equilibrium.state, solved.equilibrium.classFlows, counts,
           metrics, values);
  return namedResults(metrics, values);
}

/// The parameters of a reference size: every population parameter scaled by `scale` (at
/// least 2, whole).
Parameters scaled(const PopulationSource& source, double scale) {
  Parameters out = source.parameters();
  for (const std::string& name : source.populationParameters())
    out[name] = std::max(2.0, std::floor(source.parameters().at(name) * scale));
  return out;
}

double largestPopulationValue(const PopulationSource& source, const Parameters& p) {
  double most = 0;
  for (const std::string& name : source.populationParameters()) most = std::max(most, p.at(name));
  return most;
}

/// The exact solution at `parameters` within the reference's state limit; nothing when it
/// does not fit (why in `missing`).
std::optional<std::pair<std::map<std::string, double>, std::uint64_t>> exactAt(
    const PopulationSource& source, const Parameters& parameters, const Settings& settings,
    const MeanFieldRequest& request, std::string& missing) {
  Settings exact = settings;
  exact.maxStates = request.exactLimit;
  exact.run.progress = nullptr;
  try {
    const Model model = source.probed()
                            ? buildModel(source.source(), parameters, source.placements())
                            : source.model();
    const Solution solution = solve(model, exact);
    if (!solution.hasSteadyState()) {
      missing = "the exact chain has no single steady state";
      return std::nullopt;
    }
    return std::pair{numbersByPath(namedResults(solution.metrics, solution.values)),
                     std::uint64_t(solution.chain.explored.graph.stateCount())};
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    missing = e.headline();
    return std::nullopt;
  }
}

/// Each number's distances over the sizes, the trend's exponent and the estimate at the
/// asked size (`asked` and each size's N: the largest population count).
void finish(MeanFieldReference& out, double asked, const std::vector<double>& sizes) {
  for (MeanFieldReference::Number& n : out.numbers) {
    for (std::size_t i = 0; i < n.reference.size(); ++i)
      n.distances.push_back(relativeDistance(n.meanFieldAt[i], n.reference[i]));
    n.exponent = std::numeric_limits<double>::quiet_NaN();
    n.estimate = n.distances.empty() ? std::numeric_limits<double>::quiet_NaN() : n.distances[0];
    // Least squares of log distance on log N over the sizes whose distance is not 0.
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
    for (std::size_t i = 0; i < n.distances.size(); ++i) {
      if (!(n.distances[i] > 0) || !std::isfinite(n.distances[i])) continue;
      const double lx = std::log(sizes[i]), ly = std::log(n.distances[i]);
      sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, ++k;
    }
    if (k >= 2 && sxx * k - sx * sx > 0) {
      n.exponent = -(k * sxy - sx * sy) / (k * sxx - sx * sx);
      if (n.exponent > 0 && asked > sizes[0])
        n.estimate = n.distances[0] * std::pow(asked / sizes[0], -n.exponent);
    }
    if (std::isfinite(n.estimate) && n.estimate > out.farthestDistance) {
      out.farthestDistance = n.estimate;
      out.farthestPath = pathText(n.path);
    }
  }
}

double largestCount(const std::vector<std::uint64_t>& counts) {
  return counts.empty() ? 0.0 : double(*std::max_element(counts.begin(), counts.end()));
}

/// The exact solution at the asked size, or (a system with population parameters) at the
/// largest smaller sizes that fit, the parameters halved, with the trend; the numbers of
/// `meanField` beside them.
std::optional<MeanFieldReference> exactReference(const PopulationSource& source,
                                                 const Settings& settings,
                                                 const MeanFieldRequest& request,
                                                 const NamedResults& meanField,
                                                 std::string& missing) {
  const auto start = Clock::now();
  struct Fitted {
    Parameters parameters;
    std::vector<std::uint64_t> counts;
    std::map<std::string, double> exact;
    std::uint64_t tangible = 0;
    double seconds = 0;
  };
  std::vector<Fitted> fitted;  // smallest first
  const auto tryAt = [&](const Parameters& parameters, std::string& why) {
    const auto sizeStart = Clock::now();
    auto exact = exactAt(source, parameters, settings, request, why);
    if (!exact) return false;
    fitted.push_back({parameters, source.countsAt(parameters), std::move(exact->first),
                      exact->second, since(sizeStart)});
    return true;
  };
  // The asked size itself; else, counted from probes, the population parameters scaled
  // to 2, 4, 8, … (the largest of them) while the chain fits, the largest three kept.
  const double asked = largestPopulationValue(source, source.parameters());
  bool atSize = false;
  if (!source.probed() || asked <= kLargestReferenceValue)
    atSize = tryAt(source.parameters(), missing);
  else
    missing = "the asked size is far past the state limit";
  for (double v = 2; !atSize && source.probed() && v < asked && v <= kLargestReferenceValue;
       v *= 2) {
    const Parameters parameters = scaled(source, v / asked);
    if (!fitted.empty() && largestPopulationValue(source, parameters) ==
                               largestPopulationValue(source, fitted.back().parameters))
      continue;
    std::string why;
    if (!tryAt(parameters, why)) break;
    if (fitted.size() > 3) fitted.erase(fitted.begin());
  }
  if (fitted.empty()) return std::nullopt;
  std::reverse(fitted.begin(), fitted.end());  // largest first
  MeanFieldReference out;
  out.method = atSize ? "exact" : "exact at smaller sizes";
  std::vector<double> sizes;
  std::map<std::string, std::vector<double>> meanFieldAt;
  for (const Fitted& f : fitted) {
    const NamedResults at =
        atSize ? meanField : resultsAt(source, solveAt(source, f.counts, settings), f.counts);
    for (const NamedNumber& n : at.numbers) meanFieldAt[pathText(n.path)].push_back(n.value);
    Parameters shown;
    for (const std::string& name : source.populationParameters())
      shown[name] = f.parameters.at(name);
    out.sizes.push_back({shown, f.counts, f.tangible, f.seconds});
    sizes.push_back(largestCount(f.counts));
  }
  for (const NamedNumber& n : meanField.numbers) {
    const std::string key = pathText(n.path);
    MeanFieldReference::Number number;
    number.path = n.path;
    number.meanField = n.value;
    number.meanFieldAt = meanFieldAt[key];
    for (const Fitted& f : fitted) {
      const auto it = f.exact.find(key);
      number.reference.push_back(it == f.exact.end() ? std::numeric_limits<double>::quiet_NaN()
                                                     : it->second);
    }
    if (number.meanFieldAt.size() != number.reference.size() || !std::isfinite(n.value)) continue;
    if (std::any_of(number.reference.begin(), number.reference.end(),
                    [](double v) { return !std::isfinite(v); }))
      continue;
    out.numbers.push_back(std::move(number));
  }
  finish(out, largestCount(source.counts()), sizes);
  out.seconds = since(start);
  return out;
}

MeanFieldReference simulationReference(const PopulationSource& source, const Settings& settings,
                                       const MeanFieldRequest& request,
                                       const NamedResults& meanField, double flow) {
  // Counted from probes, the model is compiled at the asked size to be simulated.
  const ShortSimulation run = shortSimulation(
      source.probed() ? buildModel(source.source(), source.parameters(), source.placements())
                      : source.model(),
      settings, request.replications, request.events, flow);
  MeanFieldReference out;
  out.method = "simulation";
  out.replications = run.simulation.replications;
  out.events = run.events;
  out.confidence = run.simulation.settings.confidence;
  out.seconds = run.simulation.seconds;
  out.sizes.push_back({{}, source.counts(), 0, run.simulation.seconds});
  for (const NamedNumber& n : meanField.numbers) {
    const auto r = run.at(n.path);
    if (!r || !std::isfinite(n.value) || !std::isfinite(r->first)) continue;
    MeanFieldReference::Number number;
    number.path = n.path;
    number.meanField = n.value;
    number.reference = {r->first};
    number.meanFieldAt = {n.value};
    number.halfWidth = r->second;
    out.numbers.push_back(std::move(number));
  }
  finish(out, largestCount(source.counts()), {largestCount(source.counts())});
  return out;
}

MeanFieldReference referenceOf(const PopulationSource& source, const Settings& settings,
                               const MeanFieldRequest& request, const NamedResults& meanField,
                               double flow) {
  using R = MeanFieldRequest::Reference;
  std::string missing;
  if (request.reference == R::Exact || request.reference == R::Auto) {
    if (auto exact = exactReference(source, settings, request, meanField, missing)) {
      exact->exactMissing = exact->method == "exact" ? "" : missing;
      return *exact;
    }
    if (request.reference == R::Exact || source.probed()) {
      MeanFieldReference out;
      out.unavailable = "no exact solution fits " + std::to_string(request.exactLimit) +
                        " tangible markings, at the asked size or a smaller one" +
                        (request.reference == R::Exact
                             ? ""
                             : "; --reference simulation compiles the model at the asked size "
                               "and simulates it");
      return out;
    }
  }
  try {
    MeanFieldReference out = simulationReference(source, settings, request, meanField, flow);
    out.exactMissing = missing;
    return out;
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    if (request.reference == R::Simulation) throw;
    MeanFieldReference out;
    out.exactMissing = missing;
    out.unavailable = "no simulation: " + e.headline();
    return out;
  }
}

}  // namespace

MeanFieldSolution solveMeanField(std::shared_ptr<const ModelSource> source,
                                 const Parameters& parameters, const Settings& settings,
                                 const MeanFieldRequest& request,
                                 const compiler::Placements& placements) {
  settings.check();
  request.check();
  const PopulationSource population(std::move(source), parameters, placements, meanfield::Limits{});
  const std::vector<std::uint64_t> counts = population.counts();
  Solved solved = solveAt(population, counts, settings);
  MeanFieldSolution out;
  out.name = population.model().name();
  out.system = population.model().isSystem();
  out.equilibrium = solved.equilibrium;
  out.population = population.report();
  out.population.discreteStates = solved.hybrid->discreteStateCount();
  for (std::size_t f = 0; f < out.population.replicas.size(); ++f)
    for (std::uint32_t s = 0; s < solved.population->replicas[f].localStates.size(); ++s)
      out.population.replicas[f].small += solved.hybrid->small(std::uint32_t(f), s);
  out.standsFor = population.standsFor(counts);
  evaluate(population, *solved.hybrid, solved.equilibrium.state, solved.equilibrium.classFlows,
           counts, out.metrics, out.values);
  if (!request.times.empty()) {
    const meanfield::Trajectory trajectory = translated([&] {
      return meanfield::trajectory(*solved.hybrid, request.times, meanFieldSettings(settings));
    });
    out.trajectorySteps = trajectory.steps;
    for (std::size_t i = 0; i < trajectory.times.size(); ++i) {
      std::optional<compiler::SystemMetrics> metrics;
      NetMeasures values;
      evaluate(population, *solved.hybrid, trajectory.states[i], trajectory.classFlows[i], counts,
               metrics, values);
      out.points.push_back(instantAt(trajectory.times[i], namedResults(metrics, values)));
    }
  }
  if (request.reference != MeanFieldRequest::Reference::None) {
    double flow = 0;
    for (double f : solved.equilibrium.classFlows) flow += f;
    out.reference =
        referenceOf(population, settings, request, namedResults(out.metrics, out.values), flow);
  }
  out.peakMemoryMegabytes = peakMemoryMegabytes();
  return out;
}

nlohmann::ordered_json MeanFieldSolution::json() const {
  using json = nlohmann::ordered_json;
  const auto number = [](double v) { return std::isfinite(v) ? json(v) : json(); };
  json out = schemaTag("meanfield");
  out[system ? "system" : "net"] = name;
  const meanfield::Equilibrium& e = equilibrium;
  out["population"] = population.json();
  out["population"]["stands_for"] = standsFor;
  out["meanfield"] = equilibriumJson("mean-field", e);
  out["meanfield"]["trajectory_steps"] = trajectorySteps;
  out["meanfield"]["seconds"] = e.seconds;
  out["meanfield"]["peak_memory_mb"] = peakMemoryMegabytes;
  if (reference) {
    const MeanFieldReference& r = *reference;
    json sizes = json::array();
    for (const MeanFieldReference::Size& s : r.sizes) {
      json values = json::object();
      for (const auto& [name, value] : s.parameters) values[name] = value;
      sizes.push_back({{"parameters", std::move(values)},
                       {"replicas", s.replicas},
                       {"tangible_markings", s.tangible},
                       {"seconds", s.seconds}});
    }
    json numbers = json::array();
    for (const MeanFieldReference::Number& n : r.numbers) {
      json reference = json::array(), at = json::array(), distances = json::array();
      for (double v : n.reference) reference.push_back(number(v));
      for (double v : n.meanFieldAt) at.push_back(number(v));
      for (double v : n.distances) distances.push_back(number(v));
      numbers.push_back({{"path", pathText(n.path)},
                         {"mean_field", n.meanField},
                         {"reference", std::move(reference)},
                         {"mean_field_at", std::move(at)},
                         {"half_width", n.halfWidth},
                         {"distances", std::move(distances)},
                         {"exponent", number(n.exponent)},
                         {"estimate", number(n.estimate)}});
    }
    out["reference"] = referenceJson(r, {"sizes", std::move(sizes)}, std::move(numbers));
  }
  addResults(out, results(), points);
  return out;
}

}  // namespace mmt::api
