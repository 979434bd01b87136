// compiler/ops/reduce.cc - mean, reduce_mean, reduce_sum and sum (accumulation) with grads.
#include <fmt/format.h>

#include <algorithm>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/shape_infer.h"

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

void infer_reduce(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  const int rank = static_cast<int>(x.dims.size());
  std::vector<int64_t> dims = attr_ints(c.op(), "dim");
  bool reduce_all = attr_bool(c.op(), "reduce_all", false) || dims.empty();
  std::vector<bool> reduced(rank, reduce_all);
  for (int64_t d : dims) {
    int64_t a = d < 0 ? d + rank : d;
    if (a < 0 || a >= rank) {
      if (rank == 0 && (d == 0 || d == -1)) continue;  // reducing a 0-D tensor is the identity
      c.error(fmt::format("dim {} is out of range for X {}", d, x.str()));
      return;
    }
    reduced[a] = true;
  }
  bool keep = attr_bool(c.op(), "keep_dim", false);
  TensorType out = x;
  out.dims.clear();
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) out.dims.push_back(x.dims[i]);
    else if (keep) out.dims.push_back(1);
  }
  int64_t out_dtype = attr_int(c.op(), "out_dtype", -1);
  if (out_dtype >= 0) out.dtype = static_cast<pb::VarType::Type>(out_dtype);
  // Paddle 2.6 sums bool and int32 into int64 (the kernel does the same).
  else if (c.op().type() == "reduce_sum" && (x.dtype == pb::VarType::BOOL || x.dtype == pb::VarType::INT32))
    out.dtype = pb::VarType::INT64;
  c.set_output("Out", out);
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
  const std::vector<AttrDef> attrs = {{"dim", pb::INTS},
                                      {"keep_dim", pb::BOOLEAN},
                                      {"reduce_all", pb::BOOLEAN},
                                      {"in_dtype", pb::INT},
                                      {"out_dtype", pb::INT}};
  for (const char* name : {"reduce_mean", "reduce_sum"}) {
    std::string fwd = name;
    t.push_back({.type = fwd, .family = "reduce", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = attrs,
                 .attrs_struct = "ReduceAttrs", .grad = fwd + "_grad", .infer_shape = infer_reduce});
    t.push_back({.type = fwd + "_grad", .family = "reduce", .inputs = {{"X"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = "ReduceAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
  // sum is how Paddle's backward adds up several gradients of one variable.
  // Paddle has no sum_grad op (its backward copies the gradient to each
  // input), so no grad op is named; the autodiff pass will own that rule.
  t.push_back({.type = "sum", .family = "reduce", .inputs = {{"X", false, true}}, .outputs = {{"Out"}},
               .infer_shape = infer_sum});
}

}  // namespace fluidc::ops
