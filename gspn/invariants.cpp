#include "gspn/invariants.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

namespace mmt::gspn {
namespace {

using Column = std::vector<std::int64_t>;  // one entry per place

/// The incidence matrix as columns: per transition, its constant arcs, then one column
/// per distinct marking-dependent multiplicity expression (identical programs are one).
std::vector<Column> incidenceColumns(const Net& net) {
  const std::size_t n = net.placeCount();
  std::vector<Column> columns;
  using Key = std::vector<std::tuple<int, std::uint32_t, double>>;
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    Column constant(n, 0);
    std::map<Key, Column> byExpression;
    auto add = [&](const Arc& a, std::int64_t sign) {
      if (a.expression == Arc::kConstant) {
        constant[a.place] += sign * static_cast<std::int64_t>(a.multiplicity);
        return;
      }
      Key key;
      for (const auto& i : net.arcExpressions()[a.expression].code())
        key.emplace_back(static_cast<int>(i.op), i.index, i.value);
      auto [it, fresh] = byExpression.try_emplace(std::move(key), Column(n, 0));
      it->second[a.place] += sign;
    };
    for (const Arc& a : net.inputs(t)) add(a, -1);
    for (const Arc& a : net.outputs(t)) add(a, +1);
    columns.push_back(std::move(constant));
    for (auto& [key, column] : byExpression) columns.push_back(std::move(column));
  }
  // Columns of zeros constrain nothing.
  std::erase_if(columns, [](const Column& c) {
    return std::all_of(c.begin(), c.end(), [](std::int64_t x) { return x == 0; });
  });
  return columns;
}

struct Row {
  std::vector<std::int64_t> c;  // y·C for the columns not yet processed (all kept)
  std::vector<std::uint64_t> y;
  std::vector<std::uint64_t> support;  // bit p set when y_p > 0
};

void setSupport(Row& r) {
  r.support.assign((r.y.size() + 63) / 64, 0);
  for (std::size_t p = 0; p < r.y.size(); ++p)
    if (r.y[p]) r.support[p / 64] |= std::uint64_t{1} << (p % 64);
}

std::uint64_t gcdOf(const Row& r) {
  std::uint64_t g = 0;
  for (std::uint64_t v : r.y) g = std::gcd(g, v);
  for (std::int64_t v : r.c) g = std::gcd(g, static_cast<std::uint64_t>(v < 0 ? -v : v));
  return g;
}

/// support(big) ⊇ support(small), on the bitsets.
bool supportContains(const Row& big, const Row& small) {
  for (std::size_t w = 0; w < big.support.size(); ++w)
    if (small.support[w] & ~big.support[w]) return false;
  return true;
}

}  // namespace

