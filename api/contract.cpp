#include "api/contract.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "api/meanfield.hpp"
#include "api/solve.hpp"
#include "compiler/bounds.hpp"

namespace mmt::api {

bool Requirement::met(double x) const {
  return op == ">=" ? x >= bound : op == ">" ? x > bound : op == "<=" ? x <= bound : x < bound;
}

std::optional<double> Requirement::throughputTarget() const {
  if (path != "application.throughput" || (op != ">=" && op != ">")) return std::nullopt;
  return bound;
}

Requirement parseRequirement(const std::string& text) {
  std::istringstream in(text);
  Requirement r;
  std::string number, rest;
  in >> r.path >> r.op >> number;
  std::size_t used = 0;
  if (number == "input") {
    r.fromSurroundings = true;
    used = number.size();
    if (r.path != "application.throughput" || (r.op != ">=" && r.op != ">"))
      throw SettingError("require",
                         "'input' is a throughput target: \"application.throughput >= input\" "
                         "(as fast as the stages around the varied ones allow), got '" +
                             text + "'");
  } else {
    try {
      r.bound = std::stod(number, &used);
    } catch (const std::exception&) {
      used = 0;
    }
  }
  if (r.path.empty() || (r.op != ">=" && r.op != ">" && r.op != "<=" && r.op != "<") || used == 0 ||
      used != number.size() || (in >> rest))
    throw SettingError("require",
                       "expected 'PATH OP NUMBER' with OP one of >= > <= < (NUMBER may be "
                       "'input' for application.throughput), e.g. "
                       "\"application.throughput >= 5\", got '" +
                           text + "'");
  return r;
}

namespace {

Model modelAt(const Model& base, const std::string& name, double value) {
  Parameters point = base.parameters;
  point[name] = value;
  return base.at(point);
}

std::optional<double> boundOf(const Model& model) {
  if (!model.compiled) return std::nullopt;
  return compiler::throughputBound(model.compiled->system, model.compiled->routing);
}

/// A try as bytes (CBOR), for one made in another process.
PointBytes encodeTry(const ContractTry& t) {
  auto optional = [](const std::optional<double>& x) {
    return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
  };
  return nlohmann::json::to_cbor(nlohmann::json{{"value", t.value},
                                                {"ok", t.ok},
                                                {"met", t.met},
                                                {"simulated", t.simulated},
                                                {"mean_field", t.meanField},
                                                {"ruled_out", t.ruledOut},
                                                {"metric", t.metric},
                                                {"half_width", optional(t.halfWidth)},
                                                {"bound", optional(t.bound)},
                                                {"states", t.states},
                                                {"reason", t.reason},
                                                {"service_time", optional(t.serviceTime)}});
}

ContractTry decodeTry(const PointBytes& bytes) {
  const nlohmann::json j = nlohmann::json::from_cbor(bytes);
  auto optional = [&](const char* key) {
    return j.at(key).is_null() ? std::nullopt : std::optional<double>(j.at(key).get<double>());
  };
  ContractTry t;
  t.value = j.at("value").get<double>();
  t.ok = j.at("ok").get<bool>();
  t.met = j.at("met").get<bool>();
  t.simulated = j.at("simulated").get<bool>();
  t.meanField = j.at("mean_field").get<bool>();
  t.ruledOut = j.at("ruled_out").get<bool>();
  t.metric = j.at("metric").get<double>();
  t.halfWidth = optional("half_width");
  t.bound = optional("bound");
  t.states = j.at("states").get<std::size_t>();
  t.reason = j.at("reason").get<std::string>();
  t.serviceTime = optional("service_time");
  return t;
}

/// The try `t` with the requirement's metric read from its results `tree` and judged.
ContractTry judged(ContractTry t, const nlohmann::ordered_json& tree, const Requirement& r) {
  if (const auto v = lookupMetric(tree, r.path)) {
    t.ok = true;
    t.metric = v->value;
    t.halfWidth = v->halfWidth;
    t.met = r.met(v->value);
  } else {
    t.reason = "unknown metric '" + r.path + "'";
  }
  return t;
}

/// One value: built, ruled out by its bound or solved (simulated past the limits), its
/// metric checked; or answered by the mean-field approximation.
ContractTry tryValue(const Model& base, const ContractSettings& settings, double value) {
  ContractTry t;
  t.value = value;
  nlohmann::ordered_json tree;
  try {
    if (settings.meanField) {
      Parameters point = base.parameters;
      point[settings.parameter.name] = value;
      MeanFieldRequest request;
      request.reference = MeanFieldRequest::Reference::None;
      tree = solveMeanField(base.source, point, settings.solver, request).results();
      t.meanField = true;
      return judged(std::move(t), tree, settings.requirement);
    }
    const Model model = modelAt(base, settings.parameter.name, value);
    t.bound = boundOf(model);
    if (t.bound && settings.requirement.throughputTarget() && !settings.requirement.met(*t.bound)) {
      t.ok = t.ruledOut = true;  // an upper bound short of the target: not solved
      return t;
    }
    // A percentile of a response time is computed with the exact solution only.
    PassageRequest passage;
    const std::optional<double> percentile = percentileOf(settings.requirement.path);
    if (percentile) passage.percentiles = {*percentile};
    try {
      const Solution exact = solve(model, settings.solver, {}, {}, passage);
      tree = exact.results();
      if (exact.passages) addPercentiles(tree, *exact.passages);
      t.states = exact.chain.explored.graph.stateCount();
    } catch (const ExplorationError& e) {
      if (!dynamic_cast<const StateLimitError*>(&e) && !dynamic_cast<const MemoryLimitError*>(&e))
        throw;
      if (percentile) {
        t.reason = e.summary() + "; percentiles are computed exactly only, not by simulation";
        return t;
      }
      t.simulated = true;  // too large to solve: simulate it instead
    }
    if (t.simulated) {
      SimulationSettings simulation = settings.simulation;
      simulation.delays = sim::Delays::Exponential;
      tree = simulate(model, simulation).summary.tree;
    }
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    t.simulated = false;
    t.reason = e.summary();
    return t;
  } catch (const SettingError& e) {  // a percentile of a model that has no distribution
    t.reason = e.what();
    return t;
  }
  return judged(std::move(t), tree, settings.requirement);
}

/// The bound's elements of the model's one skeleton, by kind and name.
std::map<std::pair<int, std::string>, compiler::BoundElement> elementsOf(
    const Model& model, std::vector<std::pair<int, std::string>>* order) {
  std::map<std::pair<int, std::string>, compiler::BoundElement> out;
  for (compiler::BoundElement& e :
       compiler::stageTimes(model.compiled->system, model.compiled->routing, 0)) {
    std::pair<int, std::string> key{int(e.kind), e.name};
    if (order) order->push_back(key);
    out.emplace(std::move(key), std::move(e));
  }
  return out;
}

}  // namespace

Surroundings surroundings(const Model& base, const ContractSettings& s) {
  const auto [smallest, largest] =
      std::minmax_element(s.parameter.values.begin(), s.parameter.values.end());
  if (smallest == s.parameter.values.end()) throw SettingError("vary", "no values");
  const Model first = modelAt(base, s.parameter.name, *smallest);
  const Model last = modelAt(base, s.parameter.name, *largest);
  for (const Model* m : {&first, &last})
    if (!m->compiled || m->compiled->system.skeletons.size() != 1 ||
        !m->compiled->system.actors.empty())
      throw SettingError("require",
                         "'input' compares the stages a parameter changes with the stages "
                         "around them: it needs a system of one skeleton (a pipeline, farm, "
                         "deal or map) and no actors");
  std::vector<std::pair<int, std::string>> order;
  const auto low = elementsOf(first, &order);
  const auto high = elementsOf(last, nullptr);
  auto varied = [&](const std::pair<int, std::string>& key) {
    auto it = high.find(key);
    const double a = low.at(key).serviceTime;
    return it == high.end() || std::abs(it->second.serviceTime - a) > 1e-12 * std::max(1.0, a);
  };
  Surroundings out;
  bool seen = false;
  for (const auto& key : order) {
    const compiler::BoundElement& e = low.at(key);
    if (varied(key)) {
      seen = true;
      out.varied.push_back(e.name);
      continue;
    }
    double& time = seen ? out.departureTime : out.arrivalTime;
    std::string& from = seen ? out.departureFrom : out.arrivalFrom;
    if (from.empty() || e.serviceTime > time) {
      time = e.serviceTime;
      from = e.name;
    }
  }
  if (out.varied.empty())
    throw SettingError("vary", "'" + s.parameter.name +
                                   "' changes the service time of no stage, so 'input' has "
                                   "nothing to compare with the stages around it");
  if (s.arrivalTime) out.arrivalTime = *s.arrivalTime, out.arrivalFrom = "given";
  if (s.departureTime) out.departureTime = *s.departureTime, out.departureFrom = "given";
  if (!(out.serviceTime() > 0))
    throw SettingError("require", "the stages around " + out.varied.front() +
                                      " take no time, so 'input' sets no target; give T_A or T_D "
                                      "(--arrival-time, --departure-time)");
  return out;
}

namespace {

/// The largest service time of the varied elements of `model`.
double variedServiceTime(const Model& model, const Surroundings& around) {
  double worst = 0;
  for (const compiler::BoundElement& e :
       compiler::stageTimes(model.compiled->system, model.compiled->routing, 0))
    if (std::find(around.varied.begin(), around.varied.end(), e.name) != around.varied.end())
      worst = std::max(worst, e.serviceTime);
  return worst;
}

nlohmann::ordered_json tryJson(const ContractTry& t) {
  nlohmann::ordered_json j = {{"value", t.value}};
  if (!t.ok) {
    j["failed"] = t.reason;
    return j;
  }
  if (t.serviceTime && !t.met) {
    j["method"] = "service_time";
    j["service_time"] = *t.serviceTime;
    j["met"] = false;
    return j;
  }
  if (t.ruledOut) {
    j["method"] = "bound";
    j["bound"] = *t.bound;
    j["met"] = false;
    return j;
  }
  j["metric"] = t.metric;
  if (t.halfWidth) j["half_width"] = *t.halfWidth;
  j["method"] = t.meanField ? "mean-field" : t.simulated ? "simulate" : "exact";
  if (!t.simulated && !t.meanField) j["tangible_markings"] = t.states;
  if (t.bound) j["bound"] = *t.bound;
  if (t.serviceTime) j["service_time"] = *t.serviceTime;
  j["met"] = t.met;
  return j;
}

/// An `input` target: each value in order, by the varied stages' service time alone, until
/// one keeps up with the surroundings; that one is solved for its metric.
ContractResult contractWithSurroundings(const Model& base, ContractSettings settings,
                                        const std::function<void(const ContractTry&)>& tried) {
  const std::vector<double>& values = settings.parameter.values;
  const std::string& name = settings.parameter.name;
  ContractResult out;
  out.model = base.name();
  out.system = base.isSystem();
  const Surroundings around = surroundings(base, settings);
  settings.requirement.bound = 1 / around.serviceTime();
  settings.linear = true;  // the values in order
  out.surroundings = around;
  for (double value : values) {
    ContractTry t;
    t.value = value;
    try {
      const Model model = modelAt(base, name, value);
      t.serviceTime = variedServiceTime(model, around);
      t.bound = boundOf(model);
      t.ok = true;
      t.met = *t.serviceTime <= around.serviceTime() * (1 + 1e-9);
    } catch (const InterruptedError&) {
      throw;
    } catch (const Error& e) {
      t.reason = e.summary();
    }
    if (t.met) {
      // The answer, solved for the metric the requirement names.
      ContractTry solved = tryValue(base, settings, value);
      solved.serviceTime = t.serviceTime;
      solved.met = solved.ok;
      t = std::move(solved);
    }
    out.tries.push_back(t);
    if (tried) tried(out.tries.back());
    if (t.met) {
      out.answer = out.tries.size() - 1;
      break;
    }
    if (!t.ok && !t.serviceTime) {
      out.failed = out.tries.size() - 1;
      break;
    }
  }
  if (!out.answer && !out.failed) {
    try {
      out.diagnosis = diagnose(modelAt(base, name, values.back()), values.back(), name,
                               settings.requirement.bound, std::nullopt, true);
    } catch (const Error&) {
      // A value that does not compile has no structure to diagnose.
    }
  }
  out.settings = std::move(settings);
  return out;
}

/// Checks a contract's settings, sorts its values and fills in the state limit.
void prepare(const Model& base, ContractSettings& settings) {
  settings.simulation.check();
  if (!settings.solver.maxStates) settings.solver.maxStates = Settings::kUnprovenStateLimit;
  std::vector<double>& values = settings.parameter.values;
  if (values.empty()) throw SettingError("vary", "no values");
  std::sort(values.begin(), values.end());
  if (base.parameters.count(settings.parameter.name))
    throw SettingError("vary", "'" + settings.parameter.name + "' is both varied and set by -D");
  if (settings.meanField && settings.requirement.fromSurroundings)
    throw SettingError("require",
                       "'input' compares the stages each value compiles to; the mean-field "
                       "approximation compiles none at its size: name a number");
  for (const auto& [time, option] : {std::pair{settings.arrivalTime, "arrival-time"},
                                     std::pair{settings.departureTime, "departure-time"}}) {
    if (time && !settings.requirement.fromSurroundings)
      throw SettingError(option, "is T_A or T_D of an 'input' target; the requirement has none");
    if (time && !(std::isfinite(*time) && *time >= 0))
      throw SettingError(option, "must be a time per item, zero or positive");
  }
}

/// True, with `out` impossible and diagnosed at the value of the largest bound, when no
/// value's throughput bound meets the throughput target: a compilation each, nothing
/// solved. False when some value may meet it, or does not compile (its try fails in the
/// search).
bool impossibleByBounds(const Model& base, const ContractSettings& settings, ContractResult& out) {
  const std::vector<double>& values = settings.parameter.values;
  std::optional<std::size_t> widest;  // the value with the largest bound
  std::optional<double> widestBound;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::optional<double> b;
    try {
      b = boundOf(modelAt(base, settings.parameter.name, values[i]));
    } catch (const Error&) {
      // A value that does not compile fails its try in the search.
    }
    if (!b || settings.requirement.met(*b)) return false;
    if (!widestBound || *b >= *widestBound) {
      widest = i;
      widestBound = b;
    }
  }
  out.impossible = true;
  out.diagnosis = diagnose(modelAt(base, settings.parameter.name, values[*widest]), values[*widest],
                           settings.parameter.name, settings.requirement.throughputTarget(),
                           std::nullopt, true);
  return true;
}

/// A contract's search over the sorted values: each value tried at most once, every try
/// in `out.tries` in the order tried and told to `tried`.
struct Search {
  const Model& base;
  const ContractSettings& settings;
  const std::function<void(const ContractTry&)>& tried;
  ContractResult& out;
  std::map<std::size_t, std::size_t> index;  ///< value index -> try index

