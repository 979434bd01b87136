// test/unit/kernels/prelu_test.cc - prelu: the slope each mode assigns, errors, X and Alpha gradients.
#include <catch2/catch.hpp>

#include "kernels/prelu.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::PreluAttrs mode(const char* m, const char* fmt = "NCHW") {
  k::PreluAttrs a;
  a.mode = m;
  a.data_format = fmt;
  return a;
}

}  // namespace

TEST_CASE("prelu: all, channel (both layouts) and element slopes", "[prelu]") {
  // X [1, 2, 2]: channel-first channels are rows, channel-last ones columns.
  const Tensor x = f32(Shape{1, 2, 2}, {-1, -2, 3, -4});
  Tensor out;
  k::prelu(x, f32(Shape{1}, {0.5f}), out, mode("all"));
  CHECK(values(out) == std::vector<double>{-0.5, -1, 3, -2});
  k::prelu(x, f32(Shape{2}, {0.5f, 0.25f}), out, mode("channel"));
  CHECK(values(out) == std::vector<double>{-0.5, -1, 3, -1});
  k::prelu(x, f32(Shape{2}, {0.5f, 0.25f}), out, mode("channel", "NHWC"));
  CHECK(values(out) == std::vector<double>{-0.5, -0.5, 3, -1});
  k::prelu(x, f32(Shape{1, 2, 2}, {1, 2, 3, 4}), out, mode("element"));
  CHECK(values(out) == std::vector<double>{-1, -4, 3, -16});
  // A batch of two repeats the element slopes per item.
  k::prelu(f64(Shape{2, 2}, {-1, -1, -2, 2}), f64(Shape{2}, {0.5, 2}), out, mode("element"));
  CHECK(values(out) == std::vector<double>{-0.5, -2, -1, 2});
}

TEST_CASE("prelu: Alpha's size, modes and dtypes are checked", "[prelu]") {
  Tensor out;
  const Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK_THROWS_WITH(k::prelu(x, f32(Shape{2}, {1, 1}), out, mode("channel")),
                    Catch::Contains("prelu") && Catch::Contains("needs 3"));
  CHECK_THROWS_WITH(k::prelu(x, f32(Shape{2}, {1, 1}), out, mode("all")), Catch::Contains("needs 1"));
  CHECK_THROWS_WITH(k::prelu(x, f32(Shape{1}, {1}), out, mode("row")), Catch::Contains("mode row"));
  CHECK_THROWS_WITH(k::prelu(f32(Shape{3}, {1, 2, 3}), f32(Shape{3}, {1, 1, 1}), out, mode("element")),
                    Catch::Contains("rank >= 2"));
  CHECK_THROWS_WITH(k::prelu(x, f64(Shape{1}, {1}), out, mode("all")), Catch::Contains("float64"));
  CHECK_THROWS_WITH(k::prelu(x, f32(Shape{1}, {1}), out, mode("all", "HWNC")), Catch::Contains("data_format"));
}

TEST_CASE("prelu grads (X and Alpha) match finite differences", "[prelu][grad][gradcheck]") {
  struct Case {
    const char* mode;
    const char* fmt;
    Shape alpha;
  };
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const Case& c : {Case{"all", "NCHW", Shape{1}}, Case{"channel", "NCHW", Shape{3}},
                          Case{"channel", "NHWC", Shape{4}}, Case{"element", "NHWC", Shape{1, 3, 2, 4}}}) {
      INFO(c.mode << " " << c.fmt << " " << rt::dtype_name(dt));
      std::mt19937 rng(21);
      // |X| >= 0.05 keeps the finite difference off the kink at 0.
      Tensor x = random(Shape{2, 3, 2, 4}, dt, rng, -1, 1, 0.05);
      Tensor alpha = random(c.alpha, dt, rng, 0.1, 0.9);
      const k::PreluAttrs a = mode(c.mode, c.fmt);
      CHECK_GRADCHECK_OP("prelu", {&x, &alpha}, [&](Tensor& out) { k::prelu(x, alpha, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           k::prelu_grad(x, alpha, dout, g[0], g[1], a);
                         });
    }
}

TEST_CASE("prelu_grad in place: X@GRAD over Out@GRAD's bytes", "[prelu][grad]") {
  const Tensor x = f32(Shape{1, 2}, {-2, 3});
  const Tensor alpha = f32(Shape{1}, {0.5f});
  Tensor d = f32(Shape{1, 2}, {1, 1});
  Tensor da;
  k::prelu_grad(x, alpha, d, &d, &da, mode("all"));
  CHECK(values(d) == std::vector<double>{0.5, 1});
  CHECK(values(da) == std::vector<double>{-2});
}
