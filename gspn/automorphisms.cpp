#include "gspn/automorphisms.hpp"

#include <nausparse.h>
#include <nauty.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

namespace mmt::gspn {
namespace {

/// Union–find over n elements.
class Classes {
 public:
  explicit Classes(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<std::size_t> parent_;
};

/// A graph whose vertices carry colours; automorphisms preserve them.
struct ColouredGraph {
  std::vector<std::string> colour;
  std::vector<std::vector<int>> adjacent;
  int add(std::string c) {
    colour.push_back(std::move(c));
    adjacent.emplace_back();
    return int(colour.size()) - 1;
  }
  void join(int a, int b) {
    adjacent[std::size_t(a)].push_back(b);
    adjacent[std::size_t(b)].push_back(a);
  }
};

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

/// The expression with every place read as one: what it computes, up to which places.
std::string shape(const Expression& e) {
  return normalForm(e, [](PlaceId) { return PlaceId(0); });
}

/// The net's coloured graph (automorphisms.hpp): places are vertices 0..P−1, transitions
/// P..P+T−1, then arcs and reads.
ColouredGraph colouredGraph(const Net& net) {
  ColouredGraph g;
  const int places = int(net.placeCount());
  for (const Place& p : net.places()) g.add("p " + std::to_string(p.initial));
  for (const Transition& t : net.transitions()) {
    std::string key = t.kind == TransitionKind::Timed
                          ? "t timed " + number(t.rate) + " " + std::to_string(int(t.servers)) +
                                " " + std::to_string(t.serverCount) +
                                (t.declaredDelay ? " declared" : "")
                          : "t immediate " + number(t.weight) + " " + std::to_string(t.priority);
    g.add(key + " rate " + shape(t.rateExpression) + " guard " + shape(t.guard));
  }
  auto reads = [&](const Expression& e, int reader, const char* what) {
    for (std::uint32_t p : placesRead(e)) {
      const int read = g.add(std::string("read ") + what);
      g.join(read, reader);
      g.join(read, int(p));
    }
  };
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    const int tv = places + int(t);
    reads(net.transition(t).rateExpression, tv, "rate");
    reads(net.transition(t).guard, tv, "guard");
    for (const auto& [kind, arcs] :
         {std::pair{"in", net.inputs(t)}, std::pair{"out", net.outputs(t)},
          std::pair{"inhibit", net.inhibitors(t)}}) {
      for (const Arc& a : arcs) {
        const bool dependent = a.expression != Arc::kConstant;
        const int av = g.add(std::string("arc ") + kind + " " + std::to_string(a.multiplicity) +
                             (dependent ? " " + shape(net.arcExpressions()[a.expression]) : ""));
        g.join(av, int(a.place));
        g.join(av, tv);
        if (dependent) reads(net.arcExpressions()[a.expression], av, "arc");
      }
    }
  }
  return g;
}

thread_local std::vector<std::vector<int>>* tGenerators = nullptr;

void keepGenerator(int, int* perm, int*, int, int, int n) {
  tGenerators->emplace_back(perm, perm + n);
}

/// The search's work budget in nodes, and the nodes visited (AutomorphismSettings::maxWork).
thread_local double tNodesLeft = 0;
thread_local bool tOverBudget = false;

void countNode(graph*, int*, int*, int, int, int, int, int, int) {
  if (--tNodesLeft < 0 && !tOverBudget) {
    tOverBudget = true;
    nauty_kill_request = 1;
  }
}

/// The automorphism group's generators (permutations of the vertices) and log10 of its
/// order, by nauty on the sparse graph with the colours as the initial partition.
struct Generators {
  std::vector<std::vector<int>> permutations;
  double log10Order = 0;
  bool stopped = false;
};

Generators automorphisms(const ColouredGraph& g, const AutomorphismSettings& settings) {
  const std::size_t n = g.colour.size();
  std::vector<std::size_t> offsets(n);
  std::vector<int> degrees(n), edges;
  for (std::size_t v = 0; v < n; ++v) {
    offsets[v] = edges.size();
    degrees[v] = int(g.adjacent[v].size());
    edges.insert(edges.end(), g.adjacent[v].begin(), g.adjacent[v].end());
  }
  sparsegraph sg;
  SG_INIT(sg);
  sg.nv = int(n);
  sg.nde = edges.size();
  sg.v = offsets.data();
  sg.d = degrees.data();
  sg.e = edges.data();
  sg.vlen = n;
  sg.dlen = n;
  sg.elen = edges.size();
  // The colours as nauty's initial partition: cells of equal colour, in colour order.
  std::vector<int> lab(n), ptn(n), orbits(n);
  std::iota(lab.begin(), lab.end(), 0);
  std::stable_sort(lab.begin(), lab.end(), [&](int a, int b) {
    return g.colour[std::size_t(a)] < g.colour[std::size_t(b)];
  });
  for (std::size_t i = 0; i < n; ++i)
    ptn[i] = i + 1 < n && g.colour[std::size_t(lab[i])] == g.colour[std::size_t(lab[i + 1])];
  DEFAULTOPTIONS_SPARSEGRAPH(options);
  options.defaultptn = FALSE;
  options.userautomproc = keepGenerator;
  options.usernodeproc = countNode;
  statsblk stats;
  Generators out;
  tGenerators = &out.permutations;
  tNodesLeft = settings.maxWork / double(n + edges.size() + 1);
  tOverBudget = false;
  // nauty polls its kill request: countNode sets it when the budget is spent, a watchdog
  // when the backstop's time is up.
  const double maxSeconds = settings.maxSeconds;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock lock(mutex);
    if (!finished.wait_for(lock, std::chrono::duration<double>(maxSeconds), [&] { return done; })) {
      out.stopped = true;
      nauty_kill_request = 1;
    }
  });
  if (n > 0) {
    sparsenauty(&sg, lab.data(), ptn.data(), orbits.data(), &options, &stats, nullptr);
    // nauty keeps its workspaces per thread until told to free them: a thread of a sweep's
    // pool would otherwise leave them behind when it ends.
    nauty_freedyn();
    nautil_freedyn();
    nausparse_freedyn();
  }
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  finished.notify_all();
  watchdog.join();
  out.stopped = out.stopped || tOverBudget;
  nauty_kill_request = 0;
  tGenerators = nullptr;
  if (n > 0 && !out.stopped) out.log10Order = std::log10(stats.grpsize1) + stats.grpsize2;
  return out;
}

