#include "api/results.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

namespace mmt::api {

namespace {

/// Rebuilds `shape` with each number replaced by leaf(path, value, nodes): `nodes` are the
/// subtrees at the same path ("actors.A1.throughput") in each of `trees`, which must have
/// the keys of `shape` (std::invalid_argument names a missing one).
using Json = nlohmann::ordered_json;
using LeafFunction =
    std::function<Json(const std::string&, const Json&, const std::vector<const Json*>&)>;
Json zipTrees(const Json& shape, const std::vector<const Json*>& trees, const LeafFunction& leaf,
              const std::string& path = "") {
  if (!shape.is_object()) return leaf(path, shape, trees);
  Json out = Json::object();
  for (const auto& [key, child] : shape.items()) {
    const std::string childPath = path.empty() ? key : path + "." + key;
    std::vector<const Json*> children;
    for (const Json* t : trees) {
      if (!t->contains(key))
        throw std::invalid_argument("a result tree has no '" + childPath + "'");
      children.push_back(&t->at(key));
    }
    out[key] = zipTrees(child, children, leaf, childPath);
  }
  return out;
}

}  // namespace

bool isLittle(const std::string& metric) {
  return metric == "response_time" || metric == "synchronization_delay" ||
         metric == "blocking_time";
}

NetMeasures netMeasures(const gspn::Net& net, const gspn::MeasureSource& source) {
  NetMeasures out;
  for (gspn::PlaceId p = 0; p < net.placeCount(); ++p)
    out.meanTokens.emplace_back(net.place(p).name, source.meanTokens(p));
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t)
    out.throughput.emplace_back(net.transition(t).name, source.throughput(t));
  if (net.unfolded()) {
    // Sums by group, each group where the net first names it.
    auto sums = [](const auto& elements, const auto& values) {
      std::vector<std::pair<std::string, double>> out;
      std::map<std::string, std::size_t> at;
      for (std::size_t i = 0; i < elements.size(); ++i) {
        const auto [it, fresh] = at.emplace(elements[i].group, out.size());
        if (fresh) out.emplace_back(elements[i].group, 0.0);
        out[it->second].second += values[i].second;
      }
      return out;
    };
    out.colouredMeanTokens = sums(net.places(), out.meanTokens);
    out.colouredThroughput = sums(net.transitions(), out.throughput);
  }
  const std::vector<double> values = gspn::evaluateMeasures(net, source);
  for (std::size_t i = 0; i < values.size(); ++i)
    out.measures.emplace_back(net.measures()[i].name, values[i]);
  return out;
}

nlohmann::ordered_json applicationJson(const compiler::ApplicationMetrics& a) {
  nlohmann::ordered_json out = {{"throughput", a.throughput}};
  if (a.responseTime) out["response_time"] = *a.responseTime;
  if (a.arrivalRate) out["arrival_rate"] = *a.arrivalRate;
  if (a.lossProbability) out["loss_probability"] = *a.lossProbability;
  if (a.makespan) out["makespan"] = *a.makespan;
  return out;
}

