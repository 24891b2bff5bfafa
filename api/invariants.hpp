#pragma once
/// \file
/// A model's place invariants and what they prove (`mmt compile --invariants`): the
/// minimal P-semiflows by Farkas' algorithm and the places they, or inhibitor arcs, bound
/// (gspn/invariants.hpp; [GSPN95] §2.5.1).

#include <string>
#include <vector>

#include "api/model.hpp"

namespace mmt::api {

struct PlaceInvariants {
  /// False when Farkas' algorithm gave up (more than 20,000 intermediate rows, or a
  /// coefficient overflow): `semiflows` is then empty and they prove nothing.
  bool complete = true;
  /// Each minimal P-semiflow with its weighted initial token count, "2·A + B = 3".
  std::vector<std::string> semiflows;
  /// Every place is covered by a semiflow or bounded by an inhibitor arc.
  bool bounded = false;
  /// The places not proven bounded, in the net's order (empty when `bounded`).
  std::vector<std::string> unproven;
};

/// The place invariants of `model`'s net.
PlaceInvariants placeInvariants(const Model& model);

}  // namespace mmt::api
