// compiler/ops/index_put.cc - index_put (x[indices] = value or +=) and index_put_grad.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/index_put.h"

namespace fluidc::ops {
namespace {

// out is x's type; the places (and so value's broadcast) are known only
// from the indices' values, checked by the kernel at run time.
void infer_index_put(ShapeCtx& c) {
  const TensorType& x = c.input("x");
  if (!x.known) return;
  const TensorType& v = c.input("value");
  if (v.known && v.dtype != x.dtype) {
    c.error(fmt::format("value is {} but x is {}", v.str(), x.str()));
    return;
  }
  for (int k = 0; k < c.num_inputs("indices"); ++k) {
    const TensorType& t = c.input("indices", k);
    if (t.known && t.dtype != pb::VarType::INT32 && t.dtype != pb::VarType::INT64 && t.dtype != pb::VarType::BOOL) {
      c.error(fmt::format("indices entry {} is {}; needs int32, int64 or bool", k, t.str()));
      return;
    }
  }
  c.set_output("out", x);
}

void infer_index_put_grad(ShapeCtx& c) {
  if (c.has_output("x@GRAD")) c.set_output("x@GRAD", c.input("x"));
  if (c.has_output("value@GRAD")) c.set_output("value@GRAD", c.input("value"));
}

}  // namespace

void add_index_put_ops(std::vector<OpDef>& t) {
  const auto attrs = kernel_attrs<kernels::IndexPutAttrs>();
  t.push_back({.type = "index_put", .family = "index_put",
               .inputs = {{"x"}, {"indices", false, true}, {"value"}}, .outputs = {{"out"}}, .attrs = attrs,
               .attrs_struct = "IndexPutAttrs", .grad = "index_put_grad", .infer_shape = infer_index_put});
  t.push_back({.type = "index_put_grad", .family = "index_put",
               .inputs = {{"x"}, {"indices", false, true}, {"value"}, {"out@GRAD"}},
               .outputs = {{"x@GRAD", true}, {"value@GRAD", true}}, .attrs = attrs, .attrs_struct = "IndexPutAttrs",
               .infer_shape = infer_index_put_grad});
}

}  // namespace fluidc::ops
