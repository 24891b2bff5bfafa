#include "api/errors.hpp"

#include <algorithm>
#include <sstream>

namespace mmt::api {

Error::Error(std::string headline, std::string detail)
    : std::runtime_error(detail.empty() ? headline : headline + "\n" + detail),
      headline_(std::move(headline)),
      detail_(std::move(detail)) {}

namespace {

std::size_t countErrors(const std::vector<ModelDiagnostic>& diagnostics) {
  return std::size_t(std::count_if(diagnostics.begin(), diagnostics.end(),
                                   [](const ModelDiagnostic& d) { return d.error; }));
}

/// "3 errors in FILE".
std::string modelHeadline(const std::string& path,
                          const std::vector<ModelDiagnostic>& diagnostics) {
  const std::size_t n = countErrors(diagnostics);
  return std::to_string(n) + (n == 1 ? " error" : " errors") + " in " + path;
}

}  // namespace

ModelError::ModelError(std::string path, std::vector<ModelDiagnostic> diagnostics,
                       std::string rendered)
    : Error(modelHeadline(path, diagnostics), rendered),
      path_(std::move(path)),
      diagnostics_(std::move(diagnostics)),
      rendered_(std::move(rendered)) {}

ModelError::ModelError(std::string path, std::string message)
    : Error(std::move(message)), path_(std::move(path)) {}

SourceLocation ModelError::location() const {
  for (const ModelDiagnostic& d : diagnostics_)
    if (d.error) return d.location;
  return {path_, 0, 0};
}

std::string ModelError::summary() const {
  for (const ModelDiagnostic& d : diagnostics_)
    if (d.error) return "error: " + d.message;
  return headline();
}

std::size_t ModelError::errorCount() const { return countErrors(diagnostics_); }

ExplorationError::ExplorationError(gspn::ExplorationResult::Status status, std::uint64_t states,
                                   std::string headline, std::string detail)
    : Error(std::move(headline), std::move(detail)), status_(status), states_(states) {}

StateLimitError::StateLimitError(gspn::ExplorationResult::Status status, std::uint64_t states,
                                 Data data, std::string headline, std::string detail)
    : ExplorationError(status, states, std::move(headline), std::move(detail)),
      data_(std::move(data)) {}

MemoryLimitError::MemoryLimitError(std::uint64_t states, std::uint64_t limitBytes,
                                   std::string headline, std::string detail)
    : ExplorationError(gspn::ExplorationResult::Status::MemoryLimit, states, std::move(headline),
                       std::move(detail)),
      limitBytes_(limitBytes) {}

TimelessTrapError::TimelessTrapError(std::uint64_t states, std::string headline)
    : ExplorationError(gspn::ExplorationResult::Status::TimelessTrap, states, std::move(headline)) {
}

DeterministicError::DeterministicError(std::string headline, std::string first, std::string second,
                                       std::string marking)
    : Error(std::move(headline),
            "  constant delays can still be approximated by phases ('mmt solve --phases') or "
            "simulated ('mmt simulate --delays declared')"),
      first_(std::move(first)),
      second_(std::move(second)),
      marking_(std::move(marking)) {}

StructureError::StructureError(solver::ChainStructure::Kind kind, std::string headline)
    : Error(std::move(headline)), kind_(kind) {}

namespace {

std::string solverHeadline(solver::Status status, solver::Method method, std::size_t iterations,
                           double residual, double tolerance, double imbalance,
                           const std::string& note) {
  std::ostringstream out;
  out << "the steady-state solver ";
  const std::string name = solver::toString(method);
  switch (status) {
    case solver::Status::NoConvergence:
      out << "did not converge (" << name << ", " << iterations << " iterations, relative residual "
          << residual << " > tolerance " << tolerance << ")";
      break;
    case solver::Status::Inaccurate:
      out << "gave no accurate result (" << name << ", relative residual " << residual
          << ", flow imbalance " << imbalance << ")";
      break;
    default:
      out << "failed numerically (" << name << ")";
  }
  if (!note.empty()) out << ": " << note;
  return out.str();
}

}  // namespace

SolverError::SolverError(solver::Status status, solver::Method method, std::size_t iterations,
                         double residual, double tolerance, double imbalance, std::string note,
                         bool iterationLimit)
    : Error(solverHeadline(status, method, iterations, residual, tolerance, imbalance, note)),
      status_(status),
      method_(method),
      iterations_(iterations),
      residual_(residual),
      tolerance_(tolerance),
      imbalance_(imbalance),
      note_(std::move(note)),
      iterationLimit_(iterationLimit) {}

UndefinedMeasureError::UndefinedMeasureError(std::string measure, double value)
    : Error("the measure '" + measure +
            "' divides by a quantity that is 0 in steady state (its value is " +
            (value != value ? "not a number" : "infinite") + "); no results are printed"),
      measure_(std::move(measure)) {}

namespace {

/// "unknown metric 'PATH' (known: …)", listing the first twelve known paths.
std::string unknownMetricMessage(const std::string& metric, const std::vector<std::string>& known) {
  std::string list;
  for (std::size_t k = 0; k < known.size() && k < 12; ++k) list += (k ? ", " : "") + known[k];
  return "unknown metric '" + metric + "' (known: " + list + (known.size() > 12 ? ", …" : "") + ")";
}

}  // namespace

UnknownMetricError::UnknownMetricError(std::string metric, std::vector<std::string> known)
    : Error(unknownMetricMessage(metric, known)),
      metric_(std::move(metric)),
      known_(std::move(known)) {}

namespace {

using Json = nlohmann::ordered_json;

Json modelData(const ModelError& e) {
  const SourceLocation at = e.location();
  Json diagnostics = Json::array();
  for (const ModelDiagnostic& d : e.diagnostics())
    diagnostics.push_back({{"file", d.location.file},
                           {"line", d.location.line},
                           {"column", d.location.column},
                           {"message", d.message},
                           {"severity", d.error ? "error" : "warning"}});
  return {{"file", at.file},
          {"line", at.line},
          {"column", at.column},
          {"diagnostics", std::move(diagnostics)},
          {"rendered", e.rendered()}};
}

Json solverData(const SolverError& e) {
  const char* status = e.status() == solver::Status::NoConvergence ? "no convergence"
                       : e.status() == solver::Status::Inaccurate  ? "inaccurate"
                                                                   : "numerical issue";
  return {{"status", status},
          {"method", solver::toString(e.method())},
          {"iterations", e.iterations()},
          {"residual", e.residual()},
          {"tolerance", e.tolerance()},
          {"flow_imbalance", e.imbalance()},
          {"note", e.note()},
          {"iteration_limit", e.iterationLimit()}};
}

/// The class of `e` and its fields.
std::pair<const char*, Json> kindAndData(const Error& e) {
  if (const auto* x = dynamic_cast<const ModelError*>(&e)) return {"ModelError", modelData(*x)};
  if (const auto* x = dynamic_cast<const StateLimitError*>(&e)) {
    const StateLimitError::Data& d = x->data();
    return {"StateLimitError",
            {{"states", x->states()},
             {"limit", d.limit},
             {"proven_bounded", d.provenBounded},
             {"unproven_places", d.unprovenPlaces},
             {"fullest_place", d.fullestPlace ? Json(*d.fullestPlace) : Json()},
             {"fullest_tokens", d.fullestTokens},
             {"mean_field", x->meanFieldOffered()}}};
  }
  if (const auto* x = dynamic_cast<const MemoryLimitError*>(&e))
    return {"MemoryLimitError",
            {{"states", x->states()},
             {"limit_bytes", x->limitBytes()},
             {"mean_field", x->meanFieldOffered()}}};
  if (const auto* x = dynamic_cast<const TimelessTrapError*>(&e))
    return {"TimelessTrapError", {{"states", x->states()}}};
  if (const auto* x = dynamic_cast<const ExplorationError*>(&e))
    return {"ExplorationError", {{"states", x->states()}}};
  if (const auto* x = dynamic_cast<const StructureError*>(&e))
    return {"StructureError",
            {{"kind", x->kind() == solver::ChainStructure::Kind::Deadlock
                          ? "deadlock"
                          : "multiple bottom components"}}};
  if (const auto* x = dynamic_cast<const DeterministicError*>(&e))
    return {"DeterministicError",
            {{"first", x->first()}, {"second", x->second()}, {"marking", x->marking()}}};
  if (const auto* x = dynamic_cast<const SolverError*>(&e)) return {"SolverError", solverData(*x)};
  if (const auto* x = dynamic_cast<const UndefinedMeasureError*>(&e))
    return {"UndefinedMeasureError", {{"measure", x->measure()}}};
  if (const auto* x = dynamic_cast<const UnknownMetricError*>(&e))
    return {"UnknownMetricError", {{"metric", x->metric()}, {"known", x->known()}}};
  if (dynamic_cast<const InterruptedError*>(&e)) return {"InterruptedError", Json::object()};
  if (dynamic_cast<const SimulationError*>(&e)) return {"SimulationError", Json::object()};
  if (const auto* x = dynamic_cast<const FluidError*>(&e))
    return {"FluidError",
            {{"element", x->element()},
             {"unsupported", x->unsupported()},
             {"time", x->time()},
             {"residual", x->residual()}}};
  return {"Error", Json::object()};
}

}  // namespace

Json failureJson(const Error& failure) {
  auto [kind, data] = kindAndData(failure);
  return {{"kind", kind},
          {"headline", failure.headline()},
          {"detail", failure.detail()},
          {"data", std::move(data)}};
}

}  // namespace mmt::api
