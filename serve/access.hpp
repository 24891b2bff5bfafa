#pragma once
/// \file
/// Who may talk to `mmt serve`, and which files it may touch (docs/serve.md, "Security").
/// A request must carry the server's token and name the server itself in its Host header
/// (no DNS rebinding), and a browser's Origin, when sent, must be the page's own (no
/// cross-site requests). A file is named by a path relative to the served folder and must
/// resolve, links followed, inside it.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mmt::serve {

/// A fresh token of 128 random bits from the system's random source, as 32 hex digits.
std::string newToken();

/// Equality of `given` and `token` in a time that does not depend on where they differ.
bool sameToken(const std::string& given, const std::string& token);

/// The names a request may give in its Host header, and the origins it may come from, for a
/// server bound to `host` on `port`: on a loopback address, `127.0.0.1`, `localhost` and
/// `[::1]` with the port; on another, that address with the port as well.
class Audience {
 public:
  Audience(const std::string& host, int port);
  /// True when `hostHeader` (the Host header's value, port included) names this server.
  bool allowsHost(const std::string& hostHeader) const;
  /// True when `origin` (the Origin header's value) is this server's page.
  bool allowsOrigin(const std::string& origin) const;

 private:
  std::vector<std::string> hosts_;
};

/// Why a path was refused.
struct PathRefusal {
  int status;  ///< 400 for a malformed path, 403 for one outside the folder, 404 missing
  std::string message;
};

/// The served folder and the files under it.
class Folder {
 public:
  /// `root` must exist and be a directory; it is made canonical. Throws
  /// std::runtime_error otherwise.
  explicit Folder(const std::filesystem::path& root);
  const std::filesystem::path& root() const { return root_; }

  /// The file `relative` names, resolved with its links, when it lies inside the folder:
  /// a relative path without `..`, not absolute, nothing that resolves outside. With
  /// `mustExist` false, a file not yet there is accepted when its folder is inside.
  /// Returns the refusal otherwise.
  std::filesystem::path resolve(const std::string& relative, bool mustExist,
                                std::optional<PathRefusal>& refusal) const;

  /// The model files under the folder (by api::isModelFile), relative, sorted; hidden
  /// folders and `node_modules` are skipped, and links are not followed.
  std::vector<std::string> modelFiles() const;

 private:
  std::filesystem::path root_;
};

}  // namespace mmt::serve
