// test/unit/compiler/shape_agreement_test.cc - the compiler's inferred shapes equal the shapes the kernels produce.
//
// Each case is one op on concrete shapes: shape inference runs on a one-op
// program, the kernel runs on tensors of those shapes, and both must accept
// with the same Out shape (pinned to Paddle 2.6's) or both must reject.
// The first cases are the mismatches the two copies of each rule had.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/program.h"
#include "compiler/analysis/shape_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/activation.h"
#include "kernels/control.h"
#include "kernels/elementwise.h"
#include "kernels/loss.h"
#include "kernels/matmul.h"
#include "kernels/reduce.h"
#include "kernels/tensor_manip.h"
#include "kernels/vision_legacy2.h"
#include "runtime/error.h"

using namespace fluidc;
using rt::Shape;
using rt::Tensor;
namespace k = fluidc::kernels;

namespace {

std::string var(const char* name, const std::vector<int64_t>& dims) {
  return fmt::format(
      "vars {{ name: \"{}\" type {{ type: LOD_TENSOR lod_tensor {{ tensor {{ data_type: FP32 {} }} }} }} }}", name,
      dims.empty() ? "" : fmt::format("dims: {}", fmt::join(dims, " dims: ")));
}

struct Inferred {
  bool ok = false;
  std::vector<int64_t> dims;
  std::string errors;
};

/// Shape inference of `type` over X (and Y when given) with attribute text `attrs`.
Inferred infer(const std::string& type, const std::vector<int64_t>& x, const std::vector<int64_t>* y,
               const std::string& attrs) {
  std::string text = "blocks { idx: 0 parent_idx: -1 " + var("x", x) + (y ? var("y", *y) : "") + var("out", {}) +
                     fmt::format(" ops {{ type: \"{}\" inputs {{ parameter: \"X\" arguments: \"x\" }} ", type) +
                     (y ? "inputs { parameter: \"Y\" arguments: \"y\" } " : "") +
                     "outputs { parameter: \"Out\" arguments: \"out\" } " + attrs + " } }";
  Program p = Program::parse(text, "case", true);
  Diagnostics d;
  auto types = infer_shapes(p, d);
  Inferred r;
  r.ok = !d.has_errors();
  r.dims = types["out"].dims;
  r.errors = d.str();
  return r;
}

/// Runs a kernel; fills `dims` with Out's shape, or returns false when it rejects its inputs.
bool run(const std::function<void(Tensor& out)>& kernel, std::vector<int64_t>& dims) {
  Tensor out;
  try {
    kernel(out);
  } catch (const rt::Error&) {
    return false;
  }
  dims.assign(out.shape().d, out.shape().d + out.shape().rank);
  return true;
}

Tensor zeros(const std::vector<int64_t>& dims) {
  Tensor t;
  t.resize(Shape::from(dims.data(), static_cast<int>(dims.size())), rt::DType::kFP32);
  t.zero();
  return t;
}

/// Both accept with `want`, or (want == nullptr) both reject.
void check_agree(const Inferred& c, bool kernel_ok, const std::vector<int64_t>& kernel_dims,
                 const std::vector<int64_t>* want) {
  INFO("compiler: " << (c.ok ? dims_str(c.dims) : c.errors) << " kernel: "
                    << (kernel_ok ? dims_str(kernel_dims) : std::string("rejects")));
  CHECK(c.ok == kernel_ok);
  if (c.ok && kernel_ok) CHECK(c.dims == kernel_dims);
  if (want) {
    CHECK(kernel_ok);
    CHECK(kernel_dims == *want);
  } else {
    CHECK_FALSE(kernel_ok);
  }
}

struct ReduceCase {
  std::vector<int64_t> x;
  std::string attrs;
  k::ReduceAttrs a;
  bool ok;
  std::vector<int64_t> want;
};

struct ProductCase {
  std::string type;
  std::vector<int64_t> x, y;
  std::string attrs;
  bool ok;
  std::vector<int64_t> want;
};

void check_product(const ProductCase& c, const std::function<void(const Tensor&, const Tensor&, Tensor&)>& kernel) {
  INFO(c.type << " X " << dims_str(c.x) << " Y " << dims_str(c.y) << " " << c.attrs);
  Tensor x = zeros(c.x), y = zeros(c.y);
  std::vector<int64_t> kd;
  bool kok = run([&](Tensor& out) { kernel(x, y, out); }, kd);
  check_agree(infer(c.type, c.x, &c.y, c.attrs), kok, kd, c.ok ? &c.want : nullptr);
}

}  // namespace

