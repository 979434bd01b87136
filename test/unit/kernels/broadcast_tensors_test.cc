// test/unit/kernels/broadcast_tensors_test.cc - broadcast_tensors: the common shape, dtypes kept, refusals, gradients.
#include <catch2/catch.hpp>

#include "kernels/tensor_manip.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

TEST_CASE("broadcast_tensors: every input to the shape they all broadcast to", "[broadcast_tensors]") {
  const Tensor a = f32(Shape{2, 1}, {1, 2}), b = i64(Shape{3}, {10, 20, 30}), c = f64(Shape{1, 1}, {7});
  const Tensor* xs[] = {&a, &b, &c};
  Tensor oa, ob, oc;
  Tensor* outs[] = {&oa, &ob, &oc};
  k::broadcast_tensors(xs, 3, outs, 3);
  CHECK(oa.shape() == Shape{2, 3});
  CHECK(values(oa) == std::vector<double>{1, 1, 1, 2, 2, 2});
  CHECK(ob.dtype() == DType::kInt64);
  CHECK(values(ob) == std::vector<double>{10, 20, 30, 10, 20, 30});
  CHECK(oc.dtype() == DType::kFP64);
  CHECK(values(oc) == std::vector<double>(6, 7));
  // An output may be its own input.
  Tensor x = f32(Shape{1, 2}, {3, 4}), y = f32(Shape{2, 1}, {5, 6});
  const Tensor* in_place[] = {&x, &y};
  Tensor* same[] = {&x, &y};
  k::broadcast_tensors(in_place, 2, same, 2);
  CHECK(values(x) == std::vector<double>{3, 4, 3, 4});
  CHECK(values(y) == std::vector<double>{5, 5, 6, 6});
}

TEST_CASE("broadcast_tensors: refusals", "[broadcast_tensors][errors]") {
  Tensor a = f32(Shape{2}, {1, 2}), b = f32(Shape{3}, {1, 2, 3}), o0, o1;
  const Tensor* xs[] = {&a, &b};
  Tensor* outs[] = {&o0, &o1};
  CHECK_THROWS_WITH(k::broadcast_tensors(xs, 2, outs, 2), Catch::Contains("cannot be broadcast"));
  CHECK_THROWS_WITH(k::broadcast_tensors(xs, 2, outs, 1), Catch::Contains("one per input"));
  Tensor c = f32(Shape{1}, {9});
  const Tensor* ok[] = {&a, &c};
  Tensor* crossed[] = {&c, &o1};  // output 0 is input 1
  CHECK_THROWS_WITH(k::broadcast_tensors(ok, 2, crossed, 2), Catch::Contains("output #0 is also input #1"));
}

TEST_CASE("broadcast_tensors_grad: sums over the repeated positions", "[broadcast_tensors][grad]") {
  std::mt19937 rng(12);
  Tensor a = random(Shape{3, 1}, DType::kFP64, rng), b = random(Shape{4}, DType::kFP64, rng);
  Tensor c = random(Shape{1, 3, 4}, DType::kFP64, rng);
  const Tensor* xs[] = {&a, &b, &c};
  // One output at a time through the checker: the loss reads output `pick` only.
  for (int pick = 0; pick < 3; ++pick) {
    INFO("output " << pick);
    CHECK_GRADCHECK_OP("broadcast_tensors", {&a, &b, &c},
                       [&](Tensor& out) {
                         Tensor o[3];
                         Tensor* outs[] = {&o[0], &o[1], &o[2]};
                         k::broadcast_tensors(xs, 3, outs, 3);
                         out.copy_from(o[pick]);
                       },
                       [&](const Tensor& d, std::vector<Tensor*>& g) {
                         Tensor zero[3];
                         const Tensor* douts[3];
                         for (int q = 0; q < 3; ++q) {
                           zero[q].resize(d.shape(), d.dtype());
                           zero[q].zero();
                           douts[q] = q == pick ? &d : &zero[q];
                         }
                         k::broadcast_tensors_grad(xs, 3, douts, 3, g.data(), 3);
                       });
  }
}
