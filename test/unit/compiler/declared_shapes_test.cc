// test/unit/compiler/declared_shapes_test.cc - declared dims are hints, loop variables widen, tensor-valued attributes.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "compiler/analysis/shape_infer.h"
#include "compiler/ir/program.h"

using namespace fluidc;

namespace {

std::string var(const char* name, const std::vector<int64_t>& dims, const char* dtype = "FP32") {
  return fmt::format(
      "vars {{ name: \"{}\" type {{ type: LOD_TENSOR lod_tensor {{ tensor {{ data_type: {} {} }} }} }} }}", name, dtype,
      dims.empty() ? "" : fmt::format("dims: {}", fmt::join(dims, " dims: ")));
}

std::string in(const char* slot, const std::vector<const char*>& args) {
  std::string s = fmt::format("inputs {{ parameter: \"{}\"", slot);
  for (const char* a : args) s += fmt::format(" arguments: \"{}\"", a);
  return s + " } ";
}

struct Result {
  std::map<std::string, TensorType> types;
  Diagnostics diags;
};

Result infer(const std::string& text, bool strict = false) {
  Program p = Program::parse(text, "case", true);
  Result r;
  r.types = infer_shapes(p, r.diags, strict);
  return r;
}

const std::string kMatmul =
    "blocks { idx: 0 parent_idx: -1 " + var("x", {-1, 1, 3, 4}) + var("w", {2, 4, 5}) + var("out", {-1, 1, 3, 5}) +
    " ops { type: \"matmul_v2\" " + in("X", {"x"}) + in("Y", {"w"}) +
    "outputs { parameter: \"Out\" arguments: \"out\" } } }";

}  // namespace

TEST_CASE("a declared dim that conflicts with the inferred one is a warning; the inferred shape wins", "[shape]") {
  Result r = infer(kMatmul);
  INFO(r.diags.str());
  CHECK_FALSE(r.diags.has_errors());
  CHECK(r.diags.str().find("warning: output Out is inferred as float32[-1, 2, 3, 5] but the program declares "
                           "float32[-1, 1, 3, 5]") != std::string::npos);
  CHECK(r.types["out"].dims == std::vector<int64_t>{-1, 2, 3, 5});
}

TEST_CASE("--strict-shapes makes the conflict an error", "[shape]") {
  Result r = infer(kMatmul, true);
  CHECK(r.diags.has_errors());
  CHECK(r.diags.str().find("error: output Out is inferred as") != std::string::npos);
}

TEST_CASE("a while body that changes a loop variable's shape makes the changed dims -1", "[shape]") {
  const std::string text =
      "blocks { idx: 0 parent_idx: -1 " + var("x", {1, 3}) + var("cond", {1}, "BOOL") + var("y", {1, 3}) +
      " ops { type: \"while\" " + in("X", {"x"}) + in("Condition", {"cond"}) +
      "outputs { parameter: \"Out\" arguments: \"x\" } attrs { name: \"sub_block\" type: BLOCK block_idx: 1 } } "
      // After the loop: a reader of x is inferred without a conflict.
      " ops { type: \"relu\" " + in("X", {"x"}) + "outputs { parameter: \"Out\" arguments: \"y\" } } } "
      "blocks { idx: 1 parent_idx: 0 " + var("twice", {2, 3}) +
      " ops { type: \"concat\" " + in("X", {"x", "x"}) + "outputs { parameter: \"Out\" arguments: \"twice\" } "
      "attrs { name: \"axis\" type: INT i: 0 } } "
      " ops { type: \"assign\" " + in("X", {"twice"}) + "outputs { parameter: \"Out\" arguments: \"x\" } } }";
  Result r = infer(text);
  INFO(r.diags.str());
  CHECK_FALSE(r.diags.has_errors());
  CHECK(r.diags.all().empty());
  CHECK(r.types["x"].dims == std::vector<int64_t>{-1, 3});
  CHECK(r.types["twice"].dims == std::vector<int64_t>{-1, 3});  // the body inferred again from the widened x
}

TEST_CASE("slice bounds from tensors with the empty attributes Paddle writes", "[shape]") {
  // Before: "axes, starts and ends differ in length (1, 0, 0)".
  const std::string text = "blocks { idx: 0 parent_idx: -1 " + var("x", {4, 6}) + var("out", {}) +
                           var("s", {1}, "INT32") + var("e", {1}, "INT64") + " ops { type: \"slice\" " +
                           in("Input", {"x"}) + in("StartsTensor", {"s"}) + in("EndsTensor", {"e"}) +
                           "outputs { parameter: \"Out\" arguments: \"out\" } "
                           "attrs { name: \"axes\" type: INTS ints: 1 } attrs { name: \"starts\" type: INTS } "
                           "attrs { name: \"ends\" type: INTS } } }";
  Result r = infer(text);
  INFO(r.diags.str());
  CHECK_FALSE(r.diags.has_errors());
  CHECK(r.types["out"].dims == std::vector<int64_t>{4, -1});
  // Attribute bounds of the wrong length are named as such.
  Result bad = infer("blocks { idx: 0 parent_idx: -1 " + var("x", {4, 6}) + var("out", {}) +
                     " ops { type: \"slice\" " + in("Input", {"x"}) +
                     "outputs { parameter: \"Out\" arguments: \"out\" } attrs { name: \"axes\" type: INTS ints: 1 } "
                     "attrs { name: \"starts\" type: INTS ints: 0 } attrs { name: \"ends\" type: INTS } } }");
  CHECK(bad.diags.str().find("ends has 0 values for 1 axes") != std::string::npos);
}

TEST_CASE("reshape2 and fill_constant shapes from tensors: the rank is known, the dims at run time", "[shape]") {
  const std::string text =
      "blocks { idx: 0 parent_idx: -1 " + var("x", {2, 6}) + var("a", {}) + var("b", {}) + var("c", {}) +
      var("d", {}) + var("shape", {3}, "INT32") + var("d0", {1}, "INT64") + var("d1", {1}, "INT64") +
      " ops { type: \"reshape2\" " + in("X", {"x"}) + in("Shape", {"shape"}) +
      "outputs { parameter: \"Out\" arguments: \"a\" } attrs { name: \"shape\" type: INTS ints: 12 } } "
      " ops { type: \"reshape2\" " + in("X", {"x"}) + in("ShapeTensor", {"d0", "d1"}) +
      "outputs { parameter: \"Out\" arguments: \"b\" } attrs { name: \"shape\" type: INTS } } "
      " ops { type: \"fill_constant\" " + in("ShapeTensor", {"shape"}) +
      "outputs { parameter: \"Out\" arguments: \"c\" } attrs { name: \"dtype\" type: INT i: 3 } } "
      " ops { type: \"fill_constant\" " + in("ShapeTensorList", {"d0", "d1"}) +
      "outputs { parameter: \"Out\" arguments: \"d\" } attrs { name: \"dtype\" type: INT i: 5 } } }";
  Result r = infer(text);
  INFO(r.diags.str());
  CHECK_FALSE(r.diags.has_errors());
  CHECK(r.types["a"].dims == std::vector<int64_t>{-1, -1, -1});
  CHECK(r.types["b"].dims == std::vector<int64_t>{-1, -1});
  CHECK(r.types["c"].dims == std::vector<int64_t>{-1, -1, -1});
  CHECK(r.types["c"].dtype == pb::VarType::INT64);
  CHECK(r.types["d"].dims == std::vector<int64_t>{-1, -1});
}
