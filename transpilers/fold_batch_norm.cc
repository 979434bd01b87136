// transpilers/fold_batch_norm.cc - rewrites conv -> batch_norm(test) as conv(W * f, bias) with f computed from the statistics.
#include "transpilers/fold_batch_norm.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/attrs.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

std::string sole(const pb::OpDesc& op, const std::string& slot, bool input) {
  const auto v = input ? op_inputs(op, slot) : op_outputs(op, slot);
  return v.size() == 1 ? v[0] : "";
}

/// How often each variable is read (all blocks), and by fetch ops or `keep`.
struct Uses {
  std::unordered_map<std::string, int> reads;
  std::unordered_map<std::string, int> writes;  // block 0 only
  std::unordered_set<std::string> pinned;
};

Uses count_uses(const pb::ProgramDesc& prog, const std::vector<std::string>& keep) {
  Uses u;
  u.pinned.insert(keep.begin(), keep.end());
  for (int b = 0; b < prog.blocks_size(); ++b)
    for (const auto& op : prog.blocks(b).ops()) {
      const ops::OpDef* def = ops::find_op(op.type());
      const bool fetch = def && def->has(ops::kFetch);
      for (const auto& slot : op.inputs())
        for (const auto& name : slot.arguments()) {
          ++u.reads[name];
          if (fetch || b != 0) u.pinned.insert(name);
        }
      if (b == 0)
        for (const auto& slot : op.outputs())
          for (const auto& name : slot.arguments()) ++u.writes[name];
    }
  return u;
}

int count(const std::unordered_map<std::string, int>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

bool persistable(const pb::BlockDesc& block, const std::string& name) {
  const pb::VarDesc* v = find_block_var(block, name);
  return v && v->persistable() && is_dense_tensor(*v);
}

/// A fresh variable named after `base`, typed like `like` (dtype and dims).
std::string new_var(pb::BlockDesc& block, const std::string& base, const pb::VarDesc& like) {
  std::string name = base;
  for (int n = 2; find_block_var(block, name); ++n) name = fmt::format("{}_{}", base, n);
  const auto& td = like.type().lod_tensor().tensor();
  add_tensor_var(block, name, td.data_type(), {td.dims().begin(), td.dims().end()});
  return name;
}

pb::OpDesc make_op(const std::string& type, std::vector<std::pair<std::string, std::string>> in,
                   const std::string& out_slot, const std::string& out) {
  pb::OpDesc op;
  op.set_type(type);
  for (const auto& [slot, var] : in) ops::add_input(op, slot, {var});
  ops::add_output(op, out_slot, {out});
  return op;
}

/// Binds input `slot` to `var`, reusing an empty slot entry (old programs
/// list their unused slots, e.g. `Bias=[]`).
void bind_input(pb::OpDesc& op, const std::string& slot, const std::string& var) {
  for (auto& s : *op.mutable_inputs())
    if (s.parameter() == slot) {
      s.clear_arguments();
      s.add_arguments(var);
      return;
    }
  ops::add_input(op, slot, {var});
}

/// The folding of one conv -> batch_norm pair: the ops computing the folded
/// weight and bias (appended to `pre`), and the names of both.
struct Folded {
  std::string weight, bias;
};

Folded fold_ops(pb::BlockDesc& block, const ops::ChannelAffine& ca, const pb::OpDesc& bn,
                const std::string& w, int weight_axis, std::vector<pb::OpDesc>& pre) {
  const std::string y = sole(bn, ca.y, false);
  const pb::VarDesc& scale = *find_block_var(block, sole(bn, ca.scale, true));
  const std::string var_eps = new_var(block, y + ".fold_var_eps", scale);
  const std::string inv_std = new_var(block, y + ".fold_inv_std", scale);
  const std::string factor = new_var(block, y + ".fold_factor", scale);
  const std::string mean_f = new_var(block, y + ".fold_mean_factor", scale);
  Folded f{new_var(block, w + ".folded_" + y, *find_block_var(block, w)), new_var(block, y + ".fold_bias", scale)};
  pb::OpDesc add_eps = make_op("scale", {{"X", sole(bn, ca.variance, true)}}, "Out", var_eps);
  ops::set_attr_float(add_eps, "scale", 1.0f);
  ops::set_attr_float(add_eps, "bias", ca.epsilon);
  pre.push_back(add_eps);
  pre.push_back(make_op("rsqrt", {{"X", var_eps}}, "Out", inv_std));
  pre.push_back(make_op("elementwise_mul", {{"X", sole(bn, ca.scale, true)}, {"Y", inv_std}}, "Out", factor));
  pb::OpDesc scale_w = make_op("elementwise_mul", {{"X", w}, {"Y", factor}}, "Out", f.weight);
  ops::set_attr_int(scale_w, "axis", weight_axis);
  pre.push_back(scale_w);
  pre.push_back(make_op("elementwise_mul", {{"X", sole(bn, ca.mean, true)}, {"Y", factor}}, "Out", mean_f));
  pre.push_back(make_op("elementwise_sub", {{"X", sole(bn, ca.bias, true)}, {"Y", mean_f}}, "Out", f.bias));
  return f;
}

}  // namespace

