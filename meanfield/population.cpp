#include "meanfield/population.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace mmt::meanfield {
namespace {

using Op = gspn::Expression::Op;
using Instruction = gspn::Expression::Instruction;

/// An expression as a tree, for finding its sums over every replica.
struct Tree {
  struct Node {
    Instruction in;
    std::vector<std::uint32_t> children;
  };
  std::vector<Node> nodes;
  std::uint32_t root = 0;
};

Tree treeOf(const gspn::Expression& e) {
  Tree t;
  std::vector<std::uint32_t> stack;
  for (const Instruction& in : e.code()) {
    const std::size_t n = gspn::operandCount(in);
    Tree::Node node{in, {stack.end() - std::ptrdiff_t(n), stack.end()}};
    stack.resize(stack.size() - n);
    t.nodes.push_back(std::move(node));
    stack.push_back(std::uint32_t(t.nodes.size() - 1));
  }
  t.root = stack.back();
  return t;
}

/// A replica: its class and block.
struct Block {
  std::uint32_t replicas, block;
  auto operator<=>(const Block&) const = default;
};

/// How the net's places and transitions sit in the replicas' blocks.
class Layout {
 public:
  Layout(const gspn::Net& net, const std::vector<gspn::SymmetryFactor>& factors)
      : net_(net), factors_(factors), place_(net.placeCount()), transition_(factors.size()) {
    for (std::uint32_t f = 0; f < factors.size(); ++f) {
      transition_[f].assign(net.transitionCount(), -1);
      for (std::uint32_t b = 0; b < factors[f].blockCount(); ++b) {
        for (std::uint32_t q = 0; q < factors[f].places[b].size(); ++q)
          place_[factors[f].places[b][q]] = {int(f), b, q};
        for (gspn::TransitionId t : factors[f].transitions[b]) transition_[f][t] = int(b);
      }
    }
  }
  struct PlaceAt {
    int replicas = -1;  ///< -1: a fixed place
    std::uint32_t block = 0, position = 0;
  };
  const PlaceAt& place(gspn::PlaceId p) const { return place_[p]; }
  /// The blocks transition t is in, one per class at most, by class.
  std::vector<Block> blocksOf(gspn::TransitionId t) const {
    std::vector<Block> out;
    for (std::uint32_t f = 0; f < factors_.size(); ++f)
      if (transition_[f][t] >= 0) out.push_back({f, std::uint32_t(transition_[f][t])});
    return out;
  }
  std::size_t blockCount(std::uint32_t f) const { return factors_[f].blockCount(); }
  const gspn::Net& net() const { return net_; }

 private:
  const gspn::Net& net_;
  const std::vector<gspn::SymmetryFactor>& factors_;
  std::vector<PlaceAt> place_;
  std::vector<std::vector<int>> transition_;
};

/// Rewrites one member's expression: every complete sum over the replicas becomes an orbit
/// sum, every count of its own replicas' places a slot code, fixed places their index.
class Rewriter {
 public:
  Rewriter(const Layout& layout, const std::vector<std::uint32_t>& fixedIndex,
           const std::vector<Block>& own, const std::string& element)
      : layout_(layout), fixedIndex_(fixedIndex), own_(own), element_(element) {}

  PopulationExpression operator()(const gspn::Expression& e) {
    PopulationExpression out;
    if (e.empty()) return out;
    tree_ = treeOf(e);
    sums_ = &out.sums;
    rewrite(tree_.root, out.code);
    return out;
  }

 private:
  /// The blocks a subtree reads, ascending.
  std::vector<Block> blocksRead(std::uint32_t node) const {
    std::set<Block> out;
    std::vector<std::uint32_t> open{node};
    while (!open.empty()) {
      const Tree::Node& n = tree_.nodes[open.back()];
      open.pop_back();
      if (n.in.op == Op::Tokens) {
        const Layout::PlaceAt& at = layout_.place(n.in.index);
        if (at.replicas >= 0) out.insert({std::uint32_t(at.replicas), at.block});
      }
      open.insert(open.end(), n.children.begin(), n.children.end());
    }
    return {out.begin(), out.end()};
  }

  void emit(std::uint32_t node, const std::function<std::uint32_t(gspn::PlaceId)>& code,
            gspn::Expression& out) const {
    const Tree::Node& n = tree_.nodes[node];
    for (std::uint32_t c : n.children) emit(c, code, out);
    Instruction in = n.in;
    if (in.op == Op::Tokens) in.index = code(in.index);
    out.push(in);
  }

