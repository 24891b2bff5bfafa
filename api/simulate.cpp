#include "api/simulate.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>

#include "compiler/metrics.hpp"
#include "sim/replications.hpp"
#include "sim/stopping.hpp"
#include "sim/warmup.hpp"

namespace mmt::api {

void SimulationSettings::check() const {
  if (!(confidence > 0 && confidence < 1)) throw SettingError("confidence", "must be in (0, 1)");
  if (!(precision > 0)) throw SettingError("precision", "must be positive");
  if (replications && *replications < 2)
    throw SettingError("replications", "at least 2 are needed for an interval");
  if (maxReplications < 2)
    throw SettingError("max_replications", "at least 2 are needed for an interval");
  if (!(timeLimit > 0)) throw SettingError("time_limit", "must be positive");
  if (events == 0) throw SettingError("events", "must be positive");
  if (warmup && *warmup >= events)
    throw SettingError("warmup", "must be fewer than", "events", std::to_string(events));
}

namespace {

/// The one run of `model` whose path no random draw decides (`schedule` not Random):
/// averaged over a period of its schedule when it has one, over the window of
/// `replication` otherwise (a batch's: its whole run, exact but for rounding). `reduce`
/// names its numbers in `names`.
Simulation deterministicRun(const Model& model, const SimulationSettings& settings,
                            sim::ReplicationSettings replication, const sim::Schedule& schedule,
                            const std::function<sim::Sample(const sim::Replication&)>& reduce,
                            const NamedResults& names) {
  const bool periodic = schedule.kind == sim::Schedule::Kind::Periodic;
  const bool exact = periodic || replication.untilDead;
  if (periodic) {
    replication.warmupEvents = schedule.start;
    replication.events = schedule.length;
  }
  const sim::Replication run = sim::simulate(model.net(), replication, 0);
  sim::SampleSummary summary;
  for (double value : reduce(run)) {
    sim::NumberSummary& n = summary.numbers.emplace_back();
    n.estimate = {value, exact ? 0.0 : std::numeric_limits<double>::quiet_NaN()};
    n.undefinedIn = std::isnan(value);
  }
  Simulation out;
  out.name = model.name();
  out.system = model.isSystem();
  out.settings = settings;
  out.warmupEvents = replication.warmupEvents;
  out.events = run.events();
  out.simulatedTime = run.observedTime();
  out.replications = 1;
  out.reached = exact;
  out.summary = intervalSummary(names, summary, 1);
  out.deterministic = DeterministicRun{periodic, schedule.start, schedule.length,
                                       periodic ? run.observedTime() : 0.0};
  std::ostringstream note;
  note << "no randomness (every delay constant, no choice that matters): ";
  if (replication.untilDead)
    note << "the batch's one run, " << run.events() << " timed firings until its end at "
         << run.observedTime() << " t; every value is its average over the run, exact but "
         << "for rounding";
  else if (periodic)
    note << "the schedule repeats every " << schedule.length << " timed firings ("
         << run.observedTime() << " t) after the first " << schedule.start
         << ", and every value is its average over one period, exact but for rounding";
  else
    note << "no state recurred within " << schedule.followed
         << " timed firings, so the values are one run's window averages, with no interval "
            "(their bias is unknown; a longer run, --events, may find the period)";
  out.note = note.str();
  return out;
}

/// What the note adds when MSER's warm-up reached its bound, half the pilot run.
std::string warmupNote(const std::optional<sim::WarmupChoice>& chosen) {
  if (!chosen || !chosen->atBound) return "";
  return "; the warm-up MSER chose is half the pilot run, so the runs may not have left their "
         "initial transient: a larger --events would tell";
}

/// The replications' settings from the user's: MSER's warm-up is chosen later.
sim::ReplicationSettings replicationSettings(const Model& model,
                                             const SimulationSettings& settings) {
  sim::ReplicationSettings out;
  out.delays = settings.delays;
  out.seed = settings.seed;
  out.events = settings.events;
  out.warmupEvents = settings.warmup.value_or(0);
  // Only expectations over markings need the time per marking (a store of every marking
  // visited: 48 KB an event for four farms of 1,000): the metrics of a system that read
  // them, and the measures of a raw net that the mean token counts do not give.
  out.recordMarkings = model.isSystem() ? compiler::metricsNeedExpectations(*model.compiled)
                                        : gspn::measuresNeedExpectations(model.net());
  // A batch is observed from its start to its end: its run is the answer.
  out.untilDead = model.isBatch();
  return out;
}

sim::StoppingRule stoppingRule(const SimulationSettings& settings) {
  sim::StoppingRule rule;
  if (settings.replications) rule.fixed = *settings.replications;
  rule.maxReplications = settings.maxReplications;
  rule.timeLimit = settings.timeLimit;
  rule.confidence = settings.confidence;
  rule.precision = settings.precision;
  rule.run = settings.run;
  return rule;
}

/// How the stopping rule ended, and what was undefined.
std::string stoppingNote(const SimulationSettings& settings, const Simulation& s) {
  std::ostringstream note;
  if (settings.replications)
    note << "fixed number of replications";
  else if (s.reached)
    note << "every relative half-width <= " << settings.precision;
  else
    note << s.summary.imprecise << " of " << s.summary.numbers
         << " numbers above the precision within the budget (worst: " << s.summary.worstPath
         << ", relative half-width " << s.summary.worstRelative << ")";
  if (s.summary.undefined > 0)
    note << "; " << s.summary.undefined << " number" << (s.summary.undefined == 1 ? "" : "s")
         << " undefined in some replication (first: " << s.summary.undefinedPath
         << "): no completions within a replication, try a larger --events";
  return note.str();
}

}  // namespace

Simulation simulate(const Model& model, const SimulationSettings& settings,
                    const std::function<void(const SimulationProgress&)>& progress) {
  settings.check();
  if (model.isBatch() && settings.warmup)
    throw SettingError("warmup", "a batch is observed from its start to its end: no warm-up");
  const gspn::Net& net = model.net();
  const auto started = std::chrono::steady_clock::now();
  sim::ReplicationSettings replication = replicationSettings(model, settings);

  // Every replication has the same numbers in the same order; their names are kept once.
  std::once_flag named;
  NamedResults names;
  // A batch's runs end: its time averages over the run are ratios of totals to the run's
  // length (sim::RatioEstimates); its makespan and the quantities Little's law defines
  // (a total over the iterations, n per run) are plain means.
  std::vector<char> ratios;
  const std::function<sim::Sample(const sim::Replication&)> reduce =
      [&](const sim::Replication& r) {
        std::optional<compiler::SystemMetrics> metrics;
        NetMeasures values;
        if (model.compiled) {
          metrics = compiler::computeMetrics(*model.compiled, r);
          if (replication.untilDead) metrics->application.makespan = r.observedTime();
        } else
          values = netMeasures(net, r);
        NamedResults results = namedResults(metrics, values);
        sim::Sample sample = resultsSample(results);
        std::call_once(named, [&] {
          if (replication.untilDead)
            for (const NamedNumber& n : results.numbers) {
              const std::string& metric = n.path.back();
              ratios.push_back(metric != "makespan" && !isLittle(metric));
            }
          names = std::move(results);
        });
        return sample;
      };
  sim::StoppingRule rule = stoppingRule(settings);
  if (replication.untilDead) rule.ratios = &ratios;
  std::function<void(const sim::ReplicatedRun&)> onBatch;
  if (progress)
    onBatch = [&](const sim::ReplicatedRun& run) {
      progress({run.samples.size(), run.summary.imprecise, run.summary.numbers.size(),
                run.summary.worst ? pathText(names.numbers[*run.summary.worst].path) : "",
                run.summary.worstRelative});
    };
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  sim::ReplicatedRun run;
  std::optional<sim::WarmupChoice> chosen;
  try {
    // A path no random draw decides is the same in every replication: one run, over a
    // period of its schedule when it has one.
    const sim::Schedule schedule =
        sim::findSchedule(net, replication, replication.warmupEvents + replication.events);
    const auto one = [&] {
      Simulation out = deterministicRun(model, settings, replication, schedule, reduce, names);
      out.warmupChoice = chosen;
      if (chosen) out.events += chosen->pilotEvents;
      out.note += warmupNote(chosen);
      out.seconds = seconds();
      return out;
    };
    if (schedule.kind == sim::Schedule::Kind::Periodic) return one();
    if (replication.untilDead && schedule.kind == sim::Schedule::Kind::Aperiodic) return one();
    if (!settings.warmup && !replication.untilDead) {
      chosen = sim::chooseWarmup(net, replication);
      replication.warmupEvents = chosen->firings;
    }
    if (schedule.kind == sim::Schedule::Kind::Aperiodic) return one();
    // Each replication observes up to a tenth more firings, so that where its window ends
    // in the schedule varies (sim::ReplicationSettings::extraEvents).
    if (!replication.untilDead) replication.extraEvents = replication.events / 10;
    run = sim::replicateUntilPrecise(net, replication, rule, reduce, onBatch);
  } catch (const sim::SimulationError& e) {
    throw SimulationError(e.what());
  }
  if (run.interrupted)
    throw InterruptedError("interrupted after " + std::to_string(run.samples.size()) +
                           " replications");
  Simulation out;
  out.name = model.name();
  out.system = model.isSystem();
  out.settings = settings;
  out.threads = run.threads;
  out.events = run.events + (chosen ? chosen->pilotEvents : 0);
  out.simulatedTime = run.simulatedTime;
  out.seconds = seconds();
  out.warmupEvents = replication.warmupEvents;
  out.warmupChoice = chosen;
  out.replications = run.samples.size();
  out.reached = run.reached;
  out.summary = intervalSummary(names, run.summary, run.samples.size());
  out.note = stoppingNote(settings, out) + warmupNote(chosen);
  return out;
}

nlohmann::ordered_json Simulation::block() const {
  nlohmann::ordered_json out{{"delays", sim::toString(settings.delays)},
                             {"replications", replications},
                             {"events_per_replication", settings.events},
                             {"warmup_events", warmupEvents},
                             {"events", events},
                             {"simulated_time", simulatedTime},
                             {"seconds", seconds},
                             {"threads", threads},
                             {"seed", settings.seed},
                             {"confidence", settings.confidence},
                             {"precision", settings.precision},
                             {"precision_reached", reached},
                             {"note", note}};
  if (warmupChoice)
    out["warmup"] = {{"rule", "mser"},
                     {"batch_firings", warmupChoice->batchFirings},
                     {"at_bound", warmupChoice->atBound},
                     {"pilot_firings", warmupChoice->pilotFirings},
                     {"pilot_events", warmupChoice->pilotEvents}};
  else
    out["warmup"] = {{"rule", "given"}};
  if (deterministic) {
    nlohmann::ordered_json& d = out["deterministic"] = {{"periodic", deterministic->periodic}};
    if (deterministic->periodic) {
      d["firings_before_period"] = deterministic->start;
      d["firings_per_period"] = deterministic->length;
      d["period"] = deterministic->period;
    }
  }
  return out;
}

nlohmann::ordered_json Simulation::json() const {
  nlohmann::ordered_json out = schemaTag("simulate");
  out[system ? "system" : "net"] = name;
  out["simulation"] = block();
  out.update(summary.tree);
  return out;
}

Comparison compare(
    const Model& model, const Settings& settings, const SimulationSettings& simulation,
    std::uint32_t maxPhases,
    const std::function<void(const std::string&, const SimulationProgress&)>& progress) {
  simulation.check();
  Comparison out{
      model.name(), model.isSystem(), solve(model, settings), {}, {}, {}, {}, {}, {}, {}};
  std::vector<sim::Delays> kinds{sim::Delays::Exponential, sim::Delays::Constant};
  const bool declared = model.net().declaredDelayCount() > 0;
  if (declared) kinds.push_back(sim::Delays::Declared);
  for (sim::Delays kind : kinds) {
    SimulationSettings these = simulation;
    these.delays = kind;
    const std::string label = std::string(sim::toString(kind)) + " delays: ";
    std::function<void(const SimulationProgress&)> told;
    if (progress) told = [&](const SimulationProgress& p) { progress(label, p); };
    out.simulations.push_back(simulate(model, these, told));
  }
  // The exact solution again with the declared delays expanded into phases.
  if (declared) {
    Model expanded = model;
    expanded.expandPhases(maxPhases);
    out.phases = expanded.phases;
    out.phased = solve(expanded, settings).results();
  }
  // The exact solution again with every delay constant, when it is a DSPN mmt solves.
  try {
    Model constant = model;
    if (constant.compiled)
      constant.compiled->net = gspn::withConstantDelays(constant.compiled->net);
    else
      constant.raw = gspn::withConstantDelays(*constant.raw);
    Settings exact = settings;
    exact.deterministicExact = true;
    const Solution solved = solve(constant, exact);
    out.constantExact = solved.results();
    out.constantDeterministic = solved.deterministic;
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    out.constantExactUnavailable = e.headline();
  } catch (const std::invalid_argument& e) {
    out.constantExactUnavailable = std::string("no exact constant-delay solution: ") + e.what();
  }
  std::vector<ComparedColumn> columns;
  for (const Simulation& s : out.simulations)
    columns.push_back({sim::toString(s.settings.delays), &s.summary.tree, s.exact()});
  std::vector<SolvedColumn> solved;
  if (out.phased) solved.push_back({"phases", &*out.phased});
  if (out.constantExact) solved.push_back({"constant_exact", &*out.constantExact});
  out.tree = compareTrees(out.exact.results(), columns, solved);
  return out;
}

nlohmann::ordered_json Comparison::json() const {
  nlohmann::ordered_json out = schemaTag("compare");
  out[system ? "system" : "net"] = name;
  out["exact"] = {{"tangible_markings", exact.chain.explored.graph.stateCount()},
                  {"method", solver::toString(exact.chain.steadyState.method)},
                  {"residual", exact.chain.steadyState.residual}};
  if (!exact.symmetry.empty()) out["exact"]["symmetry"] = exact.symmetry.json();
  for (const Simulation& s : simulations)
    out["simulations"][sim::toString(s.settings.delays)] = s.block();
  if (!phases.empty()) out["phases"] = phasesJson(phases);
  out["constant_exact"] =
      constantDeterministic
          ? nlohmann::ordered_json{{"deterministic", constantDeterministic->json()}}
          : nlohmann::ordered_json{{"unavailable", constantExactUnavailable}};
  out["outside_exponential_interval"] = tree.outside;
  out.update(tree.tree);
  return out;
}

}  // namespace mmt::api
