#pragma once
#include <boost/fusion/include/adapt_struct.hpp>

#include "grammar/ast.hpp"

BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Identifier, name)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Call, function, arguments)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Property, key, value)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Processor, name, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Link, name, ends, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Actor, name, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::DataNode, name, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Arc, from, to, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Placement, elements, processor)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Route, from, to, links)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Section, keyword, items)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::System, name, items)