PSemiflows computePSemiflows(const Net& net, std::size_t maxRows) {
  const std::size_t n = net.placeCount();
  const std::vector<Column> columns = incidenceColumns(net);
  std::vector<Row> rows(n);
  for (std::size_t p = 0; p < n; ++p) {
    rows[p].y.assign(n, 0);
    rows[p].y[p] = 1;
    setSupport(rows[p]);
    rows[p].c.resize(columns.size());
    for (std::size_t j = 0; j < columns.size(); ++j) rows[p].c[j] = columns[j][p];
  }
  PSemiflows out;
  constexpr __int128 kMax = std::numeric_limits<std::int64_t>::max();
  for (std::size_t j = 0; j < columns.size(); ++j) {
    std::vector<Row> next, positive, negative;
    for (Row& r : rows)
      (r.c[j] == 0 ? next : r.c[j] > 0 ? positive : negative).push_back(std::move(r));
    const std::size_t carried = next.size();  // mutually minimal already
    for (const Row& a : positive)
      for (const Row& b : negative) {
        const std::uint64_t ca = static_cast<std::uint64_t>(a.c[j]),
                            cb = static_cast<std::uint64_t>(-b.c[j]);
        const std::uint64_t g = std::gcd(ca, cb);
        const __int128 fa = cb / g, fb = ca / g;  // fa·a + fb·b zeroes column j
        Row r;
        r.y.resize(n);
        r.c.resize(columns.size());
        for (std::size_t i = 0; i < n; ++i) {
          const __int128 v = fa * a.y[i] + fb * b.y[i];
          if (v > kMax) return {{}, false};
          r.y[i] = static_cast<std::uint64_t>(v);
        }
        for (std::size_t k = 0; k < columns.size(); ++k) {
          const __int128 v = fa * a.c[k] + fb * b.c[k];
          if (v > kMax || v < -kMax) return {{}, false};
          r.c[k] = static_cast<std::int64_t>(v);
        }
        if (const std::uint64_t d = gcdOf(r); d > 1) {
          for (auto& v : r.y) v /= d;
          for (auto& v : r.c) v /= static_cast<std::int64_t>(d);
        }
        setSupport(r);
        next.push_back(std::move(r));
        if (next.size() > maxRows) return {{}, false};
      }
    // Keep minimal supports only (a row whose support holds another's is a combination).
    // The carried rows were minimal among themselves: only pairs with a new row can fail,
    // which keeps this step at (new rows) × (rows) bitset tests.
    std::vector<bool> drop(next.size(), false);
    for (std::size_t a = carried; a < next.size(); ++a)
      for (std::size_t b = 0; b < next.size() && !drop[a]; ++b) {
        if (a == b || drop[b]) continue;
        if (supportContains(next[a], next[b])) {
          if (!supportContains(next[b], next[a]) || b < a) drop[a] = true;  // or the same support
        } else if (supportContains(next[b], next[a])) {
          drop[b] = true;  // b is wider than the new row a
        }
      }
    rows.clear();
    for (std::size_t a = 0; a < next.size(); ++a)
      if (!drop[a]) rows.push_back(std::move(next[a]));
  }
  for (Row& r : rows) out.flows.push_back(std::move(r.y));
  return out;
}

bool Boundedness::allBounded() const {
  return std::none_of(places.begin(), places.end(), [](Reason r) { return r == Reason::Unproven; });
}

std::string Boundedness::unproven(const Net& net) const {
  std::string out;
  for (PlaceId p = 0; p < places.size(); ++p)
    if (places[p] == Reason::Unproven) out += (out.empty() ? "" : ", ") + net.place(p).name;
  return out;
}

Boundedness analyzeBoundedness(const Net& net, const PSemiflows& semiflows) {
  Boundedness out;
  out.places.assign(net.placeCount(), Boundedness::Reason::Unproven);
  for (const auto& flow : semiflows.flows)
    for (PlaceId p = 0; p < flow.size(); ++p)
      if (flow[p] > 0) out.places[p] = Boundedness::Reason::Semiflow;
  // Inhibitor bounds: every transition that raises p must be inhibited by p.
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    if (out.places[p] != Boundedness::Reason::Unproven) continue;
    bool bounded = true;
    for (TransitionId t = 0; t < net.transitionCount() && bounded; ++t) {
      std::int64_t change = 0;
      bool dependent = false;
      for (const Arc& a : net.inputs(t))
        if (a.place == p) {
          dependent |= a.expression != Arc::kConstant;
          change -= a.multiplicity;
        }
      for (const Arc& a : net.outputs(t))
        if (a.place == p) {
          dependent |= a.expression != Arc::kConstant;
          change += a.multiplicity;
        }
      if (!dependent && change <= 0) continue;
      const auto inhibitors = net.inhibitors(t);
      bounded = std::any_of(
                    inhibitors.begin(), inhibitors.end(),
                    [&](const Arc& a) { return a.place == p && a.expression == Arc::kConstant; }) &&
                !dependent;
    }
    if (bounded) out.places[p] = Boundedness::Reason::Inhibitor;
  }
  return out;
}

std::string formatSemiflow(const Net& net, const std::vector<std::uint64_t>& flow) {
  std::ostringstream s;
  std::uint64_t total = 0;
  bool first = true;
  for (PlaceId p = 0; p < flow.size(); ++p) {
    if (flow[p] == 0) continue;
    s << (first ? "" : " + ");
    if (flow[p] != 1) s << flow[p] << "·";
    s << net.place(p).name;
    total += flow[p] * net.place(p).initial;
    first = false;
  }
  s << " = " << total;
  return s.str();
}

}  // namespace mmt::gspn