NamedResults namedResults(const std::optional<compiler::SystemMetrics>& metrics,
                          const NetMeasures& net) {
  NamedResults out;
  auto add = [&](std::vector<std::string> path, double value) {
    out.numbers.push_back({std::move(path), value});
  };
  if (!metrics) {
    out.sections = {"places", "transitions", "measures"};
    if (!net.colouredMeanTokens.empty())
      out.sections.insert(out.sections.begin(), {"coloured_places", "coloured_transitions"});
    for (const auto& [name, v] : net.colouredMeanTokens)
      add({"coloured_places", name, "mean_tokens"}, v);
    for (const auto& [name, v] : net.colouredThroughput)
      add({"coloured_transitions", name, "throughput"}, v);
    for (const auto& [name, v] : net.meanTokens) add({"places", name, "mean_tokens"}, v);
    for (const auto& [name, v] : net.throughput) add({"transitions", name, "throughput"}, v);
    for (const auto& [name, v] : net.measures) add({"measures", name}, v);
    return out;
  }
  const auto& m = *metrics;
  out.sections = {"application"};
  // The application's metrics that its workload defines.
  const compiler::ApplicationMetrics& a = m.application;
  add({"application", "throughput"}, a.throughput);
  if (a.responseTime) add({"application", "response_time"}, *a.responseTime);
  if (a.arrivalRate) add({"application", "arrival_rate"}, *a.arrivalRate);
  if (a.lossProbability) add({"application", "loss_probability"}, *a.lossProbability);
  if (a.makespan) add({"application", "makespan"}, *a.makespan);
  if (!m.skeletons.empty()) {
    out.sections.insert(out.sections.end(), {"skeletons", "tasks"});
    for (const auto& k : m.skeletons) {
      add({"skeletons", k.name, "throughput"}, k.throughput);
      add({"skeletons", k.name, "response_time"}, k.responseTime);
    }
    for (const auto& t : m.tasks) {
      add({"tasks", t.name, "throughput"}, t.throughput);
      add({"tasks", t.name, "utilization"}, t.utilization);
      add({"tasks", t.name, "blocked"}, t.blocked);
      add({"tasks", t.name, "blocking_time"}, t.blockingTime);
    }
  }
  out.sections.insert(out.sections.end(), {"actors", "processors", "messages", "links"});
  for (const auto& x : m.actors) {
    add({"actors", x.name, "throughput"}, x.throughput);
    add({"actors", x.name, "response_time"}, x.responseTime);
    add({"actors", x.name, "synchronization_delay"}, x.synchronizationDelay);
  }
  auto stations = [&](const char* section, const std::vector<compiler::StationMetrics>& list) {
    for (const auto& st : list) {
      add({section, st.name, "utilization"}, st.utilization);
      add({section, st.name, "throughput"}, st.throughput);
      add({section, st.name, "queue_length"}, st.queueLength);
      add({section, st.name, "response_time"}, st.responseTime);
    }
  };
  stations("processors", m.processors);
  for (const auto& msg : m.messages) {
    add({"messages", msg.name, "throughput"}, msg.throughput);
    add({"messages", msg.name, "response_time"}, msg.responseTime);
  }
  stations("links", m.links);
  return out;
}

nlohmann::ordered_json resultsTree(const NamedResults& results,
                                   const std::function<nlohmann::ordered_json(std::size_t)>& leaf) {
  using json = nlohmann::ordered_json;
  json out = json::object();
  for (const std::string& section : results.sections) out[section] = json::object();
  for (std::size_t i = 0; i < results.numbers.size(); ++i) {
    json* node = &out;
    const auto& path = results.numbers[i].path;
    for (std::size_t k = 0; k + 1 < path.size(); ++k) node = &(*node)[path[k]];
    (*node)[path.back()] = leaf(i);
  }
  return out;
}

std::string pathText(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

nlohmann::ordered_json resultsJson(const std::optional<compiler::SystemMetrics>& metrics,
                                   const NetMeasures& net) {
  const NamedResults results = namedResults(metrics, net);
  return resultsTree(
      results, [&](std::size_t i) { return nlohmann::ordered_json(results.numbers[i].value); });
}

sim::Sample resultsSample(const NamedResults& results) {
  sim::Sample out;
  for (const NamedNumber& n : results.numbers) out.push_back(n.value);
  return out;
}

std::string declaredDelayNote(std::size_t declaredDelays) {
  return std::to_string(declaredDelays) + " timed transition" +
         (declaredDelays == 1 ? " declares" : "s declare") +
         " a non-exponential delay; the CTMC uses only the means (exponential delays). "
         "'mmt simulate' samples the declared distributions.";
}

nlohmann::ordered_json schemaTag(const std::string& command) {
  return {{"schema", "mmt/" + command + "/" + std::to_string(kJsonMajor)}};
}

nlohmann::ordered_json phasesJson(const std::vector<gspn::PhaseExpansion>& phases) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const gspn::PhaseExpansion& e : phases)
    out.push_back({{"transition", e.transition},
                   {"declared", e.declared},
                   {"phases", e.phases},
                   {"declared_cv2", e.declaredCv2},
                   {"reached_cv2", e.reachedCv2}});
  return out;
}

