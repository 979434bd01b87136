// compiler/ops/known_type.h - a known TensorType from a dtype and dims, for shape rules whose outputs' rows are counted at run time (-1).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/ops/shape_ctx.h"

namespace fluidc::ops {

inline TensorType known_type(pb::VarType::Type dtype, std::vector<int64_t> dims) {
  TensorType t;
  t.known = true;
  t.dtype = dtype;
  t.dims = std::move(dims);
  return t;
}

}  // namespace fluidc::ops
