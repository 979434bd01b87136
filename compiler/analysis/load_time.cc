// compiler/analysis/load_time.cc - a forward sweep over block 0 marking ops that read only parameters.
#include "compiler/analysis/load_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

std::vector<std::string> slot_names(const google::protobuf::RepeatedPtrField<pb::OpDesc::Var>& slots) {
  std::vector<std::string> names;
  for (const auto& slot : slots) names.insert(names.end(), slot.arguments().begin(), slot.arguments().end());
  return names;
}

}  // namespace

std::vector<bool> load_time_ops(const Program& main, const ProgramInfo& info) {
  const pb::BlockDesc& block = main.block(0);
  std::vector<bool> out(block.ops_size(), false);
  if (info.is_trainer) return out;
  // Writes of every variable anywhere, and which block-0 variables other
  // blocks write (a value a loop changes is not a constant).
  std::unordered_map<std::string, int> writes;
  for (int b = 0; b < main.num_blocks(); ++b)
    for (const auto& op : main.block(b).ops())
      for (const auto& slot : op.outputs())
        for (const auto& name : slot.arguments()) writes[name] += b == 0 ? 1 : 1000;
  std::unordered_set<std::string> pinned(info.fetches.begin(), info.fetches.end());
  pinned.insert(info.feeds.begin(), info.feeds.end());
  std::unordered_set<std::string> constant;  // outputs of load-time ops so far
  constexpr unsigned kImpure = ops::kFeed | ops::kFetch | ops::kRandom | ops::kSideEffect | ops::kOwnsBlock |
                               ops::kOptimizer;
  auto is_input_ok = [&](const std::string& name) {
    if (constant.count(name)) return true;
    const pb::VarDesc* v = find_block_var(block, name);
    return v && v->persistable() && is_dense_tensor(*v) && !writes.count(name);
  };
  auto is_output_ok = [&](const std::string& name) {
    const pb::VarDesc* v = find_block_var(block, name);
    return v && !v->persistable() && is_dense_tensor(*v) && !pinned.count(name) && writes[name] == 1;
  };
  for (int i = 0; i < block.ops_size(); ++i) {
    const pb::OpDesc& op = block.ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || (def->traits & kImpure)) continue;
    const std::vector<std::string> ins = slot_names(op.inputs()), outs = slot_names(op.outputs());
    if (ins.empty() || !std::all_of(ins.begin(), ins.end(), is_input_ok) ||
        !std::all_of(outs.begin(), outs.end(), is_output_ok))
      continue;
    out[i] = true;
    constant.insert(outs.begin(), outs.end());
  }
  return out;
}

std::string describe_load_time(const std::vector<bool>& load_time) {
  std::vector<int> ops;
  for (size_t i = 0; i < load_time.size(); ++i)
    if (load_time[i]) ops.push_back(static_cast<int>(i));
  if (ops.empty()) return "no load-time ops";
  return fmt::format("block 0, load-time ops: {}", fmt::join(ops, ", "));
}

}  // namespace fluidc
