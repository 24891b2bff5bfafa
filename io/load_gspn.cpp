#include "io/load_gspn.hpp"

#include "grammar/expressions.hpp"
#include "io/net_reader.hpp"

namespace mmt::io {
namespace {

namespace ast = grammar::gspn_ast;

/// Walks a parsed `.gspn` file in the builder's four phases.
class GspnReader {
 public:
  GspnReader(const grammar::ParsedGspn& parsed, Diagnostics& diagnostics,
             const ParameterOverrides& overrides)
      : parsed_(parsed),
        diagnostics_(diagnostics),
        reader_(netName(parsed), overrides, diagnostics) {}

  std::optional<gspn::Net> run() {
    for (const ast::Statement& s : parsed_.file.statements)
      if (const auto* p = boost::get<ast::Param>(&s))
        reader_.parameter(p->name.name, site(p->name), located(p->value));
    reader_.endParameters();
    for (const ast::Statement& s : parsed_.file.statements)
      if (const auto* p = boost::get<ast::PlaceDecl>(&s)) {
        if (p->initial)
          reader_.place(p->name.name, site(p->name), located(*p->initial), p->group.value_or(""));
        else
          reader_.place(p->name.name, site(p->name), 0, p->group.value_or(""));
      }
    for (const ast::Statement& s : parsed_.file.statements) {
      if (const auto* t = boost::get<ast::Timed>(&s)) timed(*t);
      if (const auto* u = boost::get<ast::Immediate>(&s)) immediate(*u);
    }
    for (const ast::Statement& s : parsed_.file.statements)
      if (const auto* m = boost::get<ast::MeasureDecl>(&s))
        reader_.measure(m->name.name, site(m->name), located(m->value));
    return reader_.finish();
  }

 private:
  static std::string netName(const grammar::ParsedGspn& parsed) {
    std::string name = "net";
    for (const ast::Statement& s : parsed.file.statements)
      if (const auto* n = boost::get<ast::NetName>(&s)) name = n->name.name;
    return name;
  }
  Site site(const boost::spirit::x3::position_tagged& node) const {
    return {&diagnostics_, parsed_.positions.offsetOf(node)};
  }
  Located located(const grammar::ast::Expr& e) const {
    return {&e, &parsed_.positions, &diagnostics_};
  }

  std::optional<Servers> servers(const ast::Timed& t) {
    Servers s;
    if (!t.servers) return s;
    s.at = located(*t.servers).site();
    const grammar::ast::Identifier* id = grammar::asName(*t.servers);
    if (id && id->name == "infinite" && !reader_.parameterValue("infinite")) {
      s.semantics = gspn::ServerSemantics::Infinite;
      return s;
    }
    auto k = reader_.count(located(*t.servers), "a server count", 1);
    if (!k) return std::nullopt;
    s.count = *k;
    s.semantics = *k == 1 ? gspn::ServerSemantics::Single : gspn::ServerSemantics::KServer;
    return s;
  }

  void timed(const ast::Timed& t) {
    std::optional<gspn::TransitionId> id;
    if (t.timing == "delay") {
      auto delay = reader_.distribution(located(t.rate));
      auto s = delay ? servers(t) : std::nullopt;
      if (s) id = reader_.timed(t.name.name, site(t.name), *delay, *s, t.group.value_or(""));
    } else {
      auto rate = reader_.marking(located(t.rate));
      auto s = rate ? servers(t) : std::nullopt;
      if (s)
        id = reader_.timed(t.name.name, site(t.name), *rate, located(t.rate).site(), *s,
                           t.group.value_or(""));
    }
    if (id) guard(*id, t.guard);
    if (id) arcs(*id, t.inputs, t.outputs, t.inhibitors);
  }

  void guard(gspn::TransitionId t, const std::optional<grammar::ast::Expr>& g) {
    if (!g) return;
    if (auto e = reader_.marking(located(*g))) reader_.guard(t, *e, located(*g).site());
  }

  void immediate(const ast::Immediate& u) {
    double weight = 1.0;
    std::uint32_t priority = 1;
    Site weightAt = site(u.name);
    if (u.weight) {
      auto w = reader_.constant(located(*u.weight), "a weight");
      if (!w) return;
      weight = *w;
      weightAt = located(*u.weight).site();
    }
    if (u.priority) {
      auto p = reader_.count(located(*u.priority), "a priority", 1);
      if (!p) return;
      priority = *p;
    }
    auto id = reader_.immediate(u.name.name, site(u.name), weight, weightAt, priority,
                                u.group.value_or(""));
    if (id) guard(*id, u.guard);
    if (id) arcs(*id, u.inputs, u.outputs, u.inhibitors);
  }

  void arcs(gspn::TransitionId t, const std::vector<ast::ArcSpec>& inputs,
            const std::vector<ast::ArcSpec>& outputs, const std::vector<ast::ArcSpec>& inhibitors) {
    for (auto [kind, list] :
         {std::pair{ArcKind::Input, &inputs}, std::pair{ArcKind::Output, &outputs},
          std::pair{ArcKind::Inhibitor, &inhibitors}})
      for (const ast::ArcSpec& a : *list) {
        if (!a.multiplicity) {
          reader_.arc(kind, t, a.place.name, site(a.place), gspn::Expression::constant(1),
                      site(a.place));
          continue;
        }
        if (!reader_.hasPlace(a.place.name)) {  // reported once, by arc()
          reader_.arc(kind, t, a.place.name, site(a.place), gspn::Expression::constant(1),
                      site(a.place));
          continue;
        }
        if (auto m = reader_.marking(located(*a.multiplicity)))
          reader_.arc(kind, t, a.place.name, site(a.place), *m, located(*a.multiplicity).site());
      }
  }

  const grammar::ParsedGspn& parsed_;
  Diagnostics& diagnostics_;
  NetReader reader_;
};

}  // namespace

std::optional<gspn::Net> lowerGspn(const grammar::ParsedGspn& parsed, Diagnostics& diagnostics,
                                   const ParameterOverrides& overrides) {
  return GspnReader(parsed, diagnostics, overrides).run();
}

std::optional<gspn::Net> loadGspn(const grammar::SourceFile& source, Diagnostics& diagnostics,
                                  const ParameterOverrides& overrides) {
  auto parsed = grammar::parseGspn(source, diagnostics);
  if (!parsed) return std::nullopt;
  return lowerGspn(*parsed, diagnostics, overrides);
}

}  // namespace mmt::io
