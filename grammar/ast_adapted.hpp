#pragma once
#include <boost/fusion/include/adapt_struct.hpp>

#include "grammar/ast.hpp"
#include "grammar/expression_adapted.hpp"

BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Subscript, from, to)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Name, base, subscripts)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Property, key, value)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Processor, name, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Link, name, ends, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Actor, name, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::DataNode, name, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Arc, from, to, properties)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Placement, elements, processor)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Route, from, to, links)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Skeleton, kind, replicas, name, members)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::SkeletonLoop, index, from, to, body)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::SkeletonIf, condition, then, otherwise)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Loop, index, from, to, body)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Conditional, condition, then, otherwise)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Section, keyword, items)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Param, name, value)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::System, name, items)
