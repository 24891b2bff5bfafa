#pragma once
/// \file
/// Rows of the reachability graph kept between the two passes of an exploration.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "gspn/edge_rates.hpp"

namespace mmt::gspn {

/// The merged rows of a run of consecutive states [first, last), kept from the first pass of
/// an exploration so that no second pass computes them again (one machine: transposed into
/// the graph, gspn/reachability.cpp; the ranks of an MPI run: sent to their targets' owners,
/// mpi/state_space.cpp), in arrays of exactly their size. Where the run's
/// targets and rate numbers fit in 32 bits together, each edge is one PackedEdge word;
/// otherwise the word is the target and the number is in `number`. Each state's row is
/// its out-degree in one byte where every state of the run has fewer than 256 edges (1
/// byte a state instead of 4: 400 MB at Kanban N = 8), else the end of its edges.
struct KeptRows {
  std::uint32_t first = 0, last = 0;
  std::uint32_t shift = 32;               // below 32: packed
  std::vector<std::uint8_t> degree;       // per state its edges, where all are below 256
  std::vector<std::uint32_t> end, word;   // per state the end of its edges, otherwise; per edge
  std::vector<EdgeRates::Number> number;  // per edge, where not packed

  /// Keeps the rows of states [from, to) given per state by `ends` and per edge by
  /// `targets` and `numbers`; every target is below `bound`.
  void assign(std::uint32_t from, std::uint32_t to, const std::vector<std::uint32_t>& ends,
              const std::vector<std::uint32_t>& targets,
              const std::vector<EdgeRates::Number>& numbers, std::uint32_t bound) {
    first = from;
    last = to;
    degree.resize(ends.size());
    for (std::size_t i = 0; i < ends.size(); ++i) {
      const std::uint32_t edges = ends[i] - (i > 0 ? ends[i - 1] : 0);
      if (edges > 255) {                       // a long row: every state's end instead
        degree = std::vector<std::uint8_t>();  // freed (`= {}` would keep the capacity)
        end.assign(ends.begin(), ends.end());
        break;
      }
      degree[i] = static_cast<std::uint8_t>(edges);
    }
    const auto largest = numbers.empty() ? 0u : *std::max_element(numbers.begin(), numbers.end());
    if (const auto packed = PackedEdge::shiftFor(bound, largest)) {
      shift = *packed;
      word.resize(targets.size());
      for (std::size_t k = 0; k < targets.size(); ++k)
        word[k] = PackedEdge::pack(targets[k], numbers[k], shift);
    } else {
      shift = 32;
      word.assign(targets.begin(), targets.end());
      number.assign(numbers.begin(), numbers.end());
    }
  }
  /// Edge k's target and rate number.
  std::pair<std::uint32_t, EdgeRates::Number> edge(std::size_t k) const {
    if (shift == 32) return {word[k], number[k]};
    return {PackedEdge::state(word[k], shift), PackedEdge::number(word[k], shift)};
  }
  /// visit(source, target, rate number) for every edge, in state order.
  template <typename Visit>
  void forEachEdge(Visit visit) const {
    std::size_t k = 0;
    for (std::uint32_t s = first; s < last; ++s) {
      const std::size_t i = s - first;
      const std::size_t stop = degree.empty() ? end[i] : k + degree[i];
      for (; k < stop; ++k) {
        const auto [to, n] = edge(k);
        visit(s, to, n);
      }
    }
  }
  /// Adds each state's row sum, table[number] over its edges in their order, to
  /// exit[state], `exit` first sized to `last` (new entries 0): the state's exit rate,
  /// with the bits mergeRow gave it (it adds the merged row in the same order).
  void addRowSums(std::vector<double>& exit, const std::vector<double>& table) const {
    exit.resize(last, 0.0);
    forEachEdge([&](std::uint32_t s, std::uint32_t, EdgeRates::Number number) {
      exit[s] += table[number];
    });
  }
  /// Adds one to `in[t]` for every edge into t.
  template <typename Count>
  void countTargets(Count* in) const {
    if (shift == 32)
      for (std::uint32_t t : word) ++in[t];
    else
      for (std::uint32_t w : word) ++in[PackedEdge::state(w, shift)];
  }
  std::uint64_t bytes() const {
    return degree.capacity() + end.capacity() * sizeof(std::uint32_t) +
           word.capacity() * sizeof(std::uint32_t) + number.capacity() * sizeof(EdgeRates::Number);
  }
};

}  // namespace mmt::gspn
