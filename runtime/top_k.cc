// runtime/top_k.cc - ranks a fetched tensor's rows for --top K (classifier outputs), labels read from a file.
#include "runtime/top_k.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>

#include "runtime/error.h"

namespace fluidc::rt {

std::vector<std::string> read_labels(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("cannot read labels file " + path);
  std::vector<std::string> labels;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    labels.push_back(line);
  }
  return labels;
}

namespace {

template <class T>
void print_rows(const std::string& name, const T* data, int64_t rows, int64_t cols, int k,
                const std::vector<std::string>& labels) {
  std::vector<int64_t> order(static_cast<size_t>(cols));
  const int64_t shown = std::min<int64_t>(k, cols);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = data + r * cols;
    std::iota(order.begin(), order.end(), int64_t{0});
    // Ties keep the lower index first, so the listing is the same every run.
    std::partial_sort(order.begin(), order.begin() + shown, order.end(),
                      [&](int64_t a, int64_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
    std::printf("%s row %lld top %lld:", name.c_str(), static_cast<long long>(r), static_cast<long long>(shown));
    for (int64_t i = 0; i < shown; ++i) {
      const int64_t c = order[static_cast<size_t>(i)];
      if (static_cast<size_t>(c) < labels.size())
        std::printf(" %s (%.6g)", labels[static_cast<size_t>(c)].c_str(), static_cast<double>(row[c]));
      else
        std::printf(" %lld (%.6g)", static_cast<long long>(c), static_cast<double>(row[c]));
    }
    std::printf("\n");
  }
}

}  // namespace

void print_top_k(const std::string& name, const Tensor& t, int k, const std::vector<std::string>& labels) {
  const int64_t rows = t.rank() >= 2 ? t.dim(0) : 1;
  const int64_t cols = rows > 0 ? t.numel() / rows : 0;
  if (t.dtype() == DType::kFP32)
    print_rows(name, t.data<float>(), rows, cols, k, labels);
  else if (t.dtype() == DType::kFP64)
    print_rows(name, t.data<double>(), rows, cols, k, labels);
  else
    fail("--top ranks float outputs; " + name + " is " + dtype_name(t.dtype()));
}

}  // namespace fluidc::rt
