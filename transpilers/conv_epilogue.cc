// transpilers/conv_epilogue.cc - moves conv -> elementwise_add(per-channel parameter) -> activation into the conv.
#include "transpilers/conv_epilogue.h"

#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/attrs.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "transpilers/block_uses.h"

namespace fluidc {
namespace {

std::vector<int64_t> dims_of(const pb::VarDesc& v) {
  const auto& d = v.type().lod_tensor().tensor().dims();
  return {d.begin(), d.end()};
}

/// Y broadcast into X by the elementwise ops' own rule (Paddle's axis
/// alignment, shape_rules::broadcast) leaves X's shape as it is and varies
/// along `channel_axis` only, with X's `channels` values there: it also
/// broadcasts into a shape of X's rank that is 1 but for `channels` there.
bool per_channel(const std::vector<int64_t>& x, const std::vector<int64_t>& y, int axis, int channel_axis,
                 int64_t channels) {
  int64_t numel = 1;
  for (int64_t d : y) numel *= d > 0 ? d : 0;
  if (y.empty() || y.size() > x.size() || x[channel_axis] != channels || numel != channels) return false;
  std::vector<int64_t> probe(x.size(), 1), out;
  probe[channel_axis] = channels;
  return shape_rules::broadcast(x, y, axis, out).empty() && out == x &&
         shape_rules::broadcast(probe, y, axis, out).empty() && out == probe;
}

class Fuser {
 public:
  Fuser(pb::ProgramDesc& prog, const std::vector<std::string>& keep)
      : block_(*prog.mutable_blocks(0)), uses_(count_uses(prog, keep)) {}

  int run() {
    for (int i = 0; i < block_.ops_size(); ++i) {
      if (dropped_.count(i)) continue;
      const ops::OpDef* def = ops::find_op(block_.ops(i).type());
      ops::ChannelLinear cl;
      if (!def || !def->channel_linear || !def->channel_linear(block_.ops(i), cl) || cl.bias.empty() ||
          cl.epilogue.activation.empty() || has_activation(block_.ops(i), cl))
        continue;
      if (move_bias(i, cl)) ++moved_;
      if (move_activation(i, cl)) ++moved_;
    }
    if (moved_) rebuild();
    return moved_;
  }

 private:
  static bool has_activation(const pb::OpDesc& op, const ops::ChannelLinear& cl) {
    const pb::OpDesc::Attr* a = find_attr(op, cl.epilogue.activation);
    return a && !a->s().empty();
  }

  /// The block-0 op after `i` that is the only reader of op i's output, or -1.
  int sole_reader(int i, const std::string& out) const {
    if (!uses_.private_value(out)) return -1;
    for (int j = i + 1; j < block_.ops_size(); ++j)
      for (const auto& slot : block_.ops(j).inputs())
        for (const auto& a : slot.arguments())
          if (a == out) return dropped_.count(j) ? -1 : j;
    return -1;
  }

  /// `out` may take over as the convolution's output: a plain intermediate.
  bool renamable(const std::string& out, const std::string& from) const {
    const pb::VarDesc* v = find_block_var(block_, out);
    return !out.empty() && out != from && v && !v->persistable() && uses_.write_count(out) == 1;
  }