TEST_CASE("reduce: compiler and kernel agree, a missing dim is Paddle's default {0}", "[shape][agree]") {
  k::ReduceAttrs d1;
  d1.dim = {1};
  d1.keep_dim = true;
  k::ReduceAttrs none;
  none.dim = {};
  k::ReduceAttrs all;
  all.reduce_all = true;
  k::ReduceAttrs bad;
  bad.dim = {3};
  const ReduceCase cases[] = {
      {{3, 4}, "", k::ReduceAttrs{}, true, {4}},  // no dim attribute: dim = {0}
      {{2, 3, 4}, "attrs { name: \"dim\" type: INTS }", none, true, {}},
      {{2, 3, 4}, "attrs { name: \"dim\" type: INTS ints: 1 } attrs { name: \"keep_dim\" type: BOOLEAN b: true }", d1,
       true, {2, 1, 4}},
      {{2, 3}, "attrs { name: \"reduce_all\" type: BOOLEAN b: true }", all, true, {}},
      {{2, 3}, "attrs { name: \"dim\" type: INTS ints: 3 }", bad, false, {}},
  };
  for (const char* type : {"reduce_sum", "reduce_mean"}) {
    for (const auto& c : cases) {
      INFO(type << " X " << dims_str(c.x) << " " << c.attrs);
      Tensor x = zeros(c.x);
      std::vector<int64_t> kd;
      bool kok = run([&](Tensor& out) {
        if (std::string(type) == "reduce_sum") k::reduce_sum(x, out, c.a);
        else k::reduce_mean(x, out, c.a);
      }, kd);
      check_agree(infer(type, c.x, nullptr, c.attrs), kok, kd, c.ok ? &c.want : nullptr);
    }
  }
}

TEST_CASE("matmul v1: 1-D @ 1-D is [1] and batches must hold equally many matrices", "[shape][agree]") {
  const std::string tx = "attrs { name: \"transpose_X\" type: BOOLEAN b: true }";
  const ProductCase cases[] = {
      {"matmul", {3}, {3}, "", true, {1}},                  // Paddle 2.6 keeps [1] for v1
      {"matmul", {6, 4, 5}, {2, 3, 5, 7}, "", true, {6, 4, 7}},  // 6 matrices each: Out takes X's batch dims
      {"matmul", {2, 3, 4, 5}, {3, 5, 6}, "", false, {}},   // 6 vs 3 matrices: no numpy broadcast in v1
      {"matmul", {2, 4, 5}, {5, 6}, "", true, {2, 4, 6}},   // Y shared by every batch
      {"matmul", {4}, {3, 4, 6}, "", true, {3, 6}},
      {"matmul", {3, 4}, {5, 6}, "", false, {}},
  };
  for (const auto& c : cases)
    check_product(c, [](const Tensor& x, const Tensor& y, Tensor& o) { k::matmul(x, y, o, {}); });
  // Transposes come from the same parsed attributes on both sides.
  k::MatmulAttrs t;
  t.transpose_X = true;
  for (const auto& c : {ProductCase{"matmul", {5, 4}, {5, 6}, tx, true, {4, 6}},
                        ProductCase{"matmul", {5, 4}, {5}, tx, true, {4}}})
    check_product(c, [&](const Tensor& x, const Tensor& y, Tensor& o) { k::matmul(x, y, o, t); });
}

TEST_CASE("matmul_v2: 1-D @ 1-D is 0-D and batch dims broadcast numpy style", "[shape][agree]") {
  const ProductCase cases[] = {
      {"matmul_v2", {3}, {3}, "", true, {}},
      {"matmul_v2", {2, 1, 4, 5}, {3, 5, 6}, "", true, {2, 3, 4, 6}},
      {"matmul_v2", {2, 4, 5}, {3, 5, 6}, "", false, {}},
      {"matmul_v2", {4}, {2, 4, 6}, "", true, {2, 6}},
      {"matmul_v2", {2, 4, 5}, {5}, "", true, {2, 4}},
  };
  for (const auto& c : cases)
    check_product(c, [](const Tensor& x, const Tensor& y, Tensor& o) { k::matmul_v2(x, y, o, {}); });
}

TEST_CASE("mul: num_col_dims must leave columns on both sides", "[shape][agree]") {
  const ProductCase cases[] = {
      {"mul", {2, 3, 4}, {12, 5}, "attrs { name: \"x_num_col_dims\" type: INT i: 1 }", true, {2, 5}},
      {"mul", {4}, {1, 5}, "", false, {}},  // rank-1 X has nothing to flatten
  };
  for (const auto& c : cases)
    check_product(c, [](const Tensor& x, const Tensor& y, Tensor& o) { k::mul(x, y, o, {}); });
}

