// --max-memory (gspn/reachability.hpp, maxMemoryBytes): exploration stops cleanly with
// MemoryLimit, says how far it got, and builds no generator.
#include <doctest/doctest.h>

#include "gspn/reachability.hpp"
#include "solve_helpers.hpp"

using namespace mmt;

TEST_CASE("a memory limit stops an unbounded net and a net too big for it, cleanly") {
  // Unbounded: a source that never stops.
  const gspn::Net unbounded = testing::loadGspnText(R"(net grow;
    place p;
    timed t rate 1 out p;
  )");
  gspn::ExplorationSettings settings;
  settings.maxStates = 1'000'000'000;
  settings.maxMemoryBytes = 1;  // any resident memory is past it
  const auto stopped = gspn::exploreTangible(unbounded, settings);
  CHECK(stopped.status == gspn::ExplorationResult::Status::MemoryLimit);
  CHECK(stopped.message.find("exploration stopped at") != std::string::npos);
  CHECK(stopped.graph.edgeCount() == 0);  // no generator was built

  // Bounded and small: a generous limit lets it through with the same answer as none.
  const gspn::Net ring = testing::loadGspnText(R"(net ring;
    place a = 3; place b;
    timed ab rate 1 in a out b;
    timed ba rate 2 in b out a;
  )");
  settings.maxMemoryBytes = std::uint64_t(1) << 40;
  const auto fine = gspn::exploreTangible(ring, settings);
  CHECK(fine.status == gspn::ExplorationResult::Status::Ok);
  CHECK(fine.graph.stateCount() == 4);
}
