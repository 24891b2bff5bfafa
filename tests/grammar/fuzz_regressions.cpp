// Every input under tests/fuzz/regressions/<reader>/ — hand-written hostile inputs and
// whatever tools/fuzz finds (it writes its crashes, hangs and out-of-memory inputs there)
// — goes through the fuzz pipeline again and must end without an exception escaping
// (the suite under `tools/test --sanitize` also catches memory and undefined-behaviour
// errors on them).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/pipeline.hpp"

namespace fs = std::filesystem;

TEST_CASE("fuzz regressions: every kept input ends in diagnostics, not a crash") {
  const fs::path root = fs::path(MMT_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  std::size_t inputs = 0;
  for (int r = mmt::fuzz::kHdl; r <= mmt::fuzz::kPnpro; ++r) {
    const fs::path dir = root / mmt::fuzz::kReaderNames[r];
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream data;
      data << in.rdbuf();
      CAPTURE(entry.path().string());
      CHECK_NOTHROW(mmt::fuzz::runPipeline(static_cast<mmt::fuzz::Reader>(r), data.str()));
      ++inputs;
    }
  }
  CHECK(inputs >= 20);  // the hand-written hostile inputs are kept here
}