TEST_CASE("elementwise: equal ranks ignore axis on both sides", "[shape][agree]") {
  const std::string axis1 = "attrs { name: \"axis\" type: INT i: 1 }";
  k::ElementwiseAttrs a;
  a.axis = 1;
  const ProductCase cases[] = {
      {"elementwise_add", {2, 3}, {2, 3}, axis1, true, {2, 3}},
      {"elementwise_add", {2, 3, 4}, {3}, axis1, true, {2, 3, 4}},
      {"elementwise_add", {2, 3, 4}, {4}, axis1, false, {}},
  };
  for (const auto& c : cases)
    check_product(c, [&](const Tensor& x, const Tensor& y, Tensor& o) { k::elementwise_add(x, y, o, a); });
}

TEST_CASE("reshape2: one rule validates the target shape on both sides", "[shape][agree]") {
  struct Case {
    std::vector<int64_t> x;
    std::vector<int> shape;
    bool ok;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      {{2, 6}, {3, -1}, true, {3, 4}},
      {{2, 6}, {0, 3, -1}, true, {2, 3, 2}},
      {{2, 6}, {5, -1}, false, {}},   // 12 elements do not split into rows of 5
      {{2, 6}, {-1, -1}, false, {}},  // two dims to infer
      {{2, 6}, {4, 4}, false, {}},
  };
  for (const auto& c : cases) {
    INFO("X " << dims_str(c.x) << " shape " << dims_str(std::vector<int64_t>(c.shape.begin(), c.shape.end())));
    std::string attrs = "attrs { name: \"shape\" type: INTS";
    for (int d : c.shape) attrs += fmt::format(" ints: {}", d);
    attrs += " }";
    k::Reshape2Attrs a;
    a.shape = c.shape;
    Tensor x = zeros(c.x);
    std::vector<int64_t> kd;
    bool kok = run([&](Tensor& out) { k::reshape2(x, out, nullptr, a); }, kd);
    check_agree(infer("reshape2", c.x, nullptr, attrs), kok, kd, c.ok ? &c.want : nullptr);
  }
}

TEST_CASE("cross_entropy2: XShape is X's dims then 0 on both sides (Paddle 2.6)", "[shape][agree]") {
  const std::string text =
      "blocks { idx: 0 parent_idx: -1 " + var("x", {2, 3}) +
      "vars { name: \"label\" type { type: LOD_TENSOR lod_tensor { tensor { data_type: INT64 dims: 2 dims: 1 } } } }" +
      var("y", {}) + var("xshape", {}) + var("match", {}) +
      " ops { type: \"cross_entropy2\" inputs { parameter: \"X\" arguments: \"x\" } "
      "inputs { parameter: \"Label\" arguments: \"label\" } outputs { parameter: \"Y\" arguments: \"y\" } "
      "outputs { parameter: \"XShape\" arguments: \"xshape\" } "
      "outputs { parameter: \"MatchX\" arguments: \"match\" } } }";
  Program p = Program::parse(text, "case", true);
  Diagnostics d;
  auto types = infer_shapes(p, d);
  INFO(d.str());
  REQUIRE_FALSE(d.has_errors());
  Tensor x = zeros({2, 3}), label, y, xshape, match;
  label.resize(Shape{2, 1}, rt::DType::kInt64);
  label.zero();
  k::cross_entropy2(x, label, y, xshape, match, {});
  CHECK(types["xshape"].dims == std::vector<int64_t>{2, 3, 0});
  CHECK(xshape.shape() == Shape{2, 3, 0});
  CHECK(types["y"].dims == std::vector<int64_t>{2, 1});
  CHECK(y.shape() == Shape{2, 1});
}

TEST_CASE("softmax: both sides reject an axis outside X", "[shape][agree]") {
  for (int axis : {-1, 1, 2, -3}) {
    INFO("axis " << axis);
    k::SoftmaxAttrs a;
    a.axis = axis;
    Tensor x = zeros({2, 3});
    std::vector<int64_t> kd;
    bool kok = run([&](Tensor& out) { k::softmax(x, out, a); }, kd);
    const std::vector<int64_t> want = {2, 3};
    check_agree(infer("softmax", {2, 3}, nullptr, fmt::format("attrs {{ name: \"axis\" type: INT i: {} }}", axis)),
                kok, kd, axis == 2 || axis == -3 ? nullptr : &want);
  }
}

TEST_CASE("increment: both sides want a one-element counter", "[shape][agree]") {
  for (const auto& dims : {std::vector<int64_t>{1}, std::vector<int64_t>{}, std::vector<int64_t>{2}}) {
    INFO("X " << dims_str(dims));
    Tensor x = zeros(dims);
    std::vector<int64_t> kd;
    bool kok = run([&](Tensor& out) { k::increment(x, out, {}); }, kd);
    check_agree(infer("increment", dims, nullptr, ""), kok, kd, dims.size() == 1 && dims[0] == 2 ? nullptr : &dims);
  }
}

