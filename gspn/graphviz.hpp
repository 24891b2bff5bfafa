#pragma once
/// \file
/// The one Graphviz context of the process, which every layout uses (the net's,
/// gspn::renderNet; the system's, compiler/picture.hpp).

#include <graphviz/gvc.h>

namespace mmt::gspn {

/// Made on first use and kept. Graphviz's text-layout plugin keeps a font name from the
/// first context it serves and reads it again from a later one after gvFreeContext has
/// freed it (AddressSanitizer: heap-use-after-free in libgvplugin_pango), so no context
/// is ever freed. Graphviz is not reentrant: callers on several threads serialize.
GVC_t* graphvizContext();

}  // namespace mmt::gspn
