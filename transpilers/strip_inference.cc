// transpilers/strip_inference.cc - drops feed/fetch ops and switches is_test off.
#include "transpilers/strip_inference.h"

#include <algorithm>

#include "compiler/ops/registry.h"

namespace fluidc {

void strip_inference(pb::ProgramDesc& prog) {
  pb::BlockDesc& block = *prog.mutable_blocks(0);
  auto* ops = block.mutable_ops();
  ops->erase(std::remove_if(ops->begin(), ops->end(),
                            [](const pb::OpDesc& op) {
                              const ops::OpDef* def = ops::find_op(op.type());
                              return def && (def->has(ops::kFeed) || def->has(ops::kFetch));
                            }),
             ops->end());
  for (auto& op : *ops)
    for (auto& a : *op.mutable_attrs())
      if (a.name() == "is_test" && a.type() == pb::BOOLEAN) a.set_b(false);
}

}  // namespace fluidc