/// Blocks recognised from the generators (automorphisms.hpp), each factor checked.
class Recognizer {
 public:
  Recognizer(const Net& net, const Generators& generators, FoundSymmetry& out)
      : net_(net),
        places_(net.placeCount()),
        elements_(net.placeCount() + net.transitionCount()),
        out_(out) {
    for (const auto& g : generators.permutations)
      gens_.emplace_back(g.begin(), g.begin() + std::ptrdiff_t(elements_));
  }

  void run() {
    Classes orbit(elements_);
    for (const auto& g : gens_)
      for (std::size_t e = 0; e < elements_; ++e) orbit.unite(e, std::size_t(g[e]));
    orbitOf_.resize(elements_);
    std::vector<std::size_t> orbitSize(elements_, 0);
    for (std::size_t e = 0; e < elements_; ++e) ++orbitSize[orbitOf_[e] = orbit.find(e)];
    // Components of the moved elements, joined by the arcs between them.
    Classes joined(elements_);
    for (TransitionId t = 0; t < net_.transitionCount(); ++t)
      for (auto arcs : {net_.inputs(t), net_.outputs(t), net_.inhibitors(t)})
        for (const Arc& a : arcs)
          if (orbitSize[orbitOf_[a.place]] > 1 && orbitSize[orbitOf_[places_ + t]] > 1)
            joined.unite(a.place, places_ + t);
    std::map<std::size_t, std::size_t> index;
    componentOf_.assign(elements_, kNone);
    for (std::size_t e = 0; e < elements_; ++e) {
      if (orbitSize[orbitOf_[e]] < 2) continue;
      const auto [it, added] = index.try_emplace(joined.find(e), components_.size());
      if (added) components_.emplace_back();
      components_[it->second].push_back(e);
      componentOf_[e] = it->second;
    }
    if (components_.empty()) return;
    // The generators must move whole components onto components.
    Classes componentOrbit(components_.size());
    for (const auto& g : gens_) {
      std::vector<std::size_t> image(components_.size());
      for (std::size_t c = 0; c < components_.size(); ++c) {
        image[c] = componentOf_[std::size_t(g[components_[c][0]])];
        for (std::size_t e : components_[c])
          if (componentOf_[std::size_t(g[e])] != image[c]) {
            out_.notes.push_back("automorphisms found that move parts of a replica apart");
            return;
          }
        componentOrbit.unite(c, image[c]);
      }
      componentImage_.push_back(std::move(image));
    }
    std::map<std::size_t, std::vector<std::size_t>> families;
    for (std::size_t c = 0; c < components_.size(); ++c)
      families[componentOrbit.find(c)].push_back(c);
    for (const auto& [root, family] : families) {
      // Places that every transition treats alike and no transition moves (Kanban's pkan2
      // and pkan3) start equal and stay equal: swapping them lumps nothing.
      if (std::none_of(family.begin(), family.end(), [&](std::size_t c) {
            return std::any_of(components_[c].begin(), components_[c].end(),
                               [&](std::size_t e) { return e >= places_; });
          }))
        continue;
      std::optional<SymmetryFactor> factor =
          family.size() > 1 ? separateReplicas(family) : ringOfOne(family[0]);
      if (factor) out_.factors.push_back(std::move(*factor));
    }
  }

