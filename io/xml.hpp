#pragma once
/// \file
/// What the XML readers (PNML, PNPRO) share: reading the document with pugixml and
/// positions of its elements for diagnostics.

#include <cstddef>
#include <pugixml.hpp>

#include "grammar/diagnostics.hpp"

namespace mmt::io {

using grammar::Diagnostics;
using grammar::SourceFile;

/// Offset of the '<' that starts `node` in its file (0 when pugixml does not know it).
std::size_t xmlOffset(const pugi::xml_node& node);

/// Parses `source` into `doc`. Returns its root element when it is named `root`; reports
/// malformed XML at its position, or a root of another name ("not KIND: the root element is
/// <x>, not <root>"), and returns a null node otherwise.
pugi::xml_node readXmlRoot(pugi::xml_document& doc, const SourceFile& source,
                           Diagnostics& diagnostics, const char* root, const char* kind);

}  // namespace mmt::io
