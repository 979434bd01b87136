// test/unit/codegen/target_test.cc - the CPU target's build recipe: what build.cc used to spell out itself.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"

namespace {

using fluidc::BuildRecipe;
using fluidc::cpu_target;

BuildRecipe recipe() {
  BuildRecipe r;
  r.source_dir = "/src";
  r.sources = {"model.cc", "params.S"};
  r.output = "/out/model";
  r.opt_level = 3;
  return r;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST_CASE("the CPU target compiles every source of the recipe and links the runtime", "[target]") {
  ::unsetenv("CXX");
  const auto cmd = cpu_target().compile_command(recipe());
  REQUIRE(cmd.at(0) == "clang++");
  CHECK(has(cmd, "-O3"));
  CHECK(has(cmd, "-std=c++20"));
  CHECK(has(cmd, "/src/model.cc"));
  CHECK(has(cmd, "/src/params.S"));
  CHECK(has(cmd, "-Wa,-I/src"));  // .incbin "params.bin" is found beside params.S
  CHECK(has(cmd, "-lfluidc_runtime"));
  CHECK(has(cmd, "-lfluidc_kernels"));
  auto o = std::find(cmd.begin(), cmd.end(), "-o");
  REQUIRE(o + 1 < cmd.end());
  CHECK(o[1] == "/out/model");
}

TEST_CASE("$CXX chooses the compiler", "[target]") {
  ::setenv("CXX", "my-c++", 1);
  const auto cmd = cpu_target().compile_command(recipe());
  ::unsetenv("CXX");
  CHECK(cmd.at(0) == "my-c++");
}

TEST_CASE("embedded params are placed under the symbol the generated code names", "[target]") {
  const auto files = cpu_target().params_files("fluidc_params_3abc");
  REQUIRE(files.size() == 1);
  CHECK(files[0].first == "params.S");
  const std::string& s = files[0].second;
  CHECK(s.find(".global fluidc_params_3abc\n") != std::string::npos);
  CHECK(s.find("\nfluidc_params_3abc:\n") != std::string::npos);
  CHECK(s.find("\nfluidc_params_3abc_end:\n") != std::string::npos);
  CHECK(s.find(".incbin \"params.bin\"") != std::string::npos);
  CHECK(s.find("fluidc_embedded_params") == std::string::npos);  // the old, one-per-process name
}

TEST_CASE("the emitted CMakeLists builds the same sources", "[target]") {
  const std::string cm = cpu_target().cmake_lists(recipe());
  CHECK(cm.find("add_executable(model model.cc params.S)") != std::string::npos);
  CHECK(cm.find("target_link_libraries(model PRIVATE fluidc_kernels fluidc_runtime pthread)") != std::string::npos);
  CHECK(std::string(cpu_target().source_file()) == "model.cc");
  CHECK(std::string(cpu_target().name()) == "cpu");
}

TEST_CASE("sources without main() become a static library in the CMake recipe", "[target]") {
  BuildRecipe r = recipe();
  r.library = true;
  const std::string cm = cpu_target().cmake_lists(r);
  CHECK(cm.find("add_library(model STATIC model.cc params.S)") != std::string::npos);
  CHECK(cm.find("target_link_libraries(model PUBLIC fluidc_kernels fluidc_runtime pthread)") != std::string::npos);
  CHECK(cm.find("add_executable") == std::string::npos);
}

TEST_CASE("$FLUIDC_CXXFLAGS is appended to the compile command, split at spaces", "[target]") {
  const char* was = std::getenv("FLUIDC_CXXFLAGS");
  const std::string saved = was ? was : "";
  ::setenv("FLUIDC_CXXFLAGS", "  -fsanitize=address   -O0 ", 1);
  const auto cmd = cpu_target().compile_command(recipe());
  ::setenv("FLUIDC_CXXFLAGS", "", 1);
  const auto plain = cpu_target().compile_command(recipe());
  if (was) ::setenv("FLUIDC_CXXFLAGS", saved.c_str(), 1);
  else ::unsetenv("FLUIDC_CXXFLAGS");
  REQUIRE(cmd.size() == plain.size() + 2);
  CHECK(cmd[cmd.size() - 2] == "-fsanitize=address");
  CHECK(cmd.back() == "-O0");  // last, so it overrides fluidc's own -O
}

TEST_CASE("a program in several translation units: one object per source, then one link", "[target]") {
  ::unsetenv("CXX");
  const char* was = std::getenv("FLUIDC_CXXFLAGS");
  const std::string saved = was ? was : "";
  ::setenv("FLUIDC_CXXFLAGS", "-fsanitize=address", 1);
  const auto obj = cpu_target().object_command(recipe(), "model_shard1.cc", "/tmp/b/model_shard1.cc.o");
  const auto link = cpu_target().link_command(recipe(), {"/tmp/b/model.cc.o", "/tmp/b/model_shard1.cc.o"});
  const auto link_params = cpu_target().link_command(recipe(), {"/tmp/b/model.cc.o", "/src/params.S"});
  if (was) ::setenv("FLUIDC_CXXFLAGS", saved.c_str(), 1);
  else ::unsetenv("FLUIDC_CXXFLAGS");
  CHECK(has(obj, "-c"));
  CHECK(has(obj, "/src/model_shard1.cc"));
  CHECK(has(obj, "-O3"));
  CHECK(!has(obj, "-lfluidc_runtime"));
  CHECK(obj.back() == "-fsanitize=address");
  auto o = std::find(obj.begin(), obj.end(), "-o");
  REQUIRE(o + 1 < obj.end());
  CHECK(o[1] == "/tmp/b/model_shard1.cc.o");
  CHECK(has(link, "/tmp/b/model_shard1.cc.o"));
  CHECK(has(link, "-lfluidc_kernels"));
  CHECK(!has(link, "-c"));
  CHECK(!has(link, "-Wa,-I/src"));  // nothing left to assemble
  CHECK(has(link_params, "-Wa,-I/src"));
  CHECK(link.back() == "-fsanitize=address");
}

TEST_CASE("the emitted CMakeLists applies $FLUIDC_CXXFLAGS read at configure time", "[target]") {
  const std::string cm = cpu_target().cmake_lists(recipe());
  CHECK(cm.find("set(FLUIDC_CXXFLAGS \"$ENV{FLUIDC_CXXFLAGS}\" CACHE STRING") != std::string::npos);
  CHECK(cm.find("target_compile_options(model PRIVATE ${fluidc_extra_flags})") != std::string::npos);
  CHECK(cm.find("target_link_options(model PRIVATE ${fluidc_extra_flags})") != std::string::npos);
}

TEST_CASE("the compile command maps the source directory out of the binary (reproducible builds)", "[target]") {
  const auto cmd = cpu_target().compile_command(recipe());
  CHECK(has(cmd, "-ffile-prefix-map=/src=."));
  const auto o = std::find(cmd.begin(), cmd.end(), "-o");
  CHECK(std::find(cmd.begin(), o, "-ffile-prefix-map=/src=.") != o);  // a compile flag, before the output
}
