#pragma once
#include <boost/fusion/include/adapt_struct.hpp>

#include "grammar/expression_ast.hpp"

BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Identifier, name)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::TokenCount, place)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Number, value)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Call, function, arguments)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Unary, op, operand)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Operation, op, operand)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::ast::Chain, first, rest)
