#pragma once
/// \file
/// `mmt serve`: a local web server over the library and the workbench page it serves
/// (docs/serve.md). A front end like the command line and the Python module: it parses
/// requests, calls api/, and answers with JSON.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace mmt::serve {

struct ServeSettings {
  /// The folder whose model files the page lists, reads and writes; nothing outside it.
  std::filesystem::path folder = ".";
  /// The address to listen on: loopback unless asked otherwise.
  std::string host = "127.0.0.1";
  /// The port; 0 picks a free one.
  int port = 8765;
  /// The token every request must carry; empty: a new random one (serve::newToken).
  std::string token;
  /// Largest request body accepted (a model's text), in bytes; larger ones get 413.
  std::size_t maxBodyBytes = 8u << 20;
  /// Runs (solves, sweeps) at once over all pages; another gets 503 until one ends.
  std::size_t maxRuns = 4;
  /// Called once the server listens, with the address to open (token included).
  std::function<void(const std::string& address)> listening;
};

class Server {
 public:
  /// Binds the port. Throws std::runtime_error when the folder is not one or the address
  /// cannot be bound (port taken, unknown host).
  explicit Server(ServeSettings settings);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The port bound (the one picked when ServeSettings::port was 0).
  int port() const;
  /// `http://HOST:PORT/?token=TOKEN`.
  std::string address() const;
  /// Serves until stop(); then interrupts the runs going and waits for them.
  void run();
  /// Interrupts the runs going and makes run() return; callable from any thread.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mmt::serve
