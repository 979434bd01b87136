// test/unit/kernels/tensor_manip2_test.cc - split, stack, unstack, expand_v2, expand_as_v2, tile, shape, size, fill_constant_batch_size_like.
#include <catch2/catch.hpp>

#include "kernels/tensor_manip.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

std::vector<double> vals(const Tensor& t) { return values(t); }

void split_attr(const Tensor& x, std::vector<Tensor>& outs, const kernels::SplitAttrs& a) {
  std::vector<Tensor*> p;
  for (auto& o : outs) p.push_back(&o);
  kernels::split(x, nullptr, nullptr, 0, p.data(), static_cast<int>(p.size()), a);
}

void expand_attr(const Tensor& x, Tensor& out, std::vector<int> shape) {
  kernels::ExpandV2Attrs a;
  a.shape = shape;
  kernels::expand_v2(x, nullptr, nullptr, 0, out, a);
}

void tile_attr(const Tensor& x, Tensor& out, std::vector<int> reps) {
  kernels::TileAttrs a;
  a.repeat_times = reps;
  kernels::tile(x, nullptr, nullptr, 0, out, a);
}

}  // namespace

TEST_CASE("split cuts equal parts or sections with one -1", "[tensor_manip]") {
  Tensor x = iota(Shape{2, 6});
  std::vector<Tensor> outs(3);
  kernels::SplitAttrs a;
  a.axis = 1, a.num = 3;
  split_attr(x, outs, a);
  CHECK(outs[1].shape() == Shape{2, 2});
  CHECK(vals(outs[1]) == std::vector<double>{2, 3, 8, 9});
  a.num = 0, a.sections = {1, -1, 2};
  split_attr(x, outs, a);
  CHECK(outs[1].shape() == Shape{2, 3});
  CHECK(vals(outs[1]) == std::vector<double>{1, 2, 3, 7, 8, 9});
  CHECK(vals(outs[2]) == std::vector<double>{4, 5, 10, 11});
  // A run-time axis and run-time sections win over the attributes.
  Tensor axis = i32(Shape{1}, {0}), s0 = i64(Shape{1}, {1}), s1 = i64(Shape{1}, {1});
  const Tensor* secs[] = {&s0, &s1};
  std::vector<Tensor> two(2);
  Tensor* p[] = {&two[0], &two[1]};
  kernels::split(x, &axis, secs, 2, p, 2, a);
  CHECK(two[1].shape() == Shape{1, 6});
  CHECK(vals(two[1])[0] == 6);
  a.sections = {1, 1, 1};
  CHECK_THROWS_AS(split_attr(x, outs, a), rt::Error);
  a.sections = {}, a.num = 4;
  std::vector<Tensor> four(4);
  CHECK_THROWS_AS(split_attr(x, four, a), rt::Error);
}

TEST_CASE("stack and unstack move slices along a new axis", "[tensor_manip]") {
  Tensor a = f32(Shape{2, 2}, {1, 2, 3, 4}), b = f32(Shape{2, 2}, {5, 6, 7, 8}), y;
  const Tensor* xs[] = {&a, &b};
  kernels::StackAttrs sa;
  sa.axis = 1;
  kernels::stack(xs, 2, y, sa);
  CHECK(y.shape() == Shape{2, 2, 2});
  CHECK(vals(y) == std::vector<double>{1, 2, 5, 6, 3, 4, 7, 8});
  sa.axis = -1;
  kernels::stack(xs, 2, y, sa);
  CHECK(vals(y) == std::vector<double>{1, 5, 2, 6, 3, 7, 4, 8});
  Tensor ga, gb;
  Tensor* gs[] = {&ga, &gb};
  kernels::stack_grad(xs, 2, y, gs, 2, sa);
  CHECK(vals(gb) == std::vector<double>{5, 6, 7, 8});
  std::vector<Tensor> parts(2);
  Tensor* ps[] = {&parts[0], &parts[1]};
  kernels::UnstackAttrs ua;
  ua.axis = 2, ua.num = 2;
  kernels::unstack(y, ps, 2, ua);
  CHECK(parts[0].shape() == Shape{2, 2});
  CHECK(vals(parts[0]) == std::vector<double>{1, 2, 3, 4});
  // A gradient nobody produced counts as zeros.
  Tensor missing, dx;
  const Tensor* gys[] = {&missing, &parts[1]};
  kernels::unstack_grad(gys, 2, &dx, ua);
  CHECK(vals(dx) == std::vector<double>{0, 5, 0, 6, 0, 7, 0, 8});
  Tensor c = f32(Shape{3}, {0, 0, 0});
  const Tensor* bad[] = {&a, &c};
  CHECK_THROWS_AS(kernels::stack(bad, 2, y, sa), rt::Error);
  Tensor* three[] = {ps[0], ps[1], ps[0]};
  CHECK_THROWS_AS(kernels::unstack(y, three, 3, ua), rt::Error);
}

