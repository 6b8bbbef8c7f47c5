// simulate/atomic_file: whole-file replacement, directory creation, clear errors.
#include "simulate/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gcu::simulate {
namespace {
namespace fs = std::filesystem;

fs::path scratch(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("gcu_atomic_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  return d;
}

TEST(AtomicFile, WritesCreatesDirectoriesAndReplaces) {
  const fs::path d = scratch("a");
  const std::string f = (d / "sub" / "x.txt").string();
  write_file_atomic(f, "first");
  EXPECT_EQ(read_file(f), "first");
  write_file_atomic(f, "second, longer");
  EXPECT_EQ(read_file(f), "second, longer");
  // no temporary left behind
  int n = 0;
  for (const auto& e : fs::directory_iterator(d / "sub")) n += e.is_regular_file();
  EXPECT_EQ(n, 1);
  fs::remove_all(d);
}

TEST(AtomicFile, ErrorsNameThePath) {
  const fs::path d = scratch("b");
  fs::create_directories(d);
  write_file_atomic((d / "file").string(), "y");
  try {
    write_file_atomic((d / "file" / "x.txt").string(), "z");  // parent is a regular file
    FAIL() << "no error";
  } catch (const SimulateError& e) {
    EXPECT_NE(std::string(e.what()).find((d / "file" / "x.txt").string()), std::string::npos) << e.what();
  }
  try {
    read_file((d / "nope.json").string());
    FAIL() << "no error";
  } catch (const SimulateError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_file(d.string()), SimulateError);  // a directory
  fs::remove_all(d);
}

}  // namespace
}  // namespace gcu::simulate