  const ContractTry& record(std::size_t i, ContractTry t) {
    out.tries.push_back(std::move(t));
    index[i] = out.tries.size() - 1;
    if (tried) tried(out.tries.back());
    return out.tries.back();
  }
  const ContractTry& evaluate(std::size_t i) {
    if (auto it = index.find(i); it != index.end()) return out.tries[it->second];
    return record(i, tryValue(base, settings, settings.parameter.values[i]));
  }

  /// The first value, in order, that meets the requirement.
  std::optional<std::size_t> linear() {
    for (std::size_t i = 0; i < settings.parameter.values.size(); ++i)
      if (evaluate(i).met) return i;
    return std::nullopt;
  }
  /// As linear(), with the values tried on every rank of settings.distribution.
  std::optional<std::size_t> distributed() {
    std::optional<std::size_t> answer;
    settings.distribution->distribute(
        0, settings.parameter.values.size(),
        [&](std::size_t i) {
          return encodeTry(tryValue(base, settings, settings.parameter.values[i]));
        },
        [&](std::size_t i, const PointBytes& bytes) {
          const bool met = record(i, decodeTry(bytes)).met;
          if (met) answer = i;
          return met;
        });
    return answer;
  }
  /// The first value that meets it, assuming every larger one does too; nothing, with
  /// out.failed, when a try fails.
  std::optional<std::size_t> bisect() {
    std::size_t lo = 0, hi = settings.parameter.values.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      const ContractTry& t = evaluate(mid);
      if (!t.ok) {
        out.failed = index[mid];
        return std::nullopt;
      }
      if (t.met)
        hi = mid;
      else
        lo = mid + 1;
    }
    if (lo < settings.parameter.values.size()) return lo;
    return std::nullopt;
  }

