#pragma once
/// \file
/// The rules of the system description grammar (summary in docs/language.md).
///
/// Error handling: statements (a property, an item of a section, a section) are wrapped in
/// `expect[...]` rules whose ids recover (error_handler.hpp), so one parse reports every
/// syntax error. Rule names are what users read in "expected ..." messages.

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/annotate_on_success.hpp>

#include "grammar/ast.hpp"
#include "grammar/exact_real.hpp"
#include "grammar/ast_adapted.hpp"
#include "grammar/error_handler.hpp"
#include "grammar/hdl.hpp"

namespace mmt::grammar::parser {

using x3::alnum;
using x3::alpha;
using x3::char_;
using x3::lexeme;
using x3::lit;

// ---- keywords and names -------------------------------------------------------------

inline auto keyword(char const* word) { return lexeme[lit(word) >> !(alnum | '_')]; }
inline auto keywordString(char const* word) {
  return lexeme[x3::string(word) >> !(alnum | '_')];
}

/// Words that cannot name an element.
auto const reserved = keyword("system") | keyword("hardware") | keyword("application") |
                      keyword("mapping") | keyword("processor") | keyword("link") |
                      keyword("actor") | keyword("data") | keyword("on") | keyword("via") |
                      keyword("param") | keyword("for") | keyword("in") | keyword("if") |
                      keyword("else") | keyword("pipeline") | keyword("farm") |
                      keyword("deal") | keyword("task");

// ---- rule ids -----------------------------------------------------------------------

struct identifier_class : x3::annotate_on_success {};
struct name_class;
struct subscript_class : x3::annotate_on_success {};
struct name_ref_class : x3::annotate_on_success {};
struct property_class : x3::annotate_on_success {};
struct property_statement_class : recover_at_statement_end {};
struct system_property_class : x3::annotate_on_success {};
struct param_class : x3::annotate_on_success {};
struct properties_class;
struct processor_class : x3::annotate_on_success {};
struct link_class : x3::annotate_on_success {};
struct actor_class : x3::annotate_on_success {};
struct data_node_class : x3::annotate_on_success {};
struct arc_class : x3::annotate_on_success {};
struct placement_class : x3::annotate_on_success {};
struct route_class : x3::annotate_on_success {};
struct skeleton_class;
struct pipeline_class : x3::annotate_on_success {};
struct replicated_class : x3::annotate_on_success {};
struct task_class : x3::annotate_on_success {};
struct skeleton_member_choice_class;
struct skeleton_loop_class : x3::annotate_on_success {};
struct skeleton_if_class : x3::annotate_on_success {};
struct skeleton_member_class : recover_at_statement_end {};
struct skeleton_body_class;
struct task_body_class;
struct hardware_loop_class : x3::annotate_on_success {};
struct application_loop_class : x3::annotate_on_success {};
struct mapping_loop_class : x3::annotate_on_success {};
struct hardware_if_class : x3::annotate_on_success {};
struct application_if_class : x3::annotate_on_success {};
struct mapping_if_class : x3::annotate_on_success {};
struct hardware_choice_class;
struct application_choice_class;
struct mapping_choice_class;
struct hardware_item_class : recover_at_statement_end {};
struct application_item_class : recover_at_statement_end {};
struct mapping_item_class : recover_at_statement_end {};
struct hardware_items_class;
struct application_items_class;
struct mapping_items_class;
struct hardware_class : x3::annotate_on_success {};
struct application_class : x3::annotate_on_success {};
struct mapping_class : x3::annotate_on_success {};
struct end_of_file_class;
struct system_choice_class;
struct system_item_class : recover_at_statement_end {};
struct system_class : x3::annotate_on_success, report_and_fail {};
struct on_class;
struct via_class;
struct arrow_class;
struct range_class;

// ---- rules --------------------------------------------------------------------------

x3::rule<identifier_class, ast::Identifier> const identifier = "a name";
x3::rule<name_class, std::string> const name = "a name";

#include "grammar/expression_rules.hpp"

x3::rule<subscript_class, ast::Subscript> const subscript = "an index such as 'i' or '1..P'";
x3::rule<name_ref_class, ast::Name> const name_ref = "a name";
x3::rule<property_class, ast::Property> const property = "a property 'name: value;'";
x3::rule<property_statement_class, ast::Property> const property_statement = "a property";
x3::rule<system_property_class, ast::Property> const system_property = "a system property";
x3::rule<param_class, ast::Param> const param = "'param NAME = value;'";
x3::rule<properties_class, ast::Properties> const properties = "'{' or ';'";
x3::rule<processor_class, ast::Processor> const processor = "processor";
x3::rule<link_class, ast::Link> const link = "link";
x3::rule<actor_class, ast::Actor> const actor = "actor";
x3::rule<data_node_class, ast::DataNode> const data_node = "data node";
x3::rule<arc_class, ast::Arc> const arc = "arc";
x3::rule<placement_class, ast::Placement> const placement = "placement";
x3::rule<route_class, ast::Route> const route = "route";
x3::rule<skeleton_class, ast::Skeleton> const skeleton = "a skeleton";
x3::rule<pipeline_class, ast::Skeleton> const pipeline = "pipeline";
x3::rule<replicated_class, ast::Skeleton> const replicated = "farm or deal";
x3::rule<task_class, ast::Skeleton> const task = "task";
x3::rule<skeleton_member_choice_class, ast::SkeletonMember> const skeleton_member_choice =
    "'task', 'pipeline', 'farm(n)', 'deal(n)', 'for', 'if', a property or '}'";
x3::rule<skeleton_loop_class, ast::SkeletonLoop> const skeleton_loop = "'for'";
x3::rule<skeleton_if_class, ast::SkeletonIf> const skeleton_if = "'if'";
x3::rule<skeleton_member_class, ast::SkeletonMember> const skeleton_member = "skeleton item";
x3::rule<skeleton_body_class, std::vector<ast::SkeletonMember>> const skeleton_body = "'{'";
x3::rule<task_body_class, std::vector<ast::SkeletonMember>> const task_body = "'{' or ';'";
x3::rule<hardware_loop_class, ast::Loop> const hardware_loop = "'for'";
x3::rule<application_loop_class, ast::Loop> const application_loop = "'for'";
x3::rule<mapping_loop_class, ast::Loop> const mapping_loop = "'for'";
x3::rule<hardware_if_class, ast::Conditional> const hardware_if = "'if'";
x3::rule<application_if_class, ast::Conditional> const application_if = "'if'";
x3::rule<mapping_if_class, ast::Conditional> const mapping_if = "'if'";
x3::rule<hardware_choice_class, ast::Item> const hardware_choice =
    "'processor', 'link', 'for', 'if' or '}'";
x3::rule<application_choice_class, ast::Item> const application_choice =
    "'actor', 'data', an arc 'X -> Y', a skeleton ('pipeline', 'farm(n)', 'deal(n)', "
    "'task'), 'for', 'if' or '}'";
x3::rule<mapping_choice_class, ast::Item> const mapping_choice =
    "a placement 'X, Y on P;', a route 'X -> Y via L;', 'for', 'if' or '}'";
x3::rule<hardware_item_class, ast::Item> const hardware_item = "hardware item";
x3::rule<application_item_class, ast::Item> const application_item = "application item";
x3::rule<mapping_item_class, ast::Item> const mapping_item = "mapping item";
x3::rule<hardware_items_class, std::vector<ast::Item>> const hardware_items = "'{'";
x3::rule<application_items_class, std::vector<ast::Item>> const application_items = "'{'";
x3::rule<mapping_items_class, std::vector<ast::Item>> const mapping_items = "'{'";
x3::rule<hardware_class, ast::Section> const hardware = "hardware section";
x3::rule<application_class, ast::Section> const application = "application section";
x3::rule<mapping_class, ast::Section> const mapping = "mapping section";
x3::rule<system_choice_class, ast::SystemItem> const system_choice =
    "'hardware', 'application', 'mapping', 'param', a property such as 'workload: "
    "closed(1);' or '}'";
x3::rule<system_item_class, ast::SystemItem> const system_item = "system item";
system_type const system = "'system'";
x3::rule<on_class> const on = "'on'";
x3::rule<via_class> const via = "'via'";
x3::rule<arrow_class> const arrow = "'->'";
x3::rule<range_class> const range = "'..'";
x3::rule<end_of_file_class> const end_of_file = "end of file";

auto const name_def = !reserved >> lexeme[(alpha | char_('_')) >> *(alnum | char_('_'))];
auto const identifier_def = name;
auto const subscript_def = '[' > expr > -(range > expr) > ']';
auto const name_ref_def = identifier >> *subscript;
auto const property_def = identifier > ':' > expr > ';';
auto const property_statement_def = x3::expect[property];
// At system level a name not followed by ':' is more likely a misspelled section.
auto const system_property_def = identifier >> ':' > expr > ';';
auto const param_def = keyword("param") > identifier > '=' > expr > ';';
auto const properties_def = ('{' > *(!lit('}') >> property_statement) > '}') |
                            (lit(';') >> x3::attr(ast::Properties{}));

auto const on_def = keyword("on");
auto const via_def = keyword("via");
auto const arrow_def = lit("->");
auto const range_def = lit("..");
auto const end_of_file_def = x3::eoi;

auto const processor_def = keyword("processor") > name_ref > properties;
auto const link_def =
    keyword("link") > name_ref > '(' > (name_ref % ',') > ')' > properties;
auto const actor_def = keyword("actor") > name_ref > properties;
auto const data_node_def = keyword("data") > name_ref > properties;
auto const arc_def = name_ref >> arrow > name_ref > properties;
auto const placement_def = (name_ref % ',') > on > name_ref > ';';
auto const route_def = name_ref >> arrow >> name_ref >> via > (name_ref % ',') > ';';

// Skeletons: `pipeline S { stages }`, `farm(n) F { worker }`, `deal(n) D { worker }`,
// `task T { work: 1; }`; a skeleton's braces mix its properties and its members.
auto const no_replicas = x3::attr(std::optional<ast::Expr>());
auto const pipeline_def = keywordString("pipeline") >> no_replicas > name_ref > skeleton_body;
auto const replicated_def = (keywordString("farm") | keywordString("deal")) > '(' > expr > ')' >
                            name_ref > skeleton_body;
auto const task_def = keywordString("task") >> no_replicas > name_ref > task_body;
auto const skeleton_def = pipeline | replicated | task;
auto const skeleton_loop_def =
    keyword("for") > identifier > keyword("in") > expr > range > expr > skeleton_body;
auto const skeleton_if_def =
    keyword("if") > expr > skeleton_body > -(keyword("else") > skeleton_body);
auto const skeleton_member_choice_def = skeleton_loop | skeleton_if | skeleton | property;
auto const skeleton_member_def = x3::expect[skeleton_member_choice];
auto const skeleton_body_def = '{' > *(!lit('}') >> skeleton_member) > '}';
auto const task_body_def = ('{' > *(!lit('}') >> skeleton_member) > '}') |
                           (lit(';') >> x3::attr(std::vector<ast::SkeletonMember>{}));

// `for i in A..B { items }` and `if C { items } [else { items }]`, once per section so
// that a loop holds only what its section may.
auto const hardware_loop_def =
    keyword("for") > identifier > keyword("in") > expr > range > expr > hardware_items;
auto const application_loop_def =
    keyword("for") > identifier > keyword("in") > expr > range > expr > application_items;
auto const mapping_loop_def =
    keyword("for") > identifier > keyword("in") > expr > range > expr > mapping_items;
auto const hardware_if_def =
    keyword("if") > expr > hardware_items > -(keyword("else") > hardware_items);
auto const application_if_def =
    keyword("if") > expr > application_items > -(keyword("else") > application_items);
auto const mapping_if_def =
    keyword("if") > expr > mapping_items > -(keyword("else") > mapping_items);

auto const hardware_choice_def = hardware_loop | hardware_if | processor | link;
auto const application_choice_def =
    application_loop | application_if | actor | data_node | skeleton | arc;
auto const mapping_choice_def = mapping_loop | mapping_if | route | placement;
auto const hardware_item_def = x3::expect[hardware_choice];
auto const application_item_def = x3::expect[application_choice];
auto const mapping_item_def = x3::expect[mapping_choice];
auto const hardware_items_def = '{' > *(!lit('}') >> hardware_item) > '}';
auto const application_items_def = '{' > *(!lit('}') >> application_item) > '}';
auto const mapping_items_def = '{' > *(!lit('}') >> mapping_item) > '}';

auto const hardware_def = keywordString("hardware") > hardware_items;
auto const application_def = keywordString("application") > application_items;
auto const mapping_def = keywordString("mapping") > mapping_items;

auto const system_choice_def = hardware | application | mapping | param | system_property;
auto const system_item_def = x3::expect[system_choice];
auto const system_def =
    keyword("system") > identifier > '{' > *(!lit('}') >> system_item) > '}' > end_of_file;

BOOST_SPIRIT_DEFINE(name, identifier, subscript, name_ref, property, property_statement,
                    system_property, param, properties, on, via, arrow, range, end_of_file,
                    processor, link, actor, data_node, arc, placement, route, skeleton, pipeline,
                    replicated, task, skeleton_member_choice, skeleton_member, skeleton_body,
                    skeleton_loop, skeleton_if,
                    task_body, hardware_loop,
                    application_loop, mapping_loop, hardware_if, application_if, mapping_if,
                    hardware_choice, application_choice, mapping_choice, hardware_item,
                    application_item, mapping_item, hardware_items, application_items,
                    mapping_items, hardware, application, mapping, system_choice, system_item,
                    system)

}  // namespace mmt::grammar::parser
