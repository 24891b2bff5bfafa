#include "tools/commands/command.hpp"

#include "api/sweep.hpp"

namespace mmt::tools {

/// `-D NAME=VALUE` arguments as overrides; throws TCLAP::ArgException on a malformed one.
grammar::ParameterOverrides parseDefines(const std::vector<std::string>& defines) {
  grammar::ParameterOverrides out;
  for (const std::string& d : defines) {
    const auto eq = d.find('=');
    std::size_t used = 0;
    double value = 0;
    try {
      if (eq != std::string::npos) value = std::stod(d.substr(eq + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (eq == std::string::npos || eq == 0 || used == 0 || used != d.size() - eq - 1)
      throw TCLAP::ArgException("expected NAME=NUMBER, got '" + d + "'", "-D");
    out[d.substr(0, eq)] = value;
  }
  return out;
}

/// Loads a model (api::loadModel) and prints its warnings; on failure prints its
/// diagnostics and returns the exit code.
int loadModel(const std::string& path, const grammar::ParameterOverrides& overrides,
              bool tracePasses, Model& model, const std::string& page) {
  try {
    model = api::loadModel(path, overrides, tracePasses ? &std::cerr : nullptr, page);
  } catch (const api::ModelError& e) {
    return reportFailure(e, path, std::cerr);
  }
  std::cerr << model.warnings;
  return kSuccess;
}

/// The numbers of an option given as V1,V2,... or A..B:STEP (none when it is not set);
/// throws TCLAP::ArgException "expected WHAT, got '...'" otherwise.
std::vector<double> numberList(const TCLAP::ValueArg<std::string>& arg, const char* what) {
  if (!arg.isSet()) return {};
  try {
    return api::parseSweepParameter("x=" + arg.getValue()).values;
  } catch (const std::invalid_argument&) {
    throw TCLAP::ArgException(std::string("expected ") + what + ", got '" + arg.getValue() + "'",
                              "--" + arg.getName());
  }
}

}  // namespace mmt::tools
