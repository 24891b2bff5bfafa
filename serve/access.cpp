#include "serve/access.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "api/model.hpp"

namespace mmt::serve {

namespace fs = std::filesystem;

std::string newToken() {
  std::random_device source;  // the system's random source (/dev/urandom on Linux)
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t word = source();
    for (int d = 0; d < 8; ++d, word >>= 4) out += kDigits[word & 15];
  }
  return out;
}

bool sameToken(const std::string& given, const std::string& token) {
  unsigned char difference = given.size() == token.size() ? 0 : 1;
  for (std::size_t i = 0; i < token.size(); ++i)
    difference |= static_cast<unsigned char>(token[i] ^ (i < given.size() ? given[i] : 0));
  return difference == 0;
}

namespace {

bool isLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]";
}

}  // namespace

Audience::Audience(const std::string& host, int port) {
  const std::string suffix = ":" + std::to_string(port);
  if (isLoopback(host)) {
    for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) hosts_.push_back(name + suffix);
  } else {
    const bool v6 = host.find(':') != std::string::npos;
    hosts_.push_back((v6 ? "[" + host + "]" : host) + suffix);
  }
}

bool Audience::allowsHost(const std::string& hostHeader) const {
  return std::find(hosts_.begin(), hosts_.end(), hostHeader) != hosts_.end();
}

bool Audience::allowsOrigin(const std::string& origin) const {
  return origin.starts_with("http://") && allowsHost(origin.substr(7));
}

Folder::Folder(const fs::path& root) {
  std::error_code error;
  root_ = fs::canonical(root, error);
  if (error || !fs::is_directory(root_))
    throw std::runtime_error("'" + root.string() + "' is not a folder");
}

namespace {

/// True when `path` (canonical) is `root` or lies under it.
bool inside(const fs::path& path, const fs::path& root) {
  auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

}  // namespace

fs::path Folder::resolve(const std::string& relative, bool mustExist,
                         std::optional<PathRefusal>& refusal) const {
  refusal.reset();
  const fs::path given(relative);
  if (relative.empty() || given.is_absolute() || relative.find('\0') != std::string::npos) {
    refusal = PathRefusal{400, "a file is named by a path relative to the served folder"};
    return {};
  }
  for (const fs::path& part : given)
    if (part == "..") {
      refusal = PathRefusal{403, "'..' is not allowed in a path"};
      return {};
    }
  std::error_code error;
  const fs::path full = root_ / given;
  if (!fs::exists(fs::symlink_status(full, error))) {
    if (mustExist) {
      refusal = PathRefusal{404, "no file '" + relative + "' in the served folder"};
      return {};
    }
    const fs::path parent = fs::canonical(full.parent_path(), error);
    if (error || !inside(parent, root_)) {
      refusal = PathRefusal{403, "'" + relative + "' is outside the served folder"};
      return {};
    }
    return parent / full.filename();
  }
  const fs::path resolved = fs::canonical(full, error);
  if (error || !inside(resolved, root_)) {
    refusal = PathRefusal{403, "'" + relative + "' is outside the served folder"};
    return {};
  }
  if (!fs::is_regular_file(resolved)) {
    refusal = PathRefusal{400, "'" + relative + "' is not a file"};
    return {};
  }
  return resolved;
}

std::vector<std::string> Folder::modelFiles() const {
  std::vector<std::string> out;
  std::error_code error;
  fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.starts_with(".") || name == "node_modules")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && !it->is_symlink() && api::isModelFile(name))
      out.push_back(fs::relative(it->path(), root_).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mmt::serve
