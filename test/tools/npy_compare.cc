// test/tools/npy_compare.cc - compares two .npy arrays elementwise within a tolerance; the e2e tests' judge.
//
// usage: npy_compare ACTUAL EXPECTED [--rtol R] [--atol A]
// An element passes when |actual - expected| <= atol + rtol * |expected|.
// Shapes and dtypes must match exactly. Exit 0 on match, 1 on mismatch.
// Other files than .npy are read as Paddle tensor records (combined
// .pdiparams files, or the one-record files of save_vars / --save-dir) and
// compared record by record, in file order; a one-record file compares
// with a .npy.
// usage: npy_compare --head N IN OUT   writes the first N rows of IN to OUT
// (a test's first batch of a data file).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fstream>
#include <vector>

#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/tensor_record.h"

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

// Every tensor record of a combined parameter file, in file order.
std::vector<Tensor> read_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fluidc::rt::fail(path + ": cannot open");
  std::vector<Tensor> out;
  while (in.peek() != std::char_traits<char>::eof()) {
    out.emplace_back();
    fluidc::rt::read_tensor_record(in, out.back(), path + ", record " + std::to_string(out.size() - 1));
  }
  return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A .npy file's array, or every record of a tensor-record file.
std::vector<Tensor> read_tensors(const std::string& path) {
  if (!ends_with(path, ".npy")) return read_records(path);
  std::vector<Tensor> one(1);
  fluidc::rt::read_npy(path, one[0]);
  return one;
}

// Compares one pair of tensors; prints a line and returns whether they match.
bool compare(const Tensor& a, const Tensor& e, const std::string& what, double rtol, double atol) {
  if (a.dtype() != e.dtype() || a.shape() != e.shape()) {
    std::printf("MISMATCH: %s: actual is %s%s but expected is %s%s\n", what.c_str(), dtype_name(a.dtype()),
                a.shape().str().c_str(), dtype_name(e.dtype()), e.shape().str().c_str());
    return false;
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
    std::printf("MISMATCH: %s: %lld of %lld elements outside atol %g + rtol %g; worst at flat index %lld: actual "
                "%.9g, expected %.9g\n",
                what.c_str(), static_cast<long long>(bad), static_cast<long long>(e.numel()), atol, rtol,
                static_cast<long long>(worst), at(a, worst), at(e, worst));
    return false;
  }
  std::printf("match: %s: %lld elements %s%s, max relative error %.3g (rtol %g, atol %g)\n", what.c_str(),
              static_cast<long long>(e.numel()), dtype_name(e.dtype()), e.shape().str().c_str(), max_rel, rtol, atol);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: npy_compare ACTUAL EXPECTED [--rtol R] [--atol A]\n");
    return 2;
  }
  if (argc == 5 && !std::strcmp(argv[1], "--head")) {
    try {
      Tensor in, out;
      fluidc::rt::read_npy(argv[3], in);
      fluidc::rt::Shape s = in.shape();
      const int64_t rows = std::min<int64_t>(std::atoll(argv[2]), s[0]);
      const size_t row_bytes = s[0] ? in.nbytes() / static_cast<size_t>(s[0]) : 0;
      s[0] = rows;
      out.resize(s, in.dtype());
      std::memcpy(out.raw(), in.raw(), row_bytes * static_cast<size_t>(rows));
      fluidc::rt::write_npy(argv[4], out);
      return 0;
    } catch (const fluidc::rt::Error& err) {
      std::printf("ERROR: %s\n", err.what());
      return 1;
    }
  }
  double rtol = 1e-5, atol = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rtol")) rtol = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--atol")) atol = std::atof(argv[i + 1]);
    else { std::fprintf(stderr, "npy_compare: unknown option %s\n", argv[i]); return 2; }
  }
  try {
    if (ends_with(argv[1], ".npy") && ends_with(argv[2], ".npy")) {
      Tensor a, e;
      fluidc::rt::read_npy(argv[1], a);
      fluidc::rt::read_npy(argv[2], e);
      return compare(a, e, argv[1], rtol, atol) ? 0 : 1;
    }
    std::vector<Tensor> a = read_tensors(argv[1]), e = read_tensors(argv[2]);
    if (a.size() != e.size()) {
      std::printf("MISMATCH: %zu records in %s, %zu in %s\n", a.size(), argv[1], e.size(), argv[2]);
      return 1;
    }
    bool ok = true;
    for (size_t i = 0; i < e.size(); ++i) ok &= compare(a[i], e[i], "record " + std::to_string(i), rtol, atol);
    return ok ? 0 : 1;
  } catch (const fluidc::rt::Error& err) {
    std::printf("ERROR: %s\n", err.what());
    return 1;
  }
}
