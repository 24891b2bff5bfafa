#include "api/solve.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "grammar/diagnostics.hpp"
#include "gspn/invariants.hpp"
#include "solver/dspn.hpp"
#include "solver/measures.hpp"
#include "solver/pipeline.hpp"

namespace mmt::api {

std::uint64_t defaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) / 10 * 9 : 0;
}

void Settings::check() const {
  if (!(tolerance > 0)) throw SettingError("tolerance", "must be positive");
  if (relaxation != 0 && !(relaxation > 0 && relaxation < 2))
    throw SettingError("relaxation", "must be in (0, 2)");
  if (maxMemoryBytes && *maxMemoryBytes < (1u << 20))
    throw SettingError("max_memory", "must be at least 1 (megabytes)");
}

gspn::ExplorationSettings explorationSettings(const gspn::Net& net, const Settings& settings) {
  gspn::ExplorationSettings out;
  out.maxMemoryBytes = settings.maxMemoryBytes ? *settings.maxMemoryBytes : defaultMemoryLimit();
  gspn::Boundedness bounds = gspn::analyzeBoundedness(net, gspn::computePSemiflows(net));
  if (settings.maxStates)
    out.maxStates = *settings.maxStates;
  else
    out.maxStates =
        bounds.allBounded() ? Settings::kBoundedStateLimit : Settings::kUnprovenStateLimit;
  out.placeBounds = std::move(bounds.bound);
  out.everyOrder = settings.everyOrder;
  out.run = settings.run;
  return out;
}

solver::SteadyStateSettings steadyStateSettings(const Settings& settings) {
  solver::SteadyStateSettings out;
  out.method = settings.method;
  out.tolerance = settings.tolerance;
  out.maxIterations = settings.maxIterations;
  out.relaxation = settings.relaxation;
  out.extrapolate = settings.extrapolate;
  out.run = settings.run;
  return out;
}

double peakMemoryMegabytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

[[noreturn]] void throwExplorationFailure(const gspn::Net& net, const gspn::ExplorationResult& r,
                                          const gspn::ExplorationSettings& settings) {
  using Status = gspn::ExplorationResult::Status;
  const std::uint64_t states = r.graph.stateCount(), limit = settings.maxStates;
  switch (r.status) {
    case Status::StateLimit: {
      // The explorer cannot know whether the net is bounded; its invariants may say so.
      const gspn::Boundedness bounds = gspn::analyzeBoundedness(net, gspn::computePSemiflows(net));
      StateLimitError::Data data;
      data.limit = limit;
      data.provenBounded = bounds.allBounded();
      data.unprovenPlaces = bounds.unproven(net);
      if (r.fullestPlace) data.fullestPlace = net.place(*r.fullestPlace).name;
      data.fullestTokens = r.fullestTokens;
      if (data.provenBounded)
        throw StateLimitError(r.status, states, std::move(data),
                              "more than " + std::to_string(limit) +
                                  " tangible markings: the net is bounded (every place is "
                                  "covered by a P-invariant or bounded by an inhibitor arc), "
                                  "only large; raise --max-states if memory allows");
      // The first few places by name (a contest net has 16,000); the data keeps them all.
      constexpr std::size_t kNamed = 10;
      const std::size_t unproven = data.unprovenPlaces.size();
      std::string places = grammar::join(std::vector<std::string>(
          data.unprovenPlaces.begin(),
          data.unprovenPlaces.begin() + static_cast<std::ptrdiff_t>(std::min(kNamed, unproven))));
      if (unproven > kNamed) places += " and " + std::to_string(unproven - kNamed) + " more";
      std::string detail =
          "  mmt could not prove the net bounded: no P-invariant covers, and no "
          "inhibitor arc bounds, " +
          places + " ('mmt compile --invariants' lists them)";
      throw StateLimitError(r.status, states, std::move(data), r.message, std::move(detail));
    }
    case Status::EdgeLimit: {
      StateLimitError::Data data;
      data.limit = limit;
      throw StateLimitError(r.status, states, std::move(data), r.message);
    }
    case Status::MemoryLimit:
      throw MemoryLimitError(states, settings.maxMemoryBytes, r.message);
    case Status::TimelessTrap:
      throw TimelessTrapError(states, r.message);
    case Status::Interrupted:
      throw InterruptedError("interrupted while exploring (" + std::to_string(states) +
                             " tangible markings found)");
    default:
      throw ExplorationError(r.status, states, r.message);
  }
}

