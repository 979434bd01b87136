// kernels/dist.h - split_byref, the one communication op that is a plain kernel (the RPC ops call runtime/dist/ops.h).
#pragma once

#include <cstring>

#include "runtime/error.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

/// split_byref: outs[i] = rows [offset_i, offset_i + sections[i]) of x (copied:
/// each block is sent on its own).
inline void split_byref(const rt::Tensor& x, rt::Tensor* const* outs, int n, const int64_t* sections) {
  if (x.rank() < 1) rt::fail("split_byref: X has no rows");
  int64_t rows = 0;
  for (int i = 0; i < n; ++i) rows += sections[i];
  if (rows != x.dim(0))
    rt::fail("split_byref: sections add up to " + std::to_string(rows) + " rows, X has " + std::to_string(x.dim(0)));
  const size_t row_bytes = x.dim(0) ? x.nbytes() / static_cast<size_t>(x.dim(0)) : 0;
  const char* from = static_cast<const char*>(x.raw());
  for (int i = 0; i < n; ++i) {
    rt::Shape s = x.shape();
    s[0] = sections[i];
    outs[i]->resize(s, x.dtype());
    std::memcpy(outs[i]->raw(), from, row_bytes * static_cast<size_t>(sections[i]));
    from += row_bytes * static_cast<size_t>(sections[i]);
  }
}

}  // namespace fluidc::kernels
