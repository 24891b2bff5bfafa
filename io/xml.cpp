#include "io/xml.hpp"

#include <algorithm>
#include <string>

namespace mmt::io {

std::size_t xmlOffset(const pugi::xml_node& node) {
  const std::ptrdiff_t o = node.offset_debug();
  return o > 0 ? static_cast<std::size_t>(o - 1) : 0;
}

pugi::xml_node readXmlRoot(pugi::xml_document& doc, const SourceFile& source,
                           Diagnostics& diagnostics, const char* root, const char* kind) {
  const pugi::xml_parse_result parsed = doc.load_buffer(source.text.data(), source.text.size(),
                                                        pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    diagnostics.error(static_cast<std::size_t>(std::max<std::ptrdiff_t>(parsed.offset, 0)),
                      std::string("malformed XML: ") + parsed.description());
    return {};
  }
  const pugi::xml_node element = doc.document_element();
  if (std::string(element.name()) != root) {
    diagnostics.error(xmlOffset(element), std::string("not ") + kind + ": the root element is <" +
                                              element.name() + ">, not <" + root + ">");
    return {};
  }
  return element;
}

}  // namespace mmt::io