void TransientRequest::check() const {
  for (double t : times)
    if (!(t >= 0) || !std::isfinite(t))
      throw SettingError("at", "each time must be a finite number at least 0");
  if (!(epsilon > 0 && epsilon < 0.5)) throw SettingError("transient_error", "must be in (0, 0.5)");
  if (only && times.empty()) throw SettingError("transient_only", "needs the times (--at)");
}

namespace {

/// The model's results under a transient distribution's measures. Under a symmetry
/// `group`, they are the lumped chain's.
NamedResults resultsUnder(const Model& model, const solver::SteadyStateMeasures& lumped,
                          const gspn::Symmetry* group) {
  const gspn::SymmetricMeasures measures(lumped, group);
  std::optional<compiler::SystemMetrics> metrics;
  NetMeasures values;
  if (model.compiled)
    metrics = compiler::computeMetrics(*model.compiled, measures);
  else
    values = netMeasures(model.net(), measures);
  NamedResults all = namedResults(metrics, values), out;
  out.sections = std::move(all.sections);
  for (NamedNumber& n : all.numbers)
    if (!isLittle(n.path.back())) out.numbers.push_back(std::move(n));
  return out;
}

TransientSolution transientSolution(const Model& model, const TransientRequest& request,
                                    const solver::TransientResult& r,
                                    const std::vector<solver::SteadyStateMeasures>& measures,
                                    const gspn::Symmetry* group) {
  TransientSolution out;
  out.cumulative = request.cumulative;
  out.epsilon = request.epsilon;
  out.rate = r.rate;
  out.iterations = r.iterations;
  out.stationaryAt = r.stationaryAt;
  out.dropped = r.dropped;
  out.heldProducts = r.heldProducts;
  out.mostHeld = r.mostHeld;
  out.seconds = r.seconds;
  for (std::size_t i = 0; i < request.times.size(); ++i)
    out.points.push_back({request.times[i], resultsUnder(model, measures[i], group)});
  return out;
}

}  // namespace

nlohmann::ordered_json TransientSolution::solverJson() const {
  nlohmann::ordered_json out = {{"method", "uniformization"}, {"cumulative", cumulative},
                                {"error_bound", epsilon},     {"rate", rate},
                                {"iterations", iterations},   {"stationary_at", nullptr},
                                {"dropped", dropped},         {"held_products", heldProducts},
                                {"most_held", mostHeld},      {"seconds", seconds}};
  if (stationaryAt) out["stationary_at"] = *stationaryAt;
  return out;
}

nlohmann::ordered_json TransientSolution::pointsJson() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const TransientPoint& p : points) {
    nlohmann::ordered_json point = {{"time", p.time}};
    point.update(resultsTree(p.results, [&](std::size_t i) {
      const double v = p.results.numbers[i].value;
      return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
    }));
    out.push_back(std::move(point));
  }
  return out;
}

