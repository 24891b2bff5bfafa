// The extension `mmt._mmt`: mmt::api for Python. Models are api::Model objects; results
// come back as the documents the command line prints as JSON (docs/json.md), which the
// pure-Python package (python/mmt) wraps; failures are raised as the exception classes of
// mmt.errors, with their data as attributes. The GIL is released while a model is built
// or solved, so other Python threads run meanwhile.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "api/contract.hpp"
#include "api/errors.hpp"
#include "api/explore.hpp"
#include "api/fluid.hpp"
#include "api/meanfield.hpp"
#include "api/model.hpp"
#include "api/simulate.hpp"
#include "api/solve.hpp"
#include "api/sweep.hpp"

namespace py = pybind11;
using namespace mmt;

namespace {

/// A JSON document as Python objects: dicts (in the document's order), lists, floats,
/// ints, strings, bools and None.
py::object toPython(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : j.items()) out[py::str(key)] = toPython(value);
      return out;
    }
    case nlohmann::ordered_json::value_t::array: {
      py::list out;
      for (const auto& value : j) out.append(toPython(value));
      return out;
    }
    case nlohmann::ordered_json::value_t::string:
      return py::str(j.get<std::string>());
    case nlohmann::ordered_json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return py::int_(j.get<std::int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned:
      return py::int_(j.get<std::uint64_t>());
    case nlohmann::ordered_json::value_t::number_float:
      return py::float_(j.get<double>());
    default:
      return py::none();
  }
}

/// Raises the class `name` of mmt.errors with the failure's message and `attributes`.
void raise(const char* name, const api::Error& error, const py::object& attributes) {
  const py::object cls = py::module_::import("mmt.errors").attr(name);
  py::object exception = cls(py::str(error.what()));
  exception.attr("headline") = error.headline();
  for (const auto& [key, value] : py::dict(attributes)) py::setattr(exception, key, value);
  PyErr_SetObject(cls.ptr(), exception.ptr());
}

void translate(std::exception_ptr thrown) {
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const api::InterruptedError&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  } catch (const api::Error& e) {
    // mmt.errors has a class of each name, whose attributes are the failure's fields.
    const nlohmann::ordered_json failure = api::failureJson(e);
    raise(failure["kind"].get<std::string>().c_str(), e, toPython(failure["data"]));
  } catch (const api::SettingError& e) {
    // The keyword's name: max_memory is given in megabytes as max_memory_mb.
    const std::string name = e.setting() == "max_memory" ? "max_memory_mb"
                             : e.setting() == "from"     ? "from_"
                                                         : e.setting();
    PyErr_SetString(PyExc_ValueError, (name + " " + e.what()).c_str());
  }
}

