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

/// {"kind", "headline", "detail"} of any failure, with "diagnostics" ([{"line", "column",
/// "message", "severity"}]) for a ModelError, "states" for an exploration that stopped,
/// and "simulate": true when the state space is too large to solve (the page then offers
/// simulation). `kind` is the api/errors.hpp class ("ModelError", "StateLimitError",
/// "InterruptedError", ...; "Error" for anything else).
nlohmann::ordered_json failureJson(const std::exception& failure);

/// The model built: {"ok": true, "parameters": [{"name", "value"}], "warnings"} or
/// {"ok": false, "failure": failureJson}. Never throws for a model's fault.
nlohmann::ordered_json check(const ModelRequest& request);

/// Options of a solve from the page: {"max_states": N}.
/// The solve of `request` as `mmt solve --format json` gives it (api::Solution::json),
/// with "parameters" and, for a system, "picture": the system drawn with its results as
/// SVG (compiler/picture.hpp). Progress lines go to `run`; its flag interrupts. Throws the
/// library's failures.
nlohmann::ordered_json solve(const ModelRequest& request, const nlohmann::ordered_json& options,
                             Run& run);

/// The sweep of `request` over {"parameters": [{"name", "values": [..]}], "metrics":
/// [paths]} as `mmt sweep --format json` gives it (api::SweepResult::json); "point K of N"
/// progress lines go to `run`. Throws the library's failures, and api::SettingError for
/// a sweep of no point or more than 10,000.
nlohmann::ordered_json sweep(const ModelRequest& request, const nlohmann::ordered_json& options,
                             Run& run);

/// The net of `request` drawn by Graphviz as SVG (gspn::renderNet). Throws the library's
/// failures.
std::string netPicture(const ModelRequest& request);

}  // namespace mmt::serve