namespace {

/// Throws the typed failure of a solution that stopped short (exploration, the chain's
/// structure, the steady state or the transient); returns when it did not.
void throwIfFailed(const solver::SolvedNet& solved, const gspn::Net& net,
                   const gspn::ExplorationSettings& exploration, const Settings& settings) {
  switch (solved.stage) {
    case solver::SolvedNet::Stage::Ok:
      return;
    case solver::SolvedNet::Stage::Exploration:
      throwExplorationFailure(net, solved.solution.explored, exploration);
    case solver::SolvedNet::Stage::Structure:
      throw StructureError(solved.solution.structure.kind, solved.message());
    case solver::SolvedNet::Stage::Solver: {
      const solver::SteadyStateResult& r = solved.solution.steadyState;
      if (r.status == solver::Status::Interrupted)
        throw InterruptedError("interrupted while solving (" + solver::toString(r.method) + ", " +
                               std::to_string(r.iterations) + " iterations)");
      throw SolverError(r.status, r.method, r.iterations, r.residual, settings.tolerance,
                        r.imbalance, r.note, r.iterationLimit);
    }
    case solver::SolvedNet::Stage::Absorption: {
      const solver::AbsorptionResult& a = *solved.solution.absorption;
      const solver::SteadyStateResult* r = a.failedSolve();
      if (!r || r->status == solver::Status::Interrupted)
        throw InterruptedError("interrupted while solving " + a.failed);
      throw SolverError(r->status, r->method, r->iterations, r->residual, settings.tolerance,
                        r->imbalance, solved.message(), r->iterationLimit);
    }
    case solver::SolvedNet::Stage::Transient:
      throw InterruptedError("interrupted while computing the transient measures (" +
                             std::to_string(solved.solution.transientResult->iterations) +
                             " iterations)");
  }
}

/// Throws the typed failure of a DSPN solution that failed.
void throwIfFailed(const solver::DspnSolution& d, const Settings& settings) {
  using S = solver::DspnSolution::Status;
  switch (d.status) {
    case S::Ok:
      return;
    case S::Concurrent:
      throw DeterministicError("no exact constant-delay solution: " + d.message +
                                   " (an exact DSPN solution needs at most one enabled at a time)",
                               d.first, d.second, d.marking);
    case S::Unsupported:
      throw DeterministicError("no exact constant-delay solution: " + d.message, d.message, "", "");
    case S::Interrupted:
      throw InterruptedError("interrupted while solving the deterministic delays");
    case S::Deadlock:
      throw StructureError(solver::ChainStructure::Kind::Deadlock, d.message);
    case S::MultipleBottomComponents:
      throw StructureError(solver::ChainStructure::Kind::MultipleBottomComponents, d.message);
    case S::NotConverged:
      throw SolverError(d.embedded.status, d.embedded.method, d.embedded.iterations,
                        d.embedded.residual, settings.tolerance, d.embedded.imbalance, d.message,
                        d.embedded.iterationLimit);
  }
}

DeterministicSolution deterministicSolution(const solver::DspnSolution& d) {
  DeterministicSolution out;
  out.transitions = d.deterministicTransitions;
  out.embeddedMarkings = d.embeddedStates;
  out.subordinatedSolves = d.subordinatedSolves;
  out.iterations = d.iterations;
  out.method = d.embedded.method;
  out.residual = d.embedded.residual;
  out.seconds = d.seconds;
  return out;
}

}  // namespace

nlohmann::ordered_json DeterministicSolution::json() const {
  return {{"method", "embedded Markov renewal process"},
          {"deterministic_transitions", transitions},
          {"embedded_markings", embeddedMarkings},
          {"subordinated_ctmcs", subordinatedSolves},
          {"iterations", iterations},
          {"embedded_method", solver::toString(method)},
          {"embedded_residual", residual},
          {"seconds", seconds}};
}

