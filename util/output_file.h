// The output-file policy of gcu: every file gcu writes (simulate reports, CSV, JSON,
// plots, traces; calibrate profiles and state; train logs, checkpoints, parameter dumps;
// the unpacked Fashion-MNIST cache) goes through this header (docs/robustness.md):
//
//  1. the target is checked: "-" means stdout (write_file_atomic only); a target that
//     exists must be a regular file, never a symbolic link, a directory, a device or a
//     FIFO (as root, renaming over /dev/null would replace the device node);
//  2. its directory must exist: it is never created unless OutputOptions::create_parents;
//  3. the content goes to a new temporary file beside the target ("<target>.tmp.<pid>.<random>",
//     created with O_EXCL, so never an existing file), which is fsync'ed, renamed over
//     the target, and the directory fsync'ed: a reader sees the old file or the new one,
//     never half of one, even after a crash;
//  4. the temporary file is removed on every error path and on SIGINT/SIGTERM
//     (temp_registry.h).
// Errors are FileError, "cannot write <target>: <reason>", the target quoted in at most
// ~200 bytes.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace gcu::util {

// A file that cannot be read or written (a user or environment error: exit code 2).
struct FileError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct OutputOptions {
  bool create_parents = false;  // create missing parent directories (an explicit option asked)
  std::string mkdir_hint;       // appended to the "directory does not exist" error, e.g. "or pass --mkdir"
};

// Checks rules 1 and 2 without writing (create_parents: creates the directories). Throws
// FileError. "-" passes.
void check_output_target(const std::string& target, const OutputOptions& opt = {});

// A temporary file being written, renamed over `target` by commit(); destroyed or
// discarded before commit(), it is removed and the target is untouched.
class AtomicFile {
 public:
  explicit AtomicFile(std::string target, const OutputOptions& opt = {});  // rules 1-2; creates the temp file
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);  // throws FileError (disk full, ...)
  void commit();                       // fsync, rename, fsync the directory; throws FileError
  void discard();                      // removes the temporary file
  const std::string& target() const { return target_; }
  // For writers that need a name (gnuplot, a library's save(path)): they may truncate and
  // rewrite this path; commit() still fsyncs and renames it.
  const std::string& temp_path() const { return temp_; }
  bool committed() const { return done_; }

 private:
  [[noreturn]] void fail(const std::string& reason);
  std::string target_, temp_;
  int fd_ = -1;
  int slot_ = -1;
  bool done_ = false;
};

// Whole-file write under the policy; "-" writes `content` to stdout.
void write_file_atomic(const std::string& target, std::string_view content, const OutputOptions& opt = {});

// Reads a whole regular file; throws FileError "cannot read <path>: <reason>".
std::string read_file(const std::string& path);

}  // namespace gcu::util
