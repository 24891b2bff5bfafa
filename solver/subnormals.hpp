#pragma once
/// \file
/// Subnormal numbers flushed to 0 while the solvers iterate.

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace mmt::solver {

/// Subnormal numbers (below 2.2·10⁻³⁰⁸) read and written as 0 on every OpenMP thread while
/// it lives (the processor's flush-to-zero and denormals-are-zero modes; nothing where the
/// processor has no such modes). Probabilities that small change no result, and each
/// operation on one costs about a hundred cycles: the tails of a distribution spread over
/// a large chain are full of them (tandem c = 255 at t = 10 ran 3× slower).
class FlushSubnormals {
 public:
  FlushSubnormals() { apply(true); }
  ~FlushSubnormals() { apply(false); }
  FlushSubnormals(const FlushSubnormals&) = delete;
  FlushSubnormals& operator=(const FlushSubnormals&) = delete;

 private:
  static void apply([[maybe_unused]] bool on) {
#if defined(__SSE2__)
    constexpr unsigned kFlushAndZero = 0x8040;  // MXCSR's FTZ and DAZ bits
#pragma omp parallel
    _mm_setcsr(on ? _mm_getcsr() | kFlushAndZero : _mm_getcsr() & ~kFlushAndZero);
#endif
  }
};

}  // namespace mmt::solver
