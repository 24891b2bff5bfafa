#pragma once
/// \file
/// The single definition of the parser's iterator, skipper and context types, shared by the
/// rule declarations (hdl.hpp), their one instantiation (hdl.cpp) and the caller (parse.cpp).

#include <functional>
#include <string>

#include <boost/spirit/home/x3.hpp>

#include "grammar/error_handler.hpp"

namespace mmt::grammar::parser {

using iterator_type = std::string::const_iterator;

/// White space, `// line` and `/* block */` comments. skipBlanks() in diagnostics.cpp
/// mirrors it for diagnostics; keep the two in step.
inline auto const skipper = x3::space | ("//" >> *(x3::char_ - x3::eol)) |
                            ("/*" >> *(x3::char_ - "*/") >> "*/");
using skipper_type = std::remove_cv_t<decltype(skipper)>;

using phrase_context_type = x3::phrase_parse_context<skipper_type>::type;
using context_type = x3::context<x3::error_handler_tag, std::reference_wrapper<ParseHandler>,
                                 phrase_context_type>;

}  // namespace mmt::grammar::parser