namespace {

/// Why the chain of this question cannot be lumped, if it cannot (api/symmetry.hpp).
SymmetryQuestion symmetryQuestion(bool passages, bool exported, const Settings& settings) {
  if (passages) return {"response-time distributions"};
  if (exported) return {"exported chains (--prism)"};
  if (settings.deterministicExact) return {"exact constant-delay (DSPN) solutions"};
  return {};
}

solver::TransientSettings transientSettingsOf(const TransientRequest& transient,
                                              const Settings& settings) {
  solver::TransientSettings out;
  out.times = transient.times;
  out.cumulative = transient.cumulative;
  out.epsilon = transient.epsilon;
  out.withoutSteadyState = transient.only;
  out.run = settings.run;
  return out;
}

/// "0.25" and the like, for messages.
std::string number(double x) {
  std::ostringstream out;
  out.precision(6);
  out << x;
  return out.str();
}

/// What a system's StructureError adds to the chain's structure: how likely the marking or
/// components it names are, and how long until the chain ends.
std::string endingSummary(const solver::ChainStructure& structure,
                          const solver::AbsorptionResult& a) {
  const auto& b = a.bottoms;
  const std::string after = " after " + number(a.meanTime) + " t on average";
  if (structure.kind == solver::ChainStructure::Kind::Deadlock && !b.dead.empty())
    return "from the initial marking it is reached with probability " +
           number(a.probability[b.componentOf[b.dead.front()]]) + ", and the chain ends" + after;
  if (b.components.size() >= 2)
    return "from the initial marking the chain ends in the first with probability " +
           number(a.probability[0]) + " and in the second with probability " +
           number(a.probability[1]) + ", in one of the " + std::to_string(b.components.size()) +
           after;
  return "the chain ends" + after;
}

/// The places that are empty when a batch has ended: every `workload.remaining` and
/// `workload.inside`, the system's and its skeletons'.
std::vector<gspn::PlaceId> batchPlaces(const compiler::CompiledSystem& compiled) {
  std::vector<gspn::PlaceId> out;
  const compiler::Ports& ports = compiled.ports;
  for (const auto& place : {ports.workload.remaining, ports.workload.inside})
    if (place) out.push_back(*place);
  for (const compiler::SkeletonPorts& k : ports.skeletons)
    for (const auto& place : {k.remaining, k.inside})
      if (place) out.push_back(*place);
  return out;
}

/// Throws StructureError when a batch can end short of its last iteration: an end that is
/// not a dead marking with every batch place empty.
void checkBatchEnds(const compiler::CompiledSystem& compiled, const gspn::Net& net,
                    const solver::SolvedNet& solved) {
  const solver::AbsorptionResult& a = *solved.solution.absorption;
  const gspn::TangibleReachabilityGraph& graph = solved.solution.explored.graph;
  const std::vector<gspn::PlaceId> places = batchPlaces(compiled);
  double completes = 0;
  std::optional<std::size_t> short_;
  for (std::size_t j = 0; j < a.bottoms.components.size(); ++j) {
    const solver::BottomComponents::Component& c = a.bottoms.components[j];
    const std::vector<gspn::Tokens> m = graph.marking(c.witness);
    const bool done = c.dead && std::all_of(places.begin(), places.end(),
                                            [&](gspn::PlaceId p) { return m[p] == 0; });
    if (done)
      completes += a.probability[j];
    else if (!short_)
      short_ = j;
  }
  if (!short_) return;
  const solver::BottomComponents::Component& c = a.bottoms.components[*short_];
  throw StructureError(
      c.dead ? solver::ChainStructure::Kind::Deadlock
             : solver::ChainStructure::Kind::MultipleBottomComponents,
      "the batch can stop before its last iteration ends: {" +
          net.describe(graph.marking(c.witness)) + "} " +
          (c.dead ? "enables no transition" : "is a set of markings it never leaves") +
          " and is reached with probability " + number(a.probability[*short_]) +
          " (the batch completes with probability " + number(completes) +
          "); a buffer that fills or a missing path stops it");
}

/// A source's measures divided by a time: totals until absorption as averages over the
/// run [0, A] (a batch's metrics).
class OverTheRun final : public gspn::MeasureSource {
 public:
  OverTheRun(const gspn::MeasureSource& totals, double time) : totals_(totals), time_(time) {}
  double meanTokens(gspn::PlaceId p) const override { return totals_.meanTokens(p) / time_; }
  double throughput(gspn::TransitionId t) const override { return totals_.throughput(t) / time_; }
  double expectation(const std::function<double(gspn::MarkingView)>& f,
                     std::span<const gspn::PlaceId> reads) const override {
    return totals_.expectation(f, reads) / time_;
  }

