#include "io/greatspn_colours.hpp"

#include <cctype>
#include <charconv>
#include <functional>
#include <vector>

namespace mmt::io {

using coloured::Colour;
using coloured::Error;
using coloured::Sort;
using coloured::SortId;
using coloured::SortKind;
using coloured::Term;
using Op = Term::Op;

/// A token reader over one attribute value, with offsets in the file.
struct GreatSpnColours::Parser {
  struct Token {
    enum Kind { Name, Number, Symbol, End } kind = End;
    std::string text;
    std::size_t offset = 0;  // in the file
  };

  Parser(const grammar::SourceFile& source, const std::string& text, std::size_t at) {
    // File offset of each character of the decoded value: an entity (`&lt;`) is one.
    std::vector<std::size_t> fileOffset(text.size() + 1, at);
    std::size_t raw = at;
    for (std::size_t i = 0; i < text.size(); ++i) {
      fileOffset[i] = raw;
      if (raw < source.text.size() && source.text[raw] == '&') {
        const std::size_t semi = source.text.find(';', raw);
        raw = semi == std::string::npos ? raw + 1 : semi + 1;
      } else {
        ++raw;
      }
    }
    fileOffset[text.size()] = raw;
    static const char* symbols[] = {"++", "--", "==", "!=", "<=", ">=", "&&", "||", "..",
                                    "<",  ">",  ",",  "+",  "-",  "(",  ")",  "[",  "]",
                                    "!",  "=",  "*",  "&",  "|",  "{",  "}"};
    std::size_t i = 0;
    while (true) {
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      Token t;
      t.offset = fileOffset[i];
      if (i == text.size()) {
        tokens.push_back(t);
        break;
      }
      const unsigned char c = static_cast<unsigned char>(text[i]);
      std::size_t j = i;
      if (std::isalpha(c) || c == '_') {
        while (j < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
          ++j;
        t.kind = Token::Name;
      } else if (std::isdigit(c)) {
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
        t.kind = Token::Number;
      } else {
        for (const char* s : symbols)
          if (text.compare(i, std::char_traits<char>::length(s), s) == 0) {
            j = i + std::char_traits<char>::length(s);
            break;
          }
        if (j == i) throw Error(t.offset, std::string("unexpected character '") + text[i] + "'");
        t.kind = Token::Symbol;
      }
      t.text = text.substr(i, j - i);
      tokens.push_back(t);
      i = j;
    }
  }

  const Token& peek(std::size_t ahead = 0) const {
    return tokens[std::min(at + ahead, tokens.size() - 1)];
  }
  bool is(const char* symbol, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Symbol && peek(ahead).text == symbol;
  }
  bool accept(const char* symbol) {
    if (!is(symbol)) return false;
    ++at;
    return true;
  }
  const Token& next() { return tokens[std::min(at++, tokens.size() - 1)]; }
  [[noreturn]] void fail(const std::string& expected) const {
    const Token& t = peek();
    throw Error(t.offset, "expected " + expected + ", found " +
                              (t.kind == Token::End ? "the end" : "'" + t.text + "'"));
  }
  void expect(const char* symbol) {
    if (!accept(symbol)) fail(std::string("'") + symbol + "'");
  }
  std::string name(const std::string& what) {
    if (peek().kind != Token::Name) fail(what);
    return next().text;
  }
  std::uint64_t number(const std::string& what) {
    if (peek().kind != Token::Number) fail(what);
    const Token& t = next();
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || v > (std::uint64_t{1} << 32))
      throw Error(t.offset, "the number " + t.text + " is too large here");
    return v;
  }
  void end() {
    if (peek().kind != Token::End) fail("the end");
  }

