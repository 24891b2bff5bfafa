#pragma once
/// \file
/// The rates of a sparse generator's entries, held compactly. The rates of a GSPN's CTMC
/// take few distinct values (the transitions' rates times routing probabilities), so each
/// distinct rate is stored once in a table and each entry holds its 16-bit number: 2 bytes
/// per entry instead of 8, and with the 4-byte source index 6 bytes per non-zero instead
/// of 12. The solvers stream the entries once per sweep, so halving them halves the
/// memory traffic of a sweep as well as the generator's memory. A chain with more than
/// 65,536 distinct rates (rates that depend on the marking through many values) keeps one
/// double per entry ("wide"). Both forms read the same through operator[].

#include <algorithm>
#include <array>
#include <bit>
#include <boost/unordered/unordered_flat_map.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace mmt::gspn {

/// An allocator whose value-initialisation (vector::resize(n), vector(n)) leaves the
/// elements of trivial types uninitialised: a large array of a generator's edges is then
/// a fresh mapping whose pages the kernel provides only when first written, so arrays
/// filled piecewise while others are freed (the transposition of reachability.cpp) do not
/// take all their memory at once. Every element must be written before it is read.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <typename U>
  UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// The source index of every edge of a generator (32-bit), in an array that resize()
/// does not write (UninitialisedAllocator).
using EdgeSources = std::vector<std::int32_t, UninitialisedAllocator<std::int32_t>>;

/// Also the exit rates of a generator's states (EdgeRates::compacted), which take few
/// distinct values for the same reason.
class EdgeRates {
 public:
  using Number = std::uint16_t;
  /// Most distinct rates the compact form holds.
  static constexpr std::size_t kMaxDistinct = std::size_t{1} << 16;

  /// The rate of entry k (per model time unit).
  double operator[](std::size_t k) const { return compact_ ? table_[numbers_[k]] : wide_[k]; }
  std::size_t size() const { return compact_ ? numbers_.size() : wide_.size(); }
  bool compact() const { return compact_; }
  /// Compact form: the distinct rates, ascending once canonical() has run, and each
  /// entry's index into them.
  const std::vector<double>& table() const { return table_; }
  const Number* numbers() const { return numbers_.data(); }
  /// Wide form: one rate per entry.
  const double* wide() const { return wide_.data(); }
  /// Bytes each entry takes (2 compact, 8 wide), not counting the table.
  std::size_t bytesPerEntry() const { return compact_ ? sizeof(Number) : sizeof(double); }
  /// Bytes held, by capacity.
  std::size_t memoryBytes() const {
    return wide_.capacity() * sizeof(double) + numbers_.capacity() * sizeof(Number) +
           table_.capacity() * sizeof(double);
  }

  /// n wide entries, all 0; written with setWide.
  void assignWide(std::size_t n);
  void setWide(std::size_t k, double rate) { wide_[k] = rate; }
  /// n compact entries, uninitialised (UninitialisedAllocator): each must be written with
  /// setNumber before it is read; the table is given by setTable.
  void assignCompact(std::size_t n);
  void setNumber(std::size_t k, Number number) { numbers_[k] = number; }
  void setTable(std::vector<double> table) { table_ = std::move(table); }
  /// Sorts the table ascending and renumbers the entries to match, so that the numbers do
  /// not depend on the order in which threads met the rates.
  void canonical();
  /// Sorts `table` ascending; returns each old number's new one (canonical's renumbering,
  /// for entries held elsewhere).
  static std::vector<Number> sortTable(std::vector<double>& table);

  /// An empty array in the form of `other`, sharing its table: entries are then appended
  /// from `other` with appendFrom.
  static EdgeRates like(const EdgeRates& other);
  /// Appends entry k of `other`, which has this array's form and table.
  void appendFrom(const EdgeRates& other, std::size_t k) {
    if (compact_)
      numbers_.push_back(other.numbers_[k]);
    else
      wide_.push_back(other.wide_[k]);
  }
  /// Appends a rate to a wide array.
  void push_back(double rate) { wide_.push_back(rate); }
  /// `values` held compactly (the table canonical) where at most kMaxDistinct of them are
  /// distinct bit patterns, else wide; every entry reads back with the same bits. `values`
  /// is freed before the return, so the two forms are held together only while the
  /// numbers are written: a chain's exit rates, which are sums over few combinations of
  /// the rates, take 2 bytes a state instead of 8 (Kanban N = 8: 268 MB instead of 1,071).
  static EdgeRates compacted(std::vector<double> values);
  /// The largest entry; 0 when there is none.
  double largest() const;
  /// Frees the entries and the table (an empty wide array).
  void release();
  /// Frees a compact array's entries and keeps its table, for a caller that holds each
  /// entry's number elsewhere (solver::Generator::pack); operator[] must not be used after.
  void dropNumbers() { numbers_ = decltype(numbers_)(); }

  /// Same form, same entries, same table.
  bool operator==(const EdgeRates&) const = default;

