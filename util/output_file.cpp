// The output-file policy (output_file.h).
#include "util/output_file.h"

#include "util/temp_registry.h"
#include "util/text.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gcu::util {
namespace {
namespace fs = std::filesystem;

std::string cannot_write(const std::string& target, const std::string& reason) {
  return "cannot write " + util::quote(target) + ": " + reason;
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// Rule 1: absent, or a regular file that is not a symlink. Returns its mode (0 if absent).
mode_t check_existing(const std::string& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return 0;
    throw FileError(cannot_write(target, std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode))
    throw FileError(cannot_write(target, "it is a symbolic link (gcu replaces only regular files; "
                                         "write to the link's target instead)"));
  if (!S_ISREG(st.st_mode))
    throw FileError(cannot_write(target, std::string("it exists and is ") + kind_of(st.st_mode) +
                                             ", not a regular file (gcu never replaces one)"));
  return st.st_mode & 07777;
}

std::string directory_of(const std::string& target) {
  const fs::path parent = fs::path(target).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Rule 2.
void check_directory(const std::string& target, const OutputOptions& opt) {
  const std::string dir = directory_of(target);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw FileError(cannot_write(target, util::quote(dir) + " is not a directory"));
    return;
  }
  if (errno != ENOENT) throw FileError(cannot_write(target, util::quote(dir) + ": " + std::strerror(errno)));
  if (!opt.create_parents)
    throw FileError(cannot_write(target, "the directory " + util::quote(dir) + " does not exist (create it first" +
                                             (opt.mkdir_hint.empty() ? "" : ", " + opt.mkdir_hint) + ")"));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw FileError(cannot_write(target, "cannot create the directory " + util::quote(dir) + ": " + ec.message()));
}

std::string random_suffix() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  char buf[24];
  std::snprintf(buf, sizeof buf, "%012llx", static_cast<unsigned long long>(gen() & 0xFFFFFFFFFFFFull));
  return buf;
}

void fsync_directory(const std::string& dir) {
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0) return;
  ::fsync(d);  // best effort: some file systems refuse fsync on directories
  ::close(d);
}

}  // namespace

void check_output_target(const std::string& target, const OutputOptions& opt) {
  if (target.empty()) throw FileError("cannot write a file with an empty name");
  if (target == "-") return;
  check_existing(target);
  check_directory(target, opt);
}

AtomicFile::AtomicFile(std::string target, const OutputOptions& opt) : target_(std::move(target)) {
  if (target_.empty()) throw FileError("cannot write a file with an empty name");
  if (target_ == "-") throw FileError("cannot write \"-\" (standard output) as a file here");
  check_directory(target_, opt);
  const mode_t mode = check_existing(target_);
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    temp_ = target_ + ".tmp." + std::to_string(::getpid()) + "." + random_suffix();
    try {
      slot_ = register_temp(temp_);
    } catch (const std::runtime_error& e) {
      throw FileError(cannot_write(target_, e.what()));
    }
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    const int err = errno;
    unregister_temp(slot_);
    slot_ = -1;
    if (err != EEXIST) throw FileError(cannot_write(target_, std::strerror(err)));
  }
  if (fd_ < 0) throw FileError(cannot_write(target_, "no free temporary file name"));
  if (mode != 0) ::fchmod(fd_, mode);  // keep the permissions of the file replaced
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (slot_ >= 0) {
    ::unlink(temp_.c_str());
    unregister_temp(slot_);
    slot_ = -1;
  }
}

void AtomicFile::fail(const std::string& reason) {
  discard();
  throw FileError(cannot_write(target_, reason));
}

void AtomicFile::write(std::string_view bytes) {
  if (fd_ < 0) throw FileError(cannot_write(target_, "the file is already closed"));
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? std::strerror(errno) : "no progress writing");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void AtomicFile::commit() {
  if (done_) return;
  if (fd_ < 0) throw FileError(cannot_write(target_, "the file is already closed"));
  if (::fsync(fd_) != 0) fail(std::string("fsync: ") + std::strerror(errno));
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) fail(std::strerror(errno));
  try {
    check_existing(target_);  // it may have been replaced by a symlink or a FIFO meanwhile
  } catch (const FileError&) {
    discard();
    throw;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail(std::string("rename: ") + std::strerror(errno));
  unregister_temp(slot_);
  slot_ = -1;
  done_ = true;
  fsync_directory(directory_of(target_));
}

void write_file_atomic(const std::string& target, std::string_view content, const OutputOptions& opt) {
  if (target == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() || std::fflush(stdout) != 0)
      throw FileError(std::string("cannot write to standard output: ") + std::strerror(errno));
    return;
  }
  AtomicFile f(target, opt);
  f.write(content);
  f.commit();
}

std::string read_file(const std::string& path) {
  const auto cannot = [&](const std::string& why) { return FileError("cannot read " + util::quote(path) + ": " + why); };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw cannot(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw cannot("it is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw cannot(std::strerror(errno));
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) throw cannot("read error");
  return out;
}

}  // namespace gcu::util
