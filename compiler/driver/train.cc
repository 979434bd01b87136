// compiler/driver/train.cc - inference/forward program -> training program: loss, autodiff, optimizer.
#include "compiler/driver/train.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/ir/attrs.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "transpilers/autodiff.h"

namespace fluidc {
namespace {

// An exported inference program: its feed/fetch ops go (the trainer binds
// data by variable name) and is_test attributes are switched off, which is
// what changes behaviour for training (dropout, batch_norm, while).
void strip_inference(pb::BlockDesc& block) {
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

pb::OpDesc& add_op(pb::BlockDesc& b, const std::string& type) {
  auto* op = b.add_ops();
  op->set_type(type);
  ops::set_attr_int(*op, "op_role", 0);
  return *op;
}

// loss = mean(loss_fn(output, label)), with the ops Paddle's losses write.
std::string build_loss(pb::BlockDesc& b, const std::string& origin, const TrainOptions& o) {
  pb::VarDesc* out = find_block_var(b, o.loss);
  if (!out || !tensor_desc(*out))
    user_error(fmt::format("{}: --loss {} is not a tensor variable of block 0", origin, o.loss));
  if (find_block_var(b, o.label)) user_error(fmt::format("{}: --label {} already names a variable", origin, o.label));
  const auto* td = tensor_desc(*out);
  std::vector<int64_t> dims(td->dims().begin(), td->dims().end());
  std::string per_sample;
  if (o.loss_fn == "mse") {
    add_tensor_var(b, o.label, td->data_type(), dims).set_need_check_feed(true);
    add_tensor_var(b, o.loss + "@diff", td->data_type(), dims);
    add_tensor_var(b, o.loss + "@sq", td->data_type(), dims);
    auto& sub = add_op(b, "elementwise_sub");
    ops::add_input(sub, "X", {o.loss});
    ops::add_input(sub, "Y", {o.label});
    ops::add_output(sub, "Out", {o.loss + "@diff"});
    ops::set_attr_int(sub, "axis", -1);
    auto& sq = add_op(b, "square");
    ops::add_input(sq, "X", {o.loss + "@diff"});
    ops::add_output(sq, "Out", {o.loss + "@sq"});
    per_sample = o.loss + "@sq";
  } else if (o.loss_fn == "cross_entropy" || o.loss_fn == "softmax_cross_entropy") {
    std::vector<int64_t> label_dims = dims;
    if (label_dims.empty()) user_error(fmt::format("{}: --loss {} has rank 0; a classifier output has a class axis", origin, o.loss));
    label_dims.back() = 1;
    add_tensor_var(b, o.label, pb::VarType::INT64, label_dims).set_need_check_feed(true);
    add_tensor_var(b, o.loss + "@softmax", td->data_type(), dims);
    add_tensor_var(b, o.loss + "@xent", td->data_type(), label_dims);
    auto& ce = add_op(b, "softmax_with_cross_entropy");
    ops::add_input(ce, "Logits", {o.loss});
    ops::add_input(ce, "Label", {o.label});
    ops::add_output(ce, "Softmax", {o.loss + "@softmax"});
    ops::add_output(ce, "Loss", {o.loss + "@xent"});
    ops::set_attr_bool(ce, "soft_label", false);
    ops::set_attr_int(ce, "ignore_index", -100);
    ops::set_attr_bool(ce, "numeric_stable_mode", true);
    ops::set_attr_int(ce, "axis", -1);
    ops::set_attr_bool(ce, "use_softmax", o.loss_fn == "softmax_cross_entropy");
    per_sample = o.loss + "@xent";
  } else {
    user_error(fmt::format("--loss-fn {} is not one of mse, cross_entropy, softmax_cross_entropy", o.loss_fn));
  }
  const std::string loss = o.loss + "@loss";
  add_tensor_var(b, loss, td->data_type(), {});
  auto& mean = add_op(b, "reduce_mean");
  ops::add_input(mean, "X", {per_sample});
  ops::add_output(mean, "Out", {loss});
  ops::set_attr_longs(mean, "dim", {});
  ops::set_attr_bool(mean, "keep_dim", false);
  ops::set_attr_bool(mean, "reduce_all", true);
  return loss;
}

void print_program(const pb::ProgramDesc& desc, const std::string& after) {
  fmt::print("// fluidc: program after pass {}\n{}", after, Program::from_desc(desc, "").to_text());
}

}  // namespace

void make_trainable(pb::ProgramDesc& main, pb::ProgramDesc& startup, const std::string& origin,
                    const TrainOptions& o) {
  if (o.loss.empty()) user_error("training needs --loss VAR (the loss, or the output the loss is built on with --label)");
  pb::BlockDesc& block = *main.mutable_blocks(0);
  strip_inference(block);
  std::string loss = o.loss;
  if (!o.label.empty()) loss = build_loss(block, origin, o);
  ParamGrads params;
  for (const auto& pass : o.passes) {
    Diagnostics diags;
    if (pass == "autodiff") {
      AutodiffOptions ao;
      ao.loss = loss;
      ao.no_grad.insert(o.no_grad.begin(), o.no_grad.end());
      params = append_backward(main, origin, ao, diags);
    } else if (pass == "optimizer") {
      if (params.empty())
        user_error("the optimizer pass needs the autodiff pass before it (--passes=autodiff,optimizer)");
      append_optimizer(main, startup, params, o.optimizer, diags);
    } else {
      user_error(fmt::format("unknown pass '{}' (autodiff, optimizer)", pass));
    }
    diags.throw_if_errors();
    if (o.print_after == pass) print_program(main, pass);
  }
}

}  // namespace fluidc
