// test/unit/kernels/strided_slice_test.cc - strided_slice: Paddle's bound rules, run-time bounds, errors, gradient.
#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/strided_slice.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::StridedSliceAttrs ss(std::vector<int> axes, std::vector<int> starts, std::vector<int> ends,
                        std::vector<int> strides, std::vector<int> decrease = {}) {
  k::StridedSliceAttrs a;
  a.axes = std::move(axes);
  a.starts = std::move(starts);
  a.ends = std::move(ends);
  a.strides = std::move(strides);
  a.infer_flags.assign(a.axes.size(), 1);
  a.decrease_axis = std::move(decrease);
  return a;
}

// strided_slice with the attributes only.
void run(const Tensor& x, Tensor& out, const k::StridedSliceAttrs& a) {
  k::strided_slice(x, nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr, 0, out, a);
}

std::vector<double> sliced(int64_t n, int s, int e, int t) {
  Tensor out;
  run(iota(Shape{n}), out, ss({0}, {s}, {e}, {t}));
  return values(out);
}

constexpr int kMax = 2147483647;

}  // namespace

TEST_CASE("strided_slice: Python's steps with Paddle's bound rules", "[strided_slice]") {
  CHECK(sliced(7, 1, kMax, 3) == std::vector<double>{1, 4});                 // x[1::3]
  CHECK(sliced(5, kMax, -1, -1) == std::vector<double>{4, 3, 2, 1, 0});      // x[::-1]: end -1 means through 0
  CHECK(sliced(6, 4, 0, -3) == std::vector<double>{4, 1});                   // x[4:0:-3]
  CHECK(sliced(6, -1, -1, -2) == std::vector<double>{5, 3, 1});              // x[-1::-2]
  CHECK(sliced(7, 6, -8, -2) == std::vector<double>{6, 4, 2});               // end -8 + 7 clamps at 0, excluded
  CHECK(sliced(9, -3, 100, 2) == std::vector<double>{6, 8});                 // start from the end, end clamped
  CHECK(sliced(5, 5, kMax, 2).empty());                                      // starting at the end: nothing
  CHECK(sliced(5, 3, 3, -1).empty());
}

TEST_CASE("strided_slice: several axes, decrease_axis, x[-1]", "[strided_slice]") {
  Tensor out;
  run(iota(Shape{2, 3, 4}), out, ss({1, 2}, {0, 3}, {kMax, -1}, {2, -2}));  // x[:, ::2, 3::-2]
  CHECK(out.shape() == Shape{2, 2, 2});
  CHECK(values(out) == std::vector<double>{3, 1, 11, 9, 15, 13, 23, 21});
  run(iota(Shape{3, 4}), out, ss({0, 1}, {1, 0}, {2, kMax}, {1, 3}, {0}));  // x[1, ::3]
  CHECK(out.shape() == Shape{2});
  CHECK(values(out) == std::vector<double>{4, 7});
  auto last = ss({0, 1}, {-1, 1}, {0, kMax}, {1, 2}, {0});  // x[-1, 1::2]: Paddle's start -1, end 0, flag -1
  last.infer_flags = {-1, 1};
  run(iota(Shape{3, 4}), out, last);
  CHECK(values(out) == std::vector<double>{9, 11});
  run(iota(Shape{5}), out, ss({0}, {2}, {3}, {2}, {0}));  // every dim dropped: [1], as Paddle's kernel gives
  CHECK(out.shape() == Shape{1});
  CHECK(values(out) == std::vector<double>{2});
  Tensor ints;
  run(i64(Shape{4}, {10, 11, 12, 13}), ints, ss({0}, {3}, {-5}, {-2}));
  CHECK(ints.dtype() == DType::kInt64);
  CHECK(values(ints) == std::vector<double>{13, 11});
}

TEST_CASE("strided_slice: tensors and tensor lists win over the attributes", "[strided_slice]") {
  const Tensor x = iota(Shape{8});
  const auto a = ss({0}, {0}, {2}, {1});
  Tensor out;
  const Tensor s = i32(Shape{1}, {7}), e = i64(Shape{1}, {0}), t = i32(Shape{1}, {-3});
  k::strided_slice(x, &s, &e, &t, nullptr, 0, nullptr, 0, nullptr, 0, out, a);
  CHECK(values(out) == std::vector<double>{7, 4, 1});
  const Tensor* sl[] = {&s};
  const Tensor* tl[] = {&t};
  k::strided_slice(x, nullptr, nullptr, nullptr, sl, 1, nullptr, 0, tl, 1, out, a);  // ends from the attribute
  CHECK(values(out) == std::vector<double>{7, 4});  // from 7 down to the attribute's end 2, exclusive
}

TEST_CASE("strided_slice: bounds Paddle refuses or would read past are located errors", "[strided_slice]") {
  Tensor out;
  const Tensor x = iota(Shape{5});
  CHECK_THROWS_WITH(run(x, out, ss({0}, {0}, {5}, {0})), Catch::Contains("strided_slice") && Catch::Contains("0"));
  CHECK_THROWS_WITH(run(x, out, ss({0}, {3}, {1}, {1})), Catch::Contains("after end"));
  CHECK_THROWS_WITH(run(x, out, ss({0}, {1}, {3}, {-1})), Catch::Contains("before end"));
  CHECK_THROWS_WITH(run(x, out, ss({0}, {7}, {kMax}, {2})), Catch::Contains("past the dim"));
  CHECK_THROWS_WITH(run(x, out, ss({0}, {8}, {6}, {-1})), Catch::Contains("past the dim"));
  CHECK_THROWS_WITH(run(x, out, ss({1}, {0}, {1}, {1})), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(run(x, out, ss({0, 0}, {0, 0}, {1, 1}, {1, 1})), Catch::Contains("twice"));
  CHECK_THROWS_WITH(run(x, out, ss({0}, {0}, {5}, {})), Catch::Contains("strides has 0 values"));
  CHECK_THROWS_WITH(run(x, out, ss({0}, {0}, {5}, {2}, {0})), Catch::Contains("decrease_axis 0 has size 3"));
  const Tensor two = i32(Shape{2}, {1, 2});
  CHECK_THROWS_WITH(k::strided_slice(x, &two, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr, 0, out,
                                     ss({0}, {0}, {5}, {1})),
                    Catch::Contains("starts has 2 values"));
  Tensor dx;
  CHECK_THROWS_WITH(k::strided_slice_grad(x, nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr, 0,
                                          iota(Shape{4}), &dx, ss({0}, {0}, {5}, {2})),
                    Catch::Contains("does not match"));
}

TEST_CASE("strided_slice grad matches finite differences", "[strided_slice][grad][gradcheck]") {
  // Positive and negative steps, a decreased axis (Paddle cannot differentiate that one; the rule is the same).
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const auto& a : {ss({1, 2}, {0, 4}, {kMax, 0}, {2, -3}), ss({0, 2}, {1, -1}, {2, -1}, {1, -2}, {0})}) {
      INFO(rt::dtype_name(dt));
      std::mt19937 rng(3);
      Tensor x = random(Shape{2, 3, 6}, dt, rng);
      CHECK_GRADCHECK_OP("strided_slice", {&x}, [&](Tensor& out) { run(x, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           k::strided_slice_grad(x, nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr, 0,
                                                 dout, g[0], a);
                         });
    }
}
