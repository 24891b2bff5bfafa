#pragma once
/// \file
/// Declaration of the top rule of the system description grammar. Its definition lives in
/// hdl_def.hpp and is instantiated once, in hdl.cpp.

#include <boost/spirit/home/x3.hpp>

#include "grammar/ast.hpp"

namespace mmt::grammar::parser {

struct system_class;
using system_type = x3::rule<system_class, ast::System>;
BOOST_SPIRIT_DECLARE(system_type)

}  // namespace mmt::grammar::parser

namespace mmt::grammar {
/// The rule for a whole `system NAME { ... }`.
const parser::system_type& systemRule();
}  // namespace mmt::grammar