/// Runs `work(stop)` on a thread of its own with the GIL released, while this thread
/// looks for signals every 50 ms: on Ctrl-C (PyErr_CheckSignals raises KeyboardInterrupt)
/// `stop` is set, the work ends at its next check (api::InterruptedError) and the
/// KeyboardInterrupt is raised. `work` must not touch Python objects.
template <typename Work>
auto interruptible(Work&& work) {
  using Result = decltype(work(static_cast<const std::atomic<bool>*>(nullptr)));
  std::atomic<bool> stop{false};
  std::optional<Result> result;
  std::exception_ptr failure;
  std::mutex lock;
  std::condition_variable finished;
  bool done = false, signalled = false;
  {
    py::gil_scoped_release released;
    std::thread worker([&] {
      try {
        result.emplace(work(&stop));
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard<std::mutex> guard(lock);
      done = true;
      finished.notify_one();
    });
    std::unique_lock<std::mutex> waiting(lock);
    while (!finished.wait_for(waiting, std::chrono::milliseconds(50), [&] { return done; })) {
      waiting.unlock();
      if (!signalled) {
        py::gil_scoped_acquire acquired;
        if (PyErr_CheckSignals() != 0) {
          signalled = true;  // KeyboardInterrupt is now the pending exception
          stop = true;
        }
      }
      waiting.lock();
    }
    waiting.unlock();
    worker.join();
  }
  if (signalled) throw py::error_already_set();
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

/// The solver's settings from keyword arguments (those of Model.solve; a missing or None
/// one keeps api::Settings' default); a value out of range raises ValueError when the
/// settings are checked.
api::Settings settingsFrom(const py::dict& options) {
  api::Settings out;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (value.is_none()) continue;
    if (name == "method") {
      const std::string method = py::str(value);
      try {
        out.method = api::parseMethod(method);
      } catch (const std::invalid_argument&) {
        throw py::value_error("unknown method '" + method +
                              "' (known: " + api::join(api::methodNames()) + ")");
      }
    } else if (name == "tolerance")
      out.tolerance = value.cast<double>();
    else if (name == "max_iterations")
      out.maxIterations = value.cast<std::uint64_t>();
    else if (name == "relaxation")
      out.relaxation = value.cast<double>();
    else if (name == "max_states")
      out.maxStates = value.cast<std::uint64_t>();
    else if (name == "max_memory_mb")
      out.maxMemoryBytes = std::uint64_t(std::max(0.0, value.cast<double>()) * 1024 * 1024);
    else if (name == "threads")
      out.run.threads = value.cast<unsigned>();
    else if (name == "symmetry")
      out.symmetry = value.cast<bool>();
    else if (name == "deterministic") {
      if (std::string(py::str(value)) != "exact")
        throw py::value_error("deterministic must be 'exact' or None");
      out.deterministicExact = true;
    } else
      throw py::type_error("unknown solver setting '" + name + "'");
  }
  return out;
}

api::Model load(const std::string& path, const api::Parameters& parameters,
                const std::string& page) {
  py::gil_scoped_release released;
  return api::loadModel(path, parameters, nullptr, page);
}

/// The transient request from the keywords `at`, `cumulative`, `transient_only` and
/// `transient_error`,
/// taken out of `options` (the rest are the solver's).
api::TransientRequest transientFrom(py::dict& options) {
  api::TransientRequest out;
  if (options.contains("at")) {
    const py::object at = options["at"];
    if (!at.is_none()) {
      if (py::isinstance<py::float_>(at) || py::isinstance<py::int_>(at))
        out.times = {at.cast<double>()};
      else
        out.times = at.cast<std::vector<double>>();
    }
    PyDict_DelItemString(options.ptr(), "at");
  }
  if (options.contains("cumulative")) {
    out.cumulative = options["cumulative"].cast<bool>();
    PyDict_DelItemString(options.ptr(), "cumulative");
  }
  if (options.contains("transient_only")) {
    out.only = options["transient_only"].cast<bool>();
    PyDict_DelItemString(options.ptr(), "transient_only");
  }
  if (options.contains("transient_error")) {
    out.epsilon = options["transient_error"].cast<double>();
    PyDict_DelItemString(options.ptr(), "transient_error");
  }
  return out;
}

/// The passage request from the keywords `percentiles`, `cdf_at`, `from_`, `to` and
/// `passage_error`, taken out of `options`.
api::PassageRequest passageFrom(py::dict& options) {
  api::PassageRequest out;
  const auto take = [&](const char* key) {
    py::object value = py::none();
    if (options.contains(key)) {
      value = options[key];
      PyDict_DelItemString(options.ptr(), key);
    }
    return value;
  };
  const auto numbers = [](const py::object& v) {
    if (v.is_none()) return std::vector<double>{};
    if (py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v))
      return std::vector<double>{v.cast<double>()};
    return v.cast<std::vector<double>>();
  };
  out.percentiles = numbers(take("percentiles"));
  out.times = numbers(take("cdf_at"));
  if (const py::object v = take("from_"); !v.is_none()) out.from = v.cast<std::string>();
  if (const py::object v = take("to"); !v.is_none()) out.to = v.cast<std::string>();
  if (const py::object v = take("passage_error"); !v.is_none()) out.epsilon = v.cast<double>();
  return out;
}

py::object solve(const api::Model& model, py::dict options) {
  const api::TransientRequest transient = transientFrom(options);
  const api::PassageRequest passage = passageFrom(options);
  api::Settings settings = settingsFrom(options);
  return toPython(interruptible([&](const std::atomic<bool>* stop) {
    settings.run.interrupt = stop;
    return api::solve(model, settings, {}, transient, passage).json();
  }));
}

