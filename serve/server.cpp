#include "serve/server.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "api/model.hpp"
#include "serve/access.hpp"
#include "serve/answers.hpp"
#include "serve/assets.hpp"
#include "serve/runs.hpp"

// After Eigen (through api/): <resolv.h>, which httplib.h includes, defines `_res`, a
// parameter name in Eigen's headers.
#include <httplib.h>

namespace mmt::serve {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

void answer(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void refuse(httplib::Response& res, int status, const std::string& message) {
  answer(res, status, {{"error", message}});
}

/// The value of `name` in a Cookie header ("a=1; mmt_token=...").
std::string cookie(const httplib::Request& req, const std::string& name) {
  std::istringstream in(req.get_header_value("Cookie"));
  for (std::string part; std::getline(in, part, ';');) {
    const std::size_t start = part.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    part = part.substr(start);
    if (part.starts_with(name + "=")) return part.substr(name.size() + 1);
  }
  return {};
}

/// A file's version as the page holds it: its modification time and size, which change
/// whenever another program writes it.
std::string versionOf(const fs::path& file) {
  std::error_code error;
  const auto time = fs::last_write_time(file, error);
  if (error) return "";
  return std::to_string(time.time_since_epoch().count()) + ":" +
         std::to_string(fs::file_size(file, error));
}

/// Writes `text` to `file` whole or not at all: a temporary beside it, flushed to disk,
/// renamed over it. Throws std::runtime_error when any step fails.
void writeAtomically(const fs::path& file, const std::string& text) {
  std::string temporary = (file.parent_path() / ".mmt-save-XXXXXX").string();
  const int fd = mkstemp(temporary.data());
  if (fd < 0) throw std::runtime_error("cannot create a file beside '" + file.string() + "'");
  bool ok = true;
  for (std::size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (ok && fs::exists(file)) fs::permissions(temporary, fs::status(file).permissions());
  ok = ok && std::rename(temporary.c_str(), file.c_str()) == 0;
  if (!ok) {
    std::remove(temporary.c_str());
    throw std::runtime_error("could not write '" + file.filename().string() + "'");
  }
}

}  // namespace

struct Server::State {
  ServeSettings settings;
  Folder folder;
  std::string token;
  httplib::Server http;
  RunRegistry runs;
  int port = 0;
  std::unique_ptr<Audience> audience;

  explicit State(ServeSettings s)
      : settings(std::move(s)),
        folder(settings.folder),
        token(settings.token.empty() ? newToken() : settings.token),
        runs(settings.maxRuns) {}

  /// The file a request's `path` names, or nothing after answering the refusal.
  std::optional<fs::path> file(const std::string& path, bool mustExist, httplib::Response& res) {
    std::optional<PathRefusal> refusal;
    fs::path out = folder.resolve(path, mustExist, refusal);
    if (refusal) {
      refuse(res, refusal->status, refusal->message);
      return std::nullopt;
    }
    return out;
  }

  /// The same for a model's file (api::isModelFile, or a GreatSPN `.def`): the only files
  /// the page reads or writes.
  std::optional<fs::path> modelFile(const std::string& path, bool mustExist,
                                    httplib::Response& res) {
    if (!api::isModelFile(path) && !path.ends_with(".def")) {
      refuse(res, 403,
             "'" + path + "' is not a model file (.hdl, .gspn, .pnml, .net, .def, .PNPRO)");
      return std::nullopt;
    }
    return file(path, mustExist, res);
  }

  httplib::Server::HandlerResponse guard(const httplib::Request& req, httplib::Response& res) {
    using R = httplib::Server::HandlerResponse;
    if (!audience->allowsHost(req.get_header_value("Host"))) {
      refuse(res, 403,
             "this server does not answer to the host '" + req.get_header_value("Host") + "'");
      return R::Handled;
    }
    if (req.has_header("Origin") && !audience->allowsOrigin(req.get_header_value("Origin"))) {
      refuse(res, 403, "requests from another site are refused");
      return R::Handled;
    }
    std::string given = req.get_header_value("X-MMT-Token");
    if (given.empty()) given = req.get_param_value("token");
    if (given.empty()) given = cookie(req, "mmt_token");
    if (!sameToken(given, token)) {
      refuse(res, 401, "a token is needed: open the address `mmt serve` printed");
      return R::Handled;
    }
    return R::Unhandled;
  }

  /// Every route, each answering as docs/serve.md says.
  void routes();
  /// The checks of every request (guard), the headers of every answer, and the answer to
  /// a request that throws.
  void guards();
  /// The files: the listing, reading, saving.
  void fileRoutes();
  void startRun(const httplib::Request& req, httplib::Response& res);
};

void Server::State::routes() {
  guards();
  for (const Asset& asset : assets())
    http.Get(std::string(asset.path), [this, &asset](const httplib::Request& req,
                                                     httplib::Response& res) {
      res.set_content(std::string(asset.body), std::string(asset.contentType));
      if (req.has_param("token"))
        res.set_header("Set-Cookie", "mmt_token=" + token + "; HttpOnly; SameSite=Strict; Path=/");
    });
  fileRoutes();
  http.Post("/api/check", [this](const httplib::Request& req, httplib::Response& res) {
    const json body = json::parse(req.body);
    const auto f = modelFile(body.at("path").get<std::string>(), true, res);
    if (f) answer(res, 200, check(modelRequest(body, *f)));
  });
  http.Post("/api/net", [this](const httplib::Request& req, httplib::Response& res) {
    const json body = json::parse(req.body);
    const auto f = modelFile(body.at("path").get<std::string>(), true, res);
    if (!f) return;
    try {
      res.set_content(netPicture(modelRequest(body, *f)), "image/svg+xml");
    } catch (const std::exception& failure) {
      answer(res, 422, {{"failure", failureJson(failure)}});
    }
  });
  http.Post("/api/run",
            [this](const httplib::Request& req, httplib::Response& res) { startRun(req, res); });
  http.Get("/api/runs", [this](const httplib::Request&, httplib::Response& res) {
    answer(res, 200, {{"going", runs.going()}, {"limit", runs.limit()}});
  });
  http.Post("/api/stop", [this](const httplib::Request& req, httplib::Response& res) {
    const json body = json::parse(req.body);
    answer(res, 200, {{"stopped", runs.stop(body.at("channel").get<std::string>())}});
  });
}

void Server::State::guards() {
  http.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return guard(req, res); });
  http.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("X-Frame-Options", "DENY");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
  });
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr failure) {
        try {
          std::rethrow_exception(failure);
        } catch (const json::exception& e) {
          refuse(res, 400, std::string("malformed request: ") + e.what());
        } catch (const std::exception& e) {
          refuse(res, 500, e.what());
        } catch (...) {
          refuse(res, 500, "internal error");
        }
      });
}