 private:
  bool compact_ = false;
  std::vector<double> wide_;
  std::vector<Number, UninitialisedAllocator<Number>> numbers_;
  std::vector<double> table_;
};

/// An edge's state index (its target in pass 1's kept rows, its source in the solver's
/// generator) and its rate number in one 32-bit word, state | number << shift, where the
/// states and the numbers fit together: 4 bytes an edge instead of 6 (Kanban N = 8:
/// 28 bits of state and 4 of number).
struct PackedEdge {
  /// The shift for state indices below `states` and rate numbers up to `largestNumber`
  /// (at least 1); nothing when they do not fit in 32 bits together.
  static std::optional<unsigned> shiftFor(std::size_t states, std::size_t largestNumber) {
    const auto shift = static_cast<unsigned>(std::bit_width(std::max<std::size_t>(states, 2) - 1));
    if (shift + std::bit_width(largestNumber) > 32) return std::nullopt;
    return shift;
  }
  /// The shift for the sources of `states` states and the numbers of a table of
  /// `distinct` rates: nothing when there is nothing to pack (fewer than 2 states, no
  /// table) or they do not fit.
  static std::optional<unsigned> shiftForTable(std::size_t states, std::size_t distinct) {
    if (states < 2 || distinct == 0) return std::nullopt;
    return shiftFor(states, distinct - 1);
  }
  static std::uint32_t pack(std::uint32_t state, EdgeRates::Number number, unsigned shift) {
    return state | std::uint32_t{number} << shift;
  }
  static std::uint32_t state(std::uint32_t word, unsigned shift) {
    return word & ((std::uint32_t{1} << shift) - 1);
  }
  static EdgeRates::Number number(std::uint32_t word, unsigned shift) {
    return static_cast<EdgeRates::Number>(word >> shift);
  }
  /// Edge k's source and rate where `sources` holds either plain sources (`shift` 0) or
  /// packed words with the numbers of `rates`' table: the one reading of the edge arrays
  /// the explored graph and the solver's generator share.
  static std::uint32_t sourceOf(const EdgeSources& sources, unsigned shift, std::size_t k) {
    const auto word = static_cast<std::uint32_t>(sources[k]);
    return shift ? state(word, shift) : word;
  }
  static double rateOf(const EdgeSources& sources, const EdgeRates& rates, unsigned shift,
                       std::size_t k) {
    return shift ? rates.table()[number(static_cast<std::uint32_t>(sources[k]), shift)] : rates[k];
  }
  static EdgeRates::Number numberOf(const EdgeSources& sources, const EdgeRates& rates,
                                    unsigned shift, std::size_t k) {
    return shift ? number(static_cast<std::uint32_t>(sources[k]), shift) : rates.numbers()[k];
  }
};

/// Numbers the distinct rates of a compact EdgeRates while several threads write its
/// entries. Each thread keeps a Cache of the rates it has met and takes the lock only for
/// a rate it meets for the first time, which is at most a few thousand times.
class RateNumbering {
 public:
  using Map = boost::unordered_flat_map<std::uint64_t, EdgeRates::Number>;
  /// One thread's rates met so far: a direct-mapped memo of 256 slots in front of a map.
  /// Most nets have a few dozen distinct rates, which the memo answers with one multiply
  /// and one compare, inline. The map alone took 2.7 % of `mmt solve`'s instructions on
  /// Kanban N = 3 (callgrind, one thread); with the memo the run takes 2.7 % fewer (ring
  /// K = 8, N = 10 and FMS N = 4: 1 % fewer). 64 slots left some of Kanban's 13 rates
  /// evicting each other; 256 do not.
  struct Cache {
    static constexpr unsigned kSlotBits = 8;
    /// The rate's bits in each slot; all ones (a NaN, never a rate) when empty.
    std::array<std::uint64_t, std::size_t{1} << kSlotBits> bits;
    std::array<EdgeRates::Number, std::size_t{1} << kSlotBits> number{};
    Map map;
    Cache() { bits.fill(~std::uint64_t{0}); }
    static unsigned slot(std::uint64_t b) {
      return static_cast<unsigned>((b * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
    }
  };
  /// The number of `rate`, the next free one if it is new; nothing once there are more
  /// than EdgeRates::kMaxDistinct distinct rates (the caller then stores them wide).
  std::optional<EdgeRates::Number> number(double rate, Cache& cache) {
    const auto bits = std::bit_cast<std::uint64_t>(rate);
    const unsigned slot = Cache::slot(bits);
    if (cache.bits[slot] == bits) return cache.number[slot];
    return numberMissed(bits, slot, cache);
  }
  /// The rates in the order of their numbers.
  std::vector<double> table() const { return table_; }

 private:
  /// number() where the memo misses: the map, then the shared numbering under the lock.
  std::optional<EdgeRates::Number> numberMissed(std::uint64_t bits, unsigned slot, Cache& cache);

  std::mutex mutex_;
  Map numbers_;
  std::vector<double> table_;
};

}  // namespace mmt::gspn
