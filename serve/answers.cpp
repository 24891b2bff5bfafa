#include "serve/answers.hpp"

#include <chrono>
#include <map>
#include <sstream>

#include "api/contract.hpp"
#include "api/explore.hpp"
#include "api/meanfield.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"
#include "api/sweep.hpp"
#include "api/writers.hpp"

namespace mmt::serve {

using Json = nlohmann::ordered_json;

namespace {

api::Model load(const ModelRequest& request) {
  return api::buildModel(api::readModel(request.file.string(), request.text), request.parameters);
}

Json parametersJson(const api::Model& model) {
  Json out = Json::array();
  if (model.compiled)
    for (const auto& [name, value] : model.compiled->parameters)
      out.push_back({{"name", name}, {"value", value}});
  return out;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

ModelRequest modelRequest(const Json& body, std::filesystem::path file) {
  ModelRequest out{std::move(file), std::nullopt, {}};
  if (body.contains("text")) out.text = body.at("text").get<std::string>();
  if (body.contains("parameters"))
    for (const auto& [name, value] : body.at("parameters").items())
      out.parameters[name] = value.get<double>();
  return out;
}

Json failureJson(const std::exception& failure) {
  Json out;
  if (const auto* error = dynamic_cast<const api::Error*>(&failure)) {
    out = api::failureJson(*error);
  } else if (const auto* setting = dynamic_cast<const api::SettingError*>(&failure)) {
    out = {{"kind", "SettingError"},
           {"headline", setting->setting() + " " + setting->what()},
           {"detail", ""},
           {"data", {{"setting", setting->setting()}}}};
  } else {
    out = {
        {"kind", "Error"}, {"headline", failure.what()}, {"detail", ""}, {"data", Json::object()}};
  }
  const auto* limit = dynamic_cast<const api::ExplorationError*>(&failure);
  out["simulate"] = dynamic_cast<const api::StateLimitError*>(&failure) ||
                    dynamic_cast<const api::MemoryLimitError*>(&failure);
  out["mean_field"] = limit && limit->meanFieldOffered();
  return out;
}

Json check(const ModelRequest& request) {
  try {
    const api::Model model = load(request);
    return {{"ok", true}, {"parameters", parametersJson(model)}, {"warnings", model.warnings}};
  } catch (const std::exception& failure) {
    return {{"ok", false}, {"failure", failureJson(failure)}};
  }
}

namespace {

/// `options[name]` as a T when it is there and not null.
template <typename T>
std::optional<T> option(const Json& options, const char* name) {
  if (!options.contains(name) || options.at(name).is_null()) return std::nullopt;
  return options.at(name).get<T>();
}

api::Settings solverSettings(const Json& options, Run& run, std::ostream* progress) {
  api::Settings out;
  out.run.interrupt = run.interruptFlag();
  out.run.progress = progress;
  out.maxStates = option<std::uint64_t>(options, "max_states");
  out.deterministicExact = option<std::string>(options, "deterministic") == "exact";
  out.check();
  return out;
}

api::SimulationSettings simulationSettings(const Json& options, Run& run) {
  api::SimulationSettings out;
  out.run.interrupt = run.interruptFlag();
  if (auto delays = option<std::string>(options, "delays")) out.delays = api::parseDelays(*delays);
  out.precision = option<double>(options, "precision").value_or(out.precision);
  out.confidence = option<double>(options, "confidence").value_or(out.confidence);
  out.events = option<std::uint64_t>(options, "events").value_or(out.events);
  out.replications = option<std::uint64_t>(options, "replications");
  out.maxReplications =
      option<std::uint64_t>(options, "max_replications").value_or(out.maxReplications);
  out.timeLimit = option<double>(options, "time_limit").value_or(out.timeLimit);
  out.seed = option<std::uint64_t>(options, "seed").value_or(out.seed);
  out.check();
  return out;
}

/// A simulation's progress as a line: replications, and how far the worst number is.
std::string progressLine(const api::SimulationProgress& p) {
  std::ostringstream out;
  out << p.replications << " replications; " << p.imprecise << " of " << p.numbers
      << " numbers not yet within the precision";
  if (!p.worstPath.empty())
    out << " (worst " << p.worstPath << ", ±" << 100 * p.worstRelative << " %)";
  return out.str();
}

/// A swept or varied parameter: {"name", "values"}.
api::SweepParameter sweptParameter(const Json& p) {
  return {p.at("name").get<std::string>(), p.at("values").get<std::vector<double>>()};
}

Json solve(const ModelRequest& request, const Json& options, Run& run) {
  const auto start = std::chrono::steady_clock::now();
  const api::Model model = load(request);
  ProgressStream progress(run);
  const api::Settings settings = solverSettings(options, run, &progress);
  api::TransientRequest transient;
  transient.times = option<std::vector<double>>(options, "at").value_or(std::vector<double>{});
  transient.cumulative = option<bool>(options, "cumulative").value_or(false);
  transient.check();
  api::PassageRequest passage;
  passage.percentiles =
      option<std::vector<double>>(options, "percentiles").value_or(std::vector<double>{});
  passage.times = option<std::vector<double>>(options, "cdf_at").value_or(std::vector<double>{});
  passage.check();
  const api::Solution solution = api::solve(model, settings, {}, transient, passage);
  Json out = solution.json();
  out["parameters"] = parametersJson(model);
  if (model.compiled && solution.metrics)
    out["picture"] = api::renderSystem(model, *solution.metrics, "svg");
  out["seconds"] = secondsSince(start);
  return out;
}

/// The mean-field approximation (docs/meanfield.md), its model read from the request's file
/// and text at its parameters, never compiled at their size; its exact reference as
/// `mmt solve --method mean-field` gives it.
Json meanField(const ModelRequest& request, const Json& options, Run& run) {
  const auto start = std::chrono::steady_clock::now();
  ProgressStream progress(run);
  const api::Settings settings = solverSettings(options, run, &progress);
  api::MeanFieldRequest meanField;
  if (auto reference = option<std::string>(options, "reference"))
    meanField.reference = api::parseReference(*reference);
  const api::MeanFieldSolution solution = api::solveMeanField(
      api::readModel(request.file.string(), request.text), request.parameters, settings, meanField);
  Json out = solution.json();
  out["seconds"] = secondsSince(start);
  return out;
}

Json sweep(const ModelRequest& request, const Json& options, Run& run) {
  const api::Model model = load(request);
  api::SweepSettings settings;
  std::size_t points = 1;
  for (const auto& p : options.at("parameters")) {
    settings.parameters.push_back(sweptParameter(p));
    points *= settings.parameters.back().values.size();
  }
  if (points == 0 || points > 10'000)
    throw api::SettingError("parameters", "must give between 1 and 10000 points");
  settings.metrics =
      option<std::vector<std::string>>(options, "metrics").value_or(std::vector<std::string>{});
  settings.solver.run.interrupt = run.interruptFlag();
  const api::SweepResult result =
      api::sweep(model, settings, [&](std::size_t done, std::size_t total) {
        run.post({{"progress", "point " + std::to_string(done) + " of " + std::to_string(total)}});
      });
  if (run.interrupted()) throw api::InterruptedError("the sweep was stopped");
  return result.json();
}

Json simulate(const ModelRequest& request, const Json& options, Run& run) {
  const api::Model model = load(request);
  const api::Simulation simulation =
      api::simulate(model, simulationSettings(options, run), [&](const api::SimulationProgress& p) {
        run.post({{"progress", progressLine(p)}});
      });
  return simulation.json();
}

Json compare(const ModelRequest& request, const Json& options, Run& run) {
  const api::Model model = load(request);
  ProgressStream progress(run);
  const api::Comparison comparison =
      api::compare(model, solverSettings(options, run, &progress), simulationSettings(options, run),
                   10, [&](const std::string& label, const api::SimulationProgress& p) {
                     run.post({{"progress", label + progressLine(p)}});
                   });
  return comparison.json();
}

Json contract(const ModelRequest& request, const Json& options, Run& run) {
  const api::Model model = load(request);
  api::ContractSettings settings;
  settings.requirement = api::parseRequirement(options.at("require").get<std::string>());
  settings.parameter = sweptParameter(options.at("vary"));
  settings.linear = option<std::string>(options, "search") == "linear";
  settings.solver = solverSettings(options, run, nullptr);
  settings.simulation = simulationSettings(options, run);
  const api::ContractResult result = api::contract(model, settings, [&](const api::ContractTry& t) {
    std::ostringstream line;
    line << settings.parameter.name << " = " << t.value << ": "
         << (t.ok         ? (t.met ? "met" : "not met")
             : t.ruledOut ? "ruled out"
                          : "failed");
    run.post({{"progress", line.str()}});
  });
  if (run.interrupted()) throw api::InterruptedError("the contract search was stopped");
  return result.json();
}

Json explore(const ModelRequest& request, const Json& options, Run& run) {
  api::ExploreSettings settings;
  settings.metric = option<std::string>(options, "metric").value_or(settings.metric);
  if (auto order = option<std::string>(options, "order"); order && *order != "auto")
    settings.maximize = *order == "max";
  settings.parameters = request.parameters;
  settings.solver = solverSettings(options, run, nullptr);
  api::ExploreResult result = api::explore(
      api::readModel(request.file.string(), request.text), settings,
      [&](std::size_t done, std::size_t total) {
        run.post(
            {{"progress", "candidate " + std::to_string(done) + " of " + std::to_string(total)}});
      });
  if (run.interrupted()) throw api::InterruptedError("the exploration was stopped");
  result.shown = option<std::size_t>(options, "top").value_or(0);
  return result.json();
}

}  // namespace

Work workOf(const std::string& kind) {
  static const std::map<std::string, Work> works{{"solve", &solve},        {"sweep", &sweep},
                                                 {"simulate", &simulate},  {"compare", &compare},
                                                 {"contract", &contract},  {"explore", &explore},
                                                 {"meanfield", &meanField}};
  const auto it = works.find(kind);
  return it == works.end() ? nullptr : it->second;
}

std::string netPicture(const ModelRequest& request) { return api::drawNet(load(request), "svg"); }

}  // namespace mmt::serve
