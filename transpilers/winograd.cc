// transpilers/winograd.cc - rewrites conv2d on a constant 3x3 filter as winograd_filter (load time) + conv2d_winograd.
#include "transpilers/winograd.h"

#include <unordered_map>
#include <unordered_set>

#include "compiler/ops/registry.h"
#include "transpilers/block_uses.h"

namespace fluidc {
namespace {

constexpr unsigned kImpure = ops::kFeed | ops::kFetch | ops::kRandom | ops::kSideEffect | ops::kOwnsBlock |
                             ops::kOptimizer | ops::kCommunication;

/// Block-0 variables whose values come from parameters alone: persistables
/// no op of any block writes, and the outputs of pure block-0 ops that read
/// only such values and are their outputs' only writers.
std::unordered_set<std::string> constants(const pb::ProgramDesc& prog) {
  std::unordered_map<std::string, int> writes;
  for (int b = 0; b < prog.blocks_size(); ++b)
    for (const auto& op : prog.blocks(b).ops())
      for (const auto& slot : op.outputs())
        for (const auto& name : slot.arguments()) ++writes[name];
  const pb::BlockDesc& block = prog.blocks(0);
  std::unordered_set<std::string> out;
  for (const auto& v : block.vars())
    if (v.persistable() && !writes.count(v.name())) out.insert(v.name());
  for (const auto& op : block.ops()) {
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || (def->traits & kImpure)) continue;
    bool pure_inputs = op.inputs_size() > 0;
    for (const auto& slot : op.inputs())
      for (const auto& name : slot.arguments()) pure_inputs = pure_inputs && out.count(name);
    if (!pure_inputs) continue;
    for (const auto& slot : op.outputs())
      for (const auto& name : slot.arguments())
        if (writes[name] == 1) out.insert(name);
  }
  return out;
}

std::vector<int64_t> dims_of(const pb::VarDesc& v) {
  const auto& d = v.type().lod_tensor().tensor().dims();
  return {d.begin(), d.end()};
}

}  // namespace

int use_winograd(pb::ProgramDesc& prog) {
  pb::BlockDesc& block = *prog.mutable_blocks(0);
  const std::unordered_set<std::string> constant = constants(prog);
  std::unordered_map<int, std::vector<pb::OpDesc>> before;
  int rewritten = 0;
  for (int i = 0; i < block.ops_size(); ++i) {
    pb::OpDesc& op = *block.mutable_ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || !def->winograd) continue;
    ops::WinogradForm wf;
    const std::string w = sole(op, "Filter", true);
    const pb::VarDesc* wv = w.empty() ? nullptr : find_block_var(block, w);
    if (!wv || !constant.count(w) || !is_dense_tensor(*wv) ||
        wv->type().lod_tensor().tensor().data_type() != pb::VarType::FP32)
      continue;
    const std::vector<int64_t> wdims = dims_of(*wv);
    bool known = true;
    for (int64_t d : wdims) known = known && d >= 0;
    if (!known || !def->winograd(op, wdims, wf)) continue;
    if (!winograd_pays(wf.in_channels, wf.out_channels)) continue;
    // The transformed filter: [16, M, C], a load-time value.
    pb::VarDesc like = *wv;
    like.set_persistable(false);
    auto* dims = like.mutable_type()->mutable_lod_tensor()->mutable_tensor()->mutable_dims();
    dims->Clear();
    for (int64_t d : {int64_t{16}, wf.out_channels, wf.in_channels}) dims->Add(d);
    const std::string u = new_var(block, w + ".winograd", like);
    before[i].push_back(make_op(wf.filter_transform, {{"Filter", w}}, "Out", u));
    op.set_type(wf.op);
    for (auto& slot : *op.mutable_inputs())
      if (slot.parameter() == wf.filter) slot.set_arguments(0, u);
    // The replacement has no ResidualData slot (WinogradFn only accepts it unbound).
    auto* inputs = op.mutable_inputs();
    for (int s = inputs->size() - 1; s >= 0; --s)
      if (!ops::find_op(wf.op)->input(inputs->Get(s).parameter())) inputs->DeleteSubrange(s, 1);
    ++rewritten;
  }
  if (rewritten) rewrite_ops(block, before, {});
  return rewritten;
}

}  // namespace fluidc
