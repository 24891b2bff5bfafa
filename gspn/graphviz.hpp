#pragma once
/// \file
/// Graphviz for the whole process: one context, which every layout uses (the net's,
/// gspn::renderNet; the system's, compiler/picture.hpp), used by one thread at a time.

#include <graphviz/gvc.h>

#include <mutex>

namespace mmt::gspn {

/// The right to use Graphviz while it lives. Graphviz keeps global state (cgraph's
/// dictionaries, the plugins' caches) and is not reentrant, so a session holds a
/// process-wide lock: declare it before any graph it builds, so that the graph is closed
/// under it too. Its context is made on first use and never freed: Graphviz's text-layout
/// plugin keeps a font name from the first context it serves and reads it again from a
/// later one after gvFreeContext has freed it (AddressSanitizer: heap-use-after-free in
/// libgvplugin_pango).
class GraphvizSession {
 public:
  GraphvizSession();
  GVC_t* context() const { return context_; }

 private:
  std::unique_lock<std::mutex> lock_;
  GVC_t* context_;
};

}  // namespace mmt::gspn