  /// The operands of a sum, nested sums flattened, left to right.
  void addends(std::uint32_t node, std::vector<std::uint32_t>& out) const {
    const Tree::Node& n = tree_.nodes[node];
    if (n.in.op != Op::Add) {
      out.push_back(node);
      return;
    }
    for (std::uint32_t c : n.children) addends(c, out);
  }

  /// The code of a place read by a term whose blocks are `slots` (in slot order).
  std::uint32_t slotCode(gspn::PlaceId p, const std::vector<Block>& slots) const {
    const Layout::PlaceAt& at = layout_.place(p);
    if (at.replicas < 0) return fixedIndex_[p];
    const Block b{std::uint32_t(at.replicas), at.block};
    const auto s = std::find(slots.begin(), slots.end(), b);
    return kSlotCode + std::uint32_t(s - slots.begin()) * kPositions + at.position;
  }

  /// The addends that read replicas, grouped by what they compute with the replicas'
  /// identities forgotten; a group holding one addend per tuple of distinct replicas
  /// (k per class read once, k(k−1) per class read twice …) is an orbit sum.
  void rewriteSum(std::uint32_t node, gspn::Expression& out) {
    std::vector<std::uint32_t> operands;
    addends(node, operands);
    std::map<std::string, std::vector<std::uint32_t>> groups;
    std::vector<std::uint32_t> plain;
    for (std::uint32_t o : operands) {
      const std::vector<Block> read = blocksRead(o);
      if (read.empty()) {
        plain.push_back(o);
        continue;
      }
      // The key: the term with each replica's place read as (class, position), and how
      // many distinct replicas of each class it reads.
      gspn::Expression term;
      emit(
          o,
          [&](gspn::PlaceId p) {
            const Layout::PlaceAt& at = layout_.place(p);
            return at.replicas < 0
                       ? fixedIndex_[p]
                       : kSlotCode + std::uint32_t(at.replicas) * kPositions + at.position;
          },
          term);
      std::string key = gspn::normalForm(term, [](gspn::PlaceId p) { return p; }) + "|";
      for (const Block& b : read) key += std::to_string(b.replicas) + ",";
      groups[key].push_back(o);
    }
    std::size_t terms = 0;
    const auto add = [&] {
      if (terms++ > 0) out.push({Op::Add});
    };
    for (std::uint32_t o : plain) {
      rewrite(o, out);
      add();
    }
    for (auto& [key, members] : groups) {
      const std::vector<Block> slots = blocksRead(members.front());
      double tuples = 1;
      std::map<std::uint32_t, std::size_t> perClass;
      for (const Block& b : slots) {
        const std::size_t k = layout_.blockCount(b.replicas);
        tuples *= double(k - perClass[b.replicas]++);
      }
      // Each set of replicas once per order of its slots of one class: the orbit, no
      // addend twice.
      std::map<std::vector<Block>, std::size_t> sets;
      for (std::uint32_t o : members) ++sets[blocksRead(o)];
      double orders = 1;
      for (const auto& [f, n] : perClass)
        for (std::size_t i = 2; i <= n; ++i) orders *= double(i);
      const bool orbit = double(members.size()) == tuples &&
                         double(sets.size()) * orders == tuples &&
                         std::all_of(sets.begin(), sets.end(),
                                     [&](const auto& kv) { return double(kv.second) == orders; });
      if (!orbit) {
        for (std::uint32_t o : members) {  // no orbit: read as it stands (refused below)
          rewrite(o, out);
          add();
        }
        continue;
      }
      OrbitSum sum;
      for (const Block& b : slots) sum.classes.push_back(b.replicas);
      emit(
          members.front(), [&](gspn::PlaceId p) { return slotCode(p, slots); }, sum.term);
      sums_->push_back(std::move(sum));
      out.push({Op::Tokens, kSumCode + std::uint32_t(sums_->size() - 1)});
      add();
    }
  }

  void rewrite(std::uint32_t node, gspn::Expression& out) {
    const Tree::Node& n = tree_.nodes[node];
    if (n.in.op == Op::Add) return rewriteSum(node, out);
    for (std::uint32_t c : n.children) rewrite(c, out);
    Instruction in = n.in;
    if (in.op == Op::Tokens) {
      const Layout::PlaceAt& at = layout_.place(in.index);
      if (at.replicas < 0) {
        in.index = fixedIndex_[in.index];
      } else {
        const Block b{std::uint32_t(at.replicas), at.block};
        const auto s = std::find(own_.begin(), own_.end(), b);
        if (s == own_.end())
          throw UnsupportedModel(
              element_, element_ + " reads " + layout_.net().place(in.index).name +
                            ", a place of another replica than its own, outside a sum over "
                            "every replica: the replicas are not counted alike");
        in.index = kSlotCode + std::uint32_t(s - own_.begin()) * kPositions + at.position;
      }
    }
    out.push(in);
  }

