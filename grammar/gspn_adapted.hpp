#pragma once
#include <boost/fusion/include/adapt_struct.hpp>

#include "grammar/ast_adapted.hpp"
#include "grammar/gspn_ast.hpp"

BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::TokenCount, place)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Number, value)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Call, function, arguments)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Unary, op, operand)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Operation, op, operand)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Chain, first, rest)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::ArcSpec, place, multiplicity)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::NetName, name)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Param, name, value)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::PlaceDecl, name, initial, group)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Timed, name, timing, rate, servers, group, inputs,
                          outputs, inhibitors)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Immediate, name, weight, priority, group,
                          inputs, outputs, inhibitors)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::MeasureDecl, name, value)

