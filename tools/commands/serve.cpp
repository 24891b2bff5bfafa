// `mmt serve`: the workbench in the browser (serve/, docs/serve.md).
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <thread>

#include "serve/server.hpp"
#include "tools/commands/command.hpp"

extern char** environ;

namespace mmt::tools {
namespace {

/// Opens `address` in the desktop's browser (xdg-open), without waiting for it; says so
/// when there is none.
void openBrowser(const std::string& address) {
  const char* argv[] = {"xdg-open", address.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
    std::cerr << "mmt serve: no browser could be opened (xdg-open): open the address above\n";
}

/// Serves until SIGINT or SIGTERM: a thread waits for either and stops the server, so that
/// the runs going are interrupted and the port is freed before the process ends.
int serveUntilSignalled(serve::Server& server) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    server.stop();
  });
  server.run();
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  std::cerr << "mmt serve: stopped\n";
  return kSuccess;
}

}  // namespace

int serveCommand(std::vector<std::string> args) {
  return runCommand(
      "serve", std::move(args),
      "Serves the workbench: a page, opened in a browser, that lists the model files under "
      "FOLDER, edits them with the compiler's diagnostics as you type, and shows the results "
      "tables, the system coloured by utilization, the net, parameter sliders and sweeps. "
      "Prints the address to open, with its access token; every request must carry it. "
      "Ctrl-C stops the server (docs/serve.md).",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& args) -> int {
        TCLAP::ValueArg<int> port("p", "port",
                                  "port to listen on; 0 picks a free one (default 8765)", false,
                                  8765, "N", cmd);
        TCLAP::ValueArg<std::string> host(
            "", "host",
            "address to listen on (default 127.0.0.1, this machine only). Another address lets "
            "anyone who can reach it and has the token read and write the model files under "
            "FOLDER and run solves",
            false, "127.0.0.1", "ADDR", cmd);
        TCLAP::ValueArg<Count> maxRuns("", "max-runs",
                                       "solves and sweeps at once over all pages (default 4)",
                                       false, {4}, "N", cmd);
        TCLAP::SwitchArg open("", "open", "open the page in the desktop's browser", cmd);
        TCLAP::UnlabeledValueArg<std::string> folder(
            "FOLDER", "the folder whose models the page edits and solves (default .)", false, ".",
            "FOLDER", cmd);
        cmd.parse(args);
        if (port.getValue() < 0 || port.getValue() > 65535)
          throw TCLAP::ArgException("must be between 0 and 65535", "--port");
        if (maxRuns.getValue().value < 1 || maxRuns.getValue().value > 64)
          throw TCLAP::ArgException("must be between 1 and 64", "--max-runs");
        serve::ServeSettings settings;
        settings.folder = folder.getValue();
        settings.host = host.getValue();
        settings.port = port.getValue();
        settings.maxRuns = maxRuns.getValue().value;
        settings.listening = [&](const std::string& address) {
          if (host.getValue() != "127.0.0.1" && host.getValue() != "localhost" &&
              host.getValue() != "::1")
            std::cerr << "mmt serve: warning: listening on " << host.getValue()
                      << ": anyone who can reach it and has the token can read and write the "
                         "models under the folder and run solves\n";
          std::cout << "mmt serve: the workbench of " << settings.folder.string()
                    << " is at\n\n    " << address
                    << "\n\nOpen it in a browser; Ctrl-C stops the server.\n"
                    << std::flush;
          if (open.getValue()) openBrowser(address);
        };
        try {
          serve::Server server(settings);
          return serveUntilSignalled(server);
        } catch (const std::runtime_error& e) {
          std::cerr << "mmt serve: error: " << e.what() << '\n';
          return kInputError;
        }
      });
}

}  // namespace mmt::tools
