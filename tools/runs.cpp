#include "runs.hpp"

#include "solver/pipeline.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <mutex>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

#include "compiler/metrics.hpp"
#include "gspn/invariants.hpp"
#include "gspn/writers.hpp"
#include "sim/replications.hpp"
#include "solver/measures.hpp"

namespace mmt::tools {

std::istream& operator>>(std::istream& in, Count& count) {
  std::string text;
  in >> text;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, count.value);
  if (text.empty() || error != std::errc() || at != end) in.setstate(std::ios::failbit);
  return in;
}

std::ostream& operator<<(std::ostream& out, const Count& count) { return out << count.value; }

int reportFailure(const api::Error& error, const std::string& file, std::ostream& out) {
  if (const auto* model = dynamic_cast<const api::ModelError*>(&error)) {
    if (model->rendered().empty()) {
      out << "mmt: error: " << model->headline() << '\n';
    } else {
      out << model->rendered();
      out << model->headline() << '\n';
    }
    return kInputError;
  }
  out << file << ": error: " << error.what() << '\n';
  if (dynamic_cast<const api::SolverError*>(&error)) {
    out << "No results are printed. Try another --method, a larger --max-iterations or a "
           "looser --tolerance.\n";
    return kNumericalFailure;
  }
  return kInputError;
}

std::string failureReason(const api::Error& error) {
  if (const auto* model = dynamic_cast<const api::ModelError*>(&error))
    for (const api::ModelDiagnostic& d : model->diagnostics())
      if (d.error) return "error: " + d.message;
  return error.headline();
}

SimulationOutcome simulateModel(const Model& model, const sim::ReplicationSettings& settings,
                                const SimulationArguments& args, const std::string& label) {
  const gspn::Net& net = model.net();
  // Every replication has the same numbers in the same order; their names are kept once.
  std::once_flag named;
  NamedResults names;
  const std::function<sim::Sample(const sim::Replication&)> reduce = [&](const sim::Replication& r) {
    std::optional<compiler::SystemMetrics> metrics;
    NetMeasures values;
    if (model.compiled)
      metrics = compiler::computeMetrics(*model.compiled, r);
    else
      values = netMeasures(net, r);
    NamedResults results = namedResults(metrics, values);
    sim::Sample sample = resultsSample(results);
    std::call_once(named, [&] { names = std::move(results); });
    return sample;
  };
  sim::StoppingRule rule;
  if (args.replications.isSet()) rule.fixed = args.replications.getValue().value;
  rule.maxReplications = args.maxReplications.getValue().value;
  rule.timeLimit = args.timeLimit.getValue();
  rule.confidence = args.confidence.getValue();
  rule.precision = args.precision.getValue();
  const bool interactive = isatty(fileno(stderr));
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto progress = [&](const sim::ReplicatedRun& run) {
    if (!interactive || elapsed() <= 1) return;
    std::cerr << "\r" << label << run.samples.size() << " replications, "
              << run.summary.imprecise << " of " << run.summary.numbers.size()
              << " numbers above the precision (worst "
              << (run.summary.worst ? pathText(names.numbers[*run.summary.worst].path) : "")
              << ": " << run.summary.worstRelative << ")   " << std::flush;
  };
  sim::ReplicatedRun run;
  try {
    run = sim::replicateUntilPrecise(net, settings, rule, reduce, progress);
  } catch (const sim::SimulationError&) {
    if (interactive && elapsed() > 1) std::cerr << '\n';
    throw;
  }
  SimulationOutcome out;
  out.threads = run.threads;
  out.events = run.events;
  out.simulatedTime = run.simulatedTime;
  out.seconds = run.seconds;
  out.replications = run.samples.size();
  out.reached = run.reached;
  out.summary = intervalSummary(names, run.summary, run.samples.size());
  const bool fixed = rule.fixed.has_value();
  if (interactive && !fixed && out.seconds > 1) std::cerr << "\r" << std::string(100, ' ') << "\r";
  std::ostringstream note;
  if (fixed)
    note << "fixed number of replications";
  else if (out.reached)
    note << "every relative half-width <= " << rule.precision;
  else
    note << out.summary.imprecise << " of " << out.summary.numbers
         << " numbers above the precision within the budget (worst: " << out.summary.worstPath
         << ", relative half-width " << out.summary.worstRelative << ")";
  if (out.summary.undefined > 0)
    note << "; " << out.summary.undefined << " number" << (out.summary.undefined == 1 ? "" : "s")
         << " undefined in some replication (first: " << out.summary.undefinedPath
         << "): no completions within a replication, try a larger --events";
  out.note = note.str();
  return out;
}

nlohmann::ordered_json simulationJson(const SimulationOutcome& o,
                                      const sim::ReplicationSettings& settings,
                                      const SimulationArguments& args) {
  return {{"delays", sim::toString(settings.delays)},
          {"replications", o.replications},
          {"events_per_replication", settings.events},
          {"warmup_events", settings.warmupEvents},
          {"events", o.events},
          {"simulated_time", o.simulatedTime},
          {"seconds", o.seconds},
          {"threads", o.threads},
          {"seed", settings.seed},
          {"confidence", args.confidence.getValue()},
          {"precision", args.precision.getValue()},
          {"precision_reached", o.reached},
          {"note", o.note}};
}

void printSimulationHeader(const SimulationOutcome& o, const sim::ReplicationSettings& settings,
                           const SimulationArguments& args, std::ostream& out) {
  out << o.replications << " replications of " << settings.events << " timed firings ("
      << settings.warmupEvents << " warm-up), seed " << settings.seed << ": " << o.events
      << " events, simulated time " << o.simulatedTime << " t, " << o.seconds << " s; "
      << args.confidence.getValue() * 100 << "% intervals, " << o.note << '\n';
}

}  // namespace mmt::tools
