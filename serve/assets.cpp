#include "serve/assets.hpp"

// Each file of the page (MMT_WEB_DIR, the bundle web/CMakeLists.txt builds) becomes
// read-only data between two symbols.
#define MMT_EMBED(symbol, file)                                         \
  __asm__(".section .rodata\n.balign 16\n.global " #symbol "\n" #symbol \
          ":\n"                                                         \
          ".incbin \"" MMT_WEB_DIR "/" file                             \
          "\"\n"                                                        \
          ".global " #symbol "_end\n" #symbol "_end:\n.byte 0\n.previous\n")

MMT_EMBED(mmt_web_index_html, "index.html");
MMT_EMBED(mmt_web_app_js, "app.js");
MMT_EMBED(mmt_web_app_css, "app.css");

extern "C" {
extern const char mmt_web_index_html[], mmt_web_index_html_end[];
extern const char mmt_web_app_js[], mmt_web_app_js_end[];
extern const char mmt_web_app_css[], mmt_web_app_css_end[];
}

namespace mmt::serve {

const std::vector<Asset>& assets() {
  static const std::vector<Asset> out{
      {"/", "text/html; charset=utf-8", {mmt_web_index_html, mmt_web_index_html_end}},
      {"/app.js", "text/javascript; charset=utf-8", {mmt_web_app_js, mmt_web_app_js_end}},
      {"/app.css", "text/css; charset=utf-8", {mmt_web_app_css, mmt_web_app_css_end}},
  };
  return out;
}

}  // namespace mmt::serve