  const Layout& layout_;
  const std::vector<std::uint32_t>& fixedIndex_;
  const std::vector<Block>& own_;
  const std::string& element_;
  Tree tree_;
  std::vector<OrbitSum>* sums_ = nullptr;
};

/// The arcs of transition t of `net` as a class reads them, its own blocks `own` as slots.
std::vector<ClassArc> classArcs(const Layout& layout, std::span<const gspn::Arc> arcs,
                                const std::vector<std::uint32_t>& fixedIndex,
                                const std::vector<Block>& own, const std::string& element) {
  std::vector<ClassArc> out;
  for (const gspn::Arc& a : arcs) {
    const std::string& place = layout.net().place(a.place).name;
    if (a.expression != gspn::Arc::kConstant)
      throw UnsupportedModel(element, element + " has an arc on " + place +
                                          " whose multiplicity depends on the marking, which "
                                          "the mean-field approximation does not read");
    const Layout::PlaceAt& at = layout.place(a.place);
    if (at.replicas < 0) {
      out.push_back({{false, fixedIndex[a.place], 0}, a.multiplicity});
      continue;
    }
    const Block b{std::uint32_t(at.replicas), at.block};
    const auto s = std::find(own.begin(), own.end(), b);
    if (s == own.end())
      throw UnsupportedModel(
          element,
          own.empty()
              ? element + " has an arc on " + place +
                    " and belongs to no replica: it moves replicas in a way that "
                    "tells them apart (a map's scatter or gather moves every replica "
                    "at once); the mean-field approximation needs replicas that "
                    "act alone or in pairs"
              : element + " has an arc on " + place + ", a place of another replica than its own");
    out.push_back({{true, std::uint32_t(s - own.begin()), at.position}, a.multiplicity});
  }
  std::sort(out.begin(), out.end(), [](const ClassArc& x, const ClassArc& y) {
    return std::tie(x.at.slot, x.at.index, x.at.position) <
           std::tie(y.at.slot, y.at.index, y.at.position);
  });
  return out;
}

std::string arcsText(const std::vector<ClassArc>& arcs) {
  std::string out;
  for (const ClassArc& a : arcs)
    out += (a.at.slot ? "s" + std::to_string(a.at.index) + "." + std::to_string(a.at.position)
                      : "f" + std::to_string(a.at.index)) +
           ":" + std::to_string(a.multiplicity) + " ";
  return out;
}

std::string expressionText(const PopulationExpression& e) {
  if (e.empty()) return "-";
  const auto same = [](gspn::PlaceId p) { return p; };
  std::string out = gspn::normalForm(e.code, same);
  for (const OrbitSum& s : e.sums) {
    out += " [sum over";
    for (std::uint32_t c : s.classes) out += " " + std::to_string(c);
    out += ": " + gspn::normalForm(s.term, same) + "]";
  }
  return out;
}

/// What a class computes, with the fixed places by index and its slots by position: equal
/// for every member of one orbit.
std::string classKey(const TransitionClass& c) {
  std::ostringstream out;
  out.precision(17);
  out << (c.immediate() ? "immediate" : "timed") << " rate " << c.rate << " servers "
      << int(c.servers) << "/" << c.serverCount << " weight " << c.weight << " priority "
      << c.priority << " slots";
  for (std::uint32_t s : c.slots) out << " " << s;
  out << " in " << arcsText(c.inputs) << "out " << arcsText(c.outputs) << "inhibit "
      << arcsText(c.inhibitors) << "rate " << expressionText(c.rateExpression) << " guard "
      << expressionText(c.guard);
  return out.str();
}

/// The token vectors one replica of class f may hold: closed under every class that moves
/// it, each read on the replica's places alone (what the fixed part and the other slots
/// need is not asked, so a few may never be reached).
void exploreLocalStates(PopulationModel& m, std::uint32_t f, const Limits& limits) {
  Replicas& r = m.replicas[f];
  std::map<std::vector<gspn::Tokens>, std::uint32_t> index;
  index[r.localStates.front()] = 0;
  std::deque<std::uint32_t> open{0};
  while (!open.empty()) {
    const std::vector<gspn::Tokens> state = r.localStates[open.front()];
    open.pop_front();
    for (const TransitionClass& c : m.classes)
      for (std::uint32_t s = 0; s < c.slots.size(); ++s) {
        if (c.slots[s] != f) continue;
        const auto onSlot = [&](const ClassArc& a) { return a.at.slot && a.at.index == s; };
        bool enabled = true;
        for (const ClassArc& a : c.inputs)
          enabled = enabled && (!onSlot(a) || state[a.at.position] >= a.multiplicity);
        for (const ClassArc& a : c.inhibitors)
          enabled = enabled && (!onSlot(a) || state[a.at.position] < a.multiplicity);
        if (!enabled) continue;
        std::vector<gspn::Tokens> next = state;
        for (const ClassArc& a : c.inputs)
          if (onSlot(a)) next[a.at.position] -= a.multiplicity;
        for (const ClassArc& a : c.outputs)
          if (onSlot(a)) {
            if (next[a.at.position] > 1'000'000 - a.multiplicity)
              throw UnsupportedModel(
                  r.label, "a replica of " + r.label + " gathers tokens without bound on " +
                               r.names[a.at.position] + ": its places are not bounded alone");
            next[a.at.position] += a.multiplicity;
          }
        if (index.count(next)) continue;
        if (r.localStates.size() >= limits.localStates)
          throw UnsupportedModel(r.label, "a replica of " + r.label + " takes more than " +
                                              std::to_string(limits.localStates) +
                                              " local states (token vectors of its places)");
        index[next] = std::uint32_t(r.localStates.size());
        open.push_back(std::uint32_t(r.localStates.size()));
        r.localStates.push_back(std::move(next));
      }
  }
}

}  // namespace

