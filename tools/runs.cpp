#include "runs.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

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
  if (const auto* solver = dynamic_cast<const api::SolverError*>(&error)) {
    if (solver->iterationLimit())
      out << "No results are printed. The solver used every iteration allowed: try a larger "
             "--max-iterations, another --method or a looser --tolerance.\n";
    else
      out << "No results are printed. Try another --method or a looser --tolerance (more "
             "--max-iterations would not help: the method stopped on its own).\n";
    return kNumericalFailure;
  }
  if (const auto* fluid = dynamic_cast<const api::FluidError*>(&error);
      fluid && !fluid->unsupported())
    return kNumericalFailure;  // a trajectory that does not settle, as a solver that does not
                               // converge
  return kInputError;
}

void throwOptionError(const api::SettingError& e) {
  const auto option = [](std::string name) {
    std::replace(name.begin(), name.end(), '_', '-');
    return "--" + name;
  };
  const std::string bound =
      e.other().empty() ? "" : " " + option(e.other()) + " (" + e.otherValue() + ")";
  throw TCLAP::ArgException(e.requirement() + bound, option(e.setting()));
}

api::SimulationSettings SimulationArguments::settings(sim::Delays delays) const {
  api::SimulationSettings out;
  out.delays = delays;
  out.seed = seed.getValue().value;
  out.events = events.getValue().value;
  if (warmup.isSet()) out.warmup = warmup.getValue().value;
  if (replications.isSet()) out.replications = replications.getValue().value;
  out.maxReplications = maxReplications.getValue().value;
  out.timeLimit = timeLimit.getValue();
  out.confidence = confidence.getValue();
  out.precision = precision.getValue();
  checkOptions(out);
  return out;
}

SimulationProgressLine::SimulationProgressLine() : interactive_(isatty(fileno(stderr))) {}

void SimulationProgressLine::operator()(const std::string& label,
                                        const api::SimulationProgress& p) {
  const auto now = std::chrono::steady_clock::now();
  if (label != label_ || start_ == std::chrono::steady_clock::time_point{}) {
    done();
    label_ = label;
    start_ = now;
  }
  if (!interactive_ || std::chrono::duration<double>(now - start_).count() <= 1) return;
  shown_ = true;
  std::cerr << "\r" << label << p.replications << " replications, " << p.imprecise << " of "
            << p.numbers << " numbers above the precision (worst " << p.worstPath << ": "
            << p.worstRelative << ")   " << std::flush;
}

void SimulationProgressLine::done(bool failed) {
  if (!shown_) return;
  std::cerr << (failed ? "\n" : "\r" + std::string(100, ' ') + "\r") << std::flush;
  shown_ = false;
}

api::Simulation simulateModel(const Model& model, const api::SimulationSettings& settings) {
  SimulationProgressLine line;
  try {
    api::Simulation out =
        api::simulate(model, settings, [&](const api::SimulationProgress& p) { line("", p); });
    line.done();
    return out;
  } catch (const api::SimulationError&) {
    line.done(true);
    throw;
  }
}

}  // namespace mmt::tools