TEST_CASE("slice: bounds given as tensors leave the sliced dims to run time", "[shape][agree]") {
  // The attribute bounds are placeholders then; the kernel reads the tensors.
  const std::string text =
      "blocks { idx: 0 parent_idx: -1 " + var("x", {4, 6}) + var("out", {}) +
      "vars { name: \"s\" type { type: LOD_TENSOR lod_tensor { tensor { data_type: INT64 dims: 1 } } } }"
      " ops { type: \"slice\" inputs { parameter: \"Input\" arguments: \"x\" } "
      "inputs { parameter: \"StartsTensor\" arguments: \"s\" } outputs { parameter: \"Out\" arguments: \"out\" } "
      "attrs { name: \"axes\" type: INTS ints: 1 } attrs { name: \"starts\" type: INTS ints: 0 } "
      "attrs { name: \"ends\" type: INTS ints: 3 } } }";
  Program p = Program::parse(text, "case", true);
  Diagnostics d;
  auto types = infer_shapes(p, d);
  INFO(d.str());
  REQUIRE_FALSE(d.has_errors());
  CHECK(types["out"].dims == std::vector<int64_t>{4, -1});
  // The kernel with the tensor's start: [1, 3) of dim 1.
  Tensor x = zeros({4, 6}), s, out;
  s.resize(Shape{1}, rt::DType::kInt64);
  s.data<int64_t>()[0] = 1;
  k::SliceAttrs a;
  a.axes = {1};
  a.starts = {0};
  a.ends = {3};
  k::slice(x, &s, nullptr, nullptr, 0, nullptr, 0, out, a);
  CHECK(out.shape() == Shape{4, 2});
}

TEST_CASE("im2sequence, crop, crop_tensor: the patch grid and the box agree on both sides", "[shape][agree]") {
  auto ints = [](const char* name, const std::vector<int>& v) {
    return fmt::format("attrs {{ name: \"{}\" type: INTS ints: {} }} ", name, fmt::join(v, " ints: "));
  };
  struct Case {
    std::vector<int> a, b;  // kernels / shape, paddings / offsets
    bool ok;
    std::vector<int64_t> want;
  };
  // 5 x 4 image, strides (2, 1): ((5 + pads - k) / 2 + 1) x ((4 + pads - k) / 1 + 1) patches, C division
  // (truncating: a 6-row kernel still gives (5 - 6) / 2 + 1 = 1 row, as in Paddle; 8 rows give none).
  for (const Case& c : {Case{{2, 3}, {1, 0, 0, 1}, true, {18, 18}}, Case{{8, 1}, {0, 0, 0, 0}, false, {}}}) {
    INFO("im2sequence kernels " << dims_str({c.a[0], c.a[1]}));
    k::Im2SequenceAttrs a;
    a.kernels = c.a, a.strides = {2, 1}, a.paddings = c.b;
    Tensor x = zeros({2, 3, 5, 4});
    std::vector<int64_t> kd;
    bool kok = run([&](Tensor& out) { k::im2sequence(x, nullptr, out, a); }, kd);
    check_agree(infer("im2sequence", {2, 3, 5, 4}, nullptr, ints("kernels", c.a) + ints("strides", {2, 1}) +
                                                               ints("paddings", c.b)),
                kok, kd, c.ok ? &c.want : nullptr);
  }
  // crop: a -1 first dim is X's; the box must stay inside X.
  for (const Case& c : {Case{{-1, 3}, {0, 2}, true, {4, 3}}, Case{{-1, 3}, {1, 2}, false, {}}}) {
    INFO("crop offsets " << dims_str({c.b[0], c.b[1]}));
    k::CropAttrs a;
    a.shape = c.a, a.offsets = c.b;
    Tensor x = zeros({4, 5});
    std::vector<int64_t> kd;
    bool kok = run([&](Tensor& out) { k::crop(x, nullptr, nullptr, out, a); }, kd);
    check_agree(infer("crop", {4, 5}, nullptr, ints("shape", c.a) + ints("offsets", c.b)), kok, kd,
                c.ok ? &c.want : nullptr);
  }
  // crop_tensor: -1 is X's dim less the offset.
  for (const Case& c : {Case{{2, -1}, {1, 1}, true, {2, 4}}, Case{{3, -1}, {2, 0}, false, {}}}) {
    INFO("crop_tensor shape " << dims_str({c.a[0], c.a[1]}));
    k::CropTensorAttrs a;
    a.shape = c.a, a.offsets = c.b;
    Tensor x = zeros({4, 5});
    std::vector<int64_t> kd;
    bool kok = run([&](Tensor& out) { k::crop_tensor(x, nullptr, nullptr, 0, nullptr, nullptr, 0, out, a); }, kd);
    check_agree(infer("crop_tensor", {4, 5}, nullptr, ints("shape", c.a) + ints("offsets", c.b)), kok, kd,
                c.ok ? &c.want : nullptr);
  }
}