 private:
  const gspn::MeasureSource& totals_;
  double time_;
};

AbsorptionSolution absorptionSolution(const gspn::Net& net, const solver::SolvedNet& solved,
                                      const gspn::Symmetry* group, bool raw) {
  const solver::AbsorptionResult& a = *solved.solution.absorption;
  const gspn::TangibleReachabilityGraph& graph = solved.solution.explored.graph;
  AbsorptionSolution out;
  out.structure = solved.solution.structure.message;
  for (std::size_t j = 0; j < a.bottoms.components.size(); ++j) {
    const solver::BottomComponents::Component& c = a.bottoms.components[j];
    out.components.push_back(
        {net.describe(graph.marking(c.witness)), c.states, c.dead, a.probability[j], {}});
    if (raw && j < solved.componentMeasures.size() && solved.componentMeasures[j])
      out.components.back().results =
          netMeasures(net, gspn::SymmetricMeasures(*solved.componentMeasures[j], group));
  }
  out.transientMarkings = a.bottoms.transientStates;
  out.meanTime = a.meanTime;
  out.variance = a.variance();
  if (a.renewal) {
    out.method = a.renewal->method;
    out.iterations = a.renewal->iterations + (a.spread ? a.spread->iterations : 0);
    out.residual = std::max(a.renewal->residual, a.spread ? a.spread->residual : 0.0);
  }
  out.seconds = a.seconds;
  if (raw) out.accumulated = netMeasures(net, gspn::SymmetricMeasures(*solved.accumulated, group));
  return out;
}

/// Throws what a solution that stopped short, or one that does not answer the question,
/// means for `model`: a system whose repeating workload ends (StructureError, saying how
/// likely and how soon), the failed stage's error (throwIfFailed), a time to absorption
/// asked of a chain that does not end (SettingError), a passage between conditions on a
/// chain with no steady state to start it from (StructureError).
void throwIfUnanswered(const Model& model, const gspn::Net& net, const solver::SolvedNet& solved,
                       const gspn::ExplorationSettings& exploration, const Settings& settings,
                       const TransientRequest& transient,
                       const std::optional<PassagePlan>& passagePlan) {
  const solver::ChainStructure& structure = solved.solution.structure;
  // A system whose workload repeats has a modelling error if its chain ends.
  if (model.compiled && !model.isBatch() && transient.times.empty() &&
      (solved.stage == solver::SolvedNet::Stage::Absorption || solved.solution.absorption))
    throw StructureError(
        structure.kind,
        solved.stage == solver::SolvedNet::Stage::Ok
            ? structure.message + "; " + endingSummary(structure, *solved.solution.absorption)
            : structure.message);
  throwIfFailed(solved, net, exploration, settings);
  const bool toTheEnd = passagePlan && passagePlan->toTheEnd;
  if (toTheEnd && !solved.solution.absorption)
    throw SettingError("from",
                       "must be given for this net's response-time distribution: its chain "
                       "does not end (it has a steady state), so there is no time to "
                       "absorption; --from and --to name a passage");
  if (passagePlan && !toTheEnd && !solved.measures)
    throw StructureError(
        structure.kind,
        structure.message + "; response-time distributions start from the steady state");
}

/// The distributions `plan` asks for: the time until the chain ends (into its bottom
/// components), or the passages between conditions in steady state.
PassageSolution passagesOf(const Model& model, const PassagePlan& plan,
                           const PassageRequest& request, const solver::SolvedNet& solved,
                           const std::optional<compiler::SystemMetrics>& metrics,
                           const std::atomic<bool>* interrupt) {
  const gspn::TangibleReachabilityGraph& graph = solved.solution.explored.graph;
  if (plan.toTheEnd) {
    const solver::BottomComponents& b = solved.solution.absorption->bottoms;
    std::vector<char> ends(b.componentOf.size());
    for (std::size_t s = 0; s < ends.size(); ++s)
      ends[s] = b.componentOf[s] != solver::BottomComponents::kTransient;
    return solveTimeToEnd(model, request, graph, ends, interrupt);
  }
  const Eigen::VectorXd pi = solver::onEveryState(
      graph.stateCount(), solved.solution.structure.recurrent, solved.solution.steadyState.pi);
  return solvePassages(model, plan, request, graph, pi, metrics, interrupt);
}

}  // namespace

nlohmann::ordered_json AbsorptionSolution::solverJson() const {
  nlohmann::ordered_json out = {{"method", nullptr},
                                {"iterations", iterations},
                                {"residual", residual},
                                {"seconds", seconds}};
  if (method) out["method"] = solver::toString(*method);
  return out;
}

nlohmann::ordered_json AbsorptionSolution::json() const {
  using json = nlohmann::ordered_json;
  const auto value = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json out = {
      {"structure", structure},
      {"transient_markings", transientMarkings},
      {"time",
       {{"mean", meanTime}, {"variance", variance}, {"standard_deviation", std::sqrt(variance)}}}};
  json& ends = out["components"] = json::array();
  for (const EndComponent& c : components) {
    ends.push_back({{"marking", c.marking},
                    {"markings", c.markings},
                    {"dead", c.dead},
                    {"probability", c.probability}});
    if (c.results) ends.back()["results"] = resultsJson(std::nullopt, *c.results);
  }
  if (accumulated) {
    json places = json::object(), transitions = json::object(), measures = json::object();
    for (const auto& [name, v] : accumulated->meanTokens) places[name] = {{"token_time", value(v)}};
    for (const auto& [name, v] : accumulated->throughput)
      transitions[name] = {{"firings", value(v)}};
    for (const auto& [name, v] : accumulated->measures) measures[name] = value(v);
    out["accumulated"] = {{"places", std::move(places)},
                          {"transitions", std::move(transitions)},
                          {"measures", std::move(measures)}};
  }
  return out;
}