/// The simulation's settings from keyword arguments; out of range raises ValueError.
api::SimulationSettings simulationFrom(const py::dict& options) {
  api::SimulationSettings out;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (value.is_none()) continue;
    if (name == "delays") {
      try {
        out.delays = api::parseDelays(py::str(value));
      } catch (const std::invalid_argument&) {
        throw py::value_error("delays must be 'declared', 'exponential' or 'constant'");
      }
    } else if (name == "seed")
      out.seed = value.cast<std::uint64_t>();
    else if (name == "events")
      out.events = value.cast<std::uint64_t>();
    else if (name == "warmup")
      out.warmup = value.cast<std::uint64_t>();
    else if (name == "replications")
      out.replications = value.cast<std::uint64_t>();
    else if (name == "max_replications")
      out.maxReplications = value.cast<std::uint64_t>();
    else if (name == "time_limit")
      out.timeLimit = value.cast<double>();
    else if (name == "confidence")
      out.confidence = value.cast<double>();
    else if (name == "precision")
      out.precision = value.cast<double>();
    else
      throw py::type_error("unknown simulation setting '" + name + "'");
  }
  return out;
}

py::object simulate(const api::Model& model, const py::dict& options) {
  api::SimulationSettings settings = simulationFrom(options);
  return toPython(interruptible([&](const std::atomic<bool>* stop) {
    settings.run.interrupt = stop;
    return api::simulate(model, settings).json();
  }));
}

/// An approximation's request (api::FluidRequest, api::MeanFieldRequest) from the keywords
/// `at` (a time, a list of times, or None) and `reference` (ValueError for another word).
template <typename Request>
Request approximationRequest(const py::object& at, const std::string& reference) {
  Request request;
  if (!at.is_none())
    request.times = py::isinstance<py::float_>(at) || py::isinstance<py::int_>(at)
                        ? std::vector<double>{at.cast<double>()}
                        : at.cast<std::vector<double>>();
  try {
    request.reference = api::parseReference(reference);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string("reference: ") + e.what());
  }
  return request;
}

/// Model.solve_fluid: the keywords `at`, `reference` and `tolerance`.
py::object solveFluid(const api::Model& model, const py::object& at, const std::string& reference,
                      double tolerance) {
  api::Settings settings;
  settings.tolerance = tolerance;
  const auto request = approximationRequest<api::FluidRequest>(at, reference);
  return toPython(interruptible([&](const std::atomic<bool>* stop) {
    settings.run.interrupt = stop;
    return api::solveFluid(model, settings, request).json();
  }));
}

/// mmt.solve_mean_field and Model.solve_mean_field: the model read from `source` at
/// `parameters`, never compiled at that size.
py::object solveMeanField(std::shared_ptr<const api::ModelSource> source,
                          const api::Parameters& parameters, const py::object& at,
                          const std::string& reference, double tolerance) {
  api::Settings settings;
  settings.tolerance = tolerance;
  const auto request = approximationRequest<api::MeanFieldRequest>(at, reference);
  return toPython(interruptible([&](const std::atomic<bool>* stop) {
    settings.run.interrupt = stop;
    return api::solveMeanField(source, parameters, settings, request).json();
  }));
}

/// A studies' `method="mean-field"`: taken out of the solver's keywords (which name the
/// exact solver's methods), true when it was there.
bool takeMeanField(py::dict& solver) {
  if (!solver.contains("method") || py::str(solver["method"]).cast<std::string>() != "mean-field")
    return false;
  PyDict_DelItemString(solver.ptr(), "method");
  return true;
}

py::object compare(const api::Model& model, const py::dict& solver, std::uint32_t maxPhases,
                   const py::dict& options) {
  api::Settings settings = settingsFrom(solver);
  api::SimulationSettings simulation = simulationFrom(options);
  if (maxPhases < 1 || maxPhases > 1000)
    throw py::value_error("max_phases must be between 1 and 1000");
  return toPython(interruptible([&](const std::atomic<bool>* stop) {
    settings.run.interrupt = simulation.run.interrupt = stop;
    return api::compare(model, settings, simulation, maxPhases).json();
  }));
}

using NamedValues = std::vector<std::pair<std::string, std::vector<double>>>;

py::object sweep(const api::Model& model, const NamedValues& parameters,
                 const std::vector<std::string>& metrics, const std::vector<std::string>& delays,
                 bool simulateAll, py::dict solver, const py::dict& simulation,
                 std::uint32_t maxPhases, unsigned threads) {
  api::SweepSettings settings;
  for (const auto& [name, values] : parameters) settings.parameters.push_back({name, values});
  settings.metrics = metrics;
  settings.series.clear();
  const bool meanField = takeMeanField(solver);
  for (const std::string& kind : delays)
    settings.series.push_back(api::sweepSeries(kind, simulateAll, meanField));
  settings.solver = settingsFrom(solver);
  settings.simulation = simulationFrom(simulation);
  settings.maxPhases = maxPhases;
  settings.threads = threads;
  return toPython(interruptible([&](const std::atomic<bool>* stop) {
    settings.solver.run.interrupt = settings.simulation.run.interrupt = stop;
    return api::sweep(model, settings).json();
  }));
}

