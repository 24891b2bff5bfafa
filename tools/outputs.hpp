#pragma once
// The files one command writes, all or nothing: each is written to a temporary beside its
// destination, and the temporaries are renamed onto their destinations only by commit(),
// once the whole command has succeeded; otherwise the destructor removes them, so a
// failing command leaves no file behind, new or half-written. A destination that is one
// of the command's input files is refused, as is one named twice.
#include <string>
#include <utility>
#include <vector>

namespace mmt::tools {

class OutputFiles {
 public:
  /// `inputs`: the files the command reads (compared by identity, so a link or another
  /// spelling of an input is refused as well).
  explicit OutputFiles(std::vector<std::string> inputs);
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles();

  /// A temporary path, beside `destination`, for a writer that needs a path; the file
  /// there becomes `destination` on commit(). Throws std::runtime_error when
  /// `destination` is an input or already staged, or no temporary can be created.
  std::string stage(const std::string& destination);
  /// Stages `destination` and writes `text` there; "-" means standard output, written on
  /// commit(). Throws std::runtime_error as stage() does, or when the write fails.
  void write(const std::string& destination, const std::string& text);
  /// Renames every temporary onto its destination, then prints what goes to standard
  /// output. Throws std::runtime_error when a rename fails.
  void commit();

 private:
  std::vector<std::string> inputs_;
  std::vector<std::pair<std::string, std::string>> staged_;  // (temporary, destination)
  std::string standardOutput_;
  bool committed_ = false;
};

}  // namespace mmt::tools