void Server::State::fileRoutes() {
  http.Get("/api/files", [this](const httplib::Request&, httplib::Response& res) {
    answer(res, 200,
           {{"folder", folder.root().filename().string()}, {"files", folder.modelFiles()}});
  });
  http.Get("/api/file", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string path = req.get_param_value("path");
    const auto f = modelFile(path, true, res);
    if (!f) return;
    std::ifstream in(*f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    answer(res, 200, {{"path", path}, {"text", text.str()}, {"version", versionOf(*f)}});
  });
  http.Put("/api/file", [this](const httplib::Request& req, httplib::Response& res) {
    const json body = json::parse(req.body);
    const std::string path = body.at("path").get<std::string>();
    const auto f = modelFile(path, false, res);
    if (!f) return;
    const std::string expected = body.value("version", "");
    if (versionOf(*f) != expected) {
      refuse(res, 409,
             expected.empty() ? "'" + path + "' already exists"
                              : "'" + path +
                                    "' changed on disk since it was opened: reload it "
                                    "(or copy your text) before saving");
      return;
    }
    writeAtomically(*f, body.at("text").get<std::string>());
    answer(res, 200, {{"path", path}, {"version", versionOf(*f)}});
  });
}

void Server::State::startRun(const httplib::Request& req, httplib::Response& res) {
  const json body = json::parse(req.body);
  const std::string kind = body.at("kind").get<std::string>();
  const Work work = workOf(kind);
  if (!work) {
    refuse(
        res, 400,
        "unknown kind of run '" + kind + "': solve, sweep, simulate, compare, contract or explore");
    return;
  }
  const auto f = modelFile(body.at("path").get<std::string>(), true, res);
  if (!f) return;
  ModelRequest request = modelRequest(body, *f);
  const json options = body.value("options", json::object());
  std::shared_ptr<Run> run = runs.start(body.at("channel").get<std::string>());
  if (!run) {
    refuse(
        res, 503,
        std::to_string(runs.limit()) + " runs are going already: stop one, or wait for one to end");
    return;
  }
  runs.launch(run, [work, request = std::move(request), options](Run& r) {
    try {
      json result = work(request, options, r);
      r.post({{"result", std::move(result)}}, true);
    } catch (const std::exception& failure) {
      r.post({{"failure", failureJson(failure)}}, true);
    } catch (...) {
      r.post({{"failure", {{"kind", "Error"}, {"headline", "internal error"}}}}, true);
    }
  });
  res.set_chunked_content_provider(
      "application/x-ndjson",
      [run](std::size_t, httplib::DataSink& sink) {
        // An empty line every quarter second finds a page that went away.
        bool ended = false;
        const auto event = run->next(std::chrono::milliseconds(250), ended);
        const std::string line = (event ? event->dump() : "") + "\n";
        if (!sink.write(line.data(), line.size())) {
          run->interrupt();
          return false;
        }
        if (ended) sink.done();
        return true;
      },
      [run](bool success) {
        if (!success) run->interrupt();
      });
}

Server::Server(ServeSettings settings) : state_(std::make_unique<State>(std::move(settings))) {
  State& s = *state_;
  // Each streamed run holds a thread while it goes, beside the page's other requests.
  const std::size_t threads = 8 + 2 * s.settings.maxRuns;
  s.http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.http.set_payload_max_length(s.settings.maxBodyBytes);
  // httplib's default also sets SO_REUSEPORT, with which a second server would share the
  // port instead of being refused.
  s.http.set_socket_options([](socket_t socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s.port = s.settings.port == 0
               ? s.http.bind_to_any_port(s.settings.host)
               : (s.http.bind_to_port(s.settings.host, s.settings.port) ? s.settings.port : -1);
  if (s.port <= 0)
    throw std::runtime_error("cannot listen on " + s.settings.host + ":" +
                             std::to_string(s.settings.port) +
                             " (is the port taken? try --port 0 for a free one)");
  s.audience = std::make_unique<Audience>(s.settings.host, s.port);
  s.routes();
}

Server::~Server() = default;

int Server::port() const { return state_->port; }

std::string Server::address() const {
  const std::string& host = state_->settings.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(state_->port) +
         "/?token=" + state_->token;
}

void Server::run() {
  if (state_->settings.listening) state_->settings.listening(address());
  state_->http.listen_after_bind();
  state_->runs.stopAll();
}

void Server::stop() {
  // The streams of the runs going hold the server's threads until their runs end.
  state_->runs.interruptAll();
  state_->http.stop();
}

}  // namespace mmt::serve