  /// With no answer: the closest try, in the order of the values, and the diagnosis there
  /// (or at the largest value tried).
  void diagnoseClosest() {
    const bool larger = settings.requirement.op[0] == '>';
    for (const auto& [i, k] : index) {
      const ContractTry& t = out.tries[k];
      if (t.ok && !t.ruledOut &&
          (!out.best || (larger ? t.metric > out.tries[*out.best].metric
                                : t.metric < out.tries[*out.best].metric)))
        out.best = k;
    }
    // The diagnosis compiles the value, which the mean-field approximation never does.
    if (settings.meanField) return;
    const ContractTry& t = out.tries[out.best ? *out.best : index.rbegin()->second];
    try {
      out.diagnosis =
          diagnose(modelAt(base, settings.parameter.name, t.value), t.value,
                   settings.parameter.name, settings.requirement.throughputTarget(),
                   t.ok && !t.ruledOut ? std::optional<double>(t.metric) : std::nullopt, false);
    } catch (const Error&) {
      // A value that does not compile has no structure to diagnose.
    }
  }
};

}  // namespace

ContractResult contract(const Model& base, ContractSettings settings,
                        const std::function<void(const ContractTry&)>& tried) {
  prepare(base, settings);
  if (settings.requirement.fromSurroundings)
    return contractWithSurroundings(base, std::move(settings), tried);
  ContractResult out;
  out.model = base.name();
  out.system = base.isSystem();
  // Every value's bound first: when none can meet a throughput target, nothing is solved
  // (not under the mean-field approximation, which compiles no value at its size).
  if (!settings.meanField && settings.requirement.throughputTarget() &&
      impossibleByBounds(base, settings, out)) {
    out.settings = std::move(settings);
    return out;
  }
  Search search{base, settings, tried, out, {}};
  std::optional<std::size_t> answer;  // a value index
  if (settings.linear && settings.distribution) {
    answer = search.distributed();
    if (!settings.distribution->leads()) return out;
  } else {
    answer = settings.linear ? search.linear() : search.bisect();
  }
  if (answer)
    out.answer = search.index[*answer];
  else if (!out.failed)
    search.diagnoseClosest();
  out.settings = std::move(settings);
  return out;
}

nlohmann::ordered_json ContractResult::json() const {
  nlohmann::ordered_json out = schemaTag("contract");
  out[system ? "system" : "net"] = model;
  out["requirement"] = {{"metric", settings.requirement.path},
                        {"op", settings.requirement.op},
                        {"value", settings.requirement.bound}};
  if (settings.requirement.fromSurroundings) out["requirement"]["target"] = "input";
  out["parameter"] = settings.parameter.name;
  out["search"] = settings.linear ? "linear" : "bisect";
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ContractTry& t : tries) list.push_back(tryJson(t));
  out["tries"] = list;
  out["answer"] = answer ? tryJson(tries[*answer]) : nlohmann::ordered_json(nullptr);
  if (!answer && best) out["best"] = tryJson(tries[*best]);
  out["impossible"] = impossible;
  out["diagnosis"] = diagnosis ? diagnosis->json() : nlohmann::ordered_json(nullptr);
  if (surroundings)
    out["surroundings"] = {{"varied", surroundings->varied},
                           {"arrival_time", surroundings->arrivalTime},
                           {"arrival_from", surroundings->arrivalFrom},
                           {"departure_time", surroundings->departureTime},
                           {"departure_from", surroundings->departureFrom}};
  return out;
}

}  // namespace mmt::api