TEST_CASE("expand_v2 and tile repeat blocks; grads sum them back", "[tensor_manip]") {
  Tensor x = f32(Shape{2, 1}, {1, 2}), out;
  expand_attr(x, out, {2, -1, 3});
  CHECK(out.shape() == Shape{2, 2, 3});
  CHECK(vals(out) == std::vector<double>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  Tensor dx;
  kernels::expand_v2_grad(x, nullptr, nullptr, 0, out, &dx, {});
  CHECK(vals(dx) == std::vector<double>{6, 12});
  CHECK_THROWS_AS(expand_attr(x, out, {3, 3}), rt::Error);
  CHECK_THROWS_AS(expand_attr(x, out, {3}), rt::Error);
  // Shape tensors: Shape wins over the list, the list over the attribute.
  Tensor shape = i32(Shape{2}, {2, 4}), d0 = i64(Shape{1}, {2}), d1 = i64(Shape{1}, {2});
  const Tensor* list[] = {&d0, &d1};
  kernels::ExpandV2Attrs ea;
  ea.shape = {2, 9};
  kernels::expand_v2(x, nullptr, list, 2, out, ea);
  CHECK(out.shape() == Shape{2, 2});
  kernels::expand_v2(x, &shape, list, 2, out, ea);
  CHECK(out.shape() == Shape{2, 4});
  Tensor y = iota(Shape{3, 2, 1});
  kernels::ExpandAsV2Attrs aa;
  kernels::expand_as_v2(x, &y, out, aa);
  CHECK(out.shape() == Shape{3, 2, 1});

  Tensor t = f32(Shape{2, 2}, {1, 2, 3, 4});
  tile_attr(t, out, {2, 1, 2});
  CHECK(out.shape() == Shape{2, 2, 4});
  CHECK(vals(out) == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4});
  tile_attr(t, out, {3});
  CHECK(out.shape() == Shape{2, 6});
  kernels::tile_grad(t, nullptr, nullptr, 0, out, &dx, {});
  CHECK(vals(dx) == std::vector<double>{3, 6, 9, 12});
  Tensor reps = i32(Shape{2}, {1, 2});
  kernels::tile(t, &reps, nullptr, 0, out, {});
  CHECK(out.shape() == Shape{2, 4});
  CHECK_THROWS_AS(tile_attr(t, out, {0, 1}), rt::Error);
}

TEST_CASE("shape, size and fill_constant_batch_size_like read dims", "[tensor_manip]") {
  Tensor x = iota(Shape{4, 3, 2}), out;
  kernels::shape(x, out);
  CHECK(out.dtype() == DType::kInt32);
  CHECK(vals(out) == std::vector<double>{4, 3, 2});
  kernels::size(x, out);
  CHECK(out.dtype() == DType::kInt64);
  CHECK(out.shape() == Shape{});
  CHECK(vals(out) == std::vector<double>{24});
  kernels::FillConstantBatchSizeLikeAttrs f;
  f.shape = {-1, 5};
  f.value = 2.5f;
  f.input_dim_idx = 1;
  kernels::fill_constant_batch_size_like(x, out, f);
  CHECK(out.shape() == Shape{3, 5});
  CHECK(vals(out)[14] == 2.5);
  f.dtype = 3;  // int64
  f.shape = {2, -1};
  f.output_dim_idx = 1;
  f.str_value = "7";
  kernels::fill_constant_batch_size_like(x, out, f);
  CHECK(out.dtype() == DType::kInt64);
  CHECK(out.shape() == Shape{2, 3});
  CHECK(vals(out)[0] == 7);
  f.output_dim_idx = 0;  // the -1 left in place is not a size
  CHECK_THROWS_AS(kernels::fill_constant_batch_size_like(x, out, f), rt::Error);
  f.input_dim_idx = 5;
  CHECK_THROWS_AS(kernels::fill_constant_batch_size_like(x, out, f), rt::Error);
}

