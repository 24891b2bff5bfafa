#pragma once
#include <boost/fusion/include/adapt_struct.hpp>

#include "grammar/expression_adapted.hpp"
#include "grammar/gspn_ast.hpp"

BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::ArcSpec, place, multiplicity)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::NetName, name)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Param, name, value)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::PlaceDecl, name, initial, group)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Timed, name, timing, rate, servers, guard, group,
                          inputs, outputs, inhibitors)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::Immediate, name, weight, priority, guard, group,
                          inputs, outputs, inhibitors)
BOOST_FUSION_ADAPT_STRUCT(mmt::grammar::gspn_ast::MeasureDecl, name, value)