 private:
  static constexpr std::size_t kNone = ~std::size_t(0);

  /// k ≥ 2 components moved onto each other: each a block, positions by element orbit.
  std::optional<SymmetryFactor> separateReplicas(std::vector<std::size_t> family) {
    const std::size_t k = family.size();
    std::map<std::size_t, std::size_t> perOrbit;
    for (std::size_t c : family)
      for (std::size_t e : components_[c]) ++perOrbit[orbitOf_[e]];
    for (const auto& [orbit, count] : perOrbit)
      if (count != k) return refuse(family, "its orbits do not have one element per replica");
    auto blocks = [&](const std::vector<std::size_t>& order, SymmetryFactor::Kind kind) {
      SymmetryFactor f;
      f.kind = kind;
      for (std::size_t c : order) appendBlock(f, components_[c]);
      f.label = label(f);
      return f;
    };
    SymmetryFactor f = blocks(family, SymmetryFactor::Kind::Symmetric);
    if (!symmetryViolation(net_, f)) return f;
    // Not every permutation: replicas in a ring, ordered along a generator that cycles them.
    for (const auto& image : componentImage_) {
      std::vector<std::size_t> order{family[0]};
      while (order.size() < k && image[order.back()] != family[0])
        order.push_back(image[order.back()]);
      if (order.size() != k || image[order.back()] != family[0]) continue;
      for (auto kind : {SymmetryFactor::Kind::Dihedral, SymmetryFactor::Kind::Cyclic}) {
        SymmetryFactor ring = blocks(order, kind);
        if (!symmetryViolation(net_, ring)) return ring;
      }
    }
    return refuse(family, *symmetryViolation(net_, f));
  }

