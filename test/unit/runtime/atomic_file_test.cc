// test/unit/runtime/atomic_file_test.cc - atomic replace-on-write and located file reads.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <ostream>
#include <stdexcept>

#include "runtime/atomic_file.h"
#include "runtime/error.h"
#include "test_util.h"

using namespace fluidc::rt;
using fluidc::rt::test::TempDir;
using Catch::Matchers::Contains;

TEST_CASE("write_file_atomically writes, replaces and leaves no temp file", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("out.bin");
  write_file_atomically(path, [](std::ostream& os) { os << "first"; });
  CHECK(read_file(path) == "first");
  write_file_atomically(path, std::string_view("second, longer"));
  CHECK(read_file(path) == "second, longer");
  CHECK(dir.count() == 1);
}

TEST_CASE("write_file_atomically streams large mixed writes intact", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("big.bin");
  std::string big(300000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + 3);
  write_file_atomically(path, [&](std::ostream& os) {
    os << "head";
    os.write(big.data(), static_cast<std::streamsize>(big.size()));  // bypasses the buffer
    for (int i = 0; i < 70000; ++i) os.put(static_cast<char>(i));    // many small writes
    os << "tail";
  });
  std::string got = read_file(path);
  REQUIRE(got.size() == 4 + big.size() + 70000 + 4);
  CHECK(got.compare(0, 4, "head") == 0);
  CHECK(got.compare(4, big.size(), big) == 0);
  CHECK(got[4 + big.size() + 1000] == static_cast<char>(1000));
  CHECK(got.substr(got.size() - 4) == "tail");
}

TEST_CASE("a throwing writer leaves the old file intact and no temp behind", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("ckpt.pdiparams");
  write_file_atomically(path, std::string_view("old contents"));
  CHECK_THROWS_WITH(write_file_atomically(path,
                                          [](std::ostream& os) {
                                            os << "half of the new contents";
                                            os.flush();
                                            throw std::runtime_error("writer failed");
                                          }),
                    "writer failed");
  CHECK(read_file(path) == "old contents");
  CHECK(dir.count() == 1);

  const std::string fresh = dir.file("never_written");
  CHECK_THROWS_AS(write_file_atomically(fresh, [](std::ostream&) { throw Error("nope"); }), Error);
  CHECK_FALSE(std::filesystem::exists(fresh));
  CHECK(dir.count() == 1);
}

TEST_CASE("a writer that breaks the stream is an Error; the old file stays", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("x.npy");
  write_file_atomically(path, std::string_view("old"));
  CHECK_THROWS_WITH(write_file_atomically(path,
                                          [](std::ostream& os) {
                                            os << "new";
                                            os.setstate(std::ios::badbit);
                                          }),
                    Contains(path) && Contains("cannot write"));
  CHECK(read_file(path) == "old");
  CHECK(dir.count() == 1);
}

TEST_CASE("a process killed mid-write never leaves a half-written file", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("model.pdiparams");
  write_file_atomically(path, std::string_view("complete old file"));
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    write_file_atomically(path, [](std::ostream& os) {
      os << "partial new ";
      os.flush();
      ::raise(SIGKILL);
    });
    ::_exit(0);  // not reached
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(read_file(path) == "complete old file");
  // The killed writer's temp file is the only trace, named after its pid.
  const std::string tmp = path + ".tmp." + std::to_string(child);
  CHECK(read_file(tmp) == "partial new ");
  // The next write removes it: its process is gone.
  write_file_atomically(path, std::string_view("new"));
  CHECK(read_file(path) == "new");
  CHECK(dir.count() == 1);
}

TEST_CASE("temp files of live processes and of other targets are left alone", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("ckpt");
  const std::string live = path + ".tmp." + std::to_string(::getppid());  // our parent is alive
  const std::string other = dir.file("other.tmp.999999999");
  const std::string not_pid = path + ".tmp.12ab";
  for (const auto& f : {live, other, not_pid}) write_file_atomically(f, std::string_view("x"));
  write_file_atomically(path, std::string_view("data"));
  CHECK(dir.count() == 4);
}

TEST_CASE("a symlinked target is written through; the link survives", "[atomic_file]") {
  TempDir dir;
  const std::string real = dir.file("real.pdiparams"), link = dir.file("latest.pdiparams");
  write_file_atomically(real, std::string_view("v1"));
  REQUIRE(::symlink("real.pdiparams", link.c_str()) == 0);
  write_file_atomically(link, std::string_view("v2"));
  struct stat st;
  REQUIRE(::lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(read_file(real) == "v2");
  // A dangling link creates its target.
  const std::string dangling = dir.file("dangling");
  REQUIRE(::symlink("created_by_write", dangling.c_str()) == 0);
  write_file_atomically(dangling, std::string_view("v3"));
  CHECK(read_file(dir.file("created_by_write")) == "v3");
  // A loop is an error, not a hang.
  REQUIRE(::symlink("loop_b", dir.file("loop_a").c_str()) == 0);
  REQUIRE(::symlink("loop_a", dir.file("loop_b").c_str()) == 0);
  CHECK_THROWS_WITH(write_file_atomically(dir.file("loop_a"), std::string_view("x")),
                    Contains("too many levels of symbolic links"));
}

TEST_CASE("a target that is not a regular file is refused, before and at the write", "[atomic_file]") {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(check_writable_target(fifo), Contains("not a regular file"));
  CHECK_THROWS_WITH(write_file_atomically(fifo, std::string_view("x")), Contains("not a regular file"));
  CHECK_THROWS_WITH(check_writable_target(dir.str()), Contains("not a regular file"));
  struct stat st;
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK_THROWS_WITH(check_writable_target(dir.file("missing_dir/ckpt")), Contains("does not exist"));
  CHECK_NOTHROW(check_writable_target(dir.file("new_file")));
}

TEST_CASE("write errors name the path and the reason", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("no_such_dir/out.npy");
  CHECK_THROWS_WITH(write_file_atomically(path, std::string_view("x")),
                    Contains(path) && Contains("No such file or directory"));
}

TEST_CASE("read_file names the path when the file is missing or a directory", "[atomic_file]") {
  TempDir dir;
  const std::string missing = dir.file("missing.npy");
  CHECK_THROWS_WITH(read_file(missing),
                    missing + ": cannot open: No such file or directory");
  CHECK_THROWS_WITH(read_file(dir.str()), Contains(dir.str()) && Contains("Is a directory"));
  write_file_atomically(dir.file("empty"), std::string_view());
  CHECK(read_file(dir.file("empty")).empty());
}