namespace {

/// The requests that cannot go together; each is a SettingError.
void checkRequests(const Settings& settings, const TransientRequest& transient,
                   const PassageRequest& passage) {
  settings.check();
  transient.check();
  if (settings.deterministicExact && (!transient.times.empty() || passage.any()))
    throw SettingError("deterministic",
                       "exact is for the steady state: transient measures and response-time "
                       "distributions treat every delay as exponential");
  if (transient.only && passage.any())
    throw SettingError("transient_only",
                       "response-time distributions start from the steady state; drop one");
}

/// api::solve's stages, run in order on one model: the chain (exploration, lumping,
/// structure, steady state or absorption, transient: solver::solveNet), then the DSPN, the
/// ends of a chain that ends, the measures, the transient measures, the response-time
/// distributions. Each stage reads what the stages before it left and fills `out`.
class SolveStages {
 public:
  SolveStages(const Model& model, const Settings& settings, const TransientRequest& transient,
              const PassageRequest& passage)
      : model_(model), settings_(settings), transient_(transient), passage_(passage) {
    if (passage.any()) passagePlan_ = planPassages(model, passage);
    net_ = passagePlan_ ? &passagePlan_->net(model) : &model.net();
  }

  /// Explores the net (lumped by the model's symmetry where it may be) and solves its
  /// chain; throws the typed failure of a stage that stopped short.
  void solveChain(const ExploredHook& explored) {
    const gspn::Net& net = *net_;
    // The time until the chain ends (a batch's makespan, a raw net's time to absorption):
    // from the initial marking, into ends that a symmetry maps onto ends, so it lumps.
    const bool toTheEnd = passagePlan_ && passagePlan_->toTheEnd;
    plan_.exploration = explorationSettings(net, settings_);
    group_ = lumpingGroup(
        model_, net, settings_,
        symmetryQuestion(passagePlan_.has_value() && !toTheEnd, bool(explored), settings_),
        out_.symmetry);
    if (group_) plan_.exploration.symmetry = &*group_;
    plan_.steadyState = steadyStateSettings(settings_);
    if (!transient_.times.empty()) plan_.transient = transientSettingsOf(transient_, settings_);
    // The DSPN's solution checks the structure itself, and passages between conditions
    // start from a steady state.
    plan_.absorption = !settings_.deterministicExact && (!passagePlan_ || toTheEnd);
    plan_.keepEdges = passagePlan_.has_value();
    plan_.explored = explored;
    solved_ = solver::solveNet(net, plan_);
    try {
      throwIfUnanswered(model_, net, *solved_, plan_.exploration, settings_, transient_,
                        passagePlan_);
    } catch (const StateLimitError& e) {
      const std::string offer = meanFieldOffer();
      if (offer.empty()) throw;
      StateLimitError offered(e.status(), e.states(), e.data(), e.headline(),
                              e.detail() + (e.detail().empty() ? "" : "\n") + offer);
      offered.offerMeanField();
      throw offered;
    } catch (const MemoryLimitError& e) {
      const std::string offer = meanFieldOffer();
      if (offer.empty()) throw;
      MemoryLimitError offered(e.states(), e.limitBytes(), e.headline(),
                               e.detail() + (e.detail().empty() ? "" : "\n") + offer);
      offered.offerMeanField();
      throw offered;
    }
    if (group_) countUnlumped(graph().markings, *group_, out_.symmetry);
    out_.name = model_.name();
    out_.system = model_.compiled.has_value();
    out_.transientOnly = transient_.only;
  }

