// kernels/cpu/sequence_legacy_util.h - checks shared by the Fluid 1.x sequence kernels: one-level LoDs, int64 length tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "runtime/lod.h"

namespace fluidc::kernels::detail {

/// The offsets of `t`'s only LoD level: the ops Paddle 2.6.2 runs on one
/// level alone refuse a deeper LoD by name rather than pick a level.
inline const std::vector<uint64_t>& one_lod_level(const Tensor& t, const char* op, const char* slot) {
  const std::vector<uint64_t>& last = rt::last_lod_level(t, op, slot);
  if (t.lod()->size() != 1)
    rt::fail(fmt::format("{}: {} must have one LoD level (Paddle's rule for this op), got {}", op, slot,
                         t.lod()->size()));
  return last;
}

/// The values of an int64 tensor of `n` entries that Paddle reads as int64
/// only (lengths, offsets): another dtype or count fails naming the slot.
inline const int64_t* int64_values(const char* op, const char* slot, const Tensor& t, int64_t n) {
  require_init(op, slot, t);
  if (t.dtype() != DType::kInt64)
    rt::fail(fmt::format("{}: {} must be int64 (Paddle reads it so), got {}", op, slot, rt::dtype_name(t.dtype())));
  if (t.numel() != n)
    rt::fail(fmt::format("{}: {} {} must hold {} values, one per sequence", op, slot, t.shape().str(), n));
  return t.data<int64_t>();
}

}  // namespace fluidc::kernels::detail
