// transpilers/loss.cc - mse / cross-entropy losses on a model output, reduced by mean.
#include "transpilers/loss.h"

#include <fmt/format.h>

#include "compiler/support/diagnostics.h"
#include "compiler/analysis/program_info.h"
#include "compiler/ops/grad_util.h"

namespace fluidc {
namespace {

pb::OpDesc& add_op(pb::BlockDesc& b, const std::string& type) {
  auto* op = b.add_ops();
  op->set_type(type);
  ops::set_attr_int(*op, "op_role", kOpRoleForward);
  return *op;
}

// Each builder declares the label and appends the per-sample loss of
// `o.output`; it returns the per-sample variable the mean reduces.
using PerSampleFn = std::string (*)(pb::BlockDesc&, const std::string& origin, const LossOptions&,
                                    const pb::VarType::TensorDesc&);

std::string squared_error(pb::BlockDesc& b, const std::string&, const LossOptions& o,
                          const pb::VarType::TensorDesc& td) {
  std::vector<int64_t> dims(td.dims().begin(), td.dims().end());
  add_tensor_var(b, o.label, td.data_type(), dims).set_need_check_feed(true);
  add_tensor_var(b, o.output + "@diff", td.data_type(), dims);
  add_tensor_var(b, o.output + "@sq", td.data_type(), dims);
  auto& sub = add_op(b, "elementwise_sub");
  ops::add_input(sub, "X", {o.output});
  ops::add_input(sub, "Y", {o.label});
  ops::add_output(sub, "Out", {o.output + "@diff"});
  ops::set_attr_int(sub, "axis", -1);
  auto& sq = add_op(b, "square");
  ops::add_input(sq, "X", {o.output + "@diff"});
  ops::add_output(sq, "Out", {o.output + "@sq"});
  return o.output + "@sq";
}

// Class-index labels ([..., 1] int64) against the output's class axis;
// `use_softmax` says whether the output is logits or probabilities.
std::string class_xent(pb::BlockDesc& b, const std::string& origin, const LossOptions& o,
                       const pb::VarType::TensorDesc& td, bool use_softmax) {
  std::vector<int64_t> dims(td.dims().begin(), td.dims().end());
  if (dims.empty())
    user_error(fmt::format("{}: --loss {} has rank 0; a classifier output has a class axis", origin, o.output));
  std::vector<int64_t> label_dims = dims;
  label_dims.back() = 1;
  add_tensor_var(b, o.label, pb::VarType::INT64, label_dims).set_need_check_feed(true);
  add_tensor_var(b, o.output + "@softmax", td.data_type(), dims);
  add_tensor_var(b, o.output + "@xent", td.data_type(), label_dims);
  auto& ce = add_op(b, "softmax_with_cross_entropy");
  ops::add_input(ce, "Logits", {o.output});
  ops::add_input(ce, "Label", {o.label});
  ops::add_output(ce, "Softmax", {o.output + "@softmax"});
  ops::add_output(ce, "Loss", {o.output + "@xent"});
  ops::set_attr_bool(ce, "soft_label", false);
  ops::set_attr_int(ce, "ignore_index", -100);
  ops::set_attr_bool(ce, "numeric_stable_mode", true);
  ops::set_attr_int(ce, "axis", -1);
  ops::set_attr_bool(ce, "use_softmax", use_softmax);
  return o.output + "@xent";
}

struct LossFn {
  const char* name;
  PerSampleFn per_sample;
};

const LossFn kLossFns[] = {
    {"mse", squared_error},
    {"cross_entropy",
     [](pb::BlockDesc& b, const std::string& origin, const LossOptions& o, const pb::VarType::TensorDesc& td) {
       return class_xent(b, origin, o, td, false);
     }},
    {"softmax_cross_entropy",
     [](pb::BlockDesc& b, const std::string& origin, const LossOptions& o, const pb::VarType::TensorDesc& td) {
       return class_xent(b, origin, o, td, true);
     }},
};

}  // namespace

std::vector<std::string> loss_functions() {
  std::vector<std::string> names;
  for (const auto& f : kLossFns) names.push_back(f.name);
  return names;
}

std::string build_loss(pb::ProgramDesc& prog, const std::string& origin, const LossOptions& o) {
  pb::BlockDesc& b = *prog.mutable_blocks(0);
  const LossFn* fn = nullptr;
  for (const auto& f : kLossFns)
    if (o.loss_fn == f.name) fn = &f;
  if (!fn)
    user_error(fmt::format("--loss-fn {} is not one of {}", o.loss_fn, fmt::join(loss_functions(), ", ")));
  pb::VarDesc* out = find_block_var(b, o.output);
  if (!out || !tensor_desc(*out))
    user_error(fmt::format("{}: --loss {} is not a tensor variable of block 0", origin, o.output));
  if (find_block_var(b, o.label)) user_error(fmt::format("{}: --label {} already names a variable", origin, o.label));
  const pb::VarType::TensorDesc td = *tensor_desc(*out);  // a copy: adding vars may move `out`
  std::string per_sample = fn->per_sample(b, origin, o, td);
  const std::string loss = o.output + "@loss";
  add_tensor_var(b, loss, td.data_type(), {});
  auto& mean = add_op(b, "reduce_mean");
  ops::add_input(mean, "X", {per_sample});
  ops::add_output(mean, "Out", {loss});
  ops::set_attr_longs(mean, "dim", {});
  ops::set_attr_bool(mean, "keep_dim", false);
  ops::set_attr_bool(mean, "reduce_all", true);
  ops::set_attr_int(mean, "op_role", kOpRoleForward | kOpRoleLoss);
  return loss;
}

}  // namespace fluidc
