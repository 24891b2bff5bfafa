#pragma once
/// \file
/// Foreign net formats (PNML, GreatSPN) are read by translating them into the `.gspn` text
/// format and loading that text, so one loader checks every net whatever its format.
/// A `GspnTranslation` is that text plus, for each piece, where in which foreign file it
/// came from: a diagnostic against the generated text is reported at the foreign position
/// (on the very character when the piece was copied verbatim, such as a rate expression).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/diagnostics.hpp"
#include "grammar/load_gspn.hpp"
#include "gspn/net.hpp"

namespace mmt::grammar {

class GspnTranslation {
 public:
  /// Appends generated text; a diagnostic inside it points at `origin` in `target`'s file.
  void emit(std::string_view text, Diagnostics& target, std::size_t origin);
  /// Appends text copied from `target`'s file, where it starts at `origin`; a diagnostic
  /// inside it points at the same character there.
  void copy(std::string_view text, Diagnostics& target, std::size_t origin);
  /// Appends a place or transition name, quoted when it is not a plain name. Returns false
  /// (after reporting at `origin`) when the name cannot be written: empty, or containing a
  /// double quote or a line break.
  bool name(const std::string& name, Diagnostics& target, std::size_t origin);

  const std::string& text() const { return text_; }

  /// Loads the translated text (with `-D` overrides) and reports its diagnostics at their
  /// foreign positions; those with no position (an unknown `-D` name) go to `fallback`.
  /// Returns nothing if there was any error.
  std::optional<gspn::Net> load(const ParameterOverrides& overrides,
                                Diagnostics& fallback) const;

 private:
  struct Span {
    std::size_t begin;  ///< offset in text_
    Diagnostics* target;
    std::size_t origin;
    bool verbatim;
  };
  std::string text_;
  std::vector<Span> spans_;
};

/// Replaces `#(name)` token counts (PIPE's functional-rate notation) and GreatSPN-style
/// `E{...}` / `P{...}` measures by mmt's `#name`, `mean(...)` and `prob(...)`, copying
/// everything else verbatim so diagnostics keep their columns.
void copyExpression(GspnTranslation& out, std::string_view text, Diagnostics& target,
                    std::size_t origin);

}  // namespace mmt::grammar