std::string Replicas::describe(std::uint32_t state) const {
  const std::string one = label + "[1]";
  std::string out;
  const std::vector<gspn::Tokens>& tokens = localStates[state];
  for (std::size_t q = 0; q < tokens.size(); ++q) {
    if (tokens[q] == 0) continue;
    std::string name = names[q];
    if (name.compare(0, one.size(), one) == 0) name = label + "[k]" + name.substr(one.size());
    out += (out.empty() ? "" : ", ") + name +
           (tokens[q] > 1 ? "=" + std::to_string(tokens[q]) : std::string());
  }
  return out.empty() ? "empty" : out;
}

std::vector<std::string> PopulationModel::signature() const {
  std::vector<std::string> out;
  std::string fixed = "fixed places:";
  for (std::size_t i = 0; i < fixedPlaces.size(); ++i)
    fixed += " " + fixedNames[i] + "=" + std::to_string(fixedInitial[i]);
  out.push_back(fixed);
  for (const Replicas& r : replicas) {
    std::string line = "replicas " + r.label + ":";
    for (const std::string& n : r.names) line += " " + n;
    line += "; local states";
    for (std::uint32_t s = 0; s < r.localStates.size(); ++s) line += " {" + r.describe(s) + "}";
    out.push_back(line);
  }
  std::vector<std::string> classes;
  for (const TransitionClass& c : this->classes)
    classes.push_back("class " + c.name + ": " + classKey(c) + " per assignment " +
                      std::to_string(c.perAssignment));
  std::sort(classes.begin(), classes.end());
  out.insert(out.end(), classes.begin(), classes.end());
  return out;
}

std::optional<std::string> signatureDifference(const PopulationModel& a, const PopulationModel& b) {
  const std::vector<std::string> x = a.signature(), y = b.signature();
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const std::string left = i < x.size() ? x[i] : "(nothing)";
    const std::string right = i < y.size() ? y[i] : "(nothing)";
    if (left != right) return left + "; " + right;
  }
  return std::nullopt;
}

