// test/unit/runtime/var_file_name_test.cc - variable names never name a file outside the chosen directory.
#include <catch2/catch.hpp>

#include <filesystem>

#include "runtime/error.h"
#include "runtime/tensor_record.h"
#include "runtime/var_file_name.h"
#include "test/unit/runtime/test_util.h"

namespace fluidc::rt {
namespace {

TEST_CASE("var_file_name confines names to one directory entry") {
  CHECK(var_file_name("fc_0.w_0") == "fc_0.w_0");
  CHECK(var_file_name("save_infer_model/scale_0.tmp_1", ".npy") == "save_infer_model_scale_0.tmp_1.npy");
  CHECK(var_file_name("../../etc/passwd") == ".._.._etc_passwd");
  CHECK(var_file_name("/abs") == "_abs");
  CHECK(var_file_name("..x") == "..x");
  for (const char* bad : {"", ".", ".."}) CHECK_THROWS_AS(var_file_name(bad), Error);
  CHECK_THROWS_AS(var_file_name("a\nb"), Error);
}

TEST_CASE("a per-variable directory with a climbing name stays inside it") {
  test::TempDir dir;
  Tensor t;
  t.resize(Shape{2}, DType::kFP32);
  t.zero();
  const std::string inside = dir.file("params");
  write_param_dir(inside, {"../escaped"}, {&t});
  CHECK(std::filesystem::exists(inside + "/.._escaped"));
  CHECK_FALSE(std::filesystem::exists(dir.file("escaped")));
  Tensor back;
  read_param_dir(inside, {"../escaped"}, {&back});
  CHECK(back.shape() == Shape{2});
}

}  // namespace
}  // namespace fluidc::rt
