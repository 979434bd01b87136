// compiler/ops/multiplex.cc - multiplex (paddle.multiplex) and its gradient.
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc::ops {
namespace {

// Out is shaped like each X; Ids must have one entry per row.
void infer_multiplex(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& ids = c.input("Ids");
  if (ids.known && ids.dtype != pb::VarType::INT32 && ids.dtype != pb::VarType::INT64) {
    c.error("Ids must be int32 or int64");
    return;
  }
  for (int k = 1; k < c.num_inputs("X"); ++k) {
    const TensorType& other = c.input("X", k);
    if (x.known && other.known && other.dtype != x.dtype) {
      c.error("every X must have X #0's dtype");
      return;
    }
  }
  if (x.known && ids.known && !x.dims.empty() && !ids.dims.empty() &&
      !shape_rules::dims_agree(x.dims[0], ids.dims[0])) {
    c.error("Ids needs one id per row of X");
    return;
  }
  c.set_output("Out", x);
}

// Each X@GRAD is shaped like Out@GRAD.
void infer_multiplex_grad(ShapeCtx& c) { c.set_output("X@GRAD", c.input("Out@GRAD")); }

}  // namespace

void add_multiplex_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "multiplex", .family = "multiplex", .inputs = {{"Ids"}, {"X", false, true}},
               .outputs = {{"Out"}}, .grad = "multiplex_grad", .infer_shape = infer_multiplex});
  // Paddle's backward passes X as well; the kernel does not read it.
  t.push_back({.type = "multiplex_grad", .family = "multiplex", .inputs = {{"Ids"}, {"X", true, true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true, true}}, .infer_shape = infer_multiplex_grad});
}

}  // namespace fluidc::ops
