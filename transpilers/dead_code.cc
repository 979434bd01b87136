// transpilers/dead_code.cc - a backward liveness sweep over block 0, asking the op table which ops must stay.
#include "transpilers/dead_code.h"

#include <unordered_set>

#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

bool always_live(const pb::OpDesc& op, const pb::BlockDesc& block) {
  const ops::OpDef* def = ops::find_op(op.type());
  if (!def) return true;  // the verifier reports it; never silently drop what we do not know
  if (def->has(ops::kFetch) || def->has(ops::kSideEffect) || def->has(ops::kOptimizer) || def->has(ops::kOwnsBlock))
    return true;
  for (const auto& slot : op.outputs())
    for (const auto& name : slot.arguments())
      if (const pb::VarDesc* v = find_block_var(block, name); v && v->persistable()) return true;
  return false;
}

}  // namespace

int remove_dead_code(pb::ProgramDesc& prog, const std::vector<std::string>& keep) {
  pb::BlockDesc& block = *prog.mutable_blocks(0);
  bool results_named = !keep.empty();
  for (const auto& op : block.ops())
    if (const ops::OpDef* def = ops::find_op(op.type()); def && def->has(ops::kFetch)) results_named = true;
  if (!results_named) return 0;
  std::unordered_set<std::string> live(keep.begin(), keep.end());
  // Whatever a sub-block's ops name is live: an op that runs a block may
  // not list every outer variable the block reads among its own inputs.
  for (int b = 1; b < prog.blocks_size(); ++b)
    for (const auto& op : prog.blocks(b).ops())
      for (const auto* slots : {&op.inputs(), &op.outputs()})
        for (const auto& slot : *slots)
          for (const auto& name : slot.arguments()) live.insert(name);
  std::vector<bool> keep_op(block.ops_size(), false);
  for (int i = block.ops_size() - 1; i >= 0; --i) {
    const pb::OpDesc& op = block.ops(i);
    bool needed = always_live(op, block);
    for (const auto& slot : op.outputs())
      for (const auto& name : slot.arguments()) needed = needed || live.count(name) > 0;
    if (!needed) continue;
    keep_op[i] = true;
    for (const auto& slot : op.inputs())
      for (const auto& name : slot.arguments()) live.insert(name);
  }
  int removed = 0;
  auto* ops = block.mutable_ops();
  int w = 0;
  for (int i = 0; i < ops->size(); ++i) {
    if (!keep_op[i]) {
      ++removed;
      continue;
    }
    if (w != i) ops->SwapElements(w, i);
    ++w;
  }
  ops->DeleteSubrange(w, ops->size() - w);
  return removed;
}

}  // namespace fluidc
