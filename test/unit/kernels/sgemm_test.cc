// test/unit/kernels/sgemm_test.cc - the packed fp32 GEMM against a double reference at every blocking edge.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/sgemm.h"
#include "runtime/parallel.h"

namespace {

struct Case {
  int64_t M, N, K;
  bool ta, tb;
  float alpha, beta;
};

/// Runs packed_sgemm on random operands and compares with the product
/// formed in double. beta == 0 starts C as NaN: BLAS semantics say C is then
/// not read, so any NaN in the result means it was.
void check(const Case& c, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(c.M * c.K), b(c.K * c.N), out(c.M * c.N);
  for (float& v : a) v = u(rng);
  for (float& v : b) v = u(rng);
  for (float& v : out) v = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : u(rng);
  const std::vector<float> before = out;
  auto A = [&](int64_t i, int64_t p) { return double(c.ta ? a[p * c.M + i] : a[i * c.K + p]); };
  auto B = [&](int64_t p, int64_t j) { return double(c.tb ? b[j * c.K + p] : b[p * c.N + j]); };
  fluidc::kernels::detail::packed_sgemm(c.ta, c.tb, c.M, c.N, c.K, c.alpha, a.data(), c.ta ? c.M : c.K,
                                        b.data(), c.tb ? c.K : c.N, c.beta, out.data(), c.N);
  int64_t wrong = 0;
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = 0; j < c.N; ++j) {
      double want = 0.0;
      for (int64_t p = 0; p < c.K; ++p) want += A(i, p) * B(p, j);
      want = c.alpha * want + (c.beta == 0.0f ? 0.0 : c.beta * double(before[i * c.N + j]));
      const double got = out[i * c.N + j];
      if (!(std::fabs(got - want) <= 1e-4 * (1.0 + std::fabs(want)))) ++wrong;
    }
  INFO("M=" << c.M << " N=" << c.N << " K=" << c.K << " ta=" << c.ta << " tb=" << c.tb << " alpha=" << c.alpha
            << " beta=" << c.beta);
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("packed sgemm: every transpose, alpha and beta, at and across the blocking edges", "[sgemm]") {
  std::mt19937 rng(11);
  fluidc::rt::set_num_threads(1);
  // Sizes straddle the register tile (8 x 32), the K slice (256), the
  // packed row block (128) and the packed column block (2048).
  const int64_t shapes[][3] = {{1, 1, 1},     {7, 31, 5},     {8, 32, 256},  {9, 33, 257},  {64, 512, 784},
                               {128, 64, 512}, {129, 65, 513}, {200, 3, 300}, {3, 2100, 40}, {130, 2049, 17},
                               // conv shapes: narrow edge panels (49, 196 columns), A read in place
                               // across two row blocks (136 rows, 96 columns)
                               {64, 49, 600},  {16, 196, 70},  {136, 96, 300}};
  for (const auto& s : shapes)
    for (int t = 0; t < 4; ++t)
      check({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, t == 3 ? 0.5f : 1.0f, t == 1 ? 1.0f : (t == 2 ? -0.5f : 0.0f)},
            rng);
}

TEST_CASE("packed sgemm split over threads: by columns, by rows, uneven slices", "[sgemm][threads]") {
  std::mt19937 rng(12);
  fluidc::rt::set_num_threads(3);
  // 64x512: columns; 600x40: rows (too few columns to split); 97x161 and 130x2049: ragged slices.
  const int64_t shapes[][3] = {{64, 512, 784}, {600, 40, 300}, {97, 161, 257}, {130, 2049, 17}};
  for (const auto& s : shapes)
    for (int t = 0; t < 4; ++t) check({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, 1.0f, t == 3 ? 0.5f : 0.0f}, rng);
  fluidc::rt::set_num_threads(1);
}

TEST_CASE("row times matrix, on one thread and split over three", "[sgemm][threads]") {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int threads : {1, 3}) {
    fluidc::rt::set_num_threads(threads);
    for (int64_t N : {1, 17, 512, 1000}) {
      const int64_t K = 783;
      std::vector<float> a(K), b(K * N), c(N, 7.0f);
      for (float& v : a) v = u(rng);
      for (float& v : b) v = u(rng);
      fluidc::kernels::detail::row_times_matrix(N, K, 0.5f, a.data(), b.data(), 0.0f, c.data());
      int64_t wrong = 0;
      for (int64_t j = 0; j < N; ++j) {
        double want = 0.0;
        for (int64_t k = 0; k < K; ++k) want += double(a[k]) * b[k * N + j];
        if (!(std::fabs(c[j] - 0.5 * want) <= 1e-4 * (1.0 + std::fabs(want)))) ++wrong;
      }
      INFO("threads=" << threads << " N=" << N);
      CHECK(wrong == 0);
    }
  }
  fluidc::rt::set_num_threads(1);
}

TEST_CASE("packed sgemm: K = 0 scales C by beta", "[sgemm]") {
  std::vector<float> c = {1.0f, 2.0f, 3.0f, 4.0f};
  fluidc::kernels::detail::packed_sgemm(false, false, 2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, 0.5f, c.data(), 2);
  CHECK(c == std::vector<float>{0.5f, 1.0f, 1.5f, 2.0f});
}