IntervalSummary intervalSummary(const NamedResults& names, const sim::SampleSummary& summary,
                                std::size_t replications) {
  using json = nlohmann::ordered_json;
  IntervalSummary out;
  out.numbers = summary.numbers.size();
  out.imprecise = summary.imprecise;
  out.worstRelative = summary.worstRelative;
  if (summary.worst) out.worstPath = pathText(names.numbers[*summary.worst].path);
  out.undefined = summary.undefined;
  if (summary.firstUndefined)
    out.undefinedPath = pathText(names.numbers[*summary.firstUndefined].path);
  out.tree = resultsTree(names, [&](std::size_t i) {
    const sim::NumberSummary& n = summary.numbers[i];
    if (n.undefinedIn == 0) {
      // No half-width: a run with no interval (sim::Schedule::Kind::Aperiodic).
      if (std::isnan(n.estimate.halfWidth))
        return json{{"mean", n.estimate.mean}, {"half_width", nullptr}};
      return json{{"mean", n.estimate.mean}, {"half_width", n.estimate.halfWidth}};
    }
    // Undefined in only some replications: longer ones would help. In all of them: an
    // element that never completes (a processor without actors), which is no fault.
    const bool measure = names.numbers[i].path.front() == "measures";
    return json{{"mean", nullptr},
                {"half_width", nullptr},
                {"undefined", std::string(measure ? "undefined" : "no completions") + " in " +
                                  std::to_string(n.undefinedIn) + " of " +
                                  std::to_string(replications) + " replications"}};
  });
  return out;
}

ComparisonTree compareTrees(const nlohmann::ordered_json& exact,
                            const std::vector<ComparedColumn>& columns,
                            const std::vector<SolvedColumn>& solved) {
  using json = nlohmann::ordered_json;
  ComparisonTree out;
  for (const SolvedColumn& c : solved) out.solved.push_back(c.name);
  for (const ComparedColumn& c : columns) {
    out.columns.push_back(c.name);
    out.exact.push_back(c.exact);
  }
  auto leaf = [&](const std::string& path, const json& node, const std::vector<const json*>& all) {
    const double x = node.get<double>();
    json cell{{"exact", x}};
    const std::size_t first = solved.size();
    for (std::size_t i = 0; i < first; ++i) cell[solved[i].name] = *all[i];
    const std::vector<const json*> simulated(all.begin() + first, all.end());
    for (std::size_t i = 0; i < columns.size(); ++i) cell[columns[i].name] = *simulated[i];
    ++out.numbers;
    bool outside = false;
    if (!simulated.empty() && !simulated[0]->contains("undefined") &&
        !simulated[0]->at("half_width").is_null() && !std::isnan(x)) {
      const double mean = simulated[0]->at("mean").get<double>();
      const double halfWidth = simulated[0]->at("half_width").get<double>();
      // A zero-width interval (a metric that never varies) still allows rounding.
      outside = std::abs(x - mean) > std::max(halfWidth, 1e-9 * std::max(1.0, std::abs(x)));
    }
    cell["outside"] = outside;
    if (outside) out.outside.push_back(path);
    return cell;
  };
  std::vector<const json*> trees;
  for (const SolvedColumn& c : solved) trees.push_back(c.tree);
  for (const ComparedColumn& c : columns) trees.push_back(c.tree);
  out.tree = zipTrees(exact, trees, leaf);
  return out;
}

}  // namespace mmt::api
