// libFuzzer target for one reader, chosen at compile time (MMT_FUZZ_READER, an index into
// mmt::fuzz::Reader): every input goes through pipeline.hpp. Built and run by tools/fuzz.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mmt::fuzz::runPipeline(static_cast<mmt::fuzz::Reader>(MMT_FUZZ_READER),
                         std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
