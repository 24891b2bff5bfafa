#include "api/passage.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include "api/errors.hpp"
#include "api/settings.hpp"
#include "gspn/writers.hpp"
#include "solver/passage.hpp"

namespace mmt::api {

void PassageRequest::check() const {
  for (double t : times)
    if (!(t >= 0) || !std::isfinite(t))
      throw SettingError("cdf_at", "each time must be a finite number at least 0");
  for (double p : percentiles)
    if (!(p > 0 && p < 100)) throw SettingError("percentiles", "each must lie in (0, 100)");
  if (!(epsilon > 0 && epsilon < 0.5)) throw SettingError("passage_error", "must be in (0, 0.5)");
  if (from.empty() != to.empty())
    throw SettingError(from.empty() ? "from" : "to", std::string("must be given with ") +
                                                         (from.empty() ? "--to" : "--from") +
                                                         ": a passage has a start and an end");
}

namespace {

/// A number of the JSON output: null when it is not finite.
nlohmann::ordered_json number(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

/// By state of `graph` (of a net of `places` places): where `holds` is true of the marking.
template <typename Holds>
std::vector<char> statesWhere(const gspn::TangibleReachabilityGraph& graph, std::size_t places,
                              Holds holds) {
  std::vector<char> out(graph.stateCount());
  std::vector<gspn::Tokens> marking(places);
  for (std::uint32_t s = 0; s < graph.stateCount(); ++s) {
    graph.markings.decode(s, marking);
    out[s] = holds(gspn::MarkingView(marking.data(), marking.size()));
  }
  return out;
}

PassageDistribution named(std::string section, std::string element) {
  PassageDistribution out;
  out.section = std::move(section);
  out.element = std::move(element);
  return out;
}

/// Solves one passage and fills `out` from it.
void fill(const gspn::TangibleReachabilityGraph& graph,
          const std::vector<std::pair<std::uint32_t, double>>& entrance,
          const solver::PassageEnd& end, const PassageRequest& request,
          const std::atomic<bool>* interrupt, PassageSolution& solution, PassageDistribution& out) {
  solver::PassageSettings settings;
  settings.times = request.times;
  for (double p : request.percentiles) settings.quantiles.push_back(p / 100);
  settings.epsilon = request.epsilon;
  settings.run.interrupt = interrupt;
  const solver::PassageResult r = solver::solvePassage(graph, entrance, end, settings);
  solution.iterations += r.iterations;
  if (r.status == solver::Status::Interrupted)
    throw InterruptedError("interrupted while computing the response-time distributions (" +
                           std::to_string(solution.iterations) + " iterations)");
  out.mean = r.mean;
  out.reached = r.reached;
  out.cdf = r.distribution;
  out.percentiles = r.quantiles;
}

}  // namespace

nlohmann::ordered_json PassageSolution::json() const {
  using json = nlohmann::ordered_json;
  json list = json::array();
  for (const PassageDistribution& d : distributions) {
    json entry = {{"section", d.section}, {"element", d.element}};
    if (!d.unavailable.empty()) {
      entry["unavailable"] = d.unavailable;
      list.push_back(std::move(entry));
      continue;
    }
    entry["mean"] = number(d.mean);
    entry["reached"] = d.reached;
    json cdf = json::array(), quantiles = json::array();
    for (std::size_t i = 0; i < d.cdf.size(); ++i)
      cdf.push_back({{"time", times[i]}, {"probability", d.cdf[i]}});
    for (std::size_t i = 0; i < d.percentiles.size(); ++i)
      quantiles.push_back({{"percentile", percentiles[i]}, {"time", number(d.percentiles[i])}});
    entry["cdf"] = std::move(cdf);
    entry["percentiles"] = std::move(quantiles);
    list.push_back(std::move(entry));
  }
  return {{"method", "uniformization"},
          {"error_bound", epsilon},
          {"tagged", tagged.empty() ? json(nullptr) : json(tagged)},
          {"iterations", iterations},
          {"seconds", seconds},
          {"distributions", std::move(list)}};
}

namespace {

/// The stems of percentile keys: "response_time" + "_p" + 95.
constexpr std::string_view kPercentileStems[] = {"response_time", "makespan"};

}  // namespace

std::optional<double> percentileOf(const std::string& path) {
  std::size_t at = std::string::npos, length = 0;
  for (std::string_view stem : kPercentileStems) {
    const std::string key = std::string(stem) + "_p";
    if (const std::size_t found = path.rfind(key);
        found != std::string::npos && (found == 0 || path[found - 1] == '.')) {
      at = found;
      length = key.size();
    }
  }
  if (at == std::string::npos) return std::nullopt;
  const std::string number = path.substr(at + length);
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos)
    return std::nullopt;
  try {
    return std::stod(number);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void addPercentiles(nlohmann::ordered_json& tree, const PassageSolution& passages) {
  for (const PassageDistribution& d : passages.distributions) {
    if (!d.unavailable.empty() || d.section == "passage" || d.section == "absorption") continue;
    nlohmann::ordered_json& node =
        d.section == "application" ? tree[d.section] : tree[d.section][d.element];
    for (std::size_t i = 0; i < passages.percentiles.size(); ++i)
      node[d.quantity + "_p" + gspn::formatNumber(passages.percentiles[i])] =
          number(d.percentiles[i]);
  }
}

PassagePlan planPassages(const Model& model, const PassageRequest& request) {
  request.check();
  PassagePlan plan;
  if (!model.compiled) {
    if (request.from.empty()) {
      plan.toTheEnd = true;  // the time to absorption, if the chain ends
      return plan;
    }
    plan.from = readCondition(model.net(), request.from, "--from");
    plan.to = readCondition(model.net(), request.to, "--to");
    return plan;
  }
  if (!request.from.empty())
    throw SettingError("from",
                       "must not be given for a system (--from and --to are for raw nets): a "
                       "system's distributions are its application's and actors' response times");
  const compiler::CompiledSystem& c = *model.compiled;
  const compiler::Workload& w = c.system.workload;
  if (w.kind == compiler::Workload::Kind::Batch) {
    plan.toTheEnd = true;  // the makespan
    return plan;
  }
  std::string why;
  if (c.system.actors.empty())
    why = "this system has no actors: its skeletons' items overlap in their stages";
  else if (w.kind != compiler::Workload::Kind::Closed || w.population != 1)
    why = "this system's iterations overlap (its workload is not closed(1))";
  else if (!c.ports.workload.restart)
    why = "this application is cyclic: no source or sink actor starts or ends an iteration";
  if (!why.empty())
    throw SettingError("percentiles",
                       "response-time distributions are computed for a closed(1) workload of "
                       "source and sink actors (and the makespan's for a batch); " +
                           why +
                           ", and one iteration's distribution would need a tagged token, which "
                           "mmt does not build");
  plan.tagged = gspn::tagFirings(c.net, *c.ports.workload.restart);
  return plan;
}

PassageSolution solveTimeToEnd(const Model& model, const PassageRequest& request,
                               const gspn::TangibleReachabilityGraph& graph,
                               const std::vector<char>& ends, const std::atomic<bool>* interrupt) {
  const auto start = std::chrono::steady_clock::now();
  PassageSolution out;
  out.times = request.times;
  out.percentiles = request.percentiles;
  out.epsilon = request.epsilon;
  PassageDistribution d = model.compiled ? named("application", model.name())
                                         : named("absorption", "time to absorption");
  d.quantity = model.compiled ? "makespan" : "time_to_absorption";
  fill(graph, graph.initial, solver::PassageEnd::entering(ends), request, interrupt, out, d);
  out.distributions.push_back(std::move(d));
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

PassageSolution solvePassages(const Model& model, const PassagePlan& plan,
                              const PassageRequest& request,
                              const gspn::TangibleReachabilityGraph& graph,
                              const Eigen::VectorXd& pi,
                              const std::optional<compiler::SystemMetrics>& metrics,
                              const std::atomic<bool>* interrupt) {
  const auto start = std::chrono::steady_clock::now();
  PassageSolution out;
  out.times = request.times;
  out.percentiles = request.percentiles;
  out.epsilon = request.epsilon;
  const std::size_t places = plan.net(model).placeCount();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  if (!model.compiled) {
    PassageDistribution d = named("passage", request.from + " -> " + request.to);
    const auto from =
        statesWhere(graph, places, [&](gspn::MarkingView m) { return plan.from.evaluate(m) != 0; });
    const auto end = solver::PassageEnd::entering(
        statesWhere(graph, places, [&](gspn::MarkingView m) { return plan.to.evaluate(m) != 0; }));
    try {
      fill(graph, solver::entranceDistribution(graph, pi, from), end, request, interrupt, out, d);
    } catch (const std::invalid_argument& e) {
      d.unavailable = e.what();
    }
    out.distributions.push_back(std::move(d));
    out.seconds = seconds();
    return out;
  }

  const compiler::CompiledSystem& c = *model.compiled;
  out.tagged = c.net.transition(*c.ports.workload.restart).name;
  {  // The application: from one restart to the next.
    PassageDistribution d = named("application", c.system.name);
    const auto end = solver::PassageEnd::along(gspn::parityEdges(graph, plan.tagged->odd));
    fill(graph, solver::entranceAlong(graph, pi, end.edges), end, request, interrupt, out, d);
    out.distributions.push_back(std::move(d));
  }
  for (compiler::Index a = 0; a < c.system.actors.size(); ++a) {
    const compiler::ActorPorts& p = c.ports.actors[a];
    PassageDistribution d = named("actors", c.system.actors[a].name);
    // Input sets complete (the least of the ready places) plus executions.
    const auto population = [&](gspn::MarkingView m) {
      gspn::Tokens least = m[p.ready[0]];
      for (gspn::PlaceId r : p.ready) least = std::min(least, m[r]);
      return std::uint64_t(least) + m[p.running];
    };
    std::uint64_t most = 0;
    std::vector<gspn::Tokens> marking(places);
    for (std::uint32_t s = 0; s < graph.stateCount(); ++s)
      if (pi[Eigen::Index(s)] > 0) {
        graph.markings.decode(s, marking);
        most = std::max(most, population(gspn::MarkingView(marking)));
      }
    const double little =
        metrics ? metrics->actors[a].responseTime : std::numeric_limits<double>::quiet_NaN();
    if (most > 1) {
      d.unavailable = "its executions overlap (up to " + std::to_string(most) +
                      " input sets at once): one execution's distribution would need a "
                      "tagged token";
    } else {
      const auto busy =
          statesWhere(graph, places, [&](gspn::MarkingView m) { return population(m) > 0; });
      const auto end = solver::PassageEnd::entering(
          statesWhere(graph, places, [&](gspn::MarkingView m) { return population(m) == 0; }));
      try {
        fill(graph, solver::entranceDistribution(graph, pi, busy), end, request, interrupt, out, d);
        // One sojourn per execution unless the next input set arrives as one ends.
        if (!(std::abs(d.mean - little) <= 1e-6 * little)) {
          const std::string why =
              "its input sets follow one another without a gap (a sojourn of mean " +
              gspn::formatNumber(d.mean) + " against the response time " +
              gspn::formatNumber(little) +
              "): one execution's distribution would need a tagged token";
          d = named("actors", c.system.actors[a].name);
          d.unavailable = why;
        }
      } catch (const std::invalid_argument&) {  // never entered: never idle
        d.unavailable =
            "it is never idle: its next input set arrives as an execution ends, so one "
            "execution's sojourn cannot be told from the next (the application's "
            "distribution covers it)";
      }
    }
    out.distributions.push_back(std::move(d));
  }
  out.seconds = seconds();
  return out;
}

}  // namespace mmt::api
