// util/output_file: the output-file policy. Whole-file replacement, no temporary left,
// symlinks / FIFOs / directories refused and left untouched, no directory created unless
// asked, errors name the file.
#include "util/output_file.h"

#include "util/temp_registry.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

namespace gcu::util {
namespace {
namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gcu_out_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const std::string& n) const { return (dir_ / n).string(); }
  size_t entries() const {
    size_t n = 0;
    for (auto it = fs::directory_iterator(dir_); it != fs::directory_iterator(); ++it) ++n;
    return n;
  }
  std::string error_of(const std::function<void()>& f) const {
    try {
      f();
    } catch (const FileError& e) {
      return e.what();
    }
    return "(no error)";
  }
  fs::path dir_;
};

TEST_F(OutputFile, WritesAndReplacesLeavingNoTemporary) {
  write_file_atomic(at("x.txt"), "first");
  EXPECT_EQ(read_file(at("x.txt")), "first");
  ::chmod(at("x.txt").c_str(), 0640);
  write_file_atomic(at("x.txt"), "second, longer");
  EXPECT_EQ(read_file(at("x.txt")), "second, longer");
  EXPECT_EQ(entries(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(at("x.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "the replaced file's permissions are kept";
  EXPECT_EQ(live_temp_count(), 0u);
}

TEST_F(OutputFile, RefusesASymlinkAndLeavesItsTarget) {
  { std::ofstream(at("victim")) << "keep"; }
  fs::create_symlink(at("victim"), at("link"));
  const std::string e = error_of([&] { write_file_atomic(at("link"), "new"); });
  EXPECT_NE(e.find("symbolic link"), std::string::npos) << e;
  EXPECT_NE(e.find(at("link")), std::string::npos) << e;
  EXPECT_TRUE(fs::is_symlink(at("link")));
  EXPECT_EQ(read_file(at("victim")), "keep");
  EXPECT_EQ(entries(), 2u);  // no temporary left
}

// Never test against /dev/null itself: as root, a rename over it replaces the device.
TEST_F(OutputFile, RefusesAFifoAndADirectory) {
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  std::string e = error_of([&] { write_file_atomic(at("fifo"), "x"); });
  EXPECT_NE(e.find("a FIFO"), std::string::npos) << e;
  EXPECT_TRUE(fs::is_fifo(at("fifo")));
  fs::create_directories(at("d"));
  e = error_of([&] { write_file_atomic(at("d"), "x"); });
  EXPECT_NE(e.find("a directory"), std::string::npos) << e;
  EXPECT_THROW(check_output_target(at("fifo")), FileError);
  EXPECT_NO_THROW(check_output_target("-"));
  EXPECT_EQ(entries(), 2u);
}

TEST_F(OutputFile, NeverCreatesDirectoriesUnlessAsked) {
  const std::string f = at("sub/deeper/x.csv");
  OutputOptions o;
  o.mkdir_hint = "or pass --mkdir";
  const std::string e = error_of([&] { write_file_atomic(f, "x", o); });
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  EXPECT_NE(e.find(at("sub/deeper")), std::string::npos) << e;
  EXPECT_NE(e.find("--mkdir"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(at("sub")));
  o.create_parents = true;
  write_file_atomic(f, "x", o);
  EXPECT_EQ(read_file(f), "x");
}

TEST_F(OutputFile, ParentIsAFileAndReadErrorsNameThePath) {
  write_file_atomic(at("file"), "y");
  std::string e = error_of([&] { write_file_atomic(at("file/x.txt"), "z"); });
  EXPECT_NE(e.find("not a directory"), std::string::npos) << e;
  e = error_of([&] { read_file(at("nope.json")); });
  EXPECT_NE(e.find("nope.json"), std::string::npos) << e;
  EXPECT_THROW(read_file(dir_.string()), FileError);
}

TEST_F(OutputFile, DiscardedOrDestroyedLeavesTheOldFile) {
  write_file_atomic(at("x"), "old");
  {
    AtomicFile f(at("x"));
    f.write("half of the new");
    EXPECT_TRUE(fs::exists(f.temp_path()));
    EXPECT_EQ(live_temp_count(), 1u);
  }  // an exception path: never committed
  EXPECT_EQ(read_file(at("x")), "old");
  EXPECT_EQ(entries(), 1u);
  EXPECT_EQ(live_temp_count(), 0u);
}

// A writer that needs a name (gnuplot) may rewrite the temporary path; commit() renames it.
TEST_F(OutputFile, TempPathRewrittenByAnotherWriterIsCommitted) {
  AtomicFile f(at("img.png"));
  { std::ofstream(f.temp_path(), std::ios::trunc) << "png bytes"; }
  f.commit();
  EXPECT_EQ(read_file(at("img.png")), "png bytes");
  EXPECT_EQ(entries(), 1u);
}

// A target replaced by a symlink while the file was being written is still refused.
TEST_F(OutputFile, CommitRechecksTheTarget) {
  { std::ofstream(at("victim")) << "keep"; }
  AtomicFile f(at("out"));
  f.write("new");
  fs::create_symlink(at("victim"), at("out"));
  EXPECT_THROW(f.commit(), FileError);
  EXPECT_EQ(read_file(at("victim")), "keep");
  EXPECT_TRUE(fs::is_symlink(at("out")));
  EXPECT_EQ(entries(), 2u);
}

}  // namespace
}  // namespace gcu::util