TEST_CASE("finite differences agree with the split/stack/unstack/expand/tile gradients", "[tensor_manip][grad]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(11);
    const auto opt = GradCheckOptions::for_dtype(dt);
    Tensor x = random(Shape{3, 5, 2}, dt, rng);
    // split: the parts joined back along the split axis as the one output
    // gradcheck needs; the gradient is Paddle's, a concat of the parts' gradients.
    kernels::SplitAttrs sa;
    sa.axis = 1, sa.sections = {2, -1, 1};
    std::vector<Tensor> parts(3);
    CHECK_GRADCHECK_OP("split", {&x},
                       [&](Tensor& out) {
                         split_attr(x, parts, sa);
                         const Tensor* ps[] = {&parts[0], &parts[1], &parts[2]};
                         kernels::concat(ps, 3, out, kernels::ConcatAttrs{1});
                       },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         std::vector<Tensor> dparts(3);
                         Tensor* dp[] = {&dparts[0], &dparts[1], &dparts[2]};
                         const Tensor* ps[] = {&parts[0], &parts[1], &parts[2]};
                         kernels::concat_grad(ps, 3, dout, dp, 3, kernels::ConcatAttrs{1});
                         const Tensor* cdp[] = {dp[0], dp[1], dp[2]};
                         kernels::concat(cdp, 3, *g[0], kernels::ConcatAttrs{1});
                       },
                       opt);
    Tensor y = random(Shape{3, 5, 2}, dt, rng);
    kernels::StackAttrs st;
    st.axis = -2;
    CHECK_GRADCHECK_OP("stack", {&x, &y},
                       [&](Tensor& out) {
                         const Tensor* xs[] = {&x, &y};
                         kernels::stack(xs, 2, out, st);
                       },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         const Tensor* xs[] = {&x, &y};
                         Tensor* gs[] = {g[0], g[1]};
                         kernels::stack_grad(xs, 2, dout, gs, 2, st);
                       },
                       opt);
    kernels::UnstackAttrs ua;
    ua.axis = 1, ua.num = 5;
    std::vector<Tensor> ys(5);
    CHECK_GRADCHECK_OP("unstack", {&x},
                       [&](Tensor& out) {
                         Tensor* yp[] = {&ys[0], &ys[1], &ys[2], &ys[3], &ys[4]};
                         kernels::unstack(x, yp, 5, ua);
                         const Tensor* cy[] = {yp[0], yp[1], yp[2], yp[3], yp[4]};
                         kernels::stack(cy, 5, out, kernels::StackAttrs{0});
                       },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         std::vector<Tensor> dy(5);
                         Tensor* dp[] = {&dy[0], &dy[1], &dy[2], &dy[3], &dy[4]};
                         kernels::unstack(dout, dp, 5, kernels::UnstackAttrs{0, 5});
                         const Tensor* cd[] = {dp[0], dp[1], dp[2], dp[3], dp[4]};
                         kernels::unstack_grad(cd, 5, g[0], ua);
                       },
                       opt);
    Tensor small = random(Shape{3, 1, 2}, dt, rng);
    kernels::ExpandV2Attrs ea;
    ea.shape = {2, 3, 4, -1};
    CHECK_GRADCHECK_OP("expand_v2", {&small},
                       [&](Tensor& out) { kernels::expand_v2(small, nullptr, nullptr, 0, out, ea); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::expand_v2_grad(small, nullptr, nullptr, 0, dout, g[0], ea);
                       },
                       opt);
    kernels::ExpandAsV2Attrs aa;
    aa.target_shape = {3, 5, 2};
    CHECK_GRADCHECK_OP("expand_as_v2", {&small}, [&](Tensor& out) { kernels::expand_as_v2(small, &x, out, aa); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::expand_as_v2_grad(small, dout, g[0], aa);
                       },
                       opt);
    kernels::TileAttrs ta;
    ta.repeat_times = {2, 1, 3, 2};
    CHECK_GRADCHECK_OP("tile", {&small}, [&](Tensor& out) { kernels::tile(small, nullptr, nullptr, 0, out, ta); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::tile_grad(small, nullptr, nullptr, 0, dout, g[0], ta);
                       },
                       opt);
    kernels::ExpandAttrs v1;  // Fluid 1.x's expand: one count per dim of X
    v1.expand_times = {2, 3, 1};
    CHECK_GRADCHECK_OP("expand", {&small}, [&](Tensor& out) { kernels::expand(small, nullptr, nullptr, 0, out, v1); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::expand_grad(small, nullptr, nullptr, 0, dout, g[0], v1);
                       },
                       opt);
  }
}
