// kernels/cpu/kernel_util.cc - per-thread scratch tensors for the CPU kernels.
#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::detail {

Tensor& scratch(Slot slot) {
  // thread_local: kernels may run concurrently on several threads (a
  // parameter server, a data loader); each keeps its own buffers.
  thread_local Tensor slots[static_cast<int>(Slot::kCount)];
  return slots[static_cast<int>(slot)];
}

}  // namespace fluidc::kernels::detail
