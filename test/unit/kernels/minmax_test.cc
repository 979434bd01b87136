// test/unit/kernels/minmax_test.cc - elementwise max/min/fmax/fmin and heaviside: values, ties, NaN, broadcast gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kernels/elementwise.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

using Fwd = void (*)(const Tensor&, const Tensor&, Tensor&, const k::ElementwiseAttrs&);
using Bwd = void (*)(const Tensor&, const Tensor&, const Tensor&, Tensor*, Tensor*, const k::ElementwiseAttrs&);

struct Op {
  const char* name;
  Fwd fwd;
  Bwd bwd;
};

const Op kOps[] = {{"elementwise_max", k::elementwise_max, k::elementwise_max_grad},
                   {"elementwise_min", k::elementwise_min, k::elementwise_min_grad},
                   {"elementwise_fmax", k::elementwise_fmax, k::elementwise_fmax_grad},
                   {"elementwise_fmin", k::elementwise_fmin, k::elementwise_fmin_grad}};

}  // namespace

TEST_CASE("max/min/fmax/fmin: values, NaN, and which operand a tie's gradient takes", "[elementwise][minmax]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Elements: X < Y, X > Y, X == Y, X NaN, Y NaN.
  const Tensor x = f32(Shape{5}, {1, 3, 2, nan, 4});
  const Tensor y = f32(Shape{5}, {2, 1, 2, 5, nan});
  const Tensor d = f32(Shape{5}, {1, 1, 1, 1, 1});
  const k::ElementwiseAttrs a;
  struct Want {
    std::vector<double> out_head;  // the first three outputs (no NaN involved)
    std::vector<double> dx, dy;
  };
  const Want want[] = {{{2, 3, 2}, {0, 1, 0, 0, 0}, {1, 0, 1, 1, 1}},   // max: tie to Y; NaN compares false
                       {{1, 1, 2}, {1, 0, 0, 0, 0}, {0, 1, 1, 1, 1}},   // min: tie to Y
                       {{2, 3, 2}, {0, 1, 1, 0, 1}, {1, 0, 0, 1, 0}},   // fmax: tie to X; a NaN Y gives X
                       {{1, 1, 2}, {1, 0, 1, 0, 1}, {0, 1, 0, 1, 0}}};  // fmin: tie to X
  for (size_t i = 0; i < 4; ++i) {
    const Op& op = kOps[i];
    INFO(op.name);
    Tensor out, dx, dy;
    op.fwd(x, y, out, a);
    const std::vector<double> v = values(out);
    CHECK(std::vector<double>(v.begin(), v.begin() + 3) == want[i].out_head);
    op.bwd(x, y, d, &dx, &dy, a);
    CHECK(values(dx) == want[i].dx);
    CHECK(values(dy) == want[i].dy);
  }
  // fmax/fmin skip a NaN operand; max/min follow their comparison.
  Tensor out;
  k::elementwise_fmax(x, y, out, a);
  CHECK(values(out)[3] == 5);
  CHECK(values(out)[4] == 4);
  k::elementwise_fmin(x, y, out, a);
  CHECK(values(out)[3] == 5);
  CHECK(values(out)[4] == 4);
  k::elementwise_min(i32(Shape{3}, {1, -4, 7}), i32(Shape{1}, {0}), out, a);
  CHECK(values(out) == std::vector<double>{0, -4, 0});
}

TEST_CASE("max/min/fmax/fmin grads match finite differences, Y broadcast", "[elementwise][minmax][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const Op& op : kOps)
      for (int axis : {-1, 1}) {
        INFO(op.name << " axis " << axis << " " << rt::dtype_name(dt));
        std::mt19937 rng(4);
        Tensor x = random(Shape{2, 3, 4}, dt, rng);
        // Y [3] at axis 1, or [4] trailing; each Y element at least 0.05 from every X element it
        // meets, so the perturbation never flips a comparison.
        const Shape ys = axis == 1 ? Shape{3} : Shape{4};
        Tensor y = random(ys, dt, rng);
        for (int64_t i = 0; i < x.numel(); ++i) {
          const int64_t j = axis == 1 ? i / 4 % 3 : i % 4;
          if (std::abs(get(x, i) - get(y, j)) < 0.05) set(x, i, get(y, j) + 0.1);
        }
        k::ElementwiseAttrs a;
        a.axis = axis;
        CHECK_GRADCHECK_OP(op.name, {&x, &y}, [&](Tensor& out) { op.fwd(x, y, out, a); },
                           [&](const Tensor& dout, std::vector<Tensor*>& g) { op.bwd(x, y, dout, g[0], g[1], a); });
      }
}

TEST_CASE("heaviside: 1, Y or 0 by X's sign; Y's gradient where X is 0", "[elementwise][heaviside][gradcheck]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor out;
  const k::ElementwiseAttrs a;
  k::elementwise_heaviside(f32(Shape{5}, {-1, 0, 2, nan, 0}), f32(Shape{5}, {7, 8, 9, 10, 11}), out, a);
  CHECK(values(out) == std::vector<double>{0, 8, 1, 0, 11});
  // Y broadcast over X's rows: its gradient sums the rows where X is 0.
  std::mt19937 rng(5);
  Tensor x = f64(Shape{3, 2}, {0, 1, -1, 0, 0, 0}), y = random(Shape{2}, DType::kFP64, rng);
  CHECK_GRADCHECK_OP("elementwise_heaviside", {&y}, [&](Tensor& o) { k::elementwise_heaviside(x, y, o, a); },
                     [&](const Tensor& d, std::vector<Tensor*>& g) {
                       k::elementwise_heaviside_grad(x, y, d, nullptr, g[0], a);
                     });
  Tensor dx, dy;
  k::elementwise_heaviside_grad(x, y, f64(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), &dx, &dy, a);
  CHECK(values(dx) == std::vector<double>(6, 0.0));  // a step: no gradient for X
  CHECK(values(dy) == std::vector<double>{1 + 5, 4 + 6});
}
