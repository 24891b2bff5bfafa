// Vanishing elimination (gspn/vanishing.hpp): one resolution over many markings.
#include "gspn/vanishing.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "gspn/net.hpp"

namespace {

using namespace mmt::gspn;

/// A timed transition `go` marks k places a_i at once; immediate transitions a_i → b_i then
/// fire in any order: in every order (the eliminator's `everyOrder`) the firing is
/// followed by 2^k − 1 vanishing markings (every set of them fired but the full one), and
/// ends in the one tangible marking with every b_i.
Net independentChoices(int k) {
  NetBuilder b("choices");
  const PlaceId start = b.addPlace("start", 1);
  const TransitionId go = b.addTimed("go", 1.0);
  b.addInput(go, start);
  const TransitionId back = b.addTimed("back", 1.0);
  b.addOutput(back, start);
  for (int i = 0; i < k; ++i) {
    const PlaceId a = b.addPlace("a" + std::to_string(i));
    const PlaceId done = b.addPlace("b" + std::to_string(i));
    b.addOutput(go, a);
    const TransitionId fire = b.addImmediate("i" + std::to_string(i));
    b.addInput(fire, a);
    b.addOutput(fire, done);
    b.addInput(back, done);
  }
  return b.freeze();
}

}  // namespace

TEST_CASE("vanishing: a resolution of many markings stops when interrupted") {
  const Net net = independentChoices(17);  // 131,071 vanishing markings after `go`
  std::vector<Tokens> afterGo(net.placeCount());
  net.fire(0, net.initialMarking(), afterGo);  // `go`, the first transition
  std::atomic<bool> stop{false};
  VanishingEliminator eliminator(net, 1'000'000, &stop, /*everyOrder=*/true);
  REQUIRE(eliminator.isVanishing(afterGo));
  REQUIRE(eliminator.resolve(afterGo) == VanishingEliminator::Status::Ok);
  CHECK(eliminator.exits().size() == 1);
  CHECK(eliminator.exitProbability()[0] == doctest::Approx(1.0));
  stop = true;
  CHECK(eliminator.resolve(afterGo) == VanishingEliminator::Status::Interrupted);
  CHECK(eliminator.error().find("interrupted") != std::string::npos);
}
