// test/tools/npy_compare.cc - compares two .npy arrays elementwise within a tolerance; the e2e tests' judge.
//
// usage: npy_compare ACTUAL EXPECTED [--rtol R] [--atol A]
// An element passes when |actual - expected| <= atol + rtol * |expected|.
// Shapes and dtypes must match exactly. Exit 0 on match, 1 on mismatch.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/error.h"
#include "runtime/npy.h"

using fluidc::rt::DType;
using fluidc::rt::Tensor;

namespace {

double at(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFP32: return t.data<float>()[i];
    case DType::kFP64: return t.data<double>()[i];
    case DType::kInt32: return t.data<int32_t>()[i];
    case DType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::kBool: return t.data<bool>()[i];
    default: fluidc::rt::fail(std::string("unsupported dtype ") + fluidc::rt::dtype_name(t.dtype()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: npy_compare ACTUAL EXPECTED [--rtol R] [--atol A]\n");
    return 2;
  }
  double rtol = 1e-5, atol = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rtol")) rtol = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--atol")) atol = std::atof(argv[i + 1]);
    else { std::fprintf(stderr, "npy_compare: unknown option %s\n", argv[i]); return 2; }
  }
  try {
    Tensor a, e;
    fluidc::rt::read_npy(argv[1], a);
    fluidc::rt::read_npy(argv[2], e);
    if (a.dtype() != e.dtype() || a.shape() != e.shape()) {
      std::printf("MISMATCH: %s is %s%s but %s is %s%s\n", argv[1], dtype_name(a.dtype()), a.shape().str().c_str(),
                  argv[2], dtype_name(e.dtype()), e.shape().str().c_str());
      return 1;
    }
    int64_t bad = 0, worst = -1;
    double worst_excess = 0, max_rel = 0;
    for (int64_t i = 0; i < e.numel(); ++i) {
      double x = at(a, i), y = at(e, i), diff = std::fabs(x - y), allowed = atol + rtol * std::fabs(y);
      if (y != 0) max_rel = std::fmax(max_rel, diff / std::fabs(y));
      if (!(diff <= allowed)) {  // NaN fails
        ++bad;
        if (worst < 0 || diff - allowed > worst_excess) worst = i, worst_excess = diff - allowed;
      }
    }
    if (bad) {
      std::printf("MISMATCH: %lld of %lld elements outside atol %g + rtol %g; worst at flat index %lld: actual %.9g, "
                  "expected %.9g\n",
                  static_cast<long long>(bad), static_cast<long long>(e.numel()), atol, rtol,
                  static_cast<long long>(worst), at(a, worst), at(e, worst));
      return 1;
    }
    std::printf("match: %lld elements %s%s, max relative error %.3g (rtol %g, atol %g)\n",
                static_cast<long long>(e.numel()), dtype_name(e.dtype()), e.shape().str().c_str(), max_rel, rtol, atol);
    return 0;
  } catch (const fluidc::rt::Error& err) {
    std::printf("ERROR: %s\n", err.what());
    return 1;
  }
}