PopulationModel populationModel(const gspn::Net& net,
                                const std::vector<gspn::SymmetryFactor>& factors,
                                const Limits& limits) {
  for (const gspn::SymmetryFactor& f : factors)
    if (f.kind != gspn::SymmetryFactor::Kind::Symmetric)
      throw std::invalid_argument("a population model counts the blocks of symmetric factors");
  const Layout layout(net, factors);
  PopulationModel m;
  m.name = net.name();
  m.roles.resize(net.placeCount());
  std::vector<std::uint32_t> fixedIndex(net.placeCount(), 0);
  for (gspn::PlaceId p = 0; p < net.placeCount(); ++p) {
    const Layout::PlaceAt& at = layout.place(p);
    if (at.replicas >= 0) {
      m.roles[p] = {at.replicas, at.position};
      continue;
    }
    fixedIndex[p] = std::uint32_t(m.fixedPlaces.size());
    m.roles[p] = {-1, fixedIndex[p]};
    m.fixedPlaces.push_back(p);
    m.fixedNames.push_back(net.place(p).name);
    m.fixedInitial.push_back(net.place(p).initial);
  }
  for (const gspn::SymmetryFactor& f : factors) {
    Replicas r;
    r.label = f.label;
    r.count = f.blockCount();
    r.places = f.places;
    for (gspn::PlaceId p : f.places.front()) r.names.push_back(net.place(p).name);
    std::vector<gspn::Tokens> initial;
    for (gspn::PlaceId p : f.places.front()) initial.push_back(net.place(p).initial);
    r.localStates.push_back(std::move(initial));
    m.replicas.push_back(std::move(r));
  }

  // Each transition read as a member of its class; members grouped by what they compute.
  std::map<std::string, std::uint32_t> byKey;
  std::vector<std::vector<std::vector<Block>>> memberBlocks;  // by class, by member
  m.classOf.assign(net.transitionCount(), 0);
  for (gspn::TransitionId t = 0; t < net.transitionCount(); ++t) {
    const gspn::Transition& tr = net.transition(t);
    const std::vector<Block> own = layout.blocksOf(t);
    TransitionClass c;
    c.name = tr.name;
    c.representative = t;
    for (const Block& b : own) c.slots.push_back(b.replicas);
    c.kind = tr.kind;
    c.rate = tr.rate;
    c.servers = tr.servers;
    c.serverCount = tr.serverCount;
    c.weight = tr.weight;
    c.priority = tr.priority;
    Rewriter rewrite(layout, fixedIndex, own, tr.name);
    c.rateExpression = rewrite(tr.rateExpression);
    c.guard = rewrite(tr.guard);
    c.inputs = classArcs(layout, net.inputs(t), fixedIndex, own, tr.name);
    c.outputs = classArcs(layout, net.outputs(t), fixedIndex, own, tr.name);
    c.inhibitors = classArcs(layout, net.inhibitors(t), fixedIndex, own, tr.name);
    // A transition of the fixed part is a class of its own; replicas' members join theirs.
    const std::string key = own.empty() ? "fixed " + std::to_string(t) : classKey(c);
    auto [it, fresh] = byKey.try_emplace(key, std::uint32_t(m.classes.size()));
    if (fresh) {
      m.classes.push_back(std::move(c));
      memberBlocks.emplace_back();
    }
    TransitionClass& into = m.classes[it->second];
    into.members.push_back(t);
    memberBlocks[it->second].push_back(own);
    m.classOf[t] = it->second;
    // The representative has every slot on the first replica.
    const bool first =
        std::all_of(own.begin(), own.end(), [](const Block& b) { return b.block == 0; });
    if (first && !fresh) {
      into.representative = t;
      into.name = tr.name;
    }
  }
  // Every class holds the same number of members for each assignment of replicas to its
  // slots: an orbit of the replicas' group.
  for (std::size_t i = 0; i < m.classes.size(); ++i) {
    TransitionClass& c = m.classes[i];
    if (c.slots.empty()) continue;
    std::map<std::vector<std::uint32_t>, std::size_t> times;
    for (const std::vector<Block>& own : memberBlocks[i]) {
      std::vector<std::uint32_t> blocks;
      for (const Block& b : own) blocks.push_back(b.block);
      ++times[blocks];
    }
    double assignments = 1;
    for (std::uint32_t f : c.slots) assignments *= double(layout.blockCount(f));
    const std::size_t each = times.begin()->second;
    const bool even =
        std::all_of(times.begin(), times.end(), [&](const auto& kv) { return kv.second == each; });
    if (!even || double(times.size()) != assignments)
      throw UnsupportedModel(c.name, "the transitions like " + c.name +
                                         " do not fire alike for every replica (" +
                                         std::to_string(c.members.size()) + " of them for " +
                                         std::to_string(std::size_t(assignments)) +
                                         " assignments of replicas): the replicas are not "
                                         "counted alike");
    c.perAssignment = double(each);
  }
  for (std::uint32_t f = 0; f < m.replicas.size(); ++f) exploreLocalStates(m, f, limits);
  return m;
}

}  // namespace mmt::meanfield
