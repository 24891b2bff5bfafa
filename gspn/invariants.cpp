#include "gspn/invariants.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

namespace mmt::gspn {
namespace {

/// A sparse vector: (index, value) by increasing index, no zero values.
template <typename T>
using Sparse = std::vector<std::pair<std::uint32_t, T>>;
using Column = Sparse<std::int64_t>;  // a column of the incidence matrix, by place

/// `column` as a sparse vector, from its (place, value) terms in any order.
Column compact(std::vector<std::pair<std::uint32_t, std::int64_t>> terms) {
  std::sort(terms.begin(), terms.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Column out;
  for (const auto& [p, v] : terms) {
    if (!out.empty() && out.back().first == p)
      out.back().second += v;
    else
      out.emplace_back(p, v);
  }
  std::erase_if(out, [](const auto& e) { return e.second == 0; });
  return out;
}

/// The incidence matrix as columns: per transition, its constant arcs, then one column
/// per distinct marking-dependent multiplicity expression (identical programs are one).
/// Columns of zeros constrain nothing and are left out.
std::vector<Column> incidenceColumns(const Net& net) {
  std::vector<Column> columns;
  using Key = std::vector<std::tuple<int, std::uint32_t, double>>;
  for (TransitionId t = 0; t < net.transitionCount(); ++t) {
    std::vector<std::pair<std::uint32_t, std::int64_t>> constant;
    std::map<Key, std::vector<std::pair<std::uint32_t, std::int64_t>>> byExpression;
    auto add = [&](const Arc& a, std::int64_t sign) {
      if (a.expression == Arc::kConstant) {
        constant.emplace_back(a.place, sign * static_cast<std::int64_t>(a.multiplicity));
        return;
      }
      Key key;
      for (const auto& i : net.arcExpressions()[a.expression].code())
        key.emplace_back(static_cast<int>(i.op), i.index, i.value);
      byExpression[std::move(key)].emplace_back(a.place, sign);
    };
    for (const Arc& a : net.inputs(t)) add(a, -1);
    for (const Arc& a : net.outputs(t)) add(a, +1);
    if (Column c = compact(std::move(constant)); !c.empty()) columns.push_back(std::move(c));
    for (auto& [key, terms] : byExpression)
      if (Column c = compact(std::move(terms)); !c.empty()) columns.push_back(std::move(c));
  }
  return columns;
}

/// A row of [C | I] in Farkas' algorithm, both halves sparse: `y` the place weights (all
/// > 0), `c` the entries y·C of the columns not yet processed (every column before the one
/// being processed is zero, so `c` starts at it or later).
struct Row {
  Sparse<std::int64_t> c;
  Sparse<std::uint64_t> y;
  std::vector<std::uint64_t> support;  // bit p set when y_p > 0
  bool alive = true;
};

void setSupport(Row& r, std::size_t places) {
  r.support.assign((places + 63) / 64, 0);
  for (const auto& [p, w] : r.y) r.support[p / 64] |= std::uint64_t{1} << (p % 64);
}

/// support(big) ⊇ support(small): each place of small's (few) in big's bitset.
bool supportContains(const Row& big, const Row& small) {
  if (small.y.size() > big.y.size()) return false;
  for (const auto& [p, w] : small.y)
    if (!((big.support[p / 64] >> (p % 64)) & 1)) return false;
  return true;
}

/// fa·a + fb·b of two sparse vectors; false where an entry passes ±2^63 − 1.
template <typename T, typename U>
bool combine(const Sparse<T>& a, const Sparse<U>& b, __int128 fa, __int128 fb, Sparse<T>& out) {
  constexpr __int128 kMax = std::numeric_limits<std::int64_t>::max();
  out.clear();
  out.reserve(a.size() + b.size());
  std::size_t i = 0, k = 0;
  while (i < a.size() || k < b.size()) {
    std::uint32_t index;
    __int128 v = 0;
    if (k == b.size() || (i < a.size() && a[i].first < b[k].first)) {
      index = a[i].first;
      v = fa * a[i++].second;
    } else if (i == a.size() || b[k].first < a[i].first) {
      index = b[k].first;
      v = fb * b[k++].second;
    } else {
      index = a[i].first;
      v = fa * a[i++].second + fb * b[k++].second;
    }
    if (v > kMax || v < -kMax) return false;
    if (v != 0) out.emplace_back(index, static_cast<T>(v));
  }
  return true;
}

}  // namespace

PSemiflows computePSemiflows(const Net& net, std::size_t maxRows) {
  const std::size_t n = net.placeCount();
  const std::vector<Column> columns = incidenceColumns(net);
  // Each place's row: y = e_p, c = row p of C.
  std::vector<Row> rows(n);
  for (std::size_t j = 0; j < columns.size(); ++j)
    for (const auto& [p, v] : columns[j]) rows[p].c.emplace_back(static_cast<std::uint32_t>(j), v);
  for (std::size_t p = 0; p < n; ++p) {
    rows[p].y = {{static_cast<std::uint32_t>(p), 1}};
    setSupport(rows[p], n);
  }
  // The rows whose first nonzero column is j, by j: column j touches only those, and the
  // others are carried unchanged.
  std::vector<std::vector<std::uint32_t>> byColumn(columns.size());
  std::vector<std::uint32_t> done;  // rows with no column left: the semiflows, so far
  auto file = [&](std::uint32_t r) {
    if (rows[r].c.empty())
      done.push_back(r);
    else
      byColumn[rows[r].c.front().first].push_back(r);
  };
  for (std::uint32_t p = 0; p < n; ++p) file(p);
  std::size_t live = n;
  for (std::size_t j = 0; j < columns.size(); ++j) {
    std::vector<std::uint32_t> positive, negative;
    for (std::uint32_t r : byColumn[j])
      if (rows[r].alive) (rows[r].c.front().second > 0 ? positive : negative).push_back(r);
    byColumn[j].clear();
    byColumn[j].shrink_to_fit();
    if (positive.empty() && negative.empty()) continue;
    std::vector<std::uint32_t> fresh;
    for (std::uint32_t ia : positive)
      for (std::uint32_t ib : negative) {
        const Row& a = rows[ia];
        const Row& b = rows[ib];
        const std::uint64_t ca = static_cast<std::uint64_t>(a.c.front().second),
                            cb = static_cast<std::uint64_t>(-b.c.front().second);
        const std::uint64_t g = std::gcd(ca, cb);
        const __int128 fa = cb / g, fb = ca / g;  // fa·a + fb·b zeroes column j
        Row r;
        if (!combine(a.y, b.y, fa, fb, r.y) || !combine(a.c, b.c, fa, fb, r.c)) return {{}, false};
        std::uint64_t d = 0;
        for (const auto& [i, v] : r.y) d = std::gcd(d, v);
        for (const auto& [i, v] : r.c) d = std::gcd(d, static_cast<std::uint64_t>(v < 0 ? -v : v));
        if (d > 1) {
          for (auto& [i, v] : r.y) v /= d;
          for (auto& [i, v] : r.c) v /= static_cast<std::int64_t>(d);
        }
        setSupport(r, n);
        fresh.push_back(static_cast<std::uint32_t>(rows.size()));
        rows.push_back(std::move(r));
        if (live - positive.size() - negative.size() + fresh.size() > maxRows) return {{}, false};
      }
    // The rows column j touched are combined away.
    for (std::uint32_t r : positive) rows[r] = Row{{}, {}, {}, false};
    for (std::uint32_t r : negative) rows[r] = Row{{}, {}, {}, false};
    live -= positive.size() + negative.size();
    // Keep minimal supports only (a row whose support holds another's is a combination).
    // The rows kept so far are minimal among themselves: only pairs with a new row can
    // fail.
    for (std::size_t k = 0; k < fresh.size(); ++k) {
      Row& a = rows[fresh[k]];
      for (std::uint32_t ib = 0; ib < rows.size() && a.alive; ++ib) {
        Row& b = rows[ib];
        if (ib == fresh[k] || !b.alive) continue;
        if (supportContains(a, b)) {
          // a holds b's support: a goes, or the later of two with the same support.
          if (!supportContains(b, a) || ib < fresh[k]) a.alive = false;
        } else if (supportContains(b, a)) {
          // b is wider than the new row a. A later new row is not counted in `live` yet.
          if (ib < fresh[k]) --live;
          b = Row{{}, {}, {}, false};
        }
      }
      if (a.alive) {
        ++live;
        file(fresh[k]);
      } else {
        a = Row{{}, {}, {}, false};
      }
    }
  }
  PSemiflows out;
  std::sort(done.begin(), done.end());
  for (std::uint32_t r : done) {
    if (!rows[r].alive) continue;
    std::vector<std::uint64_t> flow(n, 0);
    for (const auto& [p, w] : rows[r].y) flow[p] = w;
    out.flows.push_back(std::move(flow));
  }
  return out;
}

bool Boundedness::allBounded() const {
  return std::none_of(places.begin(), places.end(), [](Reason r) { return r == Reason::Unproven; });
}

std::vector<std::string> Boundedness::unproven(const Net& net) const {
  std::vector<std::string> out;
  for (PlaceId p = 0; p < places.size(); ++p)
    if (places[p] == Reason::Unproven) out.push_back(net.place(p).name);
  return out;
}

Boundedness analyzeBoundedness(const Net& net, const PSemiflows& semiflows) {
  Boundedness out;
  out.places.assign(net.placeCount(), Boundedness::Reason::Unproven);
  out.bound.assign(net.placeCount(), Boundedness::kNoBound);
  constexpr std::uint64_t kMostTokens = 0xffffffffu;  // Tokens is 32 bits
  for (const auto& flow : semiflows.flows) {
    unsigned __int128 total = 0;  // y·m0; coefficients and counts below 2^64 each
    for (PlaceId p = 0; p < flow.size(); ++p)
      total += static_cast<unsigned __int128>(flow[p]) * net.place(p).initial;
    for (PlaceId p = 0; p < flow.size(); ++p) {
      if (flow[p] == 0) continue;
      out.places[p] = Boundedness::Reason::Semiflow;
      const unsigned __int128 most = total / flow[p];
      if (most <= kMostTokens && static_cast<std::uint64_t>(most) < out.bound[p])
        out.bound[p] = static_cast<std::uint64_t>(most);
    }
  }
  // Inhibitor bounds: every transition that raises p must be inhibited by p. Only the
  // transitions with an arc to or from p can change it.
  std::vector<std::vector<TransitionId>> touching(net.placeCount());
  for (TransitionId t = 0; t < net.transitionCount(); ++t)
    for (const auto arcs : {net.inputs(t), net.outputs(t)})
      for (const Arc& a : arcs)
        if (touching[a.place].empty() || touching[a.place].back() != t)
          touching[a.place].push_back(t);
  for (PlaceId p = 0; p < net.placeCount(); ++p) {
    if (out.places[p] != Boundedness::Reason::Unproven) continue;
    bool bounded = true;
    std::uint64_t most = net.place(p).initial;
    for (std::size_t i = 0; i < touching[p].size() && bounded; ++i) {
      const TransitionId t = touching[p][i];
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
      // t fires only below its least inhibitor multiplicity h from p, and adds `change`.
      std::uint64_t least = Boundedness::kNoBound;
      for (const Arc& a : net.inhibitors(t))
        if (a.place == p && a.expression == Arc::kConstant)
          least = std::min<std::uint64_t>(least, a.multiplicity);
      bounded = least != Boundedness::kNoBound && !dependent;
      if (bounded) most = std::max<std::uint64_t>(most, least - 1 + std::uint64_t(change));
    }
    if (bounded) {
      out.places[p] = Boundedness::Reason::Inhibitor;
      if (most <= kMostTokens) out.bound[p] = most;
    }
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