  bool move_bias(int i, const ops::ChannelLinear& cl) {
    pb::OpDesc& conv = *block_.mutable_ops(i);
    const std::string x = sole(conv, cl.out, false), w = sole(conv, cl.weight, true);
    const int j = sole_reader(i, x);
    if (j < 0 || w.empty()) return false;
    const pb::OpDesc& add = block_.ops(j);
    const ops::OpDef* add_def = ops::find_op(add.type());
    ops::BiasAdd ba;
    if (!add_def || !add_def->bias_add || !add_def->bias_add(add, ba) || sole(add, ba.x, true) != x) return false;
    const std::string y = sole(add, ba.y, true), out = sole(add, ba.out, false);
    int y_writer = -1;
    if (!parameter_value(y, y_writer) || !renamable(out, x)) return false;
    const pb::VarDesc* xv = find_block_var(block_, x);
    const pb::VarDesc* wv = find_block_var(block_, w);
    if (!xv || !wv) return false;
    const auto xd = dims_of(*xv), wd = dims_of(*wv), yd = dims_of(*find_block_var(block_, y));
    const int rank = static_cast<int>(xd.size());
    if (rank < 3 || cl.weight_axis >= static_cast<int>(wd.size())) return false;
    const int channel_axis = cl.out_axis < 0 ? rank + cl.out_axis : cl.out_axis;
    if (!per_channel(xd, yd, ba.axis, channel_axis, wd[cl.weight_axis])) return false;

    const std::string old = sole(conv, cl.bias, true);
    if (old.empty() && !op_inputs(conv, cl.bias).empty()) return false;  // several variables bound
    const pb::VarDesc* ov = old.empty() ? nullptr : find_block_var(block_, old);
    // Bias + Y once per load; same dims only, so the sum is a plain add.
    if (!old.empty() && (!ov || dims_of(*ov) != yd)) return false;
    if (y_writer > i) {  // computed between the conv and the add: computed before the conv instead
      before_[i].push_back(block_.ops(y_writer));
      dropped_.insert(y_writer);
    }
    std::string bias = y;
    if (ov) {
      bias = new_var(block_, out + ".conv_bias", *ov);
      before_[i].push_back(make_op(add.type(), {{ba.x, old}, {ba.y, y}}, ba.out, bias));
    }
    bind_input(conv, cl.bias, bias);
    bind_output(conv, cl.out, out);
    dropped_.insert(j);
    return true;
  }

  /// `y` is a parameter, or made from parameters alone by one op (Paddle's
  /// nn.Conv2D writes reshape2(bias parameter) to [1, C, 1, 1]; fold-constants
  /// then runs that op once per load). `writer`: that op's index, or -1.
  bool parameter_value(const std::string& y, int& writer) const {
    writer = -1;
    if (!find_block_var(block_, y) || !is_dense_tensor(*find_block_var(block_, y))) return false;
    if (uses_.write_count(y) == 0) return persistable(block_, y);
    if (uses_.write_count(y) != 1 || uses_.pinned.count(y) || persistable(block_, y)) return false;
    for (int k = 0; k < block_.ops_size() && writer < 0; ++k)
      for (const auto& slot : block_.ops(k).outputs())
        for (const auto& a : slot.arguments())
          if (a == y) writer = k;
    if (writer < 0 || dropped_.count(writer)) return false;
    const pb::OpDesc& op = block_.ops(writer);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || def->has(ops::kSideEffect) || def->has(ops::kRandom) || def->has(ops::kOwnsBlock)) return false;
    for (const auto& slot : op.inputs())
      for (const auto& a : slot.arguments())
        if (!persistable(block_, a) || uses_.write_count(a) != 0) return false;
    return true;
  }

  bool move_activation(int i, const ops::ChannelLinear& cl) {
    pb::OpDesc& conv = *block_.mutable_ops(i);
    const std::string x = sole(conv, cl.out, false);
    const int j = sole_reader(i, x);
    if (j < 0) return false;
    const pb::OpDesc& act = block_.ops(j);
    const ops::OpDef* act_def = ops::find_op(act.type());
    float alpha = 0, beta = 0;
    if (!act_def || !act_def->conv_epilogue || act_def->inputs.size() != 1 || act_def->outputs.size() != 1)
      return false;
    const std::string in_slot = act_def->inputs[0].name, out_slot = act_def->outputs[0].name;
    const std::string out = sole(act, out_slot, false);
    if (sole(act, in_slot, true) != x || !renamable(out, x) || !act_def->conv_epilogue(act, alpha, beta))
      return false;
    ops::set_attr_string(conv, cl.epilogue.activation, act.type());
    ops::set_attr_float(conv, cl.epilogue.alpha, alpha);
    ops::set_attr_float(conv, cl.epilogue.beta, beta);
    bind_output(conv, cl.out, out);
    dropped_.insert(j);
    return true;
  }

  void rebuild() { rewrite_ops(block_, before_, dropped_); }

  pb::BlockDesc& block_;
  const Uses uses_;
  std::unordered_map<int, std::vector<pb::OpDesc>> before_;  // conv index -> ops to insert before it
  std::unordered_set<int> dropped_;
  int moved_ = 0;
};

}  // namespace

int fuse_conv_epilogue(pb::ProgramDesc& prog, const std::vector<std::string>& keep) {
  return Fuser(prog, keep).run();
}

}  // namespace fluidc
