// test/tools/npy_compare.cc - compares two .npy arrays elementwise within a tolerance; the e2e tests' judge.
//
// usage: npy_compare ACTUAL EXPECTED [--rtol R] [--atol A] [--ties COL | --ties-from FILE COL]
// An element passes when |actual - expected| <= atol + rtol * |expected|, or, where expected is NaN or
// infinite, when actual is the same.
// Shapes and dtypes must match exactly. Exit 0 on match, 1 on mismatch.
// Other files than .npy are read as Paddle tensor records (combined
// .pdiparams files, or the one-record files of save_vars / --save-dir) and
// compared record by record, in file order; a one-record file compares
// with a .npy.
// usage: npy_compare --head N IN OUT   writes the first N rows of IN to OUT
// (a test's first batch of a data file).
//
// --ties COL (two .npy files): the arrays are tables of rows (dim 0; a 1-D
// array is one column). Consecutive rows of EXPECTED with equal values in
// column COL form a group; ACTUAL must hold the same rows (within the
// tolerance) in each group's row range, in any order. That is how detections
// compare: NMS sorts them by score (column 1 of Out), and rows whose scores tie
// come out in an order another implementation need not share.
// --ties-from FILE COL: the groups come from column COL of FILE, a table with
// as many rows (NMS's Index, grouped by the scores of the same NMS's Out).
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
  // max_rel alone reads alarming where values near zero are covered by atol; the share of the bound
  // (diff / (atol + rtol |expected|)) that the closest call used says how near the comparison came to failing.
  double worst_excess = 0, max_rel = 0, max_share = 0;
  for (int64_t i = 0; i < e.numel(); ++i) {
    double x = at(a, i), y = at(e, i), diff = std::fabs(x - y), allowed = atol + rtol * std::fabs(y);
    // A non-finite expected value (NaN outside an op's domain, a saturated inf) passes only when matched
    // exactly: the same infinity, or NaN for NaN. Non-finite results the reference lacks still fail.
    if (!std::isfinite(y)) {
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) {
        ++bad;
        if (worst < 0) worst = i;
      }
      continue;
    }
    if (y != 0) max_rel = std::fmax(max_rel, diff / std::fabs(y));
    if (allowed > 0) max_share = std::fmax(max_share, diff / allowed);
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
  std::printf("match: %s: %lld elements %s%s, max relative error %.3g (rtol %g, atol %g), at most %.3g of the "
              "bound used\n",
              what.c_str(), static_cast<long long>(e.numel()), dtype_name(e.dtype()), e.shape().str().c_str(), max_rel,
              rtol, atol, max_share);
  return true;
}

// Rows (dim 0) of a table, and the scalars per row.
int64_t rows(const Tensor& t) { return t.shape().rank ? t.shape()[0] : 1; }
int64_t row_width(const Tensor& t) { return rows(t) ? t.numel() / rows(t) : 0; }

bool rows_close(const Tensor& a, int64_t ra, const Tensor& e, int64_t re, double rtol, double atol) {
  const int64_t w = row_width(e);
  for (int64_t k = 0; k < w; ++k) {
    double x = at(a, ra * w + k), y = at(e, re * w + k);
    if (!(std::fabs(x - y) <= atol + rtol * std::fabs(y))) return false;
  }
  return true;
}

// ACTUAL's rows reordered within each tie group of `key` (column `col`) to line up with EXPECTED's: each expected row
// takes the first unclaimed actual row of its group that matches it; rows left unmatched keep their relative order
// in the places left, so that compare() reports them. Greedy matching is enough: rows of one group are different
// detections, far apart compared with the tolerance. Returns the number of groups and the largest one's size.
std::pair<int64_t, int64_t> align_ties(const Tensor& a, const Tensor& e, const Tensor& key, int64_t col, double rtol,
                                       double atol, Tensor& out) {
  const int64_t n = rows(e), w = row_width(e), kw = row_width(key);
  if (rows(key) != n) fluidc::rt::fail("--ties: the key table has " + std::to_string(rows(key)) + " rows, expected " +
                                       std::to_string(n));
  if (col < 0 || col >= kw) fluidc::rt::fail("--ties: column " + std::to_string(col) + " outside the key's " +
                                             std::to_string(kw) + " columns");
  out.resize(a.shape(), a.dtype());
  const size_t row_bytes = static_cast<size_t>(w) * dtype_size(a.dtype());
  const auto* src = static_cast<const char*>(a.raw());
  auto* dst = static_cast<char*>(out.raw());
  int64_t groups = 0, largest = 0;
  for (int64_t b = 0; b < n;) {
    int64_t end = b + 1;
    while (end < n && at(key, end * kw + col) == at(key, b * kw + col)) ++end;
    std::vector<int64_t> take(static_cast<size_t>(end - b), -1);
    std::vector<bool> used(static_cast<size_t>(end - b), false);
    for (int64_t i = b; i < end; ++i)
      for (int64_t j = b; j < end; ++j)
        if (!used[j - b] && rows_close(a, j, e, i, rtol, atol)) {
          take[i - b] = j, used[j - b] = true;
          break;
        }
    int64_t next = b;
    for (int64_t i = b; i < end; ++i) {
      if (take[i - b] < 0) {
        while (used[next - b]) ++next;
        take[i - b] = next, used[next - b] = true;
      }
      std::memcpy(dst + i * row_bytes, src + take[i - b] * row_bytes, row_bytes);
    }
    ++groups, largest = std::max(largest, end - b), b = end;
  }
  return {groups, largest};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: npy_compare ACTUAL EXPECTED [--rtol R] [--atol A] [--ties COL | --ties-from FILE COL]\n");
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
  const char* ties_from = nullptr;
  int64_t ties_col = -1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rtol")) rtol = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--atol")) atol = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--ties")) ties_col = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--ties-from") && i + 2 < argc)
      ties_from = argv[i + 1], ties_col = std::atoll(argv[i + 2]), ++i;
    else { std::fprintf(stderr, "npy_compare: unknown option %s\n", argv[i]); return 2; }
  }
  try {
    if (ends_with(argv[1], ".npy") && ends_with(argv[2], ".npy")) {
      Tensor a, e;
      fluidc::rt::read_npy(argv[1], a);
      fluidc::rt::read_npy(argv[2], e);
      if (ties_col < 0) return compare(a, e, argv[1], rtol, atol) ? 0 : 1;
      if (a.dtype() != e.dtype() || a.shape() != e.shape()) return compare(a, e, argv[1], rtol, atol) ? 0 : 1;
      Tensor key, aligned;
      if (ties_from) fluidc::rt::read_npy(ties_from, key);
      auto [groups, largest] = align_ties(a, e, ties_from ? key : e, ties_col, rtol, atol, aligned);
      std::printf("rows compared as sets within %lld groups of equal column %lld (largest %lld rows)\n",
                  static_cast<long long>(groups), static_cast<long long>(ties_col), static_cast<long long>(largest));
      return compare(aligned, e, argv[1], rtol, atol) ? 0 : 1;
    }
    if (ties_col >= 0) { std::fprintf(stderr, "npy_compare: --ties compares two .npy files\n"); return 2; }
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
