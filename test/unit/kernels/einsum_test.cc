// test/unit/kernels/einsum_test.cc - einsum: the equation parser on malformed input, hand-checked products, gradients.
#include <catch2/catch.hpp>

#include "kernels/einsum.h"
#include "kernels/shapes/einsum.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::EinsumAttrs;

namespace {

EinsumAttrs eq(const char* e) {
  EinsumAttrs a;
  a.equation = e;
  return a;
}

void run(const char* e, std::vector<const Tensor*> xs, Tensor& out) {
  kernels::einsum(xs.data(), static_cast<int>(xs.size()), out, nullptr, 0, nullptr, 0, eq(e));
}

std::string parse_error(const char* e, int n) {
  shapes::EinsumEquation q;
  return shapes::parse_einsum(e, n, q);
}

std::string plan_error(const char* e, std::vector<Shape> shapes) {
  shapes::EinsumEquation q;
  std::string err = shapes::parse_einsum(e, static_cast<int>(shapes.size()), q);
  if (!err.empty()) return err;
  shapes::EinsumPlan p;
  return shapes::plan_einsum(q, shapes.data(), static_cast<int>(shapes.size()), p);
}

}  // namespace

TEST_CASE("einsum: malformed equations are located errors", "[einsum]") {
  CHECK(parse_error("ij,jk->ik", 2).empty());
  CHECK_THAT(parse_error("ij,jk->ik", 1), Catch::Contains("at character 2: more terms"));
  CHECK_THAT(parse_error("ij->i->j", 1), Catch::Contains("at character 5: a second \"->\""));
  CHECK_THAT(parse_error("i-j", 1), Catch::Contains("at character 1: '-' not followed by '>'"));
  CHECK_THAT(parse_error("i1", 1), Catch::Contains("at character 1: unexpected '1'"));
  CHECK_THAT(parse_error("i\x01", 1), Catch::Contains("byte 0x01"));
  CHECK_THAT(parse_error("i..j", 1), Catch::Contains("not part of \"...\""));
  CHECK_THAT(parse_error("......", 1), Catch::Contains("a second \"...\""));
  CHECK_THAT(parse_error("abcdefghijk", 1), Catch::Contains("more than 9 labels"));
  CHECK_THAT(parse_error("ij", 2), Catch::Contains("1 term for 2 operands"));
  CHECK_THAT(parse_error("ij->i,j", 1), Catch::Contains("',' in the output"));
  CHECK_THAT(plan_error("ij->k", {Shape{2, 3}}), Catch::Contains("output label 'k' is not among"));
  CHECK_THAT(plan_error("ij->jj", {Shape{2, 3}}), Catch::Contains("appears twice"));
  CHECK_THAT(plan_error("ij", {Shape{2, 3, 4}}), Catch::Contains("names 2 dims"));
  CHECK_THAT(plan_error("ij,jk->ik", {Shape{2, 3}, Shape{4, 5}}), Catch::Contains("label 'j' is 3"));
  CHECK_THAT(plan_error("...i,...i->i", {Shape{2, 3}, Shape{2, 3}}), Catch::Contains("leave out \"...\""));
  CHECK_THAT(plan_error("...i,...i->...", {Shape{2, 3}, Shape{4, 3}}), Catch::Contains("does not broadcast"));
}

TEST_CASE("einsum: products, transposes, traces by hand", "[einsum]") {
  Tensor a = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), b = f32(Shape{3, 2}, {1, 0, 0, 1, 1, 1}), out;
  run("ij,jk->ik", {&a, &b}, out);
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>{4, 5, 10, 11});
  run("ij->ji", {&a}, out);
  CHECK(values(out) == std::vector<double>{1, 4, 2, 5, 3, 6});
  Tensor m = f32(Shape{2, 2}, {1, 2, 3, 4});
  run("ii", {&m}, out);
  CHECK(out.shape().rank == 0);
  CHECK(values(out) == std::vector<double>{5});
  CHECK_THROWS_WITH(run("ij,jk->ik", {&a, &a}, out), Catch::Contains("einsum: label 'j'"));
}

TEST_CASE("einsum_grad: finite differences (matmul, broadcast, diagonal, three operands)", "[einsum][grad]") {
  std::mt19937 rng(3);
  struct Case {
    const char* eq;
    std::vector<Shape> shapes;
  } cases[] = {{"bij,bjk->bik", {Shape{2, 3, 4}, Shape{2, 4, 2}}},
               {"...ij,...jk->...ik", {Shape{2, 1, 2, 3}, Shape{3, 3, 2}}},
               {"ii->i", {Shape{3, 3}}},
               {"bn,anm,bm->ba", {Shape{2, 3}, Shape{2, 3, 2}, Shape{2, 2}}},
               // >= 32K multiply-adds: the batched-product (GEMM) path, forward and both gradients.
               {"ji,jk->ki", {Shape{32, 32}, Shape{32, 32}}}};
  for (DType dt : {DType::kFP64, DType::kFP32})
    for (const auto& c : cases) {
      if (dt == DType::kFP32 && c.shapes[0].numel() > 100) continue;  // fp64 covers the big one
      std::vector<Tensor> xs;
      for (const auto& s : c.shapes) xs.push_back(random(s, dt, rng));
      std::vector<Tensor*> wrt;
      std::vector<const Tensor*> in;
      for (auto& x : xs) wrt.push_back(&x), in.push_back(&x);
      INFO(c.eq);
      CHECK_GRADCHECK_OP("einsum", wrt, [&](Tensor& out) { run(c.eq, in, out); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::einsum_grad(in.data(), static_cast<int>(in.size()), nullptr, 0, dout, g.data(),
                                                static_cast<int>(g.size()), eq(c.eq));
                         });
    }
}
