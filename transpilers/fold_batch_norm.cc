// transpilers/fold_batch_norm.cc - rewrites conv -> batch_norm(test) as conv(W * f, bias) with f computed from the statistics.
#include "transpilers/fold_batch_norm.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/attrs.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "transpilers/block_uses.h"

namespace fluidc {
namespace {

/// The folding of one conv -> batch_norm pair: the ops computing the folded
/// weight and bias (appended to `pre`), and the names of both.
struct Folded {
  std::string weight, bias;
};

/// The axis of a per-channel bias's dims that holds its `channels` values
/// ([C], or [1, C, 1, 1] as Paddle's reshape2 of a conv bias writes it), or -1
/// when it has another shape.
int bias_channel_axis(const pb::BlockDesc& block, const std::string& bias, int64_t channels) {
  const pb::VarDesc* v = find_block_var(block, bias);
  if (!v || !is_dense_tensor(*v)) return -1;
  const auto& dims = v->type().lod_tensor().tensor().dims();
  int axis = -1;
  for (int i = 0; i < dims.size(); ++i) {
    if (dims[i] == channels && axis < 0) axis = i;
    else if (dims[i] != 1) return -1;
  }
  return dims.empty() ? -1 : std::max(axis, 0);
}

/// `old_bias`: the convolution's own bias ("" for none), `bias_axis` its
/// channel axis; the folded bias then has its shape: b * f + (Bias - Mean * f).
Folded fold_ops(pb::BlockDesc& block, const ops::ChannelAffine& ca, const pb::OpDesc& bn, const std::string& w,
                int weight_axis, const std::string& old_bias, int bias_axis, std::vector<pb::OpDesc>& pre) {
  const std::string y = sole(bn, ca.y, false);
  const pb::VarDesc& scale = *find_block_var(block, sole(bn, ca.scale, true));
  const std::string var_eps = new_var(block, y + ".fold_var_eps", scale);
  const std::string inv_std = new_var(block, y + ".fold_inv_std", scale);
  const std::string factor = new_var(block, y + ".fold_factor", scale);
  const std::string mean_f = new_var(block, y + ".fold_mean_factor", scale);
  Folded f{new_var(block, w + ".folded_" + y, *find_block_var(block, w)), ""};
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
  // Bias - Mean * f: the folded bias itself, or its shift when the conv has a bias of its own.
  const std::string shift = new_var(block, y + (old_bias.empty() ? ".fold_bias" : ".fold_shift"), scale);
  pre.push_back(make_op("elementwise_sub", {{"X", sole(bn, ca.bias, true)}, {"Y", mean_f}}, "Out", shift));
  f.bias = shift;
  if (old_bias.empty()) return f;
  const pb::VarDesc& b = *find_block_var(block, old_bias);
  const std::string scaled_b = new_var(block, y + ".fold_scaled_bias", b);
  f.bias = new_var(block, y + ".fold_bias", b);
  pb::OpDesc scale_b = make_op("elementwise_mul", {{"X", old_bias}, {"Y", factor}}, "Out", scaled_b);
  ops::set_attr_int(scale_b, "axis", bias_axis);
  pre.push_back(scale_b);
  pb::OpDesc add_shift = make_op("elementwise_add", {{"X", scaled_b}, {"Y", shift}}, "Out", f.bias);
  ops::set_attr_int(add_shift, "axis", bias_axis);
  pre.push_back(add_shift);
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
    if (x.empty() || y.empty() || !uses.private_value(x)) continue;
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
    // A fused activation comes before the batch_norm: not folded.
    if (!cl.epilogue.activation.empty())
      if (const pb::OpDesc::Attr* a = find_attr(conv, cl.epilogue.activation); a && !a->s().empty()) continue;
    const std::string w = sole(conv, cl.weight, true);
    if (w.empty() || !persistable(block, w) || sole(conv, cl.out, false) != x) continue;
    // Channels must line up: the batch_norm's axis is the conv output's.
    if (ca.axis != cl.out_axis) continue;
    const auto& wdims = find_block_var(block, w)->type().lod_tensor().tensor().dims();
    const auto& sdims = find_block_var(block, sole(bn, ca.scale, true))->type().lod_tensor().tensor().dims();
    if (cl.weight_axis >= wdims.size() || sdims.size() != 1 || wdims[cl.weight_axis] != sdims[0]) continue;
    // A bias of its own (one that conv-epilogue moved in from an add) is
    // scaled by f too: BN(conv + b) = conv * f + b * f + (Bias - Mean * f).
    std::string old_bias;
    int bias_axis = -1;
    if (!op_inputs(conv, cl.bias).empty()) {
      old_bias = sole(conv, cl.bias, true);
      if (old_bias.empty() || (bias_axis = bias_channel_axis(block, old_bias, sdims[0])) < 0) continue;
    }

    const Folded f = fold_ops(block, ca, bn, w, cl.weight_axis, old_bias, bias_axis, before[j]);
    // The convolution reads the folded weight, adds the folded bias, and
    // writes the batch_norm's Y directly.
    for (auto& slot : *conv.mutable_inputs())
      if (slot.parameter() == cl.weight) slot.set_arguments(0, f.weight);
    bind_input(conv, cl.bias, f.bias);
    bind_output(conv, cl.out, y);
    dropped.insert(i);
    ++folded;
  }
  if (!folded) return 0;
  rewrite_ops(block, before, dropped);
  return folded;
}

}  // namespace fluidc
