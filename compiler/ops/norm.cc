// compiler/ops/norm.cc - batch_norm, layer_norm, instance_norm, group_norm, dropout and their gradients.
#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/norm.h"

namespace fluidc::ops {
namespace {

TensorType vec_type(const TensorType& like, const rt::Shape& s) {
  TensorType t = like;
  t.dims = shape_rules::from_shape(s);
  return t;
}

// Reads X's type and shape; false when unknown (nothing to infer).
bool x_shape(ShapeCtx& c, TensorType& x, rt::Shape& xs) {
  x = c.input("X");
  return x.known && shape_rules::to_shape(c, x, xs);
}

void infer_batch_norm(ShapeCtx& c) {
  TensorType x;
  rt::Shape xs, stats;
  if (!x_shape(c, x, xs)) return;
  int cdim = 0;
  if (std::string e = shapes::batch_norm_shape(xs, parse_attrs<kernels::BatchNormAttrs>(c.op()), cdim, stats);
      !e.empty())
    return c.error(e);
  c.set_output("Y", x);
  for (const char* s : {"MeanOut", "VarianceOut", "SavedMean", "SavedVariance"})
    if (c.has_output(s)) c.set_output(s, vec_type(x, stats));
  if (c.has_output("ReserveSpace")) c.set_output("ReserveSpace", vec_type(x, rt::Shape{0}));
}

// Y like X; `stats` outputs from the family's rule.
template <class Rule>
void infer_normalised(ShapeCtx& c, std::initializer_list<const char*> stat_slots, Rule rule) {
  TensorType x;
  rt::Shape xs, stats;
  if (!x_shape(c, x, xs)) return;
  if (std::string e = rule(xs, stats); !e.empty()) return c.error(e);
  c.set_output("Y", x);
  for (const char* s : stat_slots)
    if (c.has_output(s)) c.set_output(s, vec_type(x, stats));
}

void infer_layer_norm(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::LayerNormAttrs>(c.op());
  infer_normalised(c, {"Mean", "Variance"}, [&](const rt::Shape& xs, rt::Shape& st) {
    int64_t l, r;
    return shapes::layer_norm_shape(xs, a, l, r, st);
  });
}

void infer_instance_norm(ShapeCtx& c) {
  infer_normalised(c, {"SavedMean", "SavedVariance"},
                   [&](const rt::Shape& xs, rt::Shape& st) { return shapes::instance_norm_shape(xs, st); });
}

void infer_group_norm(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::GroupNormAttrs>(c.op());
  infer_normalised(c, {"Mean", "Variance"}, [&](const rt::Shape& xs, rt::Shape& st) {
    int cdim;
    return shapes::group_norm_shape(xs, a, cdim, st);
  });
}

void infer_dropout(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  c.set_output("Out", x);
  if (c.has_output("Mask")) {
    TensorType m = x;
    m.dtype = pb::VarType::UINT8;
    c.set_output("Mask", m);
  }
}

// At inference (is_test) dropout is Out = X * factor; remove-dropout
// replaces it (transpilers/remove_dropout.h).
std::optional<float> dropout_inference_scale(const pb::OpDesc& op) {
  const auto a = parse_attrs<kernels::DropoutAttrs>(op);
  if (!a.is_test) return std::nullopt;
  return static_cast<float>(kernels::dropout_test_factor(a));
}

// batch_norm with running statistics (is_test or use_global_stats) is a
// per-channel affine map; fold-batch-norm folds it into the op before it.
bool batch_norm_inference_affine(const pb::OpDesc& op, ChannelAffine& ca) {
  const auto a = parse_attrs<kernels::BatchNormAttrs>(op);
  if (!a.is_test && !a.use_global_stats) return false;
  if (!op_inputs(op, "MomentumTensor").empty()) return false;
  ca = ChannelAffine{};
  ca.epsilon = a.epsilon;
  ca.axis = a.data_layout == "NHWC" ? -1 : 1;
  return true;
}

// dropout_grad has no X: X@GRAD takes Out@GRAD's type.
void infer_dropout_grad(ShapeCtx& c) {
  if (c.has_output("X@GRAD")) c.set_output("X@GRAD", c.input("Out@GRAD"));
}

// Gradients like their forward inputs; instance_norm_grad has no Bias
// input, so Bias@GRAD takes Scale's type.
void infer_norm_grad(ShapeCtx& c) {
  shape_rules::grads_like_inputs(c);
  if (c.has_output("Bias@GRAD") && !c.has_input("Bias") && c.has_input("Scale"))
    c.set_output("Bias@GRAD", c.input("Scale"));
}

template <class S>
std::string struct_name();
template <> std::string struct_name<kernels::BatchNormAttrs>() { return "BatchNormAttrs"; }
template <> std::string struct_name<kernels::LayerNormAttrs>() { return "LayerNormAttrs"; }
template <> std::string struct_name<kernels::InstanceNormAttrs>() { return "InstanceNormAttrs"; }
template <> std::string struct_name<kernels::GroupNormAttrs>() { return "GroupNormAttrs"; }
template <> std::string struct_name<kernels::DropoutAttrs>() { return "DropoutAttrs"; }

template <class S>
OpDef def(std::string type, std::vector<SlotDef> in, std::vector<SlotDef> out, std::string grad, InferShapeFn infer) {
  return {.type = std::move(type), .family = "norm", .inputs = std::move(in), .outputs = std::move(out),
          .attrs = kernel_attrs<S>(), .attrs_struct = struct_name<S>(), .grad = std::move(grad),
          .infer_shape = infer};
}

}  // namespace

void add_norm_ops(std::vector<OpDef>& t) {
  using namespace kernels;
  // MeanOut/VarianceOut are Paddle's running statistics, normally the same
  // variables as Mean/Variance.
  OpDef bn = def<BatchNormAttrs>(
      "batch_norm", {{"X"}, {"Scale"}, {"Bias"}, {"Mean"}, {"Variance"}, {"MomentumTensor", true}},
      {{"Y"}, {"MeanOut", true}, {"VarianceOut", true}, {"SavedMean", true}, {"SavedVariance", true},
       {"ReserveSpace", true}},
      "batch_norm_grad", infer_batch_norm);
  bn.inference_affine = batch_norm_inference_affine;
  t.push_back(bn);
  t.push_back(def<BatchNormAttrs>("batch_norm_grad",
                                  {{"X"}, {"Scale"}, {"Bias", true}, {"Mean", true}, {"Variance", true},
                                   {"SavedMean"}, {"SavedVariance"}, {"MeanOut", true}, {"VarianceOut", true}, {"ReserveSpace", true}, {"Y@GRAD"}},
                                  {{"X@GRAD", true}, {"Scale@GRAD", true}, {"Bias@GRAD", true}}, "",
                                  infer_norm_grad));
  t.push_back(def<LayerNormAttrs>("layer_norm", {{"X"}, {"Scale", true}, {"Bias", true}},
                                  {{"Y"}, {"Mean", true}, {"Variance", true}}, "layer_norm_grad", infer_layer_norm));
  t.push_back(def<LayerNormAttrs>("layer_norm_grad",
                                  {{"X"}, {"Scale", true}, {"Bias", true}, {"Mean"}, {"Variance"}, {"Y@GRAD"}},
                                  {{"X@GRAD", true}, {"Scale@GRAD", true}, {"Bias@GRAD", true}}, "",
                                  infer_norm_grad));
  t.push_back(def<InstanceNormAttrs>("instance_norm", {{"X"}, {"Scale", true}, {"Bias", true}},
                                     {{"Y"}, {"SavedMean", true}, {"SavedVariance", true}}, "instance_norm_grad",
                                     infer_instance_norm));
  t.push_back(def<InstanceNormAttrs>("instance_norm_grad",
                                     {{"X"}, {"Scale", true}, {"SavedMean"}, {"SavedVariance"}, {"Y@GRAD"}},
                                     {{"X@GRAD", true}, {"Scale@GRAD", true}, {"Bias@GRAD", true}}, "",
                                     infer_norm_grad));
  t.push_back(def<GroupNormAttrs>("group_norm", {{"X"}, {"Scale", true}, {"Bias", true}},
                                  {{"Y"}, {"Mean", true}, {"Variance", true}}, "group_norm_grad", infer_group_norm));
  t.push_back(def<GroupNormAttrs>("group_norm_grad",
                                  {{"X"}, {"Scale", true}, {"Bias", true}, {"Y", true}, {"Mean"}, {"Variance"},
                                   {"Y@GRAD"}},
                                  {{"X@GRAD", true}, {"Scale@GRAD", true}, {"Bias@GRAD", true}}, "",
                                  infer_norm_grad));
  OpDef drop = def<DropoutAttrs>("dropout", {{"X"}, {"Seed", true}}, {{"Out"}, {"Mask", true}}, "dropout_grad",
                                 infer_dropout);
  drop.traits = kRandom;
  drop.inference_scale = dropout_inference_scale;
  drop.share_lod = "X";
  t.push_back(drop);
  t.push_back(def<DropoutAttrs>("dropout_grad", {{"Mask"}, {"Out@GRAD"}}, {{"X@GRAD", true}}, "",
                                infer_dropout_grad));
}

}  // namespace fluidc::ops
