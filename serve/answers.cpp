#include "serve/answers.hpp"

#include <chrono>
#include <mutex>

#include "api/solve.hpp"
#include "api/sweep.hpp"
#include "compiler/picture.hpp"
#include "gspn/writers.hpp"

namespace mmt::serve {

namespace {

/// Graphviz keeps global state: one drawing at a time in the whole server.
std::mutex& graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

std::string kindOf(const std::exception& failure) {
  using namespace api;
  if (dynamic_cast<const ModelError*>(&failure)) return "ModelError";
  if (dynamic_cast<const StateLimitError*>(&failure)) return "StateLimitError";
  if (dynamic_cast<const MemoryLimitError*>(&failure)) return "MemoryLimitError";
  if (dynamic_cast<const TimelessTrapError*>(&failure)) return "TimelessTrapError";
  if (dynamic_cast<const ExplorationError*>(&failure)) return "ExplorationError";
  if (dynamic_cast<const StructureError*>(&failure)) return "StructureError";
  if (dynamic_cast<const SolverError*>(&failure)) return "SolverError";
  if (dynamic_cast<const DeterministicError*>(&failure)) return "DeterministicError";
  if (dynamic_cast<const UndefinedMeasureError*>(&failure)) return "UndefinedMeasureError";
  if (dynamic_cast<const UnknownMetricError*>(&failure)) return "UnknownMetricError";
  if (dynamic_cast<const InterruptedError*>(&failure)) return "InterruptedError";
  if (dynamic_cast<const SimulationError*>(&failure)) return "SimulationError";
  if (dynamic_cast<const SettingError*>(&failure)) return "SettingError";
  return "Error";
}

api::Model load(const ModelRequest& request) {
  return api::buildModel(api::readModel(request.file.string(), request.text), request.parameters);
}

nlohmann::ordered_json parametersJson(const api::Model& model) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  if (model.compiled)
    for (const auto& [name, value] : model.compiled->parameters)
      out.push_back({{"name", name}, {"value", value}});
  return out;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

ModelRequest modelRequest(const nlohmann::ordered_json& body, std::filesystem::path file) {
  ModelRequest out{std::move(file), std::nullopt, {}};
  if (body.contains("text")) out.text = body.at("text").get<std::string>();
  if (body.contains("parameters"))
    for (const auto& [name, value] : body.at("parameters").items())
      out.parameters[name] = value.get<double>();
  return out;
}

nlohmann::ordered_json failureJson(const std::exception& failure) {
  nlohmann::ordered_json out{
      {"kind", kindOf(failure)}, {"headline", failure.what()}, {"detail", ""}};
  if (const auto* error = dynamic_cast<const api::Error*>(&failure)) {
    out["headline"] = error->headline();
    out["detail"] = error->detail();
  }
  if (const auto* model = dynamic_cast<const api::ModelError*>(&failure)) {
    nlohmann::ordered_json diagnostics = nlohmann::ordered_json::array();
    for (const api::ModelDiagnostic& d : model->diagnostics())
      diagnostics.push_back({{"line", d.location.line},
                             {"column", d.location.column},
                             {"message", d.message},
                             {"severity", d.error ? "error" : "warning"}});
    out["diagnostics"] = std::move(diagnostics);
  }
  if (const auto* exploration = dynamic_cast<const api::ExplorationError*>(&failure)) {
    out["states"] = exploration->states();
    out["simulate"] = dynamic_cast<const api::StateLimitError*>(&failure) ||
                      dynamic_cast<const api::MemoryLimitError*>(&failure);
  }
  return out;
}

nlohmann::ordered_json check(const ModelRequest& request) {
  try {
    const api::Model model = load(request);
    return {{"ok", true}, {"parameters", parametersJson(model)}, {"warnings", model.warnings}};
  } catch (const std::exception& failure) {
    return {{"ok", false}, {"failure", failureJson(failure)}};
  }
}

nlohmann::ordered_json solve(const ModelRequest& request, const nlohmann::ordered_json& options,
                             Run& run) {
  const auto start = std::chrono::steady_clock::now();
  const api::Model model = load(request);
  ProgressStream progress(run);
  api::Settings settings;
  settings.interrupt = run.interruptFlag();
  settings.progress = &progress;
  if (options.contains("max_states"))
    settings.maxStates = options.at("max_states").get<std::uint64_t>();
  const api::Solution solution = api::solve(model, settings);
  nlohmann::ordered_json out = solution.json();
  out["parameters"] = parametersJson(model);
  if (model.compiled && solution.metrics) {
    std::lock_guard lock(graphvizMutex());
    out["picture"] = compiler::renderSystem(*model.compiled, *solution.metrics, "svg");
  }
  out["seconds"] = secondsSince(start);
  return out;
}

nlohmann::ordered_json sweep(const ModelRequest& request, const nlohmann::ordered_json& options,
                             Run& run) {
  const api::Model model = load(request);
  api::SweepSettings settings;
  std::size_t points = 1;
  for (const auto& p : options.at("parameters")) {
    settings.parameters.push_back(
        {p.at("name").get<std::string>(), p.at("values").get<std::vector<double>>()});
    points *= settings.parameters.back().values.size();
  }
  if (points == 0 || points > 10'000)
    throw api::SettingError("parameters", "must give between 1 and 10000 points");
  if (options.contains("metrics"))
    settings.metrics = options.at("metrics").get<std::vector<std::string>>();
  settings.solver.interrupt = run.interruptFlag();
  const api::SweepResult result =
      api::sweep(model, settings, [&](std::size_t done, std::size_t total) {
        run.post({{"progress", "point " + std::to_string(done) + " of " + std::to_string(total)}});
      });
  if (run.interrupted()) throw api::InterruptedError("the sweep was stopped");
  return result.json();
}

std::string netPicture(const ModelRequest& request) {
  const api::Model model = load(request);
  std::lock_guard lock(graphvizMutex());
  return gspn::renderNet(model.net(), "svg");
}

}  // namespace mmt::serve
