#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace mmt::tools {

namespace {

/// Whether a coloured net's tables list every colour and binding (--colours).
bool colourRows = false;

/// A coloured net's unfolded places and transitions, which --colours shows: the tables of
/// sections `section` (of results whose sections include "coloured_places") left out.
bool hiddenByColour(const std::string& section, bool coloured) {
  return coloured && !colourRows && (section == "places" || section == "transitions");
}

/// The line that says what hiddenByColour left out.
void printHiddenColours(std::size_t places, std::size_t transitions, std::ostream& out) {
  out << "per colour: " << places << (places == 1 ? " place" : " places") << " and " << transitions
      << (transitions == 1 ? " transition" : " transitions")
      << " of the unfolded net, listed with --colours (JSON and CSV hold them)\n";
}

/// printHiddenColours for a results tree (`tree` holds sections by name).
template <typename Tree>
void printHiddenColours(const Tree& tree, std::ostream& out) {
  if (!tree.contains("coloured_places") || colourRows) return;
  printHiddenColours(tree.contains("places") ? tree["places"].size() : 0,
                     tree.contains("transitions") ? tree["transitions"].size() : 0, out);
}

std::string fmt(double x) {
  if (std::isnan(x)) return "no completions";  // a response time with throughput 0
  return shortNumber(x);
}

/// "m ± h": the mean to six significant digits, the half-width to two; the mean alone
/// when there is no interval (a run without randomness: exact when periodic, the run's
/// average otherwise, as the simulation's header says).
std::string intervalCell(const nlohmann::ordered_json& v, bool exact = false) {
  if (v.contains("undefined")) return v.at("undefined").get<std::string>();
  if (exact || v.at("half_width").is_null()) return fmt(v.at("mean").get<double>());
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2g", v.at("half_width").get<double>());
  return fmt(v.at("mean").get<double>()) + " ± " + buffer;
}

/// A left-aligned name column followed by right-aligned number columns.
class Table {
 public:
  Table(std::string title, std::vector<std::string> headers)
      : title_(std::move(title)), headers_(std::move(headers)) {}
  void row(std::string name, std::vector<double> values) {
    std::vector<std::string> cells{std::move(name)};
    for (double v : values) cells.push_back(fmt(v));
    rows_.push_back(std::move(cells));
  }
  void textRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void print(std::ostream& out) const {
    std::vector<std::size_t> width(headers_.size() + 1, 0);
    width[0] = title_.size();
    for (std::size_t i = 0; i < headers_.size(); ++i) width[i + 1] = headers_[i].size();
    for (const auto& r : rows_)
      for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
    out << std::left << std::setw(int(width[0])) << title_;
    for (std::size_t i = 0; i < headers_.size(); ++i)
      out << "  " << std::right << std::setw(int(width[i + 1])) << headers_[i];
    out << '\n';
    for (const auto& r : rows_) {
      out << std::left << std::setw(int(width[0])) << r[0];
      for (std::size_t i = 1; i < r.size(); ++i)
        out << "  " << std::right << std::setw(int(width[i])) << r[i];
      out << '\n';
    }
    out << '\n';
  }

