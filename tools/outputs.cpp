#include "outputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <system_error>

namespace mmt::tools {

namespace fs = std::filesystem;

OutputFiles::OutputFiles(std::vector<std::string> inputs) : inputs_(std::move(inputs)) {}

OutputFiles::~OutputFiles() {
  if (committed_) return;
  std::error_code ignored;
  for (const auto& [temporary, destination] : staged_) fs::remove(temporary, ignored);
}

std::string OutputFiles::stage(const std::string& destination) {
  std::error_code error;
  for (const std::string& input : inputs_)
    if (fs::equivalent(destination, input, error))
      throw std::runtime_error("'" + destination +
                               "' is an input of this command; mmt does "
                               "not write over its inputs: choose another output name");
  for (const auto& staged : staged_)
    if (staged.second == destination)
      throw std::runtime_error("'" + destination + "' is named as two outputs");
  std::string pattern = destination + ".mmt-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0)
    throw std::runtime_error("cannot write '" + destination +
                             "': " + std::error_code(errno, std::generic_category()).message());
  close(fd);
  staged_.emplace_back(pattern, destination);
  return pattern;
}

void OutputFiles::write(const std::string& destination, const std::string& text) {
  if (destination == "-") {
    standardOutput_ += text;
    return;
  }
  const std::string temporary = stage(destination);
  std::ofstream out(temporary, std::ios::binary);
  if (!(out << text) || !out.flush())
    throw std::runtime_error("cannot write '" + destination + "'");
}

void OutputFiles::commit() {
  for (const auto& [temporary, destination] : staged_) {
    // mkstemp made the file private (0600); give it the permissions a new file gets.
    const mode_t mask = umask(0);
    umask(mask);
    std::error_code ignored;
    fs::permissions(temporary, static_cast<fs::perms>(0666 & ~mask), ignored);
    if (std::rename(temporary.c_str(), destination.c_str()) != 0)
      throw std::runtime_error("cannot write '" + destination +
                               "': " + std::error_code(errno, std::generic_category()).message());
  }
  committed_ = true;
  std::cout << standardOutput_ << std::flush;
}

}  // namespace mmt::tools
