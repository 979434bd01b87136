// compiler/ops/reduce.cc - mean, reduce_mean/sum/max/min/prod/amax/amin/any/all, logsumexp, p_norm and sum (accumulation) with grads.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/reduce.h"

namespace fluidc::ops {
namespace {

void infer_squared_l2_norm(ShapeCtx& c) {
  TensorType out = c.input("X");
  if (!out.known) return;
  out.dims = {1};
  c.set_output("Out", out);
}

void infer_mean(ShapeCtx& c) {
  TensorType out = c.input("X");
  if (!out.known) return;
  out.dims.clear();  // Paddle 2.6 returns a 0-D tensor
  c.set_output("Out", out);
}

// The kernels' rules (kernels/shapes/reduce.h) over the kernels' parsed
// attributes: a missing `dim` is Paddle's default {0}, not "every dim".
// Out's dtype: X's, reduce_sum's rule (kSum), or bool (kBool: any / all).
template <bool kSum, bool kBool>
void infer_reduce_with(ShapeCtx& c, const TensorType& x, const rt::Shape& xs, const kernels::ReduceAttrs& a) {
  shapes::ReducePlan p;
  if (std::string e = shapes::reduce_shape(xs, a, p); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(p.out);
  if (kSum) out.dtype = static_cast<pb::VarType::Type>(shapes::reduce_sum_dtype(x.dtype, a));
  if (kBool) out.dtype = pb::VarType::BOOL;
  c.set_output("Out", out);
}

template <bool kSum, bool kBool = false>
void infer_reduce(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  infer_reduce_with<kSum, kBool>(c, x, xs, parse_attrs<kernels::ReduceAttrs>(c.op()));
}

// p_norm is a reduce over `axis` (or everything when asvector).
void infer_p_norm(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  infer_reduce_with<false, false>(c, x, xs, shapes::p_norm_as_reduce(parse_attrs<kernels::PNormAttrs>(c.op())));
}

void infer_logsumexp(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  infer_reduce_with<false, false>(c, x, xs, shapes::logsumexp_as_reduce(parse_attrs<kernels::LogsumexpAttrs>(c.op())));
}

void infer_sum(ShapeCtx& c) {
  const TensorType& first = c.input("X", 0);
  for (int i = 1; i < c.num_inputs("X"); ++i) {
    const TensorType& xi = c.input("X", i);
    if (!first.known || !xi.known) continue;
    bool same = xi.dims.size() == first.dims.size() && xi.dtype == first.dtype;
    for (size_t d = 0; same && d < xi.dims.size(); ++d) same = shape_rules::dims_agree(xi.dims[d], first.dims[d]);
    if (!same) {
      c.error(fmt::format("input X #{} is {} but X #0 is {}: sum adds tensors of one type", i, xi.str(), first.str()));
      return;
    }
  }
  c.set_output("Out", first);
}

}  // namespace

void add_reduce_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "squared_l2_norm", .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .infer_shape = infer_squared_l2_norm});
  t.push_back({.type = "mean", .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .grad = "mean_grad",
               .infer_shape = infer_mean});
  t.push_back({.type = "mean_grad", .family = "reduce", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  const std::vector<AttrDef> attrs = kernel_attrs<kernels::ReduceAttrs>();
  for (auto [name, infer] : {std::pair<const char*, InferShapeFn>{"reduce_mean", infer_reduce<false>},
                             {"reduce_sum", infer_reduce<true>}}) {
    std::string fwd = name;
    t.push_back({.type = fwd, .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = attrs,
                 .attrs_struct = "ReduceAttrs", .grad = fwd + "_grad", .infer_shape = infer});
    t.push_back({.type = fwd + "_grad", .family = "reduce", .inputs = {{"X"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = "ReduceAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
  // max / min / prod: the gradient reads X and Out (the extrema, the product); so does frobenius_norm's.
  for (std::string fwd : {"reduce_max", "reduce_min", "reduce_prod", "frobenius_norm"}) {
    t.push_back({.type = fwd, .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = attrs,
                 .attrs_struct = "ReduceAttrs", .grad = fwd + "_grad", .infer_shape = infer_reduce<false>});
    t.push_back({.type = fwd + "_grad", .family = "reduce", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = "ReduceAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
  // amax / amin: max / min whose gradient splits evenly among tied extrema
  // (Paddle writes their `dim` as int64s; the attribute reads either).
  for (std::string fwd : {"reduce_amax", "reduce_amin"}) {
    t.push_back({.type = fwd, .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = attrs,
                 .attrs_struct = "ReduceAttrs", .grad = fwd + "_grad", .infer_shape = infer_reduce<false>});
    t.push_back({.type = fwd + "_grad", .family = "reduce", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = "ReduceAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
  const std::vector<AttrDef> lse_attrs = kernel_attrs<kernels::LogsumexpAttrs>();
  t.push_back({.type = "logsumexp", .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = lse_attrs,
               .attrs_struct = "LogsumexpAttrs", .grad = "logsumexp_grad", .infer_shape = infer_logsumexp});
  t.push_back({.type = "logsumexp_grad", .family = "reduce", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = lse_attrs, .attrs_struct = "LogsumexpAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  for (std::string fwd : {"reduce_any", "reduce_all"})
    t.push_back({.type = fwd, .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = attrs,
                 .attrs_struct = "ReduceAttrs", .infer_shape = infer_reduce<false, true>});
  const std::vector<AttrDef> p_norm_attrs = kernel_attrs<kernels::PNormAttrs>();
  t.push_back({.type = "p_norm", .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = p_norm_attrs,
               .attrs_struct = "PNormAttrs", .grad = "p_norm_grad", .infer_shape = infer_p_norm});
  t.push_back({.type = "p_norm_grad", .family = "reduce", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = p_norm_attrs, .attrs_struct = "PNormAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  // sum is how Paddle's backward adds up several gradients of one variable.
  // Paddle has no sum_grad op (its backward copies the gradient to each
  // input), so no grad op is named; the autodiff pass will own that rule.
  // Sparse gradients of a shared embedding are summed by `sum`, rows merged: the dense sum.
  t.push_back({.type = "sum", .family = "reduce",
               .inputs = {{.name = "X", .duplicable = true, .rows_as_dense = true}},
               .outputs = {{.name = "Out", .rows_as_dense = true}},
               .infer_shape = infer_sum});
}

}  // namespace fluidc::ops
