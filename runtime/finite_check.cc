// runtime/finite_check.cc - scans float tensors for NaN and Inf.
#include "runtime/finite_check.h"

#include <cmath>
#include <cstdio>

#include "runtime/error.h"
#include "runtime/model.h"

namespace fluidc::rt {
namespace {

template <class T>
bool finite_span(const T* p, int64_t n) {
  // Summing x - x is 0 for finite x and NaN otherwise, and vectorises
  // (no early exit); one pass over a checkpoint costs ~1 ms per 100 MB.
  T acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += p[i] - p[i];
  return acc == 0;
}

template <class T>
int64_t first_bad(const T* p, int64_t n) {
  if (finite_span(p, n)) return -1;  // the common case, vectorised
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return i;
  return -1;
}

}  // namespace

int64_t first_non_finite(const Tensor& t) {
  if (!t.initialized()) return -1;
  switch (t.dtype()) {
    case DType::kFP32: return first_bad(t.data<float>(), t.numel());
    case DType::kFP64: return first_bad(t.data<double>(), t.numel());
    default: return -1;
  }
}

void check_op_output(const OpSite& site, const Tensor& t, const char* name) {
  const int64_t bad = first_non_finite(t);
  if (bad < 0) return;
  const double v = t.dtype() == DType::kFP32 ? t.data<float>()[bad] : t.data<double>()[bad];
  g_current_op = &site;  // after a control-flow op it points into its sub-block
  char value[32];
  std::snprintf(value, sizeof value, "%g", v);
  fail(std::string("--check-nan: output '") + name + "' holds " + value + " at element " + std::to_string(bad) +
       " of " + dtype_name(t.dtype()) + t.shape().str() + " (the first non-finite value of the run)");
}

void check_op_output_if(bool enabled, const OpSite& site, const Tensor& t, const char* name) {
  if (enabled) [[unlikely]] check_op_output(site, t, name);
}

bool all_finite(const Tensor& t) {
  if (!t.initialized()) return true;
  switch (t.dtype()) {
    case DType::kFP32: return finite_span(t.data<float>(), t.numel());
    case DType::kFP64: return finite_span(t.data<double>(), t.numel());
    default: return true;
  }
}

void check_finite(const Tensor& t, const std::string& what) {
  if (!all_finite(t)) fail(what + " holds NaN or Inf");
}

}  // namespace fluidc::rt
