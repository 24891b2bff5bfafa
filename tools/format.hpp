#pragma once
// Numbers as the command line prints them for people. The significant digits are chosen
// once per command (--digits, default 6) and every table, line and note uses them; JSON
// and CSV keep every digit.
#include <string>

namespace mmt::tools {

/// The significant digits of shortNumber from now on (1 to 17).
void setDigits(int digits);
int digits();

/// A number to the chosen significant digits ("5.63467", "2e+06" at 6).
std::string shortNumber(double x);

/// A wall-clock time to three significant digits in a unit that suits it: "0.285 ms",
/// "12.3 ms", "1.45 s", "104 s".
std::string duration(double seconds);

}  // namespace mmt::tools