int fold_batch_norm(pb::ProgramDesc& prog, const std::vector<std::string>& keep) {
  pb::BlockDesc& block = *prog.mutable_blocks(0);
  const Uses uses = count_uses(prog, keep);
  std::unordered_map<std::string, int> writer;  // variable -> the block-0 op writing it
  for (int i = 0; i < block.ops_size(); ++i)
    for (const auto& slot : block.ops(i).outputs())
      for (const auto& name : slot.arguments()) writer[name] = i;

  // conv index -> (folded inputs to insert before it); batch_norms to drop.
  std::unordered_map<int, std::vector<pb::OpDesc>> before;
  std::unordered_set<int> dropped;
  int folded = 0;
  for (int i = 0; i < block.ops_size(); ++i) {
    const pb::OpDesc& bn = block.ops(i);
    const ops::OpDef* bn_def = ops::find_op(bn.type());
    ops::ChannelAffine ca;
    if (!bn_def || !bn_def->inference_affine || !bn_def->inference_affine(bn, ca)) continue;
    const std::string x = sole(bn, ca.x, true), y = sole(bn, ca.y, false);
    if (x.empty() || y.empty() || uses.pinned.count(x) || count(uses.reads, x) != 1 || count(uses.writes, x) != 1)
      continue;
    // Outputs besides Y (saved statistics) must be unread.
    bool side_read = false;
    for (const auto& slot : bn.outputs())
      if (slot.parameter() != ca.y)
        for (const auto& name : slot.arguments())
          side_read = side_read || (uses.reads.count(name) && !persistable(block, name)) || uses.pinned.count(name);
    bool stats_ok = true;
    for (const auto* slot : {&ca.scale, &ca.bias, &ca.mean, &ca.variance})
      stats_ok = stats_ok && persistable(block, sole(bn, *slot, true));
    auto w_it = writer.find(x);
    if (side_read || !stats_ok || w_it == writer.end() || w_it->second >= i || dropped.count(w_it->second)) continue;
    const int j = w_it->second;
    pb::OpDesc& conv = *block.mutable_ops(j);
    const ops::OpDef* conv_def = ops::find_op(conv.type());
    ops::ChannelLinear cl;
    if (!conv_def || !conv_def->channel_linear || !conv_def->channel_linear(conv, cl) || cl.bias.empty()) continue;
    const std::string w = sole(conv, cl.weight, true);
    if (w.empty() || !persistable(block, w) || sole(conv, cl.out, false) != x) continue;
    // Channels must line up: the batch_norm's axis is the conv output's.
    if (ca.axis != cl.out_axis) continue;
    const auto& wdims = find_block_var(block, w)->type().lod_tensor().tensor().dims();
    const auto& sdims = find_block_var(block, sole(bn, ca.scale, true))->type().lod_tensor().tensor().dims();
    if (cl.weight_axis >= wdims.size() || sdims.size() != 1 || wdims[cl.weight_axis] != sdims[0]) continue;

    const Folded f = fold_ops(block, ca, bn, w, cl.weight_axis, before[j]);
    // The convolution reads the folded weight, adds the folded bias, and
    // writes the batch_norm's Y directly.
    for (auto& slot : *conv.mutable_inputs())
      if (slot.parameter() == cl.weight) slot.set_arguments(0, f.weight);
    bind_input(conv, cl.bias, f.bias);
    for (auto& slot : *conv.mutable_outputs())
      if (slot.parameter() == cl.out) slot.set_arguments(0, y);
    dropped.insert(i);
    ++folded;
  }
  if (!folded) return 0;
  google::protobuf::RepeatedPtrField<pb::OpDesc> rewritten;
  for (int i = 0; i < block.ops_size(); ++i) {
    if (auto it = before.find(i); it != before.end())
      for (auto& op : it->second) *rewritten.Add() = std::move(op);
    if (!dropped.count(i)) *rewritten.Add() = block.ops(i);
  }
  block.mutable_ops()->Swap(&rewritten);
  return folded;
}

}  // namespace fluidc
