#pragma once
/// \file
/// The single definition of the parser's iterator, skipper and context types, shared by the
/// rule declarations (hdl.hpp), their one instantiation (hdl.cpp) and the caller (parse.cpp).

#include <boost/spirit/home/x3.hpp>
#include <functional>
#include <string>

#include "grammar/error_handler.hpp"

namespace mmt::grammar::parser {

using iterator_type = std::string::const_iterator;

/// White space, `// line` and `/* block */` comments. skipBlanks() in diagnostics.cpp
/// mirrors it for diagnostics; keep the two in step.
inline const auto skipper =
    x3::space | ("//" >> *(x3::char_ - x3::eol)) | ("/*" >> *(x3::char_ - "*/") >> "*/");
using skipper_type = std::remove_cv_t<decltype(skipper)>;

using phrase_context_type = x3::phrase_parse_context<skipper_type>::type;
using context_type =
    x3::context<x3::error_handler_tag, std::reference_wrapper<ParseHandler>, phrase_context_type>;

/// Runs `rule` over the whole of `source` into `out`, tagging node positions. Syntax errors
/// go to `diagnostics`; a failure no rule reported is "expected `what`". Returns true when
/// the parse succeeded without errors. Shared by the parsers of every text format.
template <typename Rule, typename Attribute>
bool parseAll(const Rule& rule, const SourceFile& source, Diagnostics& diagnostics,
              SourcePositions& positions, Attribute& out, const char* what) {
  if (!checkNesting(source, diagnostics)) return false;
  ParseHandler handler{diagnostics, positions, source.text.begin()};
  Iterator first = source.text.begin();
  const auto parser = x3::with<x3::error_handler_tag>(std::ref(handler))[rule];
  const bool ok = x3::phrase_parse(first, source.text.end(), parser, skipper, out);
  if (!ok && !diagnostics.hasErrors()) handler.expected(first, source.text.end(), what);
  return ok && !diagnostics.hasErrors();
}

}  // namespace mmt::grammar::parser
