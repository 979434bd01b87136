// test/unit/kernels/vision_legacy2_test.cc - ctc_align, im2sequence, crop, crop_tensor, density_prior_box, row_conv, unique.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "kernels/vision_legacy2.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

Tensor with_lod(Tensor t, std::vector<uint64_t> offsets) {
  t.mutable_lod().assign(1, std::move(offsets));
  return t;
}

}  // namespace

TEST_CASE("ctc_align: blanks dropped, repeats merged across sequences' own starts", "[vision_legacy2]") {
  k::CtcAlignAttrs a;
  Tensor out;
  // "1 1 0 1" keeps 1, 1 (a blank between repeats); the second sequence starts afresh.
  k::ctc_align(with_lod(i32(Shape{6, 1}, {1, 1, 0, 1, 1, 2}), {0, 4, 6}), nullptr, out, nullptr, a);
  CHECK(values(out) == std::vector<double>{1, 1, 1, 2});
  REQUIRE(out.lod());
  CHECK(out.lod()->at(0) == std::vector<uint64_t>{0, 2, 4});
  a.merge_repeated = false;
  k::ctc_align(with_lod(i32(Shape{6, 1}, {1, 1, 0, 1, 1, 2}), {0, 4, 6}), nullptr, out, nullptr, a);
  CHECK(values(out) == std::vector<double>{1, 1, 1, 1, 2});
  // Nothing kept: Paddle's [[-1]] with empty sequences.
  k::ctc_align(with_lod(i64(Shape{2, 1}, {0, 0}), {0, 1, 2}), nullptr, out, nullptr, a);
  CHECK(values(out) == std::vector<double>{-1});
  CHECK(out.lod()->at(0) == std::vector<uint64_t>{0, 0, 0});
  // Padded form: lengths in Input's dtype, the tail padded.
  a.merge_repeated = true, a.padding_value = -1;
  Tensor len;
  const Tensor lengths = i32(Shape{2, 1}, {4, 2});
  k::ctc_align(i32(Shape{2, 4}, {2, 2, 0, 3, 5, 5, 5, 5}), &lengths, out, &len, a);
  CHECK(values(out) == std::vector<double>{2, 3, -1, -1, 5, -1, -1, -1});
  CHECK(values(len) == std::vector<double>{2, 1});
  const Tensor bad_len = i32(Shape{2, 1}, {5, 0});
  CHECK_THROWS_WITH(k::ctc_align(i32(Shape{2, 4}, {0, 0, 0, 0, 0, 0, 0, 0}), &bad_len, out, &len, a),
                    Catch::Contains("InputLength[0] = 5"));
  CHECK_THROWS_WITH(k::ctc_align(f32(Shape{2, 1}, {0, 0}), nullptr, out, nullptr, a),
                    Catch::Contains("int32 or int64"));
  CHECK_THROWS_WITH(k::ctc_align(i32(Shape{2, 1}, {0, 0}), nullptr, out, nullptr, a), Catch::Contains("LoD"));
}

TEST_CASE("im2sequence: patches as rows (c, i, j), one sequence per image", "[vision_legacy2]") {
  k::Im2SequenceAttrs a;
  a.kernels = {2, 2};
  Tensor out;
  k::im2sequence(iota(Shape{1, 1, 3, 3}), nullptr, out, a);
  CHECK(out.shape() == Shape{4, 4});
  CHECK(values(out) == std::vector<double>{0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8});
  CHECK(out.lod()->at(0) == std::vector<uint64_t>{0, 4});
  a.paddings = {1, 0, 0, 0};  // one zero row on top: 3 x 2 patches
  k::im2sequence(iota(Shape{1, 1, 3, 3}), nullptr, out, a);
  CHECK(out.shape() == Shape{6, 4});
  CHECK(values(out)[0] == 0);
  CHECK(values(out)[2] == 0);  // (0,0) of the first patch is padding; (1,0) is X[0,0] = 0 too
  a.paddings = {0, 0, 0, 0};
  // Y with two images: the second's real 2 x 2 gives one patch.
  const Tensor y = f32(Shape{2, 2}, {3, 3, 2, 2});
  k::im2sequence(iota(Shape{2, 1, 3, 3}), &y, out, a);
  CHECK(out.lod()->at(0) == std::vector<uint64_t>{0, 4, 5});
  const std::vector<double> v = values(out);
  CHECK(std::vector<double>(v.end() - 4, v.end()) == std::vector<double>{9, 10, 12, 13});
  const Tensor nan_y = f32(Shape{2, 2}, {3, 3, std::nanf(""), 2});  // a program's Y is untrusted
  CHECK_THROWS_WITH(k::im2sequence(iota(Shape{2, 1, 3, 3}), &nan_y, out, a), Catch::Contains("image 1"));
  a.kernels = {4, 1};
  CHECK_THROWS_WITH(k::im2sequence(iota(Shape{1, 1, 3, 3}), nullptr, out, a),
                    Catch::Contains("im2sequence") && Catch::Contains("does not fit"));
  a.kernels = {2};
  CHECK_THROWS_WITH(k::im2sequence(iota(Shape{1, 1, 3, 3}), nullptr, out, a), Catch::Contains("need 2 values"));
}