  /// What a chain too large for the limits of a model with interchangeable replicas can
  /// do instead: the mean-field approximation (docs/meanfield.md); empty for other models.
  std::string meanFieldOffer() const {
    for (const SymmetryReport::Factor& f : out_.symmetry.lumped)
      if (f.kind == gspn::SymmetryFactor::Kind::Symmetric)
        return "  the " + std::to_string(f.blocks) + " replicas of " + f.label +
               " make the chain grow with their number, even lumped: --method mean-field "
               "answers it approximately at any number of them, in milliseconds, beside "
               "exact answers at sizes that fit (docs/meanfield.md)";
    return "";
  }

  /// With Settings::deterministicExact: the DSPN solved on the explored graph, whose
  /// measures replace the exponential chain's.
  void solveDeterministic() {
    if (!settings_.deterministicExact) return;
    solver::DspnSettings dspnSettings;
    dspnSettings.embedded = steadyStateSettings(settings_);
    dspnSettings.run = settings_.run;
    dspn_ = solver::solveDspn(*net_, graph(), dspnSettings);
    throwIfFailed(*dspn_, settings_);
    dspnMeasures_.emplace(*net_, graph(), *dspn_);
    out_.deterministic = deterministicSolution(*dspn_);
  }

  /// A chain that ends: its ends, how likely each, the time to reach them; a batch's ends
  /// checked to be the ends of its last iteration.
  void solveEnds() {
    if (!solved_->solution.absorption) return;
    out_.absorption = absorptionSolution(*net_, *solved_, plan_.exploration.symmetry,
                                         !model_.compiled.has_value());
    if (model_.isBatch()) checkBatchEnds(*model_.compiled, *net_, *solved_);
  }

  /// The metrics of a system or the measures of a raw net, under π, the DSPN's
  /// distribution, a chain's long run, or (a batch) averaged over the run; none when only
  /// the transient was solved. Throws UndefinedMeasureError for a measure without value in
  /// a chain that repeats.
  void computeMeasures() {
    const bool batch = model_.isBatch();
    const gspn::Symmetry* symmetry = plan_.exploration.symmetry;
    std::optional<gspn::SymmetricMeasures> symmetric;
    std::optional<OverTheRun> overTheRun;
    if (batch && solved_->accumulated && out_.absorption->meanTime > 0) {
      // A batch's metrics: averages over its run.
      symmetric.emplace(*solved_->accumulated, symmetry);
      overTheRun.emplace(*symmetric, out_.absorption->meanTime);
    } else if (solved_->measures && (!solved_->solution.absorption || !model_.compiled)) {
      // A system's metrics are for a chain that repeats (response times by Little's law).
      symmetric.emplace(*solved_->measures, symmetry);
    }
    const gspn::MeasureSource* measures =
        dspnMeasures_ ? static_cast<const gspn::MeasureSource*>(&*dspnMeasures_)
        : overTheRun  ? static_cast<const gspn::MeasureSource*>(&*overTheRun)
        : symmetric   ? static_cast<const gspn::MeasureSource*>(&*symmetric)
                      : nullptr;
    if (measures) {  // else no steady state: the transient measures only
      if (model_.compiled)
        out_.metrics = compiler::computeMetrics(*model_.compiled, *measures);
      else
        out_.values = netMeasures(*net_, *measures);
    }
    if (overTheRun) out_.metrics->application.makespan = out_.absorption->meanTime;
    // A measure that divides by a quantity that is 0 in steady state (a throughput of a
    // transition that never fires, a probability of an impossible condition) has no value.
    // In the long run of a chain that ends, one that ends in a dead marking is a common
    // case: it is reported as undefined there.
    if (!out_.absorption)
      for (const auto& [name, value] : out_.values.measures)
        if (!std::isfinite(value)) throw UndefinedMeasureError(name, value);
  }

  /// The measures at each requested time; the distributions are dropped once read.
  void computeTransient() {
    if (!solved_->solution.transientResult) return;
    out_.transient = transientSolution(model_, transient_, *solved_->solution.transientResult,
                                       solved_->transientMeasures, plan_.exploration.symmetry);
    solved_->transientMeasures.clear();
    solved_->solution.transientResult.reset();
  }

  /// The response-time distributions, from the steady state.
  void solvePassages() {
    if (passagePlan_)
      out_.passages = passagesOf(model_, *passagePlan_, passage_, *solved_, out_.metrics,
                                 settings_.run.interrupt);
  }

