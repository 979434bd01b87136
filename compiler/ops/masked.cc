// compiler/ops/masked.cc - where_index (paddle.nonzero) and masked_select with its gradient: outputs whose length the data decides.
#include <fmt/format.h>

#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/masked.h"

namespace fluidc::ops {
namespace {

// Out [K, rank] int64; K is -1 here and the kernel sizes Out (later ops see
// a run-time dim, as after multiclass_nms).
void infer_where_index(ShapeCtx& c) {
  const TensorType& cond = c.input("Condition");
  rt::Shape cs, os;
  if (!cond.known || !shape_rules::to_shape(c, cond, cs)) return;
  shapes::where_index_shape(cs, os);
  TensorType t = cond;
  t.dtype = pb::VarType::INT64;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

void infer_masked_select(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& m = c.input("Mask");
  rt::Shape xs, ms, xa, ma, common, ys;
  if (!x.known || !m.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, m, ms)) return;
  if (m.dtype != pb::VarType::BOOL) {
    c.error(fmt::format("Mask is {}: it must be bool", m.str()));
    return;
  }
  if (std::string e = shapes::masked_select_shape(xs, ms, xa, ma, common, ys); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(ys);
  c.set_output("Y", t);
}

}  // namespace

void add_masked_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "where_index", .family = "masked", .inputs = {{"Condition"}}, .outputs = {{"Out"}},
               .infer_shape = infer_where_index});
  t.push_back({.type = "masked_select", .family = "masked", .inputs = {{"X"}, {"Mask"}}, .outputs = {{"Y"}},
               .grad = "masked_select_grad", .infer_shape = infer_masked_select});
  t.push_back({.type = "masked_select_grad", .family = "masked", .inputs = {{"X"}, {"Mask"}, {"Y@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