  std::vector<Token> tokens;
  std::size_t at = 0;
};

namespace {

Term term(Op op, std::size_t offset, std::vector<Term> operands = {}) {
  Term t;
  t.op = op;
  t.offset = offset;
  t.operands = std::move(operands);
  return t;
}

Term constantTerm(SortId sort, Colour c, std::size_t offset) {
  Term t = term(Op::Constant, offset);
  t.sort = sort;
  t.value = c;
  return t;
}

/// `t`, or its successor or predecessor where `x++` or `x--` follows it.
template <typename Parser>
Term shifted(Parser& p, Term t, std::size_t offset) {
  if (p.accept("++")) return term(Op::Successor, offset, {std::move(t)});
  if (p.accept("--")) return term(Op::Predecessor, offset, {std::move(t)});
  return t;
}

}  // namespace

std::optional<Term> GreatSpnColours::variableOrColour(const std::string& name,
                                                      std::size_t offset) const {
  if (auto v = variables_.find(name); v != variables_.end()) {
    Term t = term(Op::Variable, offset);
    t.value = v->second;
    return t;
  }
  if (auto c = colours_.find(name); c != colours_.end())
    return constantTerm(c->second.first, c->second.second, offset);
  return std::nullopt;
}

SortId GreatSpnColours::dotSort() {
  if (!dot_) {
    Sort s;
    s.name = "Dot";
    s.kind = SortKind::Dot;
    dot_ = net_.addSort(std::move(s));
  }
  return *dot_;
}

void GreatSpnColours::colourClass(const std::string& name, const std::string& definition,
                                  std::size_t at) {
  Parser p(source_, definition, at);
  if (classes_.count(name)) throw Error(at, "a second colour class named '" + name + "'");
  Sort s;
  s.name = name;
  // A product of classes: `A * B * C`.
  if (p.peek().kind == Parser::Token::Name && p.is("*", 1)) {
    s.kind = SortKind::Product;
    do {
      const std::size_t offset = p.peek().offset;
      const std::string component = p.name("a colour class");
      const auto c = classes_.find(component);
      if (c == classes_.end())
        throw Error(offset,
                    "the colour class '" + component + "' is not declared (before '" + name + "')");
      s.components.push_back(c->second);
    } while (p.accept("*"));
    p.end();
    try {
      classes_[name] = net_.addSort(std::move(s));
    } catch (const Error& e) {
      throw Error(at, e.what());
    }
    return;
  }
  s.kind = SortKind::Enumeration;
  if (p.peek().kind == Parser::Token::Name &&
      (p.peek().text == "circular" || p.peek().text == "enum" || p.peek().text == "ordered") &&
      (p.peek(1).kind == Parser::Token::Name || p.is("{", 1))) {
    s.cyclic = p.next().text == "circular";
  }
  // Parts: `s{1..4}` or `{a, b, c}`, each optionally `is Subclass`, joined by `+`.
  std::vector<std::string> subclassNames;
  std::vector<std::size_t> subclassOffsets;
  std::vector<std::uint32_t> subclassOf;
  bool named = false;
  do {
    const std::size_t first = s.constants.size();
    if (p.accept("{")) {
      do s.constants.push_back(p.name("a colour name"));
      while (p.accept(","));
      p.expect("}");
    } else {
      const std::string prefix = p.name("a colour set such as s{1..4} or {a, b}");
      p.expect("{");
      const std::size_t offset = p.peek().offset;
      const std::uint64_t lo = p.number("the first index");
      p.expect("..");
      const std::uint64_t hi = p.number("the last index");
      p.expect("}");
      if (hi < lo || hi - lo >= 1'000'000)
        throw Error(offset, "the range " + std::to_string(lo) + ".." + std::to_string(hi) +
                                " must run upwards and hold at most 1,000,000 colours");
      for (std::uint64_t k = lo; k <= hi; ++k) s.constants.push_back(prefix + std::to_string(k));
    }
    std::string subclass;
    const std::size_t offset = p.peek().offset;
    if (p.peek().kind == Parser::Token::Name && p.peek().text == "is") {
      p.next();
      subclass = p.name("the static subclass's name");
      named = true;
    }
    subclassNames.push_back(subclass);
    subclassOffsets.push_back(offset);
    subclassOf.insert(subclassOf.end(), s.constants.size() - first,
                      static_cast<std::uint32_t>(subclassNames.size() - 1));
  } while (p.accept("+"));
  p.end();
  const std::vector<std::string> constants = s.constants;
  SortId sort = 0;
  try {
    sort = net_.addSort(std::move(s));
  } catch (const Error& e) {
    throw Error(at, e.what());
  }
  classes_[name] = sort;
  for (std::size_t i = 0; i < constants.size(); ++i)
    if (!colours_.emplace(constants[i], std::make_pair(sort, Colour{i})).second)
      throw Error(at, "the colour '" + constants[i] + "' is in two classes");
  if (!named) return;
  Sort partition;
  partition.name = name + " subclasses";
  partition.kind = SortKind::Partition;
  partition.partitioned = sort;
  partition.elementOf = subclassOf;
  for (std::size_t k = 0; k < subclassNames.size(); ++k)
    partition.constants.push_back(subclassNames[k].empty() ? name + "_" + std::to_string(k + 1)
                                                           : subclassNames[k]);
  const std::vector<std::string> names = partition.constants;
  const SortId ps = net_.addSort(std::move(partition));
  partitionOf_[sort] = ps;
  for (std::size_t k = 0; k < names.size(); ++k)
    if (!subclassNames[k].empty() &&
        !subclasses_.emplace(names[k], std::make_pair(ps, Colour{k})).second)
      throw Error(subclassOffsets[k], "a second static subclass named '" + names[k] + "'");
}

void GreatSpnColours::variable(const std::string& name, const std::string& domain, std::size_t at) {
  const auto c = classes_.find(domain);
  if (c == classes_.end())
    throw Error(at, "the colour variable '" + name + "' has the domain '" + domain +
                        "', which is no colour class of the page");
  if (!variables_.emplace(name, net_.addVariable({name, c->second})).second)
    throw Error(at, "a second colour variable named '" + name + "'");
}

SortId GreatSpnColours::domain(const std::string& domain, std::size_t at) {
  if (domain.empty()) return dotSort();
  const auto c = classes_.find(domain);
  if (c == classes_.end())
    throw Error(at, "the domain '" + domain + "' is no colour class of the page");
  return c->second;
}

void GreatSpnColours::constant(const std::string& name, const std::string& domain,
                               const std::string& value, std::size_t at) {
  const SortId sort = this->domain(domain, at);
  Term t = multiset(value, at, sort, {});
  net_.type(t, coloured::Net::Want::Multiset, sort);
  constants_[name] = {sort, std::move(t)};
}

Term GreatSpnColours::multiset(const std::string& text, std::size_t at, SortId sort,
                               const std::map<std::string, double>& numbers) {
  Parser p(source_, text, at);
  const Sort& target = net_.sort(sort);
  const bool dot = target.kind == SortKind::Dot;
  // A colour set in one component of sort `s`: All, a variable, a colour, a subclass, x++,
  // x--, joined by + and -.
  auto element = [&](SortId s) -> Term {
    const std::size_t offset = p.peek().offset;
    const std::string n = p.name("All, a colour variable or a colour");
    Term t;
    if (n == "All") {
      t = term(Op::All, offset);
      t.sort = s;
      return t;
    }
    if (auto named = variableOrColour(n, offset)) {
      t = std::move(*named);
    } else if (auto sub = subclasses_.find(n); sub != subclasses_.end()) {
      // Every colour of the static subclass once.
      const Sort& partition = net_.sort(sub->second.first);
      Term all = term(Op::Add, offset);
      for (Colour c = 0; c < partition.elementOf.size(); ++c)
        if (partition.elementOf[c] == sub->second.second)
          all.operands.push_back(constantTerm(partition.partitioned, c, offset));
      return all;
    } else {
      throw Error(offset, "'" + n +
                              "' is no colour variable, colour or static subclass of "
                              "the page");
    }
    return shifted(p, std::move(t), offset);
  };
  auto component = [&](SortId s) -> Term {
    Term t = element(s);
    while (p.is("+") || p.is("-")) {
      const std::size_t offset = p.peek().offset;
      const bool minus = p.next().text == "-";
      Term rhs = element(s);
      t = term(minus ? Op::Subtract : Op::Add, offset, {std::move(t), std::move(rhs)});
    }
    return t;
  };
  // One term: [k] <c1, …, cn>, [k] NAME (a constant of the page), or k on a dot place.
  auto one = [&]() -> Term {
    const std::size_t offset = p.peek().offset;
    std::optional<std::uint64_t> count;
    if (p.peek().kind == Parser::Token::Number) {
      count = p.number("a count");
      p.accept("*");
    }
    Term t;
    if (p.accept("<")) {
      const std::size_t n = target.kind == SortKind::Product ? target.components.size() : 1;
      std::vector<Term> parts;
      do {
        if (parts.size() == n)
          throw Error(p.peek().offset, "a tuple of more than " + std::to_string(n) +
                                           " colours on the domain '" + target.name + "'");
        parts.push_back(
            component(target.kind == SortKind::Product ? target.components[parts.size()] : sort));
      } while (p.accept(","));
      p.expect(">");
      if (parts.size() != n)
        throw Error(offset, "a tuple of " + std::to_string(parts.size()) +
                                " colours on the domain '" + target.name + "' of " +
                                std::to_string(n));
      if (target.kind == SortKind::Product) {
        t = term(Op::Product, offset, std::move(parts));
        t.sort = sort;
      } else {
        t = std::move(parts[0]);
      }
    } else if (p.peek().kind == Parser::Token::Name) {
      const std::string n = p.next().text;
      if (auto c = constants_.find(n); c != constants_.end()) {
        if (c->second.first != sort)
          throw Error(offset, "the constant '" + n + "' is a multiset over '" +
                                  net_.sort(c->second.first).name + "', not '" + target.name + "'");
        t = c->second.second;
      } else if (auto v = numbers.find(n); v != numbers.end() && dot) {
        if (v->second < 0 ||
            v->second != static_cast<double>(static_cast<std::uint64_t>(v->second)))
          throw Error(offset, "the constant '" + n + "' is not a whole number of tokens");
        t = constantTerm(sort, 0, offset);
        t = term(Op::NumberOf, offset, {std::move(t)});
        t.value = static_cast<std::uint64_t>(v->second);
      } else {
        throw Error(offset, "'" + n + "' is no multiset constant of the page" +
                                std::string(dot ? "" : "; a coloured multiset is written <…>"));
      }
    } else if (count && dot) {
      t = constantTerm(sort, 0, offset);  // k plain tokens
    } else {
      p.fail(dot ? "a number of tokens" : "a multiset such as <x> or 2<All>");
    }
    if (count) {
      t = term(Op::NumberOf, offset, {std::move(t)});
      t.value = *count;
    }
    return t;
  };
  const std::size_t offset = p.peek().offset;
  Term positive = term(Op::Add, offset), negative = term(Op::Add, offset);
  bool minus = p.accept("-");
  while (true) {
    (minus ? negative : positive).operands.push_back(one());
    if (p.accept("+"))
      minus = false;
    else if (p.accept("-"))
      minus = true;
    else
      break;
  }
  p.end();
  auto unwrap = [&](Term& sum) {
    if (sum.operands.size() == 1) {
      Term only = std::move(sum.operands[0]);
      sum = std::move(only);
    }
  };
  if (positive.operands.empty()) {
    positive = term(Op::Empty, offset);
    positive.sort = sort;
  }
  unwrap(positive);
  if (negative.operands.empty()) return positive;
  unwrap(negative);
  return term(Op::Subtract, offset, {std::move(positive), std::move(negative)});
}

Term GreatSpnColours::guard(const std::string& text, std::size_t at) {
  Parser p(source_, text, at);
  auto colour = [&]() -> Term {
    const std::size_t offset = p.peek().offset;
    const std::string n = p.name("a colour variable or a colour");
    if (n == "d" && p.accept("(")) {
      const std::size_t vat = p.peek().offset;
      const std::string v = p.name("a colour variable");
      p.expect(")");
      const auto var = variables_.find(v);
      if (var == variables_.end())
        throw Error(vat, "'" + v + "' is no colour variable of the page");
      const SortId s = net_.variables()[var->second].sort;
      const auto partition = partitionOf_.find(s);
      if (partition == partitionOf_.end())
        throw Error(offset, "d(" + v + "): the class '" + net_.sort(s).name +
                                "' has no named static subclasses");
      Term x = term(Op::Variable, vat);
      x.value = var->second;
      Term t = term(Op::ElementOf, offset, {std::move(x)});
      t.sort = partition->second;
      return t;
    }
    Term t;
    if (auto named = variableOrColour(n, offset)) {
      t = std::move(*named);
    } else if (auto sub = subclasses_.find(n); sub != subclasses_.end()) {
      t = constantTerm(sub->second.first, sub->second.second, offset);
    } else {
      throw Error(offset, "'" + n +
                              "' is no colour variable, colour or static subclass of the "
                              "page");
    }
    return shifted(p, std::move(t), offset);
  };
  std::size_t depth = 0;
  std::function<Term()> disjunction, unary;
  unary = [&]() -> Term {
    const std::size_t offset = p.peek().offset;
    if (++depth > grammar::kMaxNesting)
      throw Error(offset, "the guard nests deeper than " + std::to_string(grammar::kMaxNesting) +
                              " levels");
    Term t;
    if (p.accept("!")) {
      t = term(Op::Not, offset, {unary()});
    } else if (p.accept("(")) {
      t = disjunction();
      p.expect(")");
    } else if (p.peek().kind == Parser::Token::Name &&
               (p.peek().text == "True" || p.peek().text == "False")) {
      t = term(p.next().text == "True" ? Op::True : Op::False, offset);
    } else {
      Term lhs = colour();
      static const std::pair<const char*, Op> relations[] = {
          {"==", Op::Equality},           {"=", Op::Equality},
          {"!=", Op::Inequality},         {"<=", Op::LessThanOrEqual},
          {">=", Op::GreaterThanOrEqual}, {"<", Op::LessThan},
          {">", Op::GreaterThan}};
      const std::size_t relationAt = p.peek().offset;
      bool found = false;
      for (const auto& [symbol, op] : relations)
        if (p.accept(symbol)) {
          Term rhs = colour();
          t = term(op, relationAt, {std::move(lhs), std::move(rhs)});
          found = true;
          break;
        }
      if (!found) p.fail("a comparison (==, !=, <, <=, >, >=)");
    }
    --depth;
    return t;
  };
  auto conjunction = [&]() -> Term {
    Term t = unary();
    while (p.is("&&") || p.is("&")) {
      const std::size_t offset = p.next().offset;
      Term rhs = unary();
      t = term(Op::And, offset, {std::move(t), std::move(rhs)});
    }
    return t;
  };
  disjunction = [&]() -> Term {
    Term t = conjunction();
    while (p.is("||") || p.is("|")) {
      const std::size_t offset = p.next().offset;
      Term rhs = conjunction();
      t = term(Op::Or, offset, {std::move(t), std::move(rhs)});
    }
    return t;
  };
  const bool bracketed = p.accept("[");
  Term t = disjunction();
  if (bracketed) p.expect("]");
  p.end();
  return t;
}

}  // namespace mmt::io
