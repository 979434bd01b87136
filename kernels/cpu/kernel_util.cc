// kernels/cpu/kernel_util.cc - per-thread scratch tensors for the CPU kernels.
#include "kernels/cpu/kernel_util.h"

#include <cstring>

namespace fluidc::kernels::detail {

Tensor& scratch(Slot slot) {
  // thread_local: kernels may run concurrently on several threads (a
  // parameter server, a data loader); each keeps its own buffers.
  thread_local Tensor slots[static_cast<int>(Slot::kCount)];
  return slots[static_cast<int>(slot)];
}

void record_xshape(const Tensor& x, Tensor* x_shape) {
  if (!x_shape) return;
  Shape xs;
  xs.rank = x.rank() + 1;
  xs.d[0] = 0;
  for (int i = 0; i < x.rank(); ++i) xs.d[i + 1] = x.dim(i);
  x_shape->resize(xs, x.dtype());
}

void copy_reshaped(const Tensor& x, const Shape& s, Tensor& out, Tensor* x_shape) {
  record_xshape(x, x_shape);
  const bool in_place = &out == &x;
  out.resize(s, x.dtype());  // in place: the same byte count, so the data stays
  if (!in_place) std::memcpy(out.raw(), x.raw(), x.nbytes());
}

}  // namespace fluidc::kernels::detail