py::object explore(const std::string& path, const api::Parameters& parameters,
                   const std::string& metric, std::optional<bool> maximize,
                   std::optional<std::vector<compiler::Placements>> mappings,
                   std::uint64_t maxCandidates, py::dict solver, unsigned threads) {
  api::ExploreSettings settings;
  settings.meanField = takeMeanField(solver);
  settings.parameters = parameters;
  settings.metric = metric;
  settings.maximize = maximize;
  settings.mappings = std::move(mappings);
  settings.maxCandidates = maxCandidates;
  settings.solver = settingsFrom(solver);
  settings.threads = threads;
  return toPython(interruptible([&](const std::atomic<bool>* stop) {
    settings.solver.run.interrupt = stop;
    return api::explore(api::readModel(path), settings).json();
  }));
}

py::object contract(const api::Model& model, const std::string& requirement,
                    const std::string& name, const std::vector<double>& values, bool linear,
                    py::dict solver, const py::dict& simulation, std::optional<double> arrivalTime,
                    std::optional<double> departureTime) {
  api::ContractSettings settings;
  settings.arrivalTime = arrivalTime;
  settings.departureTime = departureTime;
  settings.requirement = api::parseRequirement(requirement);
  settings.parameter = {name, values};
  settings.linear = linear;
  settings.meanField = takeMeanField(solver);
  settings.solver = settingsFrom(solver);
  settings.simulation = simulationFrom(simulation);
  const api::ContractResult result = interruptible([&](const std::atomic<bool>* stop) {
    settings.solver.run.interrupt = settings.simulation.run.interrupt = stop;
    return api::contract(model, settings);
  });
  py::object document = toPython(result.json());
  if (result.failed) document["failed"] = toPython(result.json()["tries"][*result.failed]);
  return document;
}

}  // namespace

PYBIND11_MODULE(_mmt, m) {
  m.doc() = "mmt's pipeline (api/): load a model, solve it; see the package mmt";
  m.attr("__version__") = MMT_VERSION;
  py::register_exception_translator(translate);

  py::class_<api::Model>(m, "Model")
      .def_property_readonly("name", &api::Model::name)
      .def_property_readonly("path", &api::Model::path)
      .def_property_readonly("is_system", &api::Model::isSystem)
      .def_property_readonly("parameters", [](const api::Model& x) { return x.parameters; })
      .def_property_readonly("warnings", [](const api::Model& x) { return x.warnings; })
      .def_property_readonly("place_count",
                             [](const api::Model& x) { return x.net().placeCount(); })
      .def_property_readonly("transition_count",
                             [](const api::Model& x) { return x.net().transitionCount(); })
      .def(
          "at",
          [](const api::Model& x, const api::Parameters& parameters) {
            py::gil_scoped_release released;
            return x.at(parameters);
          },
          py::arg("params"))
      .def("solve", &solve, py::arg("options"))
      .def("simulate", &simulate, py::arg("options"))
      .def("solve_fluid", &solveFluid, py::arg("at"), py::arg("reference"), py::arg("tolerance"))
      .def(
          "solve_mean_field",
          [](const api::Model& x, const py::object& at, const std::string& reference,
             double tolerance) {
            return solveMeanField(x.source, x.parameters, at, reference, tolerance);
          },
          py::arg("at"), py::arg("reference"), py::arg("tolerance"))
      .def("compare", &compare, py::arg("solver"), py::arg("max_phases"), py::arg("options"));

  m.def("load", &load, py::arg("path"), py::arg("params") = api::Parameters{},
        py::arg("page") = std::string());
  m.def(
      "solve_mean_field",
      [](const std::string& path, const api::Parameters& parameters, const std::string& page,
         const py::object& at, const std::string& reference, double tolerance) {
        std::shared_ptr<const api::ModelSource> source;
        {
          py::gil_scoped_release released;
          source = api::readModel(path, std::nullopt, page);
        }
        return solveMeanField(source, parameters, at, reference, tolerance);
      },
      py::arg("path"), py::arg("params"), py::arg("page"), py::arg("at"), py::arg("reference"),
      py::arg("tolerance"));
  m.def("sweep", &sweep);
  m.def("explore", &explore);
  m.def("contract", &contract);
  m.def("methods", &solver::methodNames);
}
