#include "coloured/symmetry.hpp"

#include <algorithm>
#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <utility>

namespace mmt::coloured {
namespace {

/// The sorts that places and variables use, and the sorts of their products' components.
std::vector<char> usedSorts(const Net& net) {
  std::vector<char> used(net.sorts().size(), 0);
  std::vector<SortId> stack;
  for (const Place& p : net.places()) stack.push_back(p.sort);
  for (const Variable& v : net.variables()) stack.push_back(v.sort);
  while (!stack.empty()) {
    const SortId s = stack.back();
    stack.pop_back();
    if (std::exchange(used[s], 1)) continue;
    for (SortId c : net.sort(s).components) stack.push_back(c);
  }
  return used;
}

/// The permutations of one class, the identity first: its rotations when it is circular,
/// otherwise every permutation that keeps each cell of its static subclasses (the common
/// refinement of the partitions declared over it). Nothing when there are more than `most`.
std::vector<std::vector<Colour>> classPermutations(const Net& net, SortId s, std::uint64_t most,
                                                   ColourPermutations::Class& out) {
  const Sort& sort = net.sort(s);
  const std::uint64_t n = sort.size;
  out.name = sort.name;
  out.colours = n;
  std::vector<std::vector<Colour>> perms;
  if (sort.cyclic) {
    out.group = "cyclic";
    out.order = n;
    if (n > most) return perms;
    for (Colour r = 0; r < n; ++r) {
      std::vector<Colour> p(n);
      for (Colour c = 0; c < n; ++c) p[c] = (c + r) % n;
      perms.push_back(std::move(p));
    }
    return perms;
  }
  // Cells: colours with the same element in every partition of the class.
  std::vector<std::vector<std::uint32_t>> signature(n);
  bool partitioned = false;
  for (const Sort& p : net.sorts())
    if (p.kind == SortKind::Partition && p.partitioned == s) {
      partitioned = true;
      for (Colour c = 0; c < n; ++c) signature[c].push_back(p.elementOf[c]);
    }
  std::vector<std::vector<Colour>> cells;
  for (Colour c = 0; c < n; ++c) {
    auto it = std::find_if(cells.begin(), cells.end(), [&](const std::vector<Colour>& cell) {
      return signature[cell[0]] == signature[c];
    });
    if (it == cells.end())
      cells.push_back({c});
    else
      it->push_back(c);
  }
  out.group = partitioned && cells.size() > 1 ? "symmetric on each static subclass" : "symmetric";
  // The order Π |cell|!, stopped once it passes `most`.
  out.order = 1;
  for (const auto& cell : cells)
    for (std::uint64_t k = 2; k <= cell.size() && out.order <= most; ++k) out.order *= k;
  if (out.order > most) return perms;
  // Every combination of one arrangement per cell, the identity first.
  std::vector<std::vector<Colour>> arrangement = cells;
  while (true) {
    std::vector<Colour> p(n);
    for (std::size_t k = 0; k < cells.size(); ++k)
      for (std::size_t i = 0; i < cells[k].size(); ++i) p[cells[k][i]] = arrangement[k][i];
    perms.push_back(std::move(p));
    std::size_t k = 0;
    while (k < cells.size() && !std::next_permutation(arrangement[k].begin(), arrangement[k].end()))
      ++k;  // next_permutation returned the cell to its sorted order: carry into the next
    if (k == cells.size()) break;
  }
  return perms;
}

}  // namespace

ColourPermutations colourPermutations(const Net& net, const Unfolding& unfolding,
                                      const ColourPermutationLimits& limits) {
  ColourPermutations out;
  const std::vector<char> used = usedSorts(net);
  std::vector<SortId> classSorts;
  std::vector<std::vector<std::vector<Colour>>> perms;  // per class, its permutations
  for (SortId s = 0; s < net.sorts().size(); ++s) {
    const Sort& sort = net.sort(s);
    if (!used[s] || sort.kind != SortKind::Enumeration || sort.size < 2) continue;
    ColourPermutations::Class c;
    perms.push_back(classPermutations(net, s, limits.elements, c));
    classSorts.push_back(s);
    out.classes.push_back(std::move(c));
  }
  if (out.classes.empty()) return out;
  const std::uint64_t elements = unfolding.places.size() + unfolding.transitions.size();
  std::uint64_t order = 1;
  for (const ColourPermutations::Class& c : out.classes) {
    if (c.order > limits.elements / order) {
      out.refused = "their group has more than " + std::to_string(limits.elements) + " elements";
      return out;
    }
    order *= c.order;
  }
  if (order * std::max<std::uint64_t>(elements, 1) > limits.images) {
    out.refused = "their " + std::to_string(order) + " permutations of " +
                  std::to_string(elements) + " unfolded places and transitions take more than " +
                  std::to_string(limits.images) + " images";
    return out;
  }
  out.tried = order;

  // Where each coloured place's colours start among the unfolded places.
  std::vector<std::uint32_t> firstPlace(net.places().size(), 0);
  for (std::uint32_t i = unfolding.places.size(); i-- > 0;) {
    firstPlace[unfolding.places[i].coloured] = i;
  }
  for (std::uint32_t i = 0; i < unfolding.places.size(); ++i)
    if (unfolding.places[i].colour != i - firstPlace[unfolding.places[i].coloured])
      return out;  // not in colour order: no symmetry is offered
  using Key = std::vector<Colour>;
  boost::unordered_flat_map<Key, std::uint32_t, boost::hash<Key>> transitionOf;
  Key key;
  for (std::uint32_t i = 0; i < unfolding.transitions.size(); ++i) {
    const Unfolding::Transition& u = unfolding.transitions[i];
    key.assign(1, u.coloured);
    key.insert(key.end(), u.binding.begin(), u.binding.end());
    transitionOf.emplace(key, i);
  }

  // The image of colour c of sort s under the current element.
  std::vector<const std::vector<Colour>*> classPerm(net.sorts().size(), nullptr);
  auto act = [&](auto& self, SortId s, Colour c) -> Colour {
    const Sort& sort = net.sort(s);
    if (classPerm[s]) return (*classPerm[s])[c];
    if (sort.kind != SortKind::Product) return c;
    std::vector<Colour> parts(sort.components.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
      parts[i] = self(self, sort.components[i], net.component(s, c, i));
    return net.tuple(s, parts);
  };
  std::vector<std::size_t> choice(out.classes.size(), 0);
  for (std::uint64_t e = 1; e < order; ++e) {
    for (std::size_t k = 0; k < choice.size() && ++choice[k] == perms[k].size(); ++k) choice[k] = 0;
    for (std::size_t k = 0; k < choice.size(); ++k) classPerm[classSorts[k]] = &perms[k][choice[k]];
    ColourPermutations::Element image;
    image.places.resize(unfolding.places.size());
    for (std::uint32_t i = 0; i < unfolding.places.size(); ++i) {
      const Unfolding::Place& p = unfolding.places[i];
      image.places[i] = firstPlace[p.coloured] + static_cast<std::uint32_t>(act(
                                                     act, net.places()[p.coloured].sort, p.colour));
    }
    image.transitions.resize(unfolding.transitions.size());
    bool kept = true;
    for (std::uint32_t i = 0; i < unfolding.transitions.size() && kept; ++i) {
      const Unfolding::Transition& u = unfolding.transitions[i];
      key.assign(1, u.coloured);
      for (std::size_t v = 0; v < u.variables.size(); ++v)
        key.push_back(act(act, net.variables()[u.variables[v]].sort, u.binding[v]));
      const auto it = transitionOf.find(key);
      kept = it != transitionOf.end();
      if (kept) image.transitions[i] = it->second;
    }
    if (kept) out.elements.push_back(std::move(image));
  }
  return out;
}

}  // namespace mmt::coloured
