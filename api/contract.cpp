#include "api/contract.hpp"

#include <algorithm>
#include <map>
#include <sstream>

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
  try {
    r.bound = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (r.path.empty() || (r.op != ">=" && r.op != ">" && r.op != "<=" && r.op != "<") || used == 0 ||
      used != number.size() || (in >> rest))
    throw SettingError("require",
                       "expected 'PATH OP NUMBER' with OP one of >= > <= <, e.g. "
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

/// One value: built, ruled out by its bound or solved (simulated past the limits), its
/// metric checked.
ContractTry tryValue(const Model& base, const ContractSettings& settings, double value) {
  ContractTry t;
  t.value = value;
  nlohmann::ordered_json tree;
  try {
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
      t.states = exact.explored.graph.stateCount();
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
  if (const auto v = lookupMetric(tree, settings.requirement.path)) {
    t.ok = true;
    t.metric = v->value;
    t.halfWidth = v->halfWidth;
    t.met = settings.requirement.met(v->value);
  } else {
    t.reason = "unknown metric '" + settings.requirement.path + "'";
  }
  return t;
}

nlohmann::ordered_json tryJson(const ContractTry& t) {
  nlohmann::ordered_json j = {{"value", t.value}};
  if (!t.ok) {
    j["failed"] = t.reason;
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
  j["method"] = t.simulated ? "simulate" : "exact";
  if (!t.simulated) j["tangible_markings"] = t.states;
  if (t.bound) j["bound"] = *t.bound;
  j["met"] = t.met;
  return j;
}

}  // namespace

ContractResult contract(const Model& base, ContractSettings settings,
                        const std::function<void(const ContractTry&)>& tried) {
  settings.simulation.check();
  if (!settings.solver.maxStates) settings.solver.maxStates = Settings::kUnprovenStateLimit;
  std::vector<double>& values = settings.parameter.values;
  if (values.empty()) throw SettingError("vary", "no values");
  std::sort(values.begin(), values.end());
  if (base.parameters.count(settings.parameter.name))
    throw SettingError("vary", "'" + settings.parameter.name + "' is both varied and set by -D");
  ContractResult out;
  out.model = base.name();
  out.system = base.isSystem();
  // Every value's bound first (a compilation each, no solution): when none can meet a
  // throughput target, nothing is solved.
  if (settings.requirement.throughputTarget()) {
    std::optional<std::size_t> widest;  // the value with the largest bound
    std::optional<double> widestBound;
    bool every = true;
    for (std::size_t i = 0; i < values.size() && every; ++i) {
      std::optional<double> b;
      try {
        b = boundOf(modelAt(base, settings.parameter.name, values[i]));
      } catch (const Error&) {
        // A value that does not compile fails its try in the search.
      }
      if (!b || settings.requirement.met(*b))
        every = false;
      else if (!widestBound || *b >= *widestBound) {
        widest = i;
        widestBound = b;
      }
    }
    if (every) {
      out.impossible = true;
      out.diagnosis = diagnose(modelAt(base, settings.parameter.name, values[*widest]),
                               values[*widest], settings.parameter.name,
                               settings.requirement.throughputTarget(), std::nullopt, true);
      out.settings = std::move(settings);
      return out;
    }
  }
  std::map<std::size_t, std::size_t> index;  // value index -> try index
  auto evaluate = [&](std::size_t i) -> const ContractTry& {
    if (auto it = index.find(i); it != index.end()) return out.tries[it->second];
    out.tries.push_back(tryValue(base, settings, values[i]));
    index[i] = out.tries.size() - 1;
    if (tried) tried(out.tries.back());
    return out.tries.back();
  };
  std::optional<std::size_t> answer;  // a value index
  if (settings.linear) {
    for (std::size_t i = 0; i < values.size() && !answer; ++i)
      if (evaluate(i).met) answer = i;
  } else {
    // The first value that meets it, assuming every larger one does too.
    std::size_t lo = 0, hi = values.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      const ContractTry& t = evaluate(mid);
      if (!t.ok) {
        out.failed = index[mid];
        out.settings = std::move(settings);
        return out;
      }
      if (t.met)
        hi = mid;
      else
        lo = mid + 1;
    }
    if (lo < values.size()) answer = lo;
  }
  if (answer) {
    out.answer = index[*answer];
  } else {
    // The closest try, in the order of the values.
    const bool larger = settings.requirement.op[0] == '>';
    for (const auto& [i, k] : index) {
      const ContractTry& t = out.tries[k];
      if (t.ok && !t.ruledOut &&
          (!out.best || (larger ? t.metric > out.tries[*out.best].metric
                                : t.metric < out.tries[*out.best].metric)))
        out.best = k;
    }
    // The diagnosis at the closest try, or at the largest value tried.
    std::size_t at = out.best ? *out.best : index.rbegin()->second;
    const ContractTry& t = out.tries[at];
    try {
      out.diagnosis =
          diagnose(modelAt(base, settings.parameter.name, t.value), t.value,
                   settings.parameter.name, settings.requirement.throughputTarget(),
                   t.ok && !t.ruledOut ? std::optional<double>(t.metric) : std::nullopt, false);
    } catch (const Error&) {
      // A value that does not compile has no structure to diagnose.
    }
  }
  out.settings = std::move(settings);
  return out;
}

nlohmann::ordered_json ContractResult::json() const {
  nlohmann::ordered_json out = schemaTag("contract");
  out[system ? "system" : "net"] = model;
  out["requirement"] = {{"metric", settings.requirement.path},
                        {"op", settings.requirement.op},
                        {"value", settings.requirement.bound}};
  out["parameter"] = settings.parameter.name;
  out["search"] = settings.linear ? "linear" : "bisect";
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ContractTry& t : tries) list.push_back(tryJson(t));
  out["tries"] = list;
  out["answer"] = answer ? tryJson(tries[*answer]) : nlohmann::ordered_json(nullptr);
  if (!answer && best) out["best"] = tryJson(tries[*best]);
  out["impossible"] = impossible;
  out["diagnosis"] = diagnosis ? diagnosis->json() : nlohmann::ordered_json(nullptr);
  return out;
}

}  // namespace mmt::api
