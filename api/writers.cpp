#include "api/writers.hpp"

#include <sstream>
#include <stdexcept>

#include "compiler/picture.hpp"
#include "gspn/writers.hpp"
#include "io/formats.hpp"

namespace mmt::api {

std::string writeNet(const Model& model, NetFormat format) {
  std::ostringstream text;
  switch (format) {
    case NetFormat::Text:
      io::writeText(model.net(), text);
      break;
    case NetFormat::Pnml:
      io::writePnml(model.net(), text);
      break;
    case NetFormat::Pnpro:
      io::writePnpro(model.net(), text);
      break;
  }
  return text.str();
}

GreatSpnFiles writeGreatSpn(const Model& model) {
  std::ostringstream net, def;
  io::writeGreatSpn(model.net(), net, def);
  return {net.str(), def.str()};
}

void writeNetDot(const Model& model, const std::string& path) { gspn::writeDot(model.net(), path); }

std::string drawNet(const Model& model, const std::string& format) {
  return gspn::renderNet(model.net(), format);
}

void writePrism(const Model& model, const gspn::TangibleReachabilityGraph& graph,
                const std::string& tra, const std::string& sta, const std::string& lab) {
  gspn::writePrism(model.net(), graph, tra, sta, lab);
}

namespace {

const compiler::CompiledSystem& systemOf(const Model& model) {
  if (!model.compiled)
    throw std::invalid_argument("a picture of the system needs a system description (.hdl)");
  return *model.compiled;
}

}  // namespace

void drawSystem(const Model& model, const compiler::SystemMetrics& metrics, const std::string& path,
                const std::string& format) {
  compiler::drawSystem(systemOf(model), metrics, path, format);
}

std::string renderSystem(const Model& model, const compiler::SystemMetrics& metrics,
                         const std::string& format) {
  return compiler::renderSystem(systemOf(model), metrics, format);
}

}  // namespace mmt::api
