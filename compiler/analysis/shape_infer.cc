// compiler/analysis/shape_infer.cc - runs every op's shape rule over all blocks in order.
#include "compiler/analysis/shape_infer.h"

#include "compiler/ops/registry.h"

namespace fluidc {

std::map<std::string, TensorType> infer_shapes(const Program& prog, Diagnostics& diags) {
  std::map<std::string, TensorType> types;
  for (int b = 0; b < prog.num_blocks(); ++b)
    for (const auto& v : prog.block(b).vars()) types.emplace(v.name(), declared_type(v));
  for (int b = 0; b < prog.num_blocks(); ++b) {
    const auto& block = prog.block(b);
    for (int i = 0; i < block.ops_size(); ++i) {
      const ops::OpDef* def = ops::find_op(block.ops(i).type());
      if (!def || !def->infer_shape) continue;
      ShapeCtx ctx(prog, b, i, types, diags);
      def->infer_shape(ctx);
    }
  }
  return types;
}

}  // namespace fluidc
