// transpilers/remove_dropout.cc - replaces inference-time scalings (dropout) by nothing or by one scale op.
#include "transpilers/remove_dropout.h"

#include <unordered_set>

#include "compiler/ir/attrs.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

/// Names read by any op of blocks other than 0, and names fetched.
std::unordered_set<std::string> pinned_names(const pb::ProgramDesc& prog, const std::vector<std::string>& keep) {
  std::unordered_set<std::string> pinned(keep.begin(), keep.end());
  for (int b = 0; b < prog.blocks_size(); ++b)
    for (const auto& op : prog.blocks(b).ops()) {
      const ops::OpDef* def = ops::find_op(op.type());
      if (b == 0 && !(def && def->has(ops::kFetch))) continue;
      for (const auto& slot : op.inputs())
        for (const auto& name : slot.arguments()) pinned.insert(name);
    }
  return pinned;
}

bool reads(const pb::OpDesc& op, const std::string& name) {
  for (const auto& slot : op.inputs())
    for (const auto& a : slot.arguments())
      if (a == name) return true;
  return false;
}

bool writes(const pb::OpDesc& op, const std::string& name) {
  for (const auto& slot : op.outputs())
    for (const auto& a : slot.arguments())
      if (a == name) return true;
  return false;
}

/// True when an output other than Out of block-0 op `i` is read later.
bool side_output_read(const pb::BlockDesc& block, int i, const std::unordered_set<std::string>& pinned) {
  for (const auto& slot : block.ops(i).outputs()) {
    if (slot.parameter() == "Out") continue;
    for (const auto& name : slot.arguments()) {
      if (pinned.count(name)) return true;
      for (int j = i + 1; j < block.ops_size(); ++j)
        if (reads(block.ops(j), name)) return true;
    }
  }
  return false;
}

pb::OpDesc scale_op(const std::string& x, const std::string& out, float factor) {
  pb::OpDesc op;
  op.set_type("scale");
  ops::add_input(op, "X", {x});
  ops::add_output(op, "Out", {out});
  ops::set_attr_float(op, "scale", factor);
  ops::set_attr_float(op, "bias", 0.0f);
  ops::set_attr_bool(op, "bias_after_scale", true);
  return op;
}

}  // namespace

int remove_dropout(pb::ProgramDesc& prog, const std::vector<std::string>& keep) {
  pb::BlockDesc& block = *prog.mutable_blocks(0);
  const auto pinned = pinned_names(prog, keep);
  int rewritten = 0;
  for (int i = 0; i < block.ops_size(); ++i) {
    const pb::OpDesc& op = block.ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || !def->inference_scale) continue;
    const std::optional<float> factor = def->inference_scale(op);
    const auto xs = op_inputs(op, "X"), outs = op_outputs(op, "Out");
    if (!factor || xs.size() != 1 || outs.size() != 1 || side_output_read(block, i, pinned)) continue;
    const std::string x = xs[0], out = outs[0];
    bool rename = *factor == 1.0f && !pinned.count(out) && x != out;
    if (const pb::VarDesc* v = find_block_var(block, out); v && v->persistable()) rename = false;
    for (int j = i + 1; rename && j < block.ops_size(); ++j) rename = !writes(block.ops(j), x) && !writes(block.ops(j), out);
    ++rewritten;
    if (!rename) {
      *block.mutable_ops(i) = scale_op(x, out, *factor);
      continue;
    }
    for (int j = i + 1; j < block.ops_size(); ++j)
      for (auto& slot : *block.mutable_ops(j)->mutable_inputs())
        for (auto& a : *slot.mutable_arguments())
          if (a == out) a = x;
    block.mutable_ops()->DeleteSubrange(i, 1);
    --i;
  }
  return rewritten;
}

}  // namespace fluidc
