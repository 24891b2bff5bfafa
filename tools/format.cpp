#include "format.hpp"

#include <algorithm>
#include <cstdio>

namespace mmt::tools {
namespace {

int chosenDigits = 6;

std::string significant(double x, int digits) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
  return buffer;
}

}  // namespace

void setDigits(int digits) { chosenDigits = std::clamp(digits, 1, 17); }

int digits() { return chosenDigits; }

std::string shortNumber(double x) { return significant(x, chosenDigits); }

std::string duration(double seconds) {
  if (seconds < 1) return significant(seconds * 1000, 3) + " ms";
  return seconds < 1000 ? significant(seconds, 3) + " s" : significant(seconds, 4) + " s";
}

}  // namespace mmt::tools
