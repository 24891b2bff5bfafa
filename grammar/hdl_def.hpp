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
#include "grammar/ast_adapted.hpp"
#include "grammar/error_handler.hpp"
#include "grammar/exact_real.hpp"
#include "grammar/hdl.hpp"

namespace mmt::grammar::parser {

using x3::alnum;
using x3::alpha;
using x3::char_;
using x3::lexeme;
using x3::lit;

// ---- keywords and names -------------------------------------------------------------

inline auto keyword(const char* word) { return lexeme[lit(word) >> !(alnum | '_')]; }
inline auto keywordString(const char* word) { return lexeme[x3::string(word) >> !(alnum | '_')]; }

/// Words that cannot name an element.
const auto reserved = keyword("system") | keyword("hardware") | keyword("application") |
                      keyword("mapping") | keyword("processor") | keyword("link") |
                      keyword("actor") | keyword("data") | keyword("on") | keyword("via") |
                      keyword("param") | keyword("for") | keyword("in") | keyword("if") |
                      keyword("else") | keyword("pipeline") | keyword("farm") | keyword("deal") |
                      keyword("map") | keyword("task");

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

const x3::rule<identifier_class, ast::Identifier> identifier = "a name";
const x3::rule<name_class, std::string> name = "a name";

#include "grammar/expression_rules.hpp"

const x3::rule<subscript_class, ast::Subscript> subscript = "an index such as 'i' or '1..P'";
const x3::rule<name_ref_class, ast::Name> name_ref = "a name";
const x3::rule<property_class, ast::Property> property = "a property 'name: value;'";
const x3::rule<property_statement_class, ast::Property> property_statement = "a property";
const x3::rule<system_property_class, ast::Property> system_property = "a system property";
const x3::rule<param_class, ast::Param> param = "'param NAME = value;'";
const x3::rule<properties_class, ast::Properties> properties = "'{' or ';'";
const x3::rule<processor_class, ast::Processor> processor = "processor";
const x3::rule<link_class, ast::Link> link = "link";
const x3::rule<actor_class, ast::Actor> actor = "actor";
const x3::rule<data_node_class, ast::DataNode> data_node = "data node";
const x3::rule<arc_class, ast::Arc> arc = "arc";
const x3::rule<placement_class, ast::Placement> placement = "placement";
const x3::rule<route_class, ast::Route> route = "route";
const x3::rule<skeleton_class, ast::Skeleton> skeleton = "a skeleton";
const x3::rule<pipeline_class, ast::Skeleton> pipeline = "pipeline";
const x3::rule<replicated_class, ast::Skeleton> replicated = "farm, deal or map";
const x3::rule<task_class, ast::Skeleton> task = "task";
const x3::rule<skeleton_member_choice_class, ast::SkeletonMember> skeleton_member_choice =
    "'task', 'pipeline', 'farm(n)', 'deal(n)', 'map(p)', 'for', 'if', a property or '}'";
const x3::rule<skeleton_loop_class, ast::SkeletonLoop> skeleton_loop = "'for'";
const x3::rule<skeleton_if_class, ast::SkeletonIf> skeleton_if = "'if'";
const x3::rule<skeleton_member_class, ast::SkeletonMember> skeleton_member = "skeleton item";
const x3::rule<skeleton_body_class, std::vector<ast::SkeletonMember>> skeleton_body = "'{'";
const x3::rule<task_body_class, std::vector<ast::SkeletonMember>> task_body = "'{' or ';'";
const x3::rule<hardware_loop_class, ast::Loop> hardware_loop = "'for'";
const x3::rule<application_loop_class, ast::Loop> application_loop = "'for'";
const x3::rule<mapping_loop_class, ast::Loop> mapping_loop = "'for'";
const x3::rule<hardware_if_class, ast::Conditional> hardware_if = "'if'";
const x3::rule<application_if_class, ast::Conditional> application_if = "'if'";
const x3::rule<mapping_if_class, ast::Conditional> mapping_if = "'if'";
const x3::rule<hardware_choice_class, ast::Item> hardware_choice =
    "'processor', 'link', 'for', 'if' or '}'";
const x3::rule<application_choice_class, ast::Item> application_choice =
    "'actor', 'data', an arc 'X -> Y', a skeleton ('pipeline', 'farm(n)', 'deal(n)', "
    "'map(p)', 'task'), 'for', 'if' or '}'";
const x3::rule<mapping_choice_class, ast::Item> mapping_choice =
    "a placement 'X, Y on P;', a route 'X -> Y via L;', 'for', 'if' or '}'";
const x3::rule<hardware_item_class, ast::Item> hardware_item = "hardware item";
const x3::rule<application_item_class, ast::Item> application_item = "application item";
const x3::rule<mapping_item_class, ast::Item> mapping_item = "mapping item";
const x3::rule<hardware_items_class, std::vector<ast::Item>> hardware_items = "'{'";
const x3::rule<application_items_class, std::vector<ast::Item>> application_items = "'{'";
const x3::rule<mapping_items_class, std::vector<ast::Item>> mapping_items = "'{'";
const x3::rule<hardware_class, ast::Section> hardware = "hardware section";
const x3::rule<application_class, ast::Section> application = "application section";
const x3::rule<mapping_class, ast::Section> mapping = "mapping section";
const x3::rule<system_choice_class, ast::SystemItem> system_choice =
    "'hardware', 'application', 'mapping', 'param', a property such as 'workload: "
    "closed(1);' or '}'";
const x3::rule<system_item_class, ast::SystemItem> system_item = "system item";
const system_type system = "'system'";
const x3::rule<on_class> on = "'on'";
const x3::rule<via_class> via = "'via'";
const x3::rule<arrow_class> arrow = "'->'";
const x3::rule<range_class> range = "'..'";
const x3::rule<end_of_file_class> end_of_file = "end of file";

const auto name_def = !reserved >> lexeme[(alpha | char_('_')) >> *(alnum | char_('_'))];
const auto identifier_def = name;
const auto subscript_def = '[' > expr > -(range > expr) > ']';
const auto name_ref_def = identifier >> *subscript;
const auto property_def = identifier > ':' > expr > ';';
const auto property_statement_def = x3::expect[property];
// At system level a name not followed by ':' is more likely a misspelled section.
const auto system_property_def = (identifier >> ':') > expr > ';';
const auto param_def = keyword("param") > identifier > '=' > expr > ';';
const auto properties_def =
    ('{' > *(!lit('}') >> property_statement) > '}') | (lit(';') >> x3::attr(ast::Properties{}));

const auto on_def = keyword("on");
const auto via_def = keyword("via");
const auto arrow_def = lit("->");
const auto range_def = lit("..");
const auto end_of_file_def = x3::eoi;

const auto processor_def = keyword("processor") > name_ref > properties;
const auto link_def = keyword("link") > name_ref > '(' > (name_ref % ',') > ')' > properties;
const auto actor_def = keyword("actor") > name_ref > properties;
const auto data_node_def = keyword("data") > name_ref > properties;
const auto arc_def = (name_ref >> arrow) > name_ref > properties;
const auto placement_def = (name_ref % ',') > on > name_ref > ';';
const auto route_def = (name_ref >> arrow >> name_ref >> via) > (name_ref % ',') > ';';

// Skeletons: `pipeline S { stages }`, `farm(n) F { worker }`, `deal(n) D { worker }`,
// `map(p) M { worker }`,
// `task T { work: 1; }`; a skeleton's braces mix its properties and its members.
const auto no_replicas = x3::attr(std::optional<ast::Expr>());
const auto pipeline_def = keywordString("pipeline") >> no_replicas > name_ref > skeleton_body;
const auto replicated_def = (keywordString("farm") | keywordString("deal") | keywordString("map")) >
                            '(' > expr > ')' > name_ref > skeleton_body;
const auto task_def = keywordString("task") >> no_replicas > name_ref > task_body;
const auto skeleton_def = pipeline | replicated | task;
const auto skeleton_loop_def = keyword("for") > identifier > keyword("in") > expr > range > expr
                               > skeleton_body;
const auto skeleton_if_def = keyword("if") > expr > skeleton_body >
                             -(keyword("else") > skeleton_body);
const auto skeleton_member_choice_def = skeleton_loop | skeleton_if | skeleton | property;
const auto skeleton_member_def = x3::expect[skeleton_member_choice];
const auto skeleton_body_def = '{' > *(!lit('}') >> skeleton_member) > '}';
const auto task_body_def = ('{' > *(!lit('}') >> skeleton_member) > '}') |
                           (lit(';') >> x3::attr(std::vector<ast::SkeletonMember>{}));

// `for i in A..B { items }` and `if C { items } [else { items }]`, once per section so
// that a loop holds only what its section may.
const auto hardware_loop_def = keyword("for") > identifier > keyword("in") > expr > range > expr
                               > hardware_items;
const auto application_loop_def = keyword("for") > identifier > keyword("in") > expr > range > expr
                                  > application_items;
const auto mapping_loop_def = keyword("for") > identifier > keyword("in") > expr > range > expr
                              > mapping_items;
const auto hardware_if_def = keyword("if") > expr > hardware_items >
                             -(keyword("else") > hardware_items);
const auto application_if_def = keyword("if") > expr > application_items >
                                -(keyword("else") > application_items);
const auto mapping_if_def = keyword("if") > expr > mapping_items >
                            -(keyword("else") > mapping_items);

const auto hardware_choice_def = hardware_loop | hardware_if | processor | link;
const auto application_choice_def =
    application_loop | application_if | actor | data_node | skeleton | arc;
const auto mapping_choice_def = mapping_loop | mapping_if | route | placement;
const auto hardware_item_def = x3::expect[hardware_choice];
const auto application_item_def = x3::expect[application_choice];
const auto mapping_item_def = x3::expect[mapping_choice];
const auto hardware_items_def = '{' > *(!lit('}') >> hardware_item) > '}';
const auto application_items_def = '{' > *(!lit('}') >> application_item) > '}';
const auto mapping_items_def = '{' > *(!lit('}') >> mapping_item) > '}';

const auto hardware_def = keywordString("hardware") > hardware_items;
const auto application_def = keywordString("application") > application_items;
const auto mapping_def = keywordString("mapping") > mapping_items;

const auto system_choice_def = hardware | application | mapping | param | system_property;
const auto system_item_def = x3::expect[system_choice];
const auto system_def = keyword("system") > identifier > '{' > *(!lit('}') >> system_item) >
                        '}' > end_of_file;

BOOST_SPIRIT_DEFINE(name, identifier, subscript, name_ref, property, property_statement,
                    system_property, param, properties, on, via, arrow, range, end_of_file,
                    processor, link, actor, data_node, arc, placement, route, skeleton, pipeline,
                    replicated, task, skeleton_member_choice, skeleton_member, skeleton_body,
                    skeleton_loop, skeleton_if, task_body, hardware_loop, application_loop,
                    mapping_loop, hardware_if, application_if, mapping_if, hardware_choice,
                    application_choice, mapping_choice, hardware_item, application_item,
                    mapping_item, hardware_items, application_items, mapping_items, hardware,
                    application, mapping, system_choice, system_item, system)

}  // namespace mmt::grammar::parser