TEST_CASE("crop and crop_tensor: the box at the offsets; -1 sizes; located errors", "[vision_legacy2]") {
  Tensor out;
  k::CropAttrs c;
  c.shape = {-1, 2};  // a -1 first dim is X's
  c.offsets = {0, 1};
  k::crop(iota(Shape{2, 4}), nullptr, nullptr, out, c);
  CHECK(values(out) == std::vector<double>{1, 2, 5, 6});
  const Tensor off = i32(Shape{2}, {1, 2});
  c.offsets.clear();
  const Tensor y = f32(Shape{1, 2}, {0, 0});
  k::crop(iota(Shape{2, 4}), &y, &off, out, c);
  CHECK(values(out) == std::vector<double>{6, 7});
  c.offsets = {1, 3};
  CHECK_THROWS_WITH(k::crop(iota(Shape{2, 4}), &y, nullptr, out, c), Catch::Contains("leaves X"));
  k::CropTensorAttrs t;
  t.shape = {1, -1};
  t.offsets = {1, 1};
  k::crop_tensor(iota(Shape{2, 4}), nullptr, nullptr, 0, nullptr, nullptr, 0, out, t);
  CHECK(values(out) == std::vector<double>{5, 6, 7});
  const Tensor s0 = i64(Shape{1}, {2}), s1 = i64(Shape{1}, {1});
  const Tensor* list[] = {&s0, &s1};
  const Tensor o0 = i32(Shape{2}, {0, 3});
  k::crop_tensor(iota(Shape{2, 4}), nullptr, list, 2, &o0, nullptr, 0, out, t);  // the list wins over the attribute
  CHECK(values(out) == std::vector<double>{3, 7});
  const Tensor far = i64(Shape{2}, {0, int64_t{1} << 62});  // no overflow on the way to the error
  CHECK_THROWS_WITH(k::crop_tensor(iota(Shape{2, 4}), nullptr, nullptr, 0, &far, nullptr, 0, out, t),
                    Catch::Contains("outside X"));
  t.shape = {0, 1};
  CHECK_THROWS_WITH(k::crop_tensor(iota(Shape{2, 4}), nullptr, nullptr, 0, nullptr, nullptr, 0, out, t),
                    Catch::Contains("positive or -1"));
  Tensor dx;
  k::crop_tensor_grad(iota(Shape{2, 3}), &o0, nullptr, 0, f32(Shape{2, 0}, {}), &dx, t);
  CHECK(values(dx) == std::vector<double>(6, 0.0));
}

TEST_CASE("density_prior_box: a density x density grid per size and ratio", "[vision_legacy2]") {
  k::DensityPriorBoxAttrs a;
  a.variances = {0.1f, 0.1f, 0.2f, 0.2f};
  a.fixed_sizes = {4};
  a.fixed_ratios = {1};
  a.densities = {2};
  Tensor boxes, vars;
  // One 8 x 8 cell: step 8, centre (4, 4), shift 4: centres (2, 2), (6, 2), (2, 6), (6, 6), boxes 4 wide.
  k::density_prior_box(f32(Shape{1, 1, 1, 1}, {0}), f32(Shape{1, 1, 8, 8}, std::vector<float>(64)), boxes, vars, a);
  CHECK(boxes.shape() == Shape{1, 1, 4, 4});
  CHECK(values(boxes) == std::vector<double>{0, 0, 0.5, 0.5, 0.5, 0, 1, 0.5, 0, 0.5, 0.5, 1, 0.5, 0.5, 1, 1});
  CHECK(values(vars)[2] == Approx(0.2));
  a.flatten_to_2d = true;
  k::density_prior_box(f32(Shape{1, 1, 1, 1}, {0}), f32(Shape{1, 1, 8, 8}, std::vector<float>(64)), boxes, vars, a);
  CHECK(boxes.shape() == Shape{4, 4});
  a.densities = {2, 1};
  CHECK_THROWS_WITH(k::density_prior_box(f32(Shape{1, 1, 1, 1}, {0}), f32(Shape{1, 1, 8, 8}, std::vector<float>(64)),
                                         boxes, vars, a),
                    Catch::Contains("as many values"));
}

