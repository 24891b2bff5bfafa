#pragma once
/// \file
/// Parameter values given from outside a model (`-D N=5` on the command line, `params=`
/// in Python), by name: every reader of every format applies them.

#include <map>
#include <string>

namespace mmt::grammar {

using ParameterOverrides = std::map<std::string, double>;

}  // namespace mmt::grammar