 private:
  std::string title_;
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

void printStations(const char* title, const std::vector<compiler::StationMetrics>& stations,
                   std::ostream& out) {
  Table table(title, {"utilization", "throughput", "queue length", "response time"});
  for (const auto& s : stations)
    table.row("  " + s.name, {s.utilization, s.throughput, s.queueLength, s.responseTime});
  table.print(out);
}

}  // namespace

namespace {

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csvNumber(const nlohmann::ordered_json& v) {
  if (!v.is_number() || std::isnan(v.get<double>())) return "";  // null or NaN: undefined
  std::ostringstream s;
  s << std::setprecision(17) << v.get<double>();
  return s.str();
}

/// The columns a leaf gives, by its shape, and its values.
void leafColumns(const nlohmann::ordered_json& leaf, std::vector<std::string>& names,
                 std::vector<std::string>& values) {
  if (!leaf.is_object()) {
    names.push_back("value");
    values.push_back(csvNumber(leaf));
    return;
  }
  if (leaf.contains("mean")) {
    names.insert(names.end(), {"value", "half_width"});
    values.insert(values.end(), {csvNumber(leaf["mean"]), csvNumber(leaf["half_width"])});
    return;
  }
  for (const auto& [key, v] : leaf.items()) {
    if (key == "outside") continue;
    if (v.is_object()) {
      names.insert(names.end(), {key, key + "_half_width"});
      values.insert(values.end(), {csvNumber(v["mean"]), csvNumber(v["half_width"])});
    } else {
      names.push_back(key);
      values.push_back(csvNumber(v));
    }
  }
  names.push_back("outside");
  values.push_back(leaf.value("outside", false) ? "true" : "false");
}

bool isLeaf(const nlohmann::ordered_json& node) {
  return !node.is_object() || node.contains("mean") || node.contains("exact");
}

}  // namespace

namespace {

/// Calls row(section, element, metric, leaf) for every number of a result tree, named as
/// the CSV names them: the application's metrics with an empty element, a raw net's
/// measures as elements of `measures` with the metric `value`. Keys that are not sections
/// (a transient point's `time`) are skipped.
template <typename Row>
void forEachRow(const nlohmann::ordered_json& tree, Row row) {
  for (const auto& [section, elements] : tree.items()) {
    if (!elements.is_object()) continue;
    for (const auto& [name, node] : elements.items()) {
      if (isLeaf(node)) {
        // application.throughput, measures.m: a metric of the section itself.
        if (section == "measures")
          row(section, name, "value", node);
        else
          row(section, "", name, node);
        continue;
      }
      for (const auto& [metric, leaf] : node.items()) row(section, name, metric, leaf);
    }
  }
}

}  // namespace

void writeResultsCsv(const nlohmann::ordered_json& tree, std::ostream& out) {
  bool header = false;
  forEachRow(tree, [&](const std::string& section, const std::string& element,
                       const std::string& metric, const nlohmann::ordered_json& leaf) {
    std::vector<std::string> names, values;
    leafColumns(leaf, names, values);
    if (!header) {
      out << "section,element,metric";
      for (const std::string& n : names) out << ',' << n;
      out << '\n';
      header = true;
    }
    out << csvField(section) << ',' << csvField(element) << ',' << csvField(metric);
    for (const std::string& v : values) out << ',' << v;
    out << '\n';
  });
}

void showColourRows(bool shown) { colourRows = shown; }

void printPhases(const std::vector<gspn::PhaseExpansion>& phases, std::ostream& out) {
  for (const gspn::PhaseExpansion& e : phases)
    out << "note: phases: " << e.transition << ": " << e.declared << ", cv² " << fmt(e.declaredCv2)
        << " → " << e.phases << (e.expanded ? ", cv² " + fmt(e.reachedCv2) : std::string()) << '\n';
}

void printIntervalTable(const nlohmann::ordered_json& tree, std::ostream& out, bool exact) {
  const auto cell = [exact](const nlohmann::ordered_json& v) { return intervalCell(v, exact); };
  auto isLeaf = [](const nlohmann::ordered_json& v) { return v.contains("half_width"); };
  const bool coloured = tree.contains("coloured_places");
  for (const auto& [group, members] : tree.items()) {
    if (members.empty() || hiddenByColour(group, coloured)) continue;
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
    const bool single = isLeaf(members.begin().value());  // application, measures
    if (single && group != "measures") {
      std::vector<std::string> row{"  " + group};
      for (const auto& [metric, v] : members.items()) {
        headers.push_back(metric);
        row.push_back(cell(v));
      }
      rows.push_back(row);
    } else {
      for (const auto& [name, metrics] : members.items()) {
        std::vector<std::string> row{"  " + name};
        if (isLeaf(metrics)) {
          if (headers.empty()) headers.push_back("value");
          row.push_back(cell(metrics));
        } else {
          if (headers.empty())
            for (const auto& [metric, v] : metrics.items()) headers.push_back(metric);
          for (const auto& [metric, v] : metrics.items()) row.push_back(cell(v));
        }
        rows.push_back(row);
      }
    }
    Table table(group, headers);
    for (auto& r : rows) table.textRow(std::move(r));
    table.print(out);
  }
  printHiddenColours(tree, out);
}

/// "lumped by symmetry: 12 interchangeable W (2125764 tangible markings unlumped)", and
/// why a proposed symmetry was not used.
void printSymmetry(const api::SymmetryReport& s, std::ostream& out) {
  if (s.used()) {
    out << "lumped by symmetry: " << s.describe();
    if (s.unlumpedTangible) {
      char count[64];
      if (std::isfinite(*s.unlumpedTangible)) {
        std::snprintf(count, sizeof count, *s.unlumpedTangible < 9e15 ? "%.0f" : "%.4g",
                      *s.unlumpedTangible);
      } else {  // past a double's range: from its log10
        const double exponent = std::floor(*s.log10UnlumpedTangible);
        std::snprintf(count, sizeof count, "%.4ge+%.0f",
                      std::pow(10.0, *s.log10UnlumpedTangible - exponent), exponent);
      }
      out << " (" << count << " tangible markings unlumped)";
    }
    out << '\n';
  }
  for (const std::string& note : s.notes) out << "symmetry: " << note << '\n';
}

namespace {

/// The column headers of a raw net's three tables: measures, places, transitions.
struct NetColumns {
  const char* measure;
  const char* place;
  const char* transition;
};

/// A raw net's measures (when it has any), places and transitions, one column each; an
/// undefined measure (NaN) says so.
void printNetTables(const NetMeasures& values, const NetColumns& columns, std::ostream& out) {
  if (!values.measures.empty()) {
    Table measures("measures", {columns.measure});
    for (const auto& [measure, v] : values.measures)
      measures.textRow({"  " + measure, std::isnan(v) ? "undefined" : fmt(v)});
    measures.print(out);
  }
  if (!values.colouredMeanTokens.empty()) {
    // An unfolded coloured net: each coloured place's and transition's total first.
    Table places("coloured places", {std::string(columns.place) + ", all colours"});
    for (const auto& [place, v] : values.colouredMeanTokens) places.row("  " + place, {v});
    places.print(out);
    Table transitions("coloured transitions", {std::string(columns.transition) + ", all bindings"});
    for (const auto& [t, v] : values.colouredThroughput) transitions.row("  " + t, {v});
    transitions.print(out);
  }
  if (hiddenByColour("places", !values.colouredMeanTokens.empty())) {
    printHiddenColours(values.meanTokens.size(), values.throughput.size(), out);
    return;
  }
  Table places("places", {columns.place});
  for (const auto& [place, v] : values.meanTokens) places.row("  " + place, {v});
  places.print(out);
  Table transitions("transitions", {columns.transition});
  for (const auto& [transition, v] : values.throughput) transitions.row("  " + transition, {v});
  transitions.print(out);
}

/// The most ends listed one by one in the table (all of them in the JSON).
constexpr std::size_t kEndsShown = 12;

/// "1 dead marking and 2 bottom components", "3 dead markings".
std::string endsText(const api::AbsorptionSolution& a) {
  std::size_t dead = 0;
  for (const api::EndComponent& c : a.components) dead += c.dead;
  const std::size_t live = a.components.size() - dead;
  auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string out;
  if (dead) out = count(dead, "dead marking", "dead markings");
  if (dead && live) out += " and ";
  if (live) out += count(live, "bottom component", "bottom components");
  return out;
}

/// A chain that ends: where and when it ends, its totals until then, and (for a raw net)
/// its long-run averages.
void printAbsorption(const api::Solution& r, std::ostream& out) {
  const api::AbsorptionSolution& a = *r.absorption;
  out << "the chain ends: " << endsText(a) << ", reached from " << a.transientMarkings
      << " transient marking" << (a.transientMarkings == 1 ? "" : "s") << '\n';
  out << "solver: ";
  if (a.method)
    out << api::toString(*a.method) << " on the renewal chains, " << a.iterations
        << (a.iterations == 1 ? " iteration" : " iterations") << ", residual " << fmt(a.residual)
        << ", ";
  else
    out << "none needed (the initial marking is an end), ";
  out << "explored in " << duration(r.chain.explorationSeconds) << ", solved in "
      << duration(a.seconds) << ", peak memory " << fmt(r.peakMemoryMegabytes) << " MB\n";
  // A system's chain should not end (its workload repeats): it has no steady state.
  if (!r.isBatch())  // a batch's end is the marking after its last iteration
    out << (r.hasResults() ? "note: " : "no steady state: ") << a.structure << '\n';
  out << "times in model time units t; throughputs per t\n\n";

  Table time(r.isBatch() ? "makespan" : "time to absorption", {"mean", "std dev"});
  time.row("  " + r.name, {a.meanTime, std::sqrt(a.variance)});
  time.print(out);
  Table ends("ends", {"probability", "markings", "dead"});
  for (std::size_t j = 0; j < a.components.size() && j < kEndsShown; ++j) {
    const api::EndComponent& c = a.components[j];
    ends.textRow({"  {" + c.marking + "}", fmt(c.probability), std::to_string(c.markings),
                  c.dead ? "yes" : "no"});
  }
  if (a.components.size() > kEndsShown) {
    double rest = 0;
    for (std::size_t j = kEndsShown; j < a.components.size(); ++j)
      rest += a.components[j].probability;
    ends.textRow({"  (" + std::to_string(a.components.size() - kEndsShown) +
                      " more: --format json lists them)",
                  fmt(rest), "", ""});
  }
  ends.print(out);
  // Each live bottom component's own steady state (the first few; JSON has every one).
  std::size_t shown = 0;
  for (const api::EndComponent& c : a.components) {
    if (!c.results) continue;
    if (++shown > kEndsShown) {
      out << "(more bottom components: --format json gives each one's own steady state)\n\n";
      break;
    }
    out << "in the bottom component of {" << c.marking << "} (" << c.markings
        << " markings, reached with probability " << fmt(c.probability)
        << "), its own steady state:\n";
    printNetTables(*c.results, {"value", "mean tokens", "throughput"}, out);
  }
  if (r.passages) printPassages(r, out);
  if (a.accumulated) {
    out << "until absorption, expected totals:\n";
    printNetTables(*a.accumulated, {"total", "token time", "firings"}, out);
  }
  if (r.hasResults()) {
    out << (r.isBatch() ? "over the run (time averages until the batch ends):\n"
                        : "in the long run, each end weighted by its probability:\n");
    printResultTables(r.name, r.metrics, r.values, out);
  }
}

}  // namespace

void printTable(const api::Solution& r, std::ostream& out) {
  const solver::SteadyStateResult& s = r.chain.steadyState;
  const gspn::TangibleReachabilityGraph& graph = r.chain.explored.graph;
  out << (r.isSystem() ? "system " : "net ") << r.name << ": " << graph.stateCount()
      << " tangible markings (" << graph.vanishingCount << " vanishing met";
  if (r.chain.structure.transientCount)
    out << ", " << r.chain.structure.transientCount << " transient dropped";
  out << "), " << graph.edgeCount() << " edges\n";
  printSymmetry(r.symmetry, out);
  if (r.absorption) {
    printAbsorption(r, out);
    if (r.transient) printTransient(r, out);
    return;
  }
  if (!r.hasSteadyState()) {
    out << "no steady state: " << r.noSteadyState() << '\n'
        << "explored in " << duration(r.chain.explorationSeconds) << ", peak memory "
        << fmt(r.peakMemoryMegabytes) << " MB\n\n";
    printTransient(r, out);
    return;
  }
  out << "solver: " << api::toString(s.method) << ", " << s.iterations
      << (s.iterations == 1 ? " iteration" : " iterations") << ", residual " << fmt(s.residual)
      << (s.errorEstimate > 0 ? ", error estimate " + fmt(s.errorEstimate) : std::string())
      << ", explored in " << duration(r.chain.explorationSeconds) << ", solved in "
      << duration(s.seconds) << ", peak memory " << fmt(r.peakMemoryMegabytes) << " MB\n";
  if (!s.note.empty()) out << "note: " << s.note << '\n';
  if (const auto& d = r.deterministic) {
    out << "constant delays solved exactly (DSPN, embedded Markov renewal process): "
        << d->transitions << " deterministic transition" << (d->transitions == 1 ? "" : "s") << ", "
        << d->embeddedMarkings << " embedded markings, " << d->subordinatedSolves
        << " subordinated CTMCs (" << d->iterations << " iterations), embedded chain by "
        << api::toString(d->method) << " to residual " << fmt(d->residual) << ", "
        << duration(d->seconds) << '\n';
  } else if (r.declaredDelays) {
    out << "note: " << api::declaredDelayNote(r.declaredDelays) << '\n';
  }
  printPhases(r.phases, out);
  out << "times in model time units t; throughputs per t\n\n";
  printResultTables(r.name, r.metrics, r.values, out);
  if (r.passages) printPassages(r, out);
  if (r.transient) printTransient(r, out);
}

void printDistributedTable(const mpi::DistributedSolution& s, std::ostream& out) {
  out << (s.system ? "system " : "net ") << s.name << ": " << s.states << " tangible markings, "
      << s.edges << " edges, over " << s.ranks.size() << " ranks (" << s.rounds << " rounds)\n"
      << "partition: by " << s.partition << ", " << fmt(100 * s.crossEdgeFraction())
      << " % of the edges between ranks\n";
  printSymmetry(s.symmetry, out);
  const bool sweeps = s.method == "gauss-seidel" || s.method == "sor";
  out << "solver: " << (sweeps ? "" : "PETSc ") << s.method << ", " << s.iterations
      << (sweeps ? " sweeps" : " iterations") << ", residual " << fmt(s.residual)
      << ", flow imbalance " << fmt(s.imbalance) << ", " << duration(s.seconds) << " in all\n";
  // Counts exactly; memory, bytes and seconds to the report's digits.
  Table ranks("ranks", {"tangible", "edges", "cross edges", "peak MB", "explore s", "sent MB",
                        "solve s", "KB per exchange"});
  for (std::size_t r = 0; r < s.ranks.size(); ++r) {
    const mpi::RankFigures& f = s.ranks[r];
    ranks.textRow({"  " + std::to_string(r), std::to_string(f.states), std::to_string(f.edges),
                   std::to_string(f.crossEdges), fmt(f.peakMemoryMegabytes),
                   fmt(f.explorationSeconds), fmt(double(f.explorationBytesSent) / 1e6),
                   fmt(f.solveSeconds), fmt(double(f.bytesPerProduct) / 1e3)});
  }
  ranks.print(out);
  out << "times in model time units t; throughputs per t\n\n";
  printResultTables(s.name, s.metrics, s.values, out);
}

void printResultTables(const std::string& name,
                       const std::optional<compiler::SystemMetrics>& metrics,
                       const NetMeasures& values, std::ostream& out) {
  if (!metrics) {
    printNetTables(values, {"value", "mean tokens", "throughput"}, out);
    return;
  }

  const auto& m = *metrics;
  {
    // The columns the workload defines (metrics.hpp, ApplicationMetrics).
    const nlohmann::ordered_json app = api::applicationJson(m.application);
    std::vector<std::string> columns;
    std::vector<double> cells;
    for (const auto& [key, value] : app.items()) {
      std::string column = key;
      std::replace(column.begin(), column.end(), '_', ' ');
      columns.push_back(column);
      cells.push_back(value.get<double>());
    }
    Table table("application", columns);
    table.row("  " + name, cells);
    table.print(out);
  }

  if (!m.skeletons.empty()) {
    Table skeletons("skeletons", {"throughput", "response time"});
    for (const auto& k : m.skeletons) skeletons.row("  " + k.name, {k.throughput, k.responseTime});
    skeletons.print(out);
    Table tasks("tasks", {"throughput", "utilization", "blocked", "blocking time"});
    for (const auto& t : m.tasks)
      tasks.row("  " + t.name, {t.throughput, t.utilization, t.blocked, t.blockingTime});
    tasks.print(out);
  }
  if (!m.actors.empty()) {
    Table actors("actors", {"throughput", "response time", "sync delay"});
    for (const auto& a : m.actors)
      actors.row("  " + a.name, {a.throughput, a.responseTime, a.synchronizationDelay});
    actors.print(out);
  }

  printStations("processors", m.processors, out);

  if (!m.messages.empty()) {
    Table messages("messages", {"throughput", "response time"});
    for (const auto& msg : m.messages)
      messages.row("  " + msg.name + (msg.local ? " (local)" : ""),
                   {msg.throughput, msg.responseTime});
    messages.print(out);
  }

  if (!m.links.empty()) printStations("links", m.links, out);
}

namespace {

/// "p95", "p99.9".
std::string percentileName(double p) { return "p" + shortNumber(p); }

}  // namespace

void printPassages(const api::Solution& r, std::ostream& out) {
  const api::PassageSolution& p = *r.passages;
  const bool toTheEnd = !p.distributions.empty() && (p.distributions[0].section == "absorption" ||
                                                     p.distributions[0].quantity == "makespan");
  out << (toTheEnd ? "distribution of the time until the chain ends: uniformization, "
                   : "response-time distributions: uniformization, ")
      << p.iterations << (p.iterations == 1 ? " iteration" : " iterations") << ", error at most "
      << fmt(p.epsilon) << " per value, " << duration(p.seconds) << '\n';
  if (!p.tagged.empty())
    out << "in steady state; the net solved tags the firings of " << p.tagged
        << " to tell iterations apart (" << r.chain.explored.graph.stateCount()
        << " tangible markings with the tag)\n";
  out << '\n';
  std::vector<std::string> headers{"mean"};
  for (double t : p.times) headers.push_back("F(" + shortNumber(t) + ")");
  for (double q : p.percentiles) headers.push_back(percentileName(q));
  std::vector<std::string> notes;
  std::string section;
  std::optional<Table> table;
  for (const api::PassageDistribution& d : p.distributions) {
    if (d.section != section) {
      if (table) table->print(out);
      section = d.section;
      table.emplace(section == "passage"       ? "passage time"
                    : section == "absorption"  ? "time to absorption"
                    : d.quantity == "makespan" ? "makespan"
                                               : section,
                    headers);
    }
    if (!d.unavailable.empty()) {
      notes.push_back(d.element + ": no distribution: " + d.unavailable);
      continue;
    }
    std::vector<std::string> cells{"  " + d.element,
                                   std::isfinite(d.mean) ? fmt(d.mean) : "never ends"};
    for (double f : d.cdf) cells.push_back(fmt(f));
    for (double q : d.percentiles) cells.push_back(std::isnan(q) ? "never" : fmt(q));
    table->textRow(std::move(cells));
  }
  if (table) table->print(out);
  for (const std::string& n : notes) out << "note: " << n << '\n';
  if (!notes.empty()) out << '\n';
}

void writePassageCsv(const api::PassageSolution& p, std::ostream& out) {
  for (const api::PassageDistribution& d : p.distributions) {
    if (!d.unavailable.empty()) continue;
    // The passages that are no element's metric have their mean in the CSV too.
    const bool raw =
        d.section == "passage" || d.section == "absorption" || d.quantity == "makespan";
    const std::string prefix = d.section == "passage" ? "passage_time_" : d.quantity + "_";
    const std::string head =
        csvField(d.section) + ',' + (d.section == "application" ? "" : csvField(d.element)) + ',';
    if (raw) out << head << prefix << "mean," << csvNumber(d.mean) << '\n';
    for (std::size_t i = 0; i < p.times.size(); ++i)
      out << head << csvField(prefix + "cdf(" + shortNumber(p.times[i]) + ")") << ','
          << csvNumber(d.cdf[i]) << '\n';
    for (std::size_t i = 0; i < p.percentiles.size(); ++i)
      out << head << prefix << percentileName(p.percentiles[i]) << ','
          << csvNumber(d.percentiles[i]) << '\n';
  }
}

namespace {
/// Per section, one row per element and metric, one column per point's time, and a last
/// column `lastHeader` holding the numbers of `last` (the steady state, the equilibrium)
/// when given.
void printPointTables(const std::vector<api::TransientPoint>& points, const NamedResults* last,
                      const std::string& lastHeader, std::ostream& out) {
  std::map<std::string, double> lastByPath;
  if (last)
    for (const NamedNumber& n : last->numbers) lastByPath[pathText(n.path)] = n.value;
  std::vector<std::string> headers;
  for (const api::TransientPoint& p : points) headers.push_back("t = " + shortNumber(p.time));
  if (last) headers.push_back(lastHeader);
  const std::vector<NamedNumber>& numbers = points.front().results.numbers;
  const bool coloured = std::any_of(numbers.begin(), numbers.end(), [](const NamedNumber& n) {
    return n.path.front() == "coloured_places";
  });
  std::map<std::string, std::set<std::string>> hidden;  // section -> elements
  for (std::size_t i = 0; i < numbers.size();) {
    const std::string& section = numbers[i].path.front();
    if (hiddenByColour(section, coloured)) {
      for (; i < numbers.size() && numbers[i].path.front() == section; ++i)
        hidden[section].insert(numbers[i].path.at(1));
      continue;
    }
    Table table(section, headers);
    for (; i < numbers.size() && numbers[i].path.front() == section; ++i) {
      std::vector<std::string> cells;
      const std::vector<std::string>& path = numbers[i].path;
      std::string label = "  ";
      for (std::size_t k = 1; k < path.size(); ++k) label += (k > 1 ? " " : "") + path[k];
      std::replace(label.begin(), label.end(), '_', ' ');
      cells.push_back(label);
      for (const api::TransientPoint& p : points) {
        const double v = p.results.numbers[i].value;
        cells.push_back(std::isfinite(v) ? fmt(v) : "undefined");
      }
      if (last) cells.push_back(fmt(lastByPath.at(pathText(path))));
      table.textRow(std::move(cells));
    }
    table.print(out);
  }
  if (!hidden.empty())
    printHiddenColours(hidden["places"].size(), hidden["transitions"].size(), out);
}
}  // namespace

void printTransient(const api::Solution& r, std::ostream& out) {
  const api::TransientSolution& t = *r.transient;
  out << "transient: uniformization at rate " << fmt(t.rate) << ", " << t.iterations
      << (t.iterations == 1 ? " iteration" : " iterations");
  if (t.stationaryAt) out << " (stationary from iteration " << *t.stationaryAt << ")";
  if (t.heldProducts > 0)
    out << ", the first " << t.heldProducts << " over at most " << t.mostHeld << " states held";
  out << ", error at most " << fmt(t.epsilon) << " per time, " << duration(t.seconds) << '\n'
      << (t.cumulative ? "time averages over [0, t]" : "values at t")
      << " from the initial marking; response times have no value at an instant\n\n";
  const NamedResults steady = namedResults(r.metrics, r.values);
  printPointTables(t.points, r.hasSteadyState() ? &steady : nullptr, "steady state", out);
}

void writeTransientCsv(const api::TransientSolution& transient, std::ostream& out) {
  out << "time,section,element,metric,value\n";
  for (const nlohmann::ordered_json& point : transient.pointsJson()) {
    const std::string time = csvNumber(point.at("time"));
    forEachRow(point, [&](const std::string& section, const std::string& element,
                          const std::string& metric, const nlohmann::ordered_json& leaf) {
      out << time << ',' << csvField(section) << ',' << csvField(element) << ',' << csvField(metric)
          << ',' << csvNumber(leaf) << '\n';
    });
  }
}

void printSimulationHeader(const api::Simulation& s, std::ostream& out) {
  if (s.deterministic) {
    out << "one run (" << s.events << " events, simulated time " << shortNumber(s.simulatedTime)
        << " t, " << duration(s.seconds) << "); " << s.note << '\n';
    return;
  }
  out << s.replications << " replications of " << s.settings.events << " timed firings ("
      << s.warmupEvents << " warm-up"
      << (s.warmupChoice
              ? ", by MSER from a pilot of " + std::to_string(s.warmupChoice->pilotFirings)
              : std::string())
      << "), seed " << s.settings.seed << ": " << s.events << " events, simulated time "
      << shortNumber(s.simulatedTime) << " t, " << duration(s.seconds) << "; "
      << s.settings.confidence * 100 << "% intervals, " << s.note << '\n';
}

void printComparisonReport(const api::Comparison& c, std::ostream& out) {
  const double confidence = c.simulations.front().settings.confidence;
  out << (c.system ? "system " : "net ") << c.name << ": exact CTMC ("
      << c.exact.chain.explored.graph.stateCount() << " tangible markings, "
      << api::toString(c.exact.chain.steadyState.method) << ", residual "
      << c.exact.chain.steadyState.residual << ") against simulation\n";
  printSymmetry(c.exact.symmetry, out);
  for (const api::Simulation& s : c.simulations) {
    out << "  " << api::toString(s.settings.delays) << " delays: ";
    printSimulationHeader(s, out);
  }
  out << "'!': the exact value lies outside the exponential simulation's " << confidence * 100
      << "% interval (" << c.tree.outside.size() << " of " << c.tree.numbers << " numbers; about "
      << (1 - confidence) * 100 << "% are expected by chance)\n"
      << "times in model time units t; throughputs per t\n";
  if (!c.phases.empty())
    out << "'phases': the exact solution with every declared delay expanded into phases (mmt "
           "solve --phases)\n";
  printPhases(c.phases, out);
  if (c.constantExact)
    out << "'constant exact': the exact solution with every delay constant (its mean), a DSPN "
           "of "
        << c.constantDeterministic->embeddedMarkings
        << " embedded markings (mmt solve --deterministic exact)\n";
  else
    out << "note: " << c.constantExactUnavailable << '\n';
  out << '\n';
  printComparison(c.tree, out);
}

void printContractStart(const api::ContractSettings& settings,
                        const std::optional<api::Surroundings>& around, std::ostream& out) {
  const api::Requirement& r = settings.requirement;
  const api::SweepParameter& p = settings.parameter;
  out << "contract: " << r.path << ' ' << r.op << ' '
      << (r.fromSurroundings ? std::string("input") : shortNumber(r.bound)) << ", " << p.name
      << " in " << p.values.size() << " values from " << shortNumber(p.values.front()) << " to "
      << shortNumber(p.values.back()) << '\n';
  if (!around) return;
  out << "input: " << p.name << " changes " << api::join(around->varied)
      << "; T_A = " << shortNumber(around->arrivalTime) << " per item (" << around->arrivalFrom
      << "), T_D = " << shortNumber(around->departureTime) << " per item (" << around->departureFrom
      << "): the stages around allow " << shortNumber(r.bound) << " per t\n";
}

void printContractTry(const api::ContractSettings& settings, const api::ContractTry& t,
                      std::ostream& out) {
  const api::Requirement& r = settings.requirement;
  out << settings.parameter.name << " = " << shortNumber(t.value) << ": ";
  if (!t.ok) {
    out << "failed: " << t.reason << '\n';
    return;
  }
  if (t.ruledOut) {
    out << "bound " << shortNumber(*t.bound) << " " << (r.op == ">" ? "<=" : "<") << " "
        << shortNumber(r.bound) << ": ruled out, not solved\n";
    return;
  }
  if (t.serviceTime) {
    out << "service time " << shortNumber(*t.serviceTime) << (t.met ? " <= " : " > ")
        << "max{T_A, T_D} = " << shortNumber(1 / r.bound);
    if (!t.met) {
      out << ": not met\n";
      return;
    }
    out << "; ";
  }
  out << r.path << " = " << shortNumber(t.metric);
  if (t.halfWidth) out << " ± " << shortNumber(*t.halfWidth);
  out << (t.meanField   ? " (mean-field)"
          : t.simulated ? " (simulated)"
                        : " (exact, " + std::to_string(t.states) + " states)");
  if (t.bound && r.path == "application.throughput") out << ", bound " << shortNumber(*t.bound);
  out << (t.met ? ": met" : ": not met") << '\n';
}

namespace {

/// Why a contract is not met: the reason, the bottleneck elements, what would help.
void printDiagnosis(const api::Diagnosis& d, std::ostream& out) {
  using Kind = compiler::BoundElement::Kind;
  out << "why: " << d.reason << '\n';
  for (const api::BottleneckElement& e : d.bottleneck) {
    out << "bottleneck: " << e.name;
    switch (e.kind) {
      case Kind::Task:
        out << " on " << e.processor << ", " << shortNumber(e.serviceTime) << " per item (work "
            << shortNumber(e.work) << " x " << e.sharedWith.size() + 1 << " sharing / speed "
            << shortNumber(e.speed) << ")";
        if (!e.sharedWith.empty()) {
          out << ", sharing it with";
          for (std::size_t i = 0; i < e.sharedWith.size(); ++i)
            out << (i ? ", " : " ") << e.sharedWith[i];
        }
        break;
      case Kind::Farm:
      case Kind::Deal:
      case Kind::Map:
        out << " (" << api::toString(e.kind) << " of " << e.replicas << "), "
            << shortNumber(e.serviceTime) << " per item";
        break;
      case Kind::Move:
        out << " (a move of " << e.transfers << " transfer" << (e.transfers == 1 ? "" : "s")
            << "), " << shortNumber(e.serviceTime) << " per item";
        break;
    }
    out << '\n';
  }
  if (!d.suggestions.empty()) out << "what would help:\n";
  for (const api::Suggestion& s : d.suggestions) out << "  " << s.text << '\n';
}

}  // namespace

void printContractOutcome(const api::ContractResult& result, const std::string& requirement,
                          std::ostream& out) {
  const std::string& name = result.settings.parameter.name;
  const std::string& path = result.settings.requirement.path;
  if (!result.answer) {
    out << "no value of " << name << (result.impossible ? " can meet " : " meets ") << requirement;
    if (result.best) {
      const api::ContractTry& t = result.tries[*result.best];
      out << "; the best tried is " << name << " = " << shortNumber(t.value) << " with " << path
          << " = " << shortNumber(t.metric);
    }
    if (result.impossible) out << "; nothing was solved";
    out << '\n';
    if (result.diagnosis) printDiagnosis(*result.diagnosis, out);
    return;
  }
  const api::ContractTry& t = result.tries[*result.answer];
  out << "answer: " << name << " = " << shortNumber(t.value);
  if (result.surroundings && t.serviceTime)
    out << ", the first at which the stages it changes keep up with the stages around them ("
        << shortNumber(*t.serviceTime) << " <= " << shortNumber(result.surroundings->serviceTime())
        << " per item)";
  out << " (" << path << " = " << shortNumber(t.metric)
      << (t.meanField   ? ", by the mean-field approximation"
          : t.simulated ? ", simulated"
                        : ", exact")
      << ")";
  if (t.bound && path == "application.throughput")
    out << "; the bound-based estimate at that value is " << shortNumber(*t.bound) << " ("
        << shortNumber(100 * (*t.bound - t.metric) / t.metric) << "% above)";
  out << '\n';
}

void printComparison(const api::ComparisonTree& comparison, std::ostream& out) {
  using json = nlohmann::ordered_json;
  std::vector<std::string> headers{"exact"};
  for (std::string name : comparison.solved) {
    std::replace(name.begin(), name.end(), '_', ' ');
    headers.push_back(name);
  }
  for (const std::string& c : comparison.columns) headers.push_back(c + " sim");
  auto isLeaf = [](const json& v) { return v.contains("exact"); };
  const bool coloured = comparison.tree.contains("coloured_places");
  for (const auto& [group, members] : comparison.tree.items()) {
    if (members.empty() || hiddenByColour(group, coloured)) continue;
    Table table(group, headers);
    auto row = [&](const std::string& label, const json& leaf) {
      std::vector<std::string> cells{(leaf.at("outside").get<bool>() ? "! " : "  ") + label,
                                     fmt(leaf.at("exact").get<double>())};
      for (const std::string& name : comparison.solved) {
        const json& v = leaf.at(name);
        cells.push_back(v.is_number() ? fmt(v.get<double>()) : "undefined");
      }
      for (std::size_t i = 0; i < comparison.columns.size(); ++i)
        cells.push_back(intervalCell(leaf.at(comparison.columns[i]), comparison.exact[i]));
      table.textRow(std::move(cells));
    };
    for (const auto& [name, value] : members.items()) {
      if (isLeaf(value)) {
        row(name, value);  // application metrics, measures
        continue;
      }
      for (const auto& [metric, leaf] : value.items()) row(name + " " + metric, leaf);
    }
    table.print(out);
  }
  printHiddenColours(comparison.tree, out);
}

namespace {

/// How the equilibrium was reached: integration, Newton, residual, seconds, peak memory.
void printEquilibriumLine(const fluid::EquilibriumSearch& e, double peakMegabytes,
                          std::ostream& out) {
  out << "equilibrium: reached by integration to model time " << shortNumber(e.settledAt) << " ("
      << e.steps << " Rosenbrock steps), then " << e.newtonIterations << " Newton "
      << (e.newtonIterations == 1 ? "iteration" : "iterations") << ", residual " << fmt(e.residual)
      << ", " << duration(e.seconds) << ", peak memory " << fmt(peakMegabytes) << " MB\n";
}

/// Where an approximation has no reference: why the exact answer is missing, if it was
/// tried, and why there is none; false (nothing printed) when it has one.
bool printNoReference(const api::ApproximationReference& f, std::ostream& out) {
  if (!f.method.empty()) return false;
  if (!f.exactMissing.empty()) out << "no exact reference: " << f.exactMissing << "\n";
  out << "reference: none: " << f.unavailable << "\n";
  return true;
}

/// An approximation's simulated reference: its replications, firings and intervals,
/// `where` said after what was simulated (" at the asked size").
void printSimulationReference(const api::ApproximationReference& f, const std::string& where,
                              std::ostream& out) {
  out << (f.exactMissing.empty() ? "" : "no exact reference: " + f.exactMissing + "\n")
      << "reference: a simulation with exponential delays" << where << ", " << f.replications
      << " replications of " << f.events << " timed firings, " << shortNumber(100 * f.confidence)
      << " % intervals, " << duration(f.seconds) << "\n";
}

/// The equilibrium's stability and critical loads, as fluid::stability and the kinks say:
/// `what` is the approximation ("fluid", "mean-field"), `kinked` what sits on each kink.
void printStability(const fluid::EquilibriumSearch& e, const std::string& what,
                    const std::string& kinked, std::ostream& out) {
  const double abscissa = e.spectralAbscissa;
  const std::vector<std::string>& kinks = e.kinks;
  if (e.dead)
    out << "note: every flow is 0 at the equilibrium: the " << what << " limit ends\n";
  else if (e.stable)
    out << "stability: stable (largest real part of the Jacobian's eigenvalues " << fmt(abscissa)
        << " per t)\n";
  else if (!kinks.empty())
    out << "stability: not decided: the equilibrium lies on a kink, where the Jacobian is "
           "one-sided (largest real part of its eigenvalues on the side taken "
        << fmt(abscissa) << " per t)\n";
  else if (e.neutral)
    out << "stability: neutral (the Jacobian has an eigenvalue 0): the equilibria form a "
           "continuum here, and the one reached depends on the initial marking\n";
  else
    out << "stability: unstable (largest real part of the Jacobian's eigenvalues " << fmt(abscissa)
        << " per t): trajectories near it leave it\n";
  if (!kinks.empty()) {
    out << "note: at a critical load: " << kinked << " " << kinks.front();
    if (kinks.size() > 1) out << " (and " << kinks.size() - 1 << " more)";
    out << " sits on a kink, where the exact answer approaches the " << what
        << " one only like N^(-1/2) in the population N\n";
  }
}

}  // namespace

void printFluidTable(const api::FluidSolution& r, std::ostream& out) {
  const fluid::Equilibrium& e = r.equilibrium;
  out << (r.system ? "system " : "net ") << r.name
      << ": fluid approximation (a continuous Petri net, docs/fluid.md)\n";
  printEquilibriumLine(e, r.peakMemoryMegabytes, out);
  if (e.extrapolated)
    out << "note: immediate transitions as flows 10^6 and 2*10^6 times the fastest rate, "
           "extrapolated to infinite speed\n";
  printStability(e, "fluid", "the flow of", out);
  out << "times in model time units t; throughputs per t; a probability over markings has "
         "no fluid value (undefined)\n\n";
  printResultTables(r.name, r.metrics, r.values, out);
  if (!r.points.empty()) {
    out << "fluid trajectory from the initial marking: " << r.trajectorySteps
        << " Rosenbrock steps\n\n";
    const NamedResults equilibrium = namedResults(r.metrics, r.values);
    printPointTables(r.points, &equilibrium, "equilibrium", out);
  }
  if (!r.reference) return;
  const api::FluidReference& f = *r.reference;
  if (printNoReference(f, out)) return;
  const bool exact = f.method == "exact";
  if (exact)
    out << "reference: the exact steady state, " << f.tangible << " tangible markings, "
        << duration(f.seconds) << "\n";
  else
    printSimulationReference(f, "", out);
  if (!f.farthestPath.empty())
    out << "farthest: " << f.farthestPath << ", " << fmt(100 * f.farthestDistance)
        << " % from the reference\n";
  out << "\n";
  Table table("distance", exact
                              ? std::vector<std::string>{"fluid", "exact", "relative"}
                              : std::vector<std::string>{"fluid", "simulated", "+/-", "relative"});
  for (const api::FluidReference::Number& n : f.numbers) {
    std::vector<std::string> cells{"  " + pathText(n.path), fmt(n.fluid), fmt(n.reference)};
    if (!exact) cells.push_back(fmt(n.halfWidth));
    const double d = n.distance();
    cells.push_back(std::isfinite(d) ? fmt(d) : "-");
    table.textRow(std::move(cells));
  }
  table.print(out);
}

void printMeanFieldTable(const api::MeanFieldSolution& r, std::ostream& out) {
  const meanfield::Equilibrium& e = r.equilibrium;
  const api::PopulationReport& p = r.population;
  out << (r.system ? "system " : "net ") << r.name << ": mean-field approximation of "
      << p.describe() << " (docs/meanfield.md)\n";
  if (p.probes.size() == 2) {
    const auto values = [](const api::Parameters& v) {
      std::string text;
      for (const auto& [name, value] : v)
        text += (text.empty() ? "" : ", ") + name + " = " + shortNumber(value);
      return text;
    };
    out << "counted: compiled at " << values(p.probes[0]) << " and at " << values(p.probes[1])
        << " (the same classes but for their counts), counted at the asked values\n";
  }
  for (const std::string& line : r.standsFor) out << "note: " << line << "\n";
  for (const std::string& note : p.notes) out << "note: " << note << "\n";
  printEquilibriumLine(e, r.peakMemoryMegabytes, out);
  printStability(e, "mean-field", "the count of", out);
  out << "times in model time units t; throughputs per t\n\n";
  printResultTables(r.name, r.metrics, r.values, out);
  if (!r.points.empty()) {
    out << "mean-field trajectory from the initial marking: " << r.trajectorySteps
        << " Rosenbrock steps\n\n";
    const NamedResults equilibrium = namedResults(r.metrics, r.values);
    printPointTables(r.points, &equilibrium, "equilibrium", out);
  }
  if (!r.reference) return;
  const api::MeanFieldReference& f = *r.reference;
  if (printNoReference(f, out)) return;
  const auto sizeName = [](const api::MeanFieldReference::Size& size) {
    std::string text;
    for (const auto& [name, value] : size.parameters)
      text += (text.empty() ? "" : ",") + name + "=" + shortNumber(value);
    return text;
  };
  Table* table = nullptr;
  std::optional<Table> owned;
  if (f.method == "simulation") {
    printSimulationReference(f, " at the asked size", out);
    owned.emplace("distance",
                  std::vector<std::string>{"mean-field", "simulated", "+/-", "relative"});
  } else if (f.method == "exact") {
    out << "reference: the exact steady state at the asked size, " << f.sizes[0].tangible
        << " tangible markings, " << duration(f.seconds) << "\n";
    owned.emplace("distance", std::vector<std::string>{"mean-field", "exact", "relative"});
  } else {
    out << (f.exactMissing.empty()
                ? ""
                : "no exact reference at the asked size: " + f.exactMissing + "\n")
        << "reference: the exact steady state at smaller sizes:";
    for (std::size_t i = 0; i < f.sizes.size(); ++i)
      out << (i ? ";" : "") << " " << sizeName(f.sizes[i]) << " (" << f.sizes[i].tangible
          << " tangible markings)";
    out << ", " << duration(f.seconds)
        << "; the relative distance at each, and its trend over them (as N^-a in the largest "
           "count N) taken to the asked size (the estimate; where it does not fall, the "
           "distance at the largest)\n";
    std::vector<std::string> headers{"mean-field"};
    for (const api::MeanFieldReference::Size& size : f.sizes)
      headers.push_back("at " + sizeName(size));
    headers.insert(headers.end(), {"a", "estimate"});
    owned.emplace("distance", std::move(headers));
  }
  table = &*owned;
  if (!f.farthestPath.empty())
    out << "farthest: " << f.farthestPath << ", " << fmt(100 * f.farthestDistance) << " %"
        << (f.method == "exact at smaller sizes" ? " (estimated)" : "") << "\n";
  out << "\n";
  const auto distance = [](double d) { return std::isfinite(d) ? fmt(d) : std::string("-"); };
  for (const api::MeanFieldReference::Number& n : f.numbers) {
    std::vector<std::string> cells{"  " + pathText(n.path), fmt(n.meanField)};
    if (f.method == "simulation") {
      cells.insert(cells.end(), {fmt(n.reference[0]), fmt(n.halfWidth), distance(n.distances[0])});
    } else if (f.method == "exact") {
      cells.insert(cells.end(), {fmt(n.reference[0]), distance(n.distances[0])});
    } else {
      for (double d : n.distances) cells.push_back(distance(d));
      cells.push_back(std::isfinite(n.exponent) ? shortNumber(n.exponent) : "-");
      cells.push_back(distance(n.estimate));
    }
    table->textRow(std::move(cells));
  }
  table->print(out);
}

}  // namespace mmt::tools