TEST_CASE("row_conv: future steps within each sequence only", "[vision_legacy2]") {
  Tensor out;
  const Tensor f = f32(Shape{2, 1}, {1, 10});
  k::row_conv(with_lod(f32(Shape{3, 1}, {1, 2, 3}), {0, 2, 3}), f, out);
  CHECK(values(out) == std::vector<double>{21, 2, 3});  // step 1 ends its sequence; step 2 is its own
  k::row_conv(f32(Shape{1, 3, 1}, {1, 2, 3}), f, out);      // dense [B, T, D]: one sequence
  CHECK(values(out) == std::vector<double>{21, 32, 3});
  CHECK_THROWS_WITH(k::row_conv(f32(Shape{3, 1}, {1, 2, 3}), f, out), Catch::Contains("needs a LoD"));
  CHECK_THROWS_WITH(k::row_conv(f32(Shape{1, 3, 2}, {1, 2, 3, 4, 5, 6}), f, out), Catch::Contains("width"));
}

TEST_CASE("unique: sorted with every output, Fluid 1.x's appearance order, along an axis", "[vision_legacy2]") {
  k::UniqueAttrs a;
  Tensor out, indices, index, counts;
  const Tensor x = i64(Shape{6}, {3, 1, 3, 2, 1, 3});
  k::unique(x, out, &indices, index, &counts, a);
  CHECK(values(out) == std::vector<double>{3, 1, 2});
  CHECK(values(index) == std::vector<double>{0, 1, 0, 2, 1, 0});
  a.is_sorted = true;
  a.dtype = 2;
  k::unique(x, out, &indices, index, &counts, a);
  CHECK(values(out) == std::vector<double>{1, 2, 3});
  CHECK(values(indices) == std::vector<double>{1, 3, 0});
  CHECK(values(index) == std::vector<double>{2, 0, 2, 1, 0, 2});
  CHECK(values(counts) == std::vector<double>{2, 1, 3});
  CHECK(index.dtype() == DType::kInt32);
  a.axis = {1};
  k::unique(f32(Shape{2, 3}, {1, 0, 1, 5, 4, 5}), out, &indices, index, &counts, a);
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>{0, 1, 4, 5});
  CHECK(values(index) == std::vector<double>{1, 0, 1});
  a.is_sorted = false;
  a.axis.clear();
  CHECK_THROWS_WITH(k::unique(f32(Shape{2, 3}, {1, 0, 1, 5, 4, 5}), out, &indices, index, &counts, a),
                    Catch::Contains("must be 1-D"));
}

TEST_CASE("vision_legacy2 grads match finite differences", "[vision_legacy2][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(21);
    k::Im2SequenceAttrs im;
    im.kernels = {3, 2}, im.strides = {2, 1}, im.paddings = {1, 0, 2, 1};
    Tensor x = random(Shape{2, 2, 5, 4}, dt, rng);
    CHECK_GRADCHECK_OP("im2sequence", {&x}, [&](Tensor& out) { k::im2sequence(x, nullptr, out, im); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { k::im2sequence_grad(x, dout, g[0], im); });
    k::CropAttrs ca;
    ca.shape = {2, 2, 3};
    ca.offsets = {1, 0, 2};
    Tensor c = random(Shape{3, 3, 5}, dt, rng);
    CHECK_GRADCHECK_OP("crop", {&c}, [&](Tensor& out) { k::crop(c, nullptr, nullptr, out, ca); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { k::crop_grad(c, nullptr, dout, g[0], ca); });
    k::CropTensorAttrs ta;
    ta.shape = {-1, 2, 3};
    const Tensor off = i64(Shape{3}, {1, 1, 1});
    CHECK_GRADCHECK_OP("crop_tensor", {&c},
                       [&](Tensor& out) { k::crop_tensor(c, nullptr, nullptr, 0, &off, nullptr, 0, out, ta); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         k::crop_tensor_grad(c, &off, nullptr, 0, dout, g[0], ta);
                       });
    for (bool lod : {true, false}) {
      INFO((lod ? "LoD" : "padded"));
      Tensor rx = lod ? with_lod(random(Shape{7, 3}, dt, rng), {0, 2, 7}) : random(Shape{2, 4, 3}, dt, rng);
      Tensor rf = random(Shape{3, 3}, dt, rng);
      CHECK_GRADCHECK_OP("row_conv", {&rx, &rf}, [&](Tensor& out) { k::row_conv(rx, rf, out); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           k::row_conv_grad(rx, rf, dout, g[0], g[1]);
                         });
    }
  }
}
