#include "api/model.hpp"

#include <algorithm>
#include <fstream>

#include "io/formats.hpp"
#include "io/label.hpp"
#include "io/net_reader.hpp"

namespace mmt::api {

namespace {

/// The `.def` file that GreatSPN keeps beside `net` (a `.net` path).
std::string definitionsPath(const std::string& net) {
  return net.substr(0, net.size() - 4) + ".def";
}

/// The diagnostics of `lists` with their positions, each list sorted by position as it is
/// printed.
std::vector<ModelDiagnostic> located(std::initializer_list<const grammar::Diagnostics*> lists) {
  std::vector<ModelDiagnostic> out;
  for (const grammar::Diagnostics* d : lists) {
    std::vector<grammar::Diagnostic> sorted = d->all();
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.offset < b.offset; });
    for (const grammar::Diagnostic& x : sorted) {
      const auto [line, column] = d->locate(x.offset);
      out.push_back(
          {{d->source().path, line, column}, x.message, x.severity == grammar::Severity::Error});
    }
  }
  return out;
}

/// Throws the ModelError of `diagnostics` (and of a `.def`'s) when either has an error;
/// otherwise returns their warnings, rendered.
std::string checked(const std::string& path, const grammar::Diagnostics& diagnostics,
                    const grammar::Diagnostics* definitions = nullptr) {
  const bool failed = diagnostics.hasErrors() || (definitions && definitions->hasErrors());
  std::string rendered = diagnostics.str() + (definitions ? definitions->str() : "");
  if (!failed) return rendered;
  throw ModelError(path,
                   definitions ? located({&diagnostics, definitions}) : located({&diagnostics}),
                   std::move(rendered));
}

}  // namespace

bool isModelFile(const std::string& path) { return path.ends_with(".hdl") || io::isNetFile(path); }

std::vector<std::string> modelFiles(const std::string& path) {
  if (path.ends_with(".net")) return {path, definitionsPath(path)};
  return {path};
}

std::shared_ptr<const ModelSource> readModel(const std::string& path,
                                             std::optional<std::string> text,
                                             const std::string& page) {
  if (!isModelFile(path))
    throw ModelError(path, "'" + path +
                               "': unknown kind of file; expected .hdl (system description), "
                               ".gspn (raw GSPN), .pnml (PNML), .net (GreatSPN, with its .def "
                               "beside it) or .PNPRO (GreatSPN editor project)");
  if (!page.empty() && !io::isPnproFile(path))
    throw ModelError(path, "'" + path + "' has no pages to choose from (the page '" + page +
                               "' was named): only a PNPRO project holds several");
  auto out = std::make_shared<ModelSource>();
  out->path = path;
  out->page = page;
  out->definitions = {definitionsPath(path), ""};
  try {
    out->source =
        text ? grammar::SourceFile{path, std::move(*text)} : grammar::readSourceFile(path);
    if (path.ends_with(".net") && std::ifstream(out->definitions.path))
      out->definitions = grammar::readSourceFile(out->definitions.path);
  } catch (const std::runtime_error& e) {
    throw ModelError(path, e.what());
  }
  if (path.ends_with(".hdl")) {
    grammar::Diagnostics diagnostics(out->source);
    out->parsed = grammar::parseSystem(out->source, diagnostics);
    if (!out->parsed) checked(path, diagnostics);
  }
  return out;
}

Model buildModel(std::shared_ptr<const ModelSource> source, const Parameters& parameters,
                 const compiler::Placements& placements, std::ostream* trace) {
  Model model;
  model.parameters = parameters;
  grammar::Diagnostics diagnostics(source->source), definitions(source->definitions);
  if (source->parsed) {
    model.compiled = compiler::compile(*source->parsed, diagnostics, trace, parameters, placements);
    model.warnings = checked(source->path, diagnostics);
  } else {
    model.raw = io::loadNet(source->source, diagnostics, source->definitions, definitions,
                            parameters, {}, source->page);
    model.warnings = checked(source->path, diagnostics, &definitions);
  }
  if (!model.compiled && !model.raw)  // every failing pass reports an error; kept safe
    throw ModelError(source->path, "'" + source->path + "' could not be built");
  model.source = std::move(source);
  return model;
}

gspn::Expression readCondition(const gspn::Net& net, const std::string& text,
                               const std::string& name) {
  const grammar::SourceFile source{name, text};
  grammar::Diagnostics diagnostics(source);
  const Parameters none;
  io::NetReader reader(net.name(), none, diagnostics);
  reader.endParameters();
  for (const gspn::Place& p : net.places()) reader.place(p.name, {&diagnostics, 0}, p.initial);
  const io::Label label(text, 0, diagnostics, io::Dialect::Mmt);
  std::optional<gspn::Expression> out;
  if (label.ok()) out = reader.marking(label.located());
  checked(name, diagnostics);
  if (!out) throw ModelError(name, "'" + text + "' is no marking condition");
  return *out;
}

Model loadModel(const std::string& path, const Parameters& parameters, std::ostream* trace,
                const std::string& page) {
  return buildModel(readModel(path, std::nullopt, page), parameters, {}, trace);
}

Model Model::at(const Parameters& values, const compiler::Placements& placements) const {
  return buildModel(source, values, placements);
}

void Model::expandPhases(std::uint32_t maxPhases) {
  gspn::PhasedNet phased = gspn::expandPhases(net(), maxPhases);
  if (compiled)
    compiled->net = std::move(phased.net);
  else
    raw = std::move(phased.net);
  phases = std::move(phased.expansions);
}

std::vector<compiler::elab::ReplicaCount> replicaCounts(const ModelSource& source,
                                                        const Parameters& parameters) {
  if (!source.parsed)
    throw ModelError(source.path,
                     "'" + source.path + "' is a raw net, not a system description (.hdl)");
  grammar::Diagnostics diagnostics(source.source);
  auto counts = compiler::replicaCounts(*source.parsed, diagnostics, parameters);
  checked(source.path, diagnostics);
  if (!counts) throw ModelError(source.path, "'" + source.path + "' could not be counted");
  return std::move(*counts);
}

compiler::System probeSystem(const ModelSource& source, const Parameters& parameters) {
  if (!source.parsed)
    throw ModelError(source.path,
                     "'" + source.path + "' is a raw net, not a system description (.hdl)");
  grammar::Diagnostics diagnostics(source.source);
  std::optional<compiler::System> system =
      compiler::probeSystem(*source.parsed, diagnostics, parameters);
  checked(source.path, diagnostics);
  if (!system) throw ModelError(source.path, "'" + source.path + "' could not be checked");
  return std::move(*system);
}

}  // namespace mmt::api
