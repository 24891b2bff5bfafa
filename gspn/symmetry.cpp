#include "gspn/symmetry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <tuple>

namespace mmt::gspn {
namespace {

using Kind = SymmetryFactor::Kind;
using Op = Expression::Op;

/// Operators whose operands may be reordered (and, but for == and !=, regrouped) without
/// changing the value: the normal form sorts their operands.
bool commutative(Op op) {
  return op == Op::Add || op == Op::Multiply || op == Op::Min || op == Op::Max || op == Op::And ||
         op == Op::Or || op == Op::Equal || op == Op::NotEqual;
}
bool associative(Op op) { return commutative(op) && op != Op::Equal && op != Op::NotEqual; }

/// The permutation that sends block b of `f` to block `image[b]`.
NetPermutation blockPermutation(const Net& net, const SymmetryFactor& f,
                                const std::vector<std::size_t>& image) {
  NetPermutation p;
  p.places.resize(net.placeCount());
  p.transitions.resize(net.transitionCount());
  for (PlaceId q = 0; q < p.places.size(); ++q) p.places[q] = q;
  for (TransitionId t = 0; t < p.transitions.size(); ++t) p.transitions[t] = t;
  for (std::size_t b = 0; b < f.blockCount(); ++b) {
    for (std::size_t i = 0; i < f.places[b].size(); ++i)
      p.places[f.places[b][i]] = f.places[image[b]][i];
    for (std::size_t i = 0; i < f.transitions[b].size(); ++i)
      p.transitions[f.transitions[b][i]] = f.transitions[image[b]][i];
  }
  return p;
}

/// The generators of a factor's group, as images of the blocks.
std::vector<std::vector<std::size_t>> generators(const SymmetryFactor& f) {
  const std::size_t k = f.blockCount();
  std::vector<std::size_t> rotation(k), swap(k), reflection(k);
  for (std::size_t b = 0; b < k; ++b) {
    rotation[b] = (b + 1) % k;
    swap[b] = b;
    reflection[b] = (k - b) % k;
  }
  std::swap(swap[0], swap[1]);
  switch (f.kind) {
    case Kind::Symmetric:
      return {swap, rotation};
    case Kind::Cyclic:
      return {rotation};
    case Kind::Dihedral:
      return {rotation, reflection};
  }
  return {};
}

/// The arcs of one kind of transition t, renamed by `sigma`, in a comparable order.
std::vector<std::tuple<PlaceId, std::uint32_t, std::string>> arcs(
    const Net& net, std::span<const Arc> list, const std::function<PlaceId(PlaceId)>& rename) {
  std::vector<std::tuple<PlaceId, std::uint32_t, std::string>> out;
  for (const Arc& a : list)
    out.emplace_back(rename(a.place), a.multiplicity,
                     a.expression == Arc::kConstant
                         ? std::string()
                         : normalForm(net.arcExpressions()[a.expression], rename));
  std::sort(out.begin(), out.end());
  return out;
}

/// What differs between transition t renamed by `sigma` and its image, or empty.
std::string transitionDifference(const Net& net, const NetPermutation& sigma, TransitionId t) {
  const Transition& a = net.transition(t);
  const Transition& b = net.transition(sigma.transitions[t]);
  auto rename = [&](PlaceId p) { return sigma.places[p]; };
  auto same = [](PlaceId p) { return p; };
  if (a.kind != b.kind) return "kind";
  if (a.kind == TransitionKind::Timed) {
    if (a.rate != b.rate) return "rate";
    if (a.servers != b.servers || a.serverCount != b.serverCount) return "server semantics";
    if (a.declaredDelay != b.declaredDelay) return "delay";
    if (normalForm(a.rateExpression, rename) != normalForm(b.rateExpression, same))
      return "marking-dependent rate";
  } else {
    if (a.weight != b.weight) return "weight";
    if (a.priority != b.priority) return "priority";
  }
  if (normalForm(a.guard, rename) != normalForm(b.guard, same)) return "guard";
  const TransitionId u = sigma.transitions[t];
  if (arcs(net, net.inputs(t), rename) != arcs(net, net.inputs(u), same)) return "input arcs";
  if (arcs(net, net.outputs(t), rename) != arcs(net, net.outputs(u), same)) return "output arcs";
  if (arcs(net, net.inhibitors(t), rename) != arcs(net, net.inhibitors(u), same))
    return "inhibitor arcs";
  return {};
}

/// The blocks' token vectors of `f` in m, row after row (k rows of w counters).
void gather(const SymmetryFactor& f, MarkingView m, std::vector<Tokens>& rows) {
  rows.clear();
  for (const auto& block : f.places)
    for (PlaceId p : block) rows.push_back(m[p]);
}

/// The rows in the block order `order(b)` compared lexicographically with the rows in the
/// order `best(b)`: negative when smaller.
template <typename A, typename B>
int compareOrders(const std::vector<Tokens>& rows, std::size_t k, std::size_t w, A order, B best) {
  for (std::size_t b = 0; b < k; ++b) {
    const Tokens* x = rows.data() + order(b) * w;
    const Tokens* y = rows.data() + best(b) * w;
    for (std::size_t i = 0; i < w; ++i)
      if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

/// The block orders of a cyclic or dihedral factor: rotation r reads block (b + r) mod k at
/// position b; reflection r reads block (r − b) mod k.
struct RingOrder {
  std::size_t k, shift;
  bool reflected;
  std::size_t operator()(std::size_t b) const {
    return reflected ? (shift + k - b) % k : (b + shift) % k;
  }
};

std::vector<RingOrder> ringOrders(const SymmetryFactor& f) {
  const std::size_t k = f.blockCount();
  std::vector<RingOrder> out;
  for (std::size_t r = 0; r < k; ++r) out.push_back({k, r, false});
  if (f.kind == Kind::Dihedral)
    for (std::size_t r = 0; r < k; ++r) out.push_back({k, r, true});
  return out;
}

thread_local std::vector<Tokens> tRows;

/// The images of place or transition `x` under the identity and `elements` (their
/// `images` member), ascending, each once.
std::vector<std::uint32_t> orbitByElements(const std::vector<NetPermutation>& elements,
                                           std::uint32_t x,
                                           std::vector<std::uint32_t> NetPermutation::*images) {
  std::vector<std::uint32_t> out{x};
  for (const NetPermutation& g : elements) out.push_back((g.*images)[x]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string normalForm(const Expression& e, const std::function<PlaceId(PlaceId)>& rename) {
  struct Node {
    Op op;
    bool leaf;
    std::vector<std::string> operands;  // of an operator; the leaf's text otherwise
  };
  // Operands are sorted once, when the node becomes text: a sum of n terms built left to
  // right is flattened in O(n) and sorted in O(n log n).
  auto text = [](Node& n) {
    if (n.leaf) return std::move(n.operands[0]);
    if (commutative(n.op)) std::sort(n.operands.begin(), n.operands.end());
    std::string out = std::to_string(int(n.op)) + "(";
    for (std::size_t k = 0; k < n.operands.size(); ++k) out += (k ? "," : "") + n.operands[k];
    return out + ")";
  };
  std::vector<Node> stack;
  for (const Expression::Instruction& in : e.code()) {
    const std::size_t n = operandCount(in);
    if (n == 0) {
      char leaf[64];
      if (in.op == Op::Tokens)
        std::snprintf(leaf, sizeof leaf, "#%u", rename(in.index));
      else if (in.op == Op::Constant)
        std::snprintf(leaf, sizeof leaf, "%.17g", in.value);
      else  // measure atoms: no place to rename
        std::snprintf(leaf, sizeof leaf, "@%d:%u", int(in.op), in.index);
      stack.push_back({in.op, true, {leaf}});
      continue;
    }
    Node node{in.op, false, {}};
    for (std::size_t k = stack.size() - n; k < stack.size(); ++k) {
      // (a + b) + c and a + (b + c) alike: the inner operands join the outer list.
      std::vector<std::string>& inner = stack[k].operands;
      if (associative(in.op) && stack[k].op == in.op && !stack[k].leaf) {
        if (node.operands.empty())
          node.operands.swap(inner);
        else
          node.operands.insert(node.operands.end(), std::make_move_iterator(inner.begin()),
                               std::make_move_iterator(inner.end()));
      } else {
        node.operands.push_back(text(stack[k]));
      }
    }
    stack.resize(stack.size() - n);
    stack.push_back(std::move(node));
  }
  return stack.empty() ? std::string() : text(stack.back());
}

const char* toString(SymmetryFactor::Kind kind) {
  switch (kind) {
    case Kind::Symmetric:
      return "symmetric";
    case Kind::Cyclic:
      return "cyclic";
    case Kind::Dihedral:
      return "dihedral";
  }
  return "";
}

std::optional<std::string> symmetryViolation(const Net& net, const SymmetryFactor& f,
                                             bool initialMarking) {
  const std::size_t k = f.blockCount();
  if (k < 2) return "fewer than two blocks";
  if (f.transitions.size() != k) return "a block without its transitions";
  std::vector<char> seenPlace(net.placeCount()), seenTransition(net.transitionCount());
  for (std::size_t b = 0; b < k; ++b) {
    if (f.places[b].size() != f.places[0].size() ||
        f.transitions[b].size() != f.transitions[0].size())
      return "blocks of different sizes";
    for (PlaceId p : f.places[b])
      if (p >= net.placeCount() || std::exchange(seenPlace[p], 1)) return "blocks overlap";
    for (TransitionId t : f.transitions[b])
      if (t >= net.transitionCount() || std::exchange(seenTransition[t], 1))
        return "blocks overlap";
  }
  for (const std::vector<std::size_t>& image : generators(f))
    if (auto why = permutationViolation(net, blockPermutation(net, f, image), initialMarking))
      return why;
  return std::nullopt;
}

std::optional<std::string> permutationViolation(const Net& net, const NetPermutation& sigma,
                                                bool initialMarking) {
  for (TransitionId t = 0; t < net.transitionCount(); ++t)
    if (const std::string what = transitionDifference(net, sigma, t); !what.empty())
      return "transition '" + net.transition(t).name + "' and its image '" +
             net.transition(sigma.transitions[t]).name + "' differ in " + what;
  if (initialMarking)
    for (PlaceId p = 0; p < net.placeCount(); ++p)
      if (net.place(p).initial != net.place(sigma.places[p]).initial)
        return "place '" + net.place(p).name + "' and its image '" +
               net.place(sigma.places[p]).name + "' differ in initial marking";
  return std::nullopt;
}

Symmetry::Symmetry(const Net& net, std::vector<SymmetryFactor> factors)
    : factors_(std::move(factors)),
      placeBlock_(net.placeCount()),
      transitionBlocks_(net.transitionCount()) {
  for (std::uint32_t f = 0; f < factors_.size(); ++f) {
    const SymmetryFactor& factor = factors_[f];
    if (factor.blockCount() < 2 || factor.transitions.size() != factor.blockCount())
      throw std::invalid_argument("a symmetry factor needs two blocks or more");
    for (std::uint32_t b = 0; b < factor.blockCount(); ++b) {
      if (factor.places[b].size() != factor.places[0].size() ||
          factor.transitions[b].size() != factor.transitions[0].size())
        throw std::invalid_argument("the blocks of a symmetry factor differ in size");
      for (std::uint32_t i = 0; i < factor.places[b].size(); ++i) {
        Position& at = placeBlock_.at(factor.places[b][i]);
        if (at.factor != kNone) throw std::invalid_argument("symmetry blocks overlap");
        at = {f, b, i};
      }
      for (std::uint32_t i = 0; i < factor.transitions[b].size(); ++i) {
        std::vector<Position>& at = transitionBlocks_.at(factor.transitions[b][i]);
        if (!at.empty() && at.back().factor == f)
          throw std::invalid_argument("symmetry blocks overlap");
        at.push_back({f, b, i});
      }
    }
    rings_ = rings_ || factor.kind != Kind::Symmetric;
    Layout layout;
    if (!factor.places[0].empty()) {
      layout.base = factor.places[0][0];
      layout.stride = factor.places[1][0] - factor.places[0][0];
      layout.strided = factor.places[1][0] > factor.places[0][0];
      for (std::uint32_t b = 0; b < factor.blockCount() && layout.strided; ++b)
        for (std::uint32_t i = 0; i < factor.places[b].size(); ++i)
          layout.strided =
              layout.strided && factor.places[b][i] == layout.base + b * layout.stride + i;
    }
    layouts_.push_back(layout);
  }
  auto symmetric = [&](const Position& at) {
    return at.factor != kNone && factors_[at.factor].kind == Kind::Symmetric;
  };
  for (PlaceId p = 0; p < placeBlock_.size(); ++p)
    if (!symmetric(placeBlock_[p])) free_.push_back(p);
  firstSymmetricFactor_.assign(transitionBlocks_.size(), kNone);
  for (TransitionId t = 0; t < transitionBlocks_.size(); ++t) {
    const auto first =
        std::find_if(transitionBlocks_[t].begin(), transitionBlocks_[t].end(), symmetric);
    if (first == transitionBlocks_[t].end())
      unblocked_.push_back(t);
    else
      firstSymmetricFactor_[t] = first->factor;
  }
}

Symmetry::Symmetry(const Net& net, std::vector<NetPermutation> elements)
    : Symmetry(net, std::vector<SymmetryFactor>{}) {
  elements_ = std::move(elements);
  rings_ = !elements_.empty();
  for (const NetPermutation& g : elements_) {
    if (g.places.size() != net.placeCount() || g.transitions.size() != net.transitionCount())
      throw std::invalid_argument("a symmetry element does not permute the whole net");
    std::vector<PlaceId>& inverse = inverse_.emplace_back(g.places.size());
    for (PlaceId p = 0; p < g.places.size(); ++p) inverse[g.places[p]] = p;
  }
}

void Symmetry::canonicalizeByElements(std::span<Tokens> m) const {
  // The image of m under g holds m[g⁻¹(q)] at place q.
  thread_local std::vector<Tokens> best;
  best.assign(m.begin(), m.end());
  const std::size_t n = m.size();
  for (const std::vector<PlaceId>& inverse : inverse_) {
    std::size_t q = 0;
    while (q < n && m[inverse[q]] == best[q]) ++q;
    if (q == n || m[inverse[q]] > best[q]) continue;
    for (; q < n; ++q) best[q] = m[inverse[q]];
  }
  std::copy(best.begin(), best.end(), m.begin());
}

int Symmetry::compareBlocks(std::size_t f, std::size_t a, std::size_t b, MarkingView m) const {
  const Layout& layout = layouts_[f];
  const std::vector<PlaceId>& x = factors_[f].places[a];
  if (layout.strided) {
    const Tokens* u = m.data() + layout.base + a * layout.stride;
    const Tokens* v = m.data() + layout.base + b * layout.stride;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (u[i] != v[i]) return u[i] < v[i] ? -1 : 1;
    return 0;
  }
  const std::vector<PlaceId>& y = factors_[f].places[b];
  for (std::size_t i = 0; i < x.size(); ++i)
    if (m[x[i]] != m[y[i]]) return m[x[i]] < m[y[i]] ? -1 : 1;
  return 0;
}

void Symmetry::adjacentRuns(std::size_t f, MarkingView m,
                            std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const {
  const Layout& layout = layouts_[f];
  const auto k = static_cast<std::uint32_t>(factors_[f].blockCount());
  const std::size_t w = factors_[f].places[0].size();
  out.clear();
  out.emplace_back(0, 1);
  if (layout.strided) {
    const Tokens* block = m.data() + layout.base;
    for (std::uint32_t b = 1; b < k; ++b) {
      const Tokens* next = block + layout.stride;
      // A loop, not std::equal: that becomes a call of memcmp per block.
      bool equal = true;
      for (std::size_t i = 0; i < w; ++i) equal &= block[i] == next[i];
      if (equal)
        ++out.back().second;
      else
        out.emplace_back(b, 1);
      block = next;
    }
    return;
  }
  for (std::uint32_t b = 1; b < k; ++b) {
    if (compareBlocks(f, b - 1, b, m) == 0)
      ++out.back().second;
    else
      out.emplace_back(b, 1);
  }
}

void Symmetry::canonicalizeRings(std::span<Tokens> m) const {
  if (!elements_.empty()) canonicalizeByElements(m);
  for (const SymmetryFactor& f : factors_) {
    const std::size_t k = f.blockCount(), w = f.places[0].size();
    if (f.kind == Kind::Symmetric || w == 0) continue;
    gather(f, m, tRows);
    RingOrder best{k, 0, false};
    for (const RingOrder& order : ringOrders(f))
      if (compareOrders(tRows, k, w, order, best) < 0) best = order;
    for (std::size_t b = 0; b < k; ++b)
      for (std::size_t i = 0; i < w; ++i) m[f.places[b][i]] = tRows[best(b) * w + i];
  }
}

void Symmetry::key(MarkingView m, std::vector<Tokens>& out) const {
  thread_local std::vector<Tokens> ring;
  if (rings_) {
    ring.assign(m.begin(), m.end());
    canonicalizeRings(ring);
    m = ring;
  }
  out.clear();
  for (PlaceId p : free_) out.push_back(m[p]);
  // Per symmetric factor: the runs of equal adjacent blocks (one pass), sorted by their
  // vector (few: a successor of a canonical marking differs from it in a block or two),
  // equal vectors merged.
  thread_local std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // (first block, count)
  for (std::size_t fi = 0; fi < factors_.size(); ++fi) {
    const SymmetryFactor& f = factors_[fi];
    if (f.kind != Kind::Symmetric) continue;
    const std::size_t w = f.places[0].size();
    adjacentRuns(fi, m, runs);
    for (std::size_t i = 1; i < runs.size(); ++i)
      for (std::size_t j = i; j > 0 && compareBlocks(fi, runs[j].first, runs[j - 1].first, m) < 0;
           --j)
        std::swap(runs[j], runs[j - 1]);
    const std::size_t countAt = out.size();
    out.push_back(0);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (i > 0 && compareBlocks(fi, runs[i].first, runs[i - 1].first, m) == 0) {
        out[out.size() - w - 1] += runs[i].second;
        continue;
      }
      ++out[countAt];
      out.push_back(runs[i].second);
      for (std::size_t p = 0; p < w; ++p) out.push_back(m[f.places[runs[i].first][p]]);
    }
  }
}

void Symmetry::expand(std::span<const Tokens> key, std::span<Tokens> m) const {
  std::size_t at = 0;
  for (PlaceId p : free_) m[p] = key[at++];
  for (const SymmetryFactor& f : factors_) {
    if (f.kind != Kind::Symmetric) continue;
    const std::size_t w = f.places[0].size();
    const Tokens distinct = key[at++];
    std::size_t b = 0;
    for (Tokens r = 0; r < distinct; ++r, at += w + 1)
      for (Tokens c = 0; c < key[at]; ++c, ++b)
        for (std::size_t p = 0; p < w; ++p) m[f.places[b][p]] = key[at + 1 + p];
  }
}

void Symmetry::runs(MarkingView canonical, Runs& out) const {
  out.start.resize(factors_.size());
  for (std::size_t f = 0; f < factors_.size(); ++f) {
    const SymmetryFactor& factor = factors_[f];
    std::vector<std::uint32_t>& start = out.start[f];
    start.clear();
    if (factor.kind != Kind::Symmetric) continue;
    start.resize(factor.blockCount(), 0);
    thread_local std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
    adjacentRuns(f, canonical, runs);
    for (auto [first, count] : runs) start[first] = count;
  }
}

void Symmetry::canonicalize(std::span<Tokens> m) const {
  // The canonical marking is the one its orbit's key expands into.
  thread_local std::vector<Tokens> orbitKey;
  key(m, orbitKey);
  expand(orbitKey, m);
}

double Symmetry::orbitSize(MarkingView m) const {
  thread_local std::vector<Tokens> orbitKey;
  key(m, orbitKey);
  return orbitSizeOfKey(orbitKey, m);
}

double Symmetry::log10OrbitSize(MarkingView m) const {
  thread_local std::vector<Tokens> orbitKey;
  key(m, orbitKey);
  return log10OrbitSizeOfKey(orbitKey, m);
}

double Symmetry::orbitSizeOfKey(std::span<const Tokens> key, MarkingView m) const {
  // Symmetric factors: k! / Π_v c_v! from the run counts c_v, accumulated as a product of
  // binomials C(n, c) that stay whole.
  double size = 1;
  std::size_t at = free_.size();
  for (const SymmetryFactor& f : factors_) {
    if (f.kind != Kind::Symmetric) continue;
    const std::size_t w = f.places[0].size();
    const Tokens distinct = key[at++];
    double n = 0;
    for (Tokens r = 0; r < distinct; ++r, at += w + 1)
      for (Tokens i = 1; i <= key[at]; ++i) size = size * ++n / double(i);
  }
  return rings_ ? size * ringOrbitSize(m) : size;
}

double Symmetry::log10OrbitSizeOfKey(std::span<const Tokens> key, MarkingView m) const {
  auto log10Factorial = [](double n) { return std::lgamma(n + 1) / std::log(10.0); };
  double size = 0;
  std::size_t at = free_.size();
  for (const SymmetryFactor& f : factors_) {
    if (f.kind != Kind::Symmetric) continue;
    const std::size_t w = f.places[0].size();
    const Tokens distinct = key[at++];
    size += log10Factorial(double(f.blockCount()));
    for (Tokens r = 0; r < distinct; ++r, at += w + 1) size -= log10Factorial(key[at]);
  }
  return rings_ ? size + std::log10(ringOrbitSize(m)) : size;
}

double Symmetry::ringOrbitSize(MarkingView m) const {
  if (!elements_.empty()) {
    std::size_t stabilizer = 1;  // the identity
    for (const std::vector<PlaceId>& inverse : inverse_) {
      std::size_t q = 0;
      while (q < m.size() && m[inverse[q]] == m[q]) ++q;
      stabilizer += q == m.size();
    }
    return double(elementCount()) / double(stabilizer);
  }
  double size = 1;
  for (const SymmetryFactor& f : factors_) {
    if (f.kind == Kind::Symmetric) continue;
    const std::size_t k = f.blockCount(), w = f.places[0].size();
    gather(f, m, tRows);
    const std::vector<RingOrder> orders = ringOrders(f);
    std::size_t stabilizer = 0;
    for (const RingOrder& order : orders)
      stabilizer += compareOrders(tRows, k, w, order, RingOrder{k, 0, false}) == 0;
    size *= double(orders.size()) / double(stabilizer);
  }
  return size;
}

double Symmetry::log10Order() const {
  double order = elements_.empty() ? 0.0 : std::log10(double(elementCount()));
  for (const SymmetryFactor& f : factors_) {
    const double k = double(f.blockCount());
    order += f.kind == Kind::Symmetric ? std::lgamma(k + 1) / std::log(10.0)
                                       : std::log10(f.kind == Kind::Cyclic ? k : 2 * k);
  }
  return order;
}

std::uint32_t Symmetry::firingMultiplicity(TransitionId t, MarkingView m) const {
  Runs r;
  runs(m, r);
  return copiesOf(t, r);
}

std::vector<PlaceId> Symmetry::placeOrbit(PlaceId p) const {
  if (!elements_.empty()) return orbitByElements(elements_, p, &NetPermutation::places);
  const Position at = placeBlock_[p];
  if (at.factor == kNone) return {p};
  std::vector<PlaceId> out;
  for (const auto& block : factors_[at.factor].places) out.push_back(block[at.index]);
  return out;
}

std::vector<TransitionId> Symmetry::transitionOrbit(TransitionId t) const {
  if (!elements_.empty()) return orbitByElements(elements_, t, &NetPermutation::transitions);
  // The closure of {t} under moving it to every block of each factor it is in (a transfer
  // between two farms moves with both).
  const std::vector<Position>& at = transitionBlocks_[t];
  if (at.empty()) return {t};
  if (at.size() == 1) {
    std::vector<TransitionId> out;
    for (const auto& block : factors_[at[0].factor].transitions) out.push_back(block[at[0].index]);
    return out;
  }
  std::vector<TransitionId> out{t};
  for (std::size_t next = 0; next < out.size(); ++next)
    for (const Position& at : transitionBlocks_[out[next]])
      for (const auto& block : factors_[at.factor].transitions)
        if (std::find(out.begin(), out.end(), block[at.index]) == out.end())
          out.push_back(block[at.index]);
  return out;
}

std::vector<std::vector<PlaceId>> Symmetry::images(std::span<const PlaceId> reads) const {
  if (!elements_.empty()) {
    // Each element once: the average over the group.
    std::vector<std::vector<PlaceId>> out{std::vector<PlaceId>(reads.begin(), reads.end())};
    for (const NetPermutation& g : elements_) {
      std::vector<PlaceId>& image = out.emplace_back();
      for (PlaceId p : reads) image.push_back(g.places[p]);
    }
    return out;
  }
  // The blocks `reads` touches, by factor, and the images each factor gives them.
  struct Touched {
    std::uint32_t factor;
    std::vector<std::uint32_t> blocks;
    std::vector<std::vector<std::uint32_t>> images;  // per image: the block of each touched
  };
  std::vector<Touched> touched;
  for (PlaceId p : reads) {
    const Position at = placeBlock_[p];
    if (at.factor == kNone) continue;
    auto it = std::find_if(touched.begin(), touched.end(),
                           [&](const Touched& t) { return t.factor == at.factor; });
    if (it == touched.end()) it = touched.insert(touched.end(), Touched{at.factor, {}, {}});
    if (std::find(it->blocks.begin(), it->blocks.end(), at.block) == it->blocks.end())
      it->blocks.push_back(at.block);
  }
  std::size_t combinations = 1;
  for (Touched& t : touched) {
    const SymmetryFactor& factor = factors_[t.factor];
    const auto k = static_cast<std::uint32_t>(factor.blockCount());
    if (factor.kind == Kind::Symmetric) {
      // Every injective map of the touched blocks into the k blocks.
      std::vector<std::uint32_t> image;
      std::vector<char> used(k);
      std::function<void()> extend = [&] {
        if (image.size() == t.blocks.size()) {
          t.images.push_back(image);
          if (t.images.size() > kMaxImages)
            throw std::length_error("a measure reads too many interchangeable replicas at once");
          return;
        }
        for (std::uint32_t b = 0; b < k; ++b)
          if (!used[b]) {
            used[b] = 1;
            image.push_back(b);
            extend();
            image.pop_back();
            used[b] = 0;
          }
      };
      extend();
    } else {
      for (const RingOrder& order : ringOrders(factor)) {
        std::vector<std::uint32_t> image;
        for (std::uint32_t b : t.blocks) image.push_back(static_cast<std::uint32_t>(order(b)));
        t.images.push_back(std::move(image));
      }
    }
    combinations *= t.images.size();
    if (combinations > kMaxImages)
      throw std::length_error("a measure reads too many interchangeable replicas at once");
  }
  std::vector<std::vector<PlaceId>> out;
  std::vector<std::size_t> choice(touched.size(), 0);
  for (std::size_t c = 0; c < combinations; ++c) {
    std::vector<PlaceId> image;
    for (PlaceId p : reads) {
      const Position at = placeBlock_[p];
      if (at.factor == kNone) {
        image.push_back(p);
        continue;
      }
      const auto it = std::find_if(touched.begin(), touched.end(),
                                   [&](const Touched& t) { return t.factor == at.factor; });
      const std::size_t slot = std::size_t(
          std::find(it->blocks.begin(), it->blocks.end(), at.block) - it->blocks.begin());
      const std::uint32_t block = it->images[choice[std::size_t(it - touched.begin())]][slot];
      image.push_back(factors_[at.factor].places[block][at.index]);
    }
    out.push_back(std::move(image));
    for (std::size_t i = 0; i < choice.size() && ++choice[i] == touched[i].images.size(); ++i)
      choice[i] = 0;
  }
  return out;
}

double SymmetricMeasures::meanTokens(PlaceId p) const {
  if (!symmetry_) return lumped_.meanTokens(p);
  const std::vector<PlaceId> orbit = symmetry_->placeOrbit(p);
  double sum = 0;
  for (PlaceId q : orbit) sum += lumped_.meanTokens(q);
  return sum / double(orbit.size());
}

double SymmetricMeasures::throughput(TransitionId t) const {
  if (!symmetry_) return lumped_.throughput(t);
  const std::vector<TransitionId> orbit = symmetry_->transitionOrbit(t);
  double sum = 0;
  for (TransitionId u : orbit) sum += lumped_.throughput(u);
  return sum / double(orbit.size());
}

double SymmetricMeasures::expectation(const std::function<double(MarkingView)>& f,
                                      std::span<const PlaceId> reads) const {
  if (!symmetry_) return lumped_.expectation(f, reads);
  const std::vector<std::vector<PlaceId>> images = symmetry_->images(reads);
  std::vector<Tokens> image;
  return lumped_.expectation(
      [&](MarkingView m) {
        image.assign(m.begin(), m.end());
        double sum = 0;
        for (const std::vector<PlaceId>& sources : images) {
          for (std::size_t i = 0; i < reads.size(); ++i) image[reads[i]] = m[sources[i]];
          sum += f(image);
        }
        return sum / double(images.size());
      },
      reads);
}

}  // namespace mmt::gspn
