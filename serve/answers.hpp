#pragma once
/// \file
/// What `mmt serve` answers, as JSON built from the library's typed results: a model's
/// diagnostics and parameters as the user types, a solve with its picture, a sweep, the
/// net's picture, and any failure as its kind and data (docs/serve.md, "The API").

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/model.hpp"
#include "serve/runs.hpp"

namespace mmt::serve {

/// A model as a request names it: the file (resolved inside the served folder), the
/// editor's text when it differs from the file's, and parameter values.
struct ModelRequest {
  std::filesystem::path file;
  std::optional<std::string> text;
  api::Parameters parameters;
};

/// Reads `request` from a body's fields `path` (already resolved to `file`), `text` and
/// `parameters` ({"P": 8}). Throws nlohmann::ordered_json::exception for a field of another type.
ModelRequest modelRequest(const nlohmann::ordered_json& body, std::filesystem::path file);

/// Any failure as data: api::failureJson for the library's ({"kind", "headline",
/// "detail", "data"}), {"kind": "SettingError", "data": {"setting"}} for a setting out of
/// range, {"kind": "Error"} for anything else; with "simulate": true when the state space
/// is too large to solve (the page then offers simulation), and "mean_field": true when it
/// grows with interchangeable replicas (the page then offers the mean-field approximation).
nlohmann::ordered_json failureJson(const std::exception& failure);

/// The model built: {"ok": true, "parameters": [{"name", "value"}], "warnings"} or
/// {"ok": false, "failure": failureJson}. Never throws for a model's fault.
nlohmann::ordered_json check(const ModelRequest& request);

/// The work of a run: the answer to `request` with the run's `options`, its progress
/// lines posted to `run`, whose flag interrupts it. Throws the library's failures, and
/// nlohmann::json::exception for an option of the wrong type.
using Work = nlohmann::ordered_json (*)(const ModelRequest& request,
                                        const nlohmann::ordered_json& options, Run& run);

/// The work of a run of `kind`, null for an unknown kind:
/// - "solve": api::Solution::json (`mmt solve --format json`) with "parameters",
///   "seconds" and, for a system, "picture" (the system drawn with its results, SVG).
///   Options: "max_states"; "at" (times) and "cumulative"; "percentiles" and "cdf_at"
///   (times); "deterministic": "exact".
/// - "sweep": api::SweepResult::json. Options: "parameters" ([{"name", "values"}], at most
///   10,000 points), "metrics" (paths).
/// - "simulate": api::Simulation::json. Options: "delays" ("declared", "exponential",
///   "constant"), "precision", "confidence", "events", "replications",
///   "max_replications", "time_limit" (seconds), "seed".
/// - "compare": api::Comparison::json; the simulations' options as "simulate", and
///   "max_states".
/// - "contract": api::ContractResult::json. Options: "require" ("PATH OP NUMBER"),
///   "vary" ({"name", "values"}), "search" ("bisect" or "linear"), the simulations'.
/// - "explore": api::ExploreResult::json. Options: "metric", "order" ("max", "min" or
///   "auto"), "top" (entries kept, 0 all).
/// - "meanfield": api::MeanFieldSolution::json (`mmt solve --method mean-field --format
///   json`) with "seconds", the model read at its parameters but never compiled at their
///   size. Options: "reference" ("auto", "exact", "simulation", "none").
Work workOf(const std::string& kind);

/// The net of `request` drawn by Graphviz as SVG (api::drawNet). Throws the library's
/// failures.
std::string netPicture(const ModelRequest& request);

}  // namespace mmt::serve
