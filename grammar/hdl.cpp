// The one translation unit that instantiates the grammar (Spirit X3 is heavy to compile).
#include "grammar/config.hpp"
#include "grammar/hdl_def.hpp"

namespace mmt::grammar::parser {
BOOST_SPIRIT_INSTANTIATE(system_type, iterator_type, context_type)
}  // namespace mmt::grammar::parser

namespace mmt::grammar {
const parser::system_type& systemRule() { return parser::system; }
}  // namespace mmt::grammar