  /// The solution, with the chain's own and the run's figures.
  Solution finish() {
    out_.chain = std::move(solved_->solution);
    out_.declaredDelays = net_->declaredDelayCount();
    out_.phases = model_.phases;
    out_.peakMemoryMegabytes = peakMemoryMegabytes();
    return std::move(out_);
  }

 private:
  const gspn::TangibleReachabilityGraph& graph() const { return solved_->solution.explored.graph; }

  const Model& model_;
  const Settings& settings_;
  const TransientRequest& transient_;
  const PassageRequest& passage_;
  /// With passages: the net with the restarts tagged (api/passage.hpp), else the model's.
  std::optional<PassagePlan> passagePlan_;
  const gspn::Net* net_ = nullptr;
  std::optional<gspn::Symmetry> group_;  ///< the lumping, when the model has one
  solver::SolvePlan plan_;
  std::unique_ptr<solver::SolvedNet> solved_;
  std::optional<solver::DspnSolution> dspn_;
  std::optional<solver::DspnMeasures> dspnMeasures_;
  Solution out_;
};

}  // namespace

Solution solve(const Model& model, const Settings& settings, const ExploredHook& explored,
               const TransientRequest& transient, const PassageRequest& passage) {
  checkRequests(settings, transient, passage);
  SolveStages stages(model, settings, transient, passage);
  stages.solveChain(explored);
  stages.solveDeterministic();
  stages.solveEnds();
  stages.computeMeasures();
  stages.computeTransient();
  stages.solvePassages();
  return stages.finish();
}

nlohmann::ordered_json Solution::json() const {
  using json = nlohmann::ordered_json;
  const gspn::TangibleReachabilityGraph& graph = chain.explored.graph;
  json out = schemaTag("solve");
  out[isSystem() ? "system" : "net"] = name;
  out["states"] = {{"tangible", graph.stateCount()},
                   {"vanishing", graph.vanishingCount},
                   {"transient", chain.structure.transientCount},
                   {"edges", graph.edgeCount()},
                   {"bytes_per_edge", graph.bytesPerEdge}};
  if (!symmetry.empty()) out["states"]["symmetry"] = symmetry.json();
  if (!hasSteadyState()) {
    out["solver"] = {{"exploration_seconds", chain.explorationSeconds},
                     {"peak_memory_mb", peakMemoryMegabytes}};
    if (absorption) out["solver"]["absorption"] = absorption->solverJson();
    if (transient) out["solver"]["transient"] = transient->solverJson();
    if (absorption) out["absorption"] = absorption->json();
    if (hasResults())
      out.update(results());
    else
      out["no_steady_state"] = noSteadyState();
    if (transient) out["transient"] = transient->pointsJson();
    if (passages) out["response_time_distributions"] = passages->json();
    return out;
  }
  out["solver"] = {{"method", solver::toString(chain.steadyState.method)},
                   {"iterations", chain.steadyState.iterations},
                   {"residual", chain.steadyState.residual},
                   {"flow_imbalance", chain.steadyState.imbalance},
                   {"aggregations", chain.steadyState.aggregations},
                   {"exploration_seconds", chain.explorationSeconds},
                   {"solution_seconds", chain.steadyState.seconds},
                   {"peak_memory_mb", peakMemoryMegabytes}};
  if (chain.steadyState.errorEstimate > 0)
    out["solver"]["error_estimate"] = std::isfinite(chain.steadyState.errorEstimate)
                                          ? nlohmann::ordered_json(chain.steadyState.errorEstimate)
                                          : nlohmann::ordered_json();
  if (!chain.steadyState.note.empty()) out["solver"]["note"] = chain.steadyState.note;
  if (declaredDelays && !deterministic)
    out["solver"]["delays_note"] = declaredDelayNote(declaredDelays);
  if (deterministic) out["solver"]["deterministic"] = deterministic->json();
  if (transient) out["solver"]["transient"] = transient->solverJson();
  if (!phases.empty()) out["phases"] = phasesJson(phases);
  out.update(results());
  if (transient) out["transient"] = transient->pointsJson();
  if (passages) out["response_time_distributions"] = passages->json();
  return out;
}

}  // namespace mmt::api