  /// One connected component moved onto itself (stations joined in a ring): blocks are
  /// the images of one element per orbit under a generator that cycles every orbit of the
  /// component in one cycle of the same length k; the representatives nearest one place.
  std::optional<SymmetryFactor> ringOfOne(std::size_t component) {
    const std::vector<std::size_t>& members = components_[component];
    for (const auto& g : gens_) {
      std::size_t k = 0;
      bool regular = true;
      for (std::size_t e : members) {
        std::size_t length = 1;
        for (std::size_t x = std::size_t(g[e]); x != e; x = std::size_t(g[x])) ++length;
        if (k == 0) k = length;
        regular = regular && length == k;
      }
      if (!regular || k < 2) continue;
      // One representative per orbit: the element nearest the component's first element.
      const std::vector<std::size_t> distance = distancesFrom(members[0], component);
      std::map<std::size_t, std::size_t> representative;
      for (std::size_t e : members) {
        auto [it, added] = representative.try_emplace(orbitOf_[e], e);
        if (!added && distance[e] < distance[it->second]) it->second = e;
      }
      std::vector<std::size_t> block;
      for (const auto& [orbit, e] : representative) block.push_back(e);
      std::vector<std::vector<std::size_t>> blocks;
      for (std::size_t b = 0; b < k; ++b) {
        blocks.push_back(block);
        for (std::size_t& e : block) e = std::size_t(g[e]);
      }
      for (auto kind : {SymmetryFactor::Kind::Dihedral, SymmetryFactor::Kind::Cyclic}) {
        SymmetryFactor f;
        f.kind = kind;
        for (const auto& b : blocks) appendBlock(f, b);
        f.label = label(f);
        if (!symmetryViolation(net_, f)) return f;
      }
    }
    return refuse({component}, "no rotation of its stations maps the net onto itself");
  }

  /// Breadth-first distances within a component (arcs as edges), from element `from`.
  std::vector<std::size_t> distancesFrom(std::size_t from, std::size_t component) const {
    std::vector<std::size_t> distance(elements_, kNone);
    std::vector<std::size_t> queue{from};
    distance[from] = 0;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const std::size_t e = queue[i];
      auto visit = [&](std::size_t x) {
        if (componentOf_[x] == component && distance[x] == kNone) {
          distance[x] = distance[e] + 1;
          queue.push_back(x);
        }
      };
      if (e >= places_) {
        const TransitionId t = TransitionId(e - places_);
        for (auto arcs : {net_.inputs(t), net_.outputs(t), net_.inhibitors(t)})
          for (const Arc& a : arcs) visit(a.place);
      } else {
        for (TransitionId t = 0; t < net_.transitionCount(); ++t)
          for (auto arcs : {net_.inputs(t), net_.outputs(t), net_.inhibitors(t)})
            for (const Arc& a : arcs)
              if (a.place == e) visit(places_ + t);
      }
    }
    return distance;
  }

  /// The block of `members`: its places, then its transitions, each in element-orbit
  /// order, so that the i-th of every block are in one orbit.
  void appendBlock(SymmetryFactor& f, std::vector<std::size_t> members) const {
    std::sort(members.begin(), members.end(),
              [&](std::size_t a, std::size_t b) { return orbitOf_[a] < orbitOf_[b]; });
    f.places.emplace_back();
    f.transitions.emplace_back();
    for (std::size_t e : members)
      if (e < places_)
        f.places.back().push_back(PlaceId(e));
      else
        f.transitions.back().push_back(TransitionId(e - places_));
  }

  /// "{up0, down0, …}": the first block's first places.
  std::string label(const SymmetryFactor& f) const {
    std::string out = "{";
    for (std::size_t i = 0; i < f.places[0].size() && i < 2; ++i)
      out += (i ? ", " : "") + net_.place(f.places[0][i]).name;
    return out + (f.places[0].size() > 2 ? ", …}" : "}");
  }

  std::nullopt_t refuse(const std::vector<std::size_t>& family, const std::string& why) {
    SymmetryFactor f;
    appendBlock(f, components_[family[0]]);
    out_.notes.push_back("replicas like " + label(f) + " not lumped: " + why);
    return std::nullopt;
  }

  const Net& net_;
  const std::size_t places_, elements_;
  FoundSymmetry& out_;
  std::vector<std::vector<int>> gens_;  // on places and transitions only
  std::vector<std::size_t> orbitOf_, componentOf_;
  std::vector<std::vector<std::size_t>> components_;
  std::vector<std::vector<std::size_t>> componentImage_;  // per generator
};

}  // namespace

FoundSymmetry findSymmetry(const Net& net, const AutomorphismSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  FoundSymmetry out;
  const Generators generators = automorphisms(colouredGraph(net), settings);
  out.stopped = generators.stopped;
  out.log10GroupOrder = generators.log10Order;
  Recognizer(net, generators, out).run();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace mmt::gspn
