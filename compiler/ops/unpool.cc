// compiler/ops/unpool.cc - unpool (paddle.nn.functional.max_unpool2d; SegNet) and its gradient.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/unpool.h"

namespace fluidc::ops {
namespace {

void infer_unpool(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& idx = c.input("Indices");
  rt::Shape xs, is, os;
  if (!x.known || !idx.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, idx, is)) return;
  if (idx.dtype != pb::VarType::INT32 && idx.dtype != pb::VarType::INT64) {
    c.error("Indices must be int32 or int64");
    return;
  }
  if (std::string e = shapes::unpool_shape(xs, is, parse_attrs<kernels::UnpoolAttrs>(c.op()), os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

}  // namespace

void add_unpool_ops(std::vector<OpDef>& t) {
  const auto attrs = kernel_attrs<kernels::UnpoolAttrs>();
  t.push_back({.type = "unpool", .family = "unpool", .inputs = {{"X"}, {"Indices"}}, .outputs = {{"Out"}},
               .attrs = attrs, .attrs_struct = "UnpoolAttrs", .grad = "unpool_grad", .infer_shape = infer_unpool});
  // Out is accepted (Paddle's backward passes it) but not read.
  t.push_back({.type = "unpool_grad", .family = "unpool",
               .inputs = {{"X"}, {"Indices"}, {"Out", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = attrs, .attrs_struct = "UnpoolAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
