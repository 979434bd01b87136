// compiler/ops/matmul.cc - mul, matmul (v1), matmul_v2, bmm, dot and addmm with their grads, and fc: the GEMM ops.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/fc.h"
#include "kernels/shapes/matmul.h"

namespace fluidc::ops {
namespace {

// Every product's shape comes from the kernels' rule (kernels/shapes/
// matmul.h) over the kernels' parsed attributes.
template <class Attrs, std::string (*Rule)(const rt::Shape&, const rt::Shape&, const Attrs&, shapes::MatmulShape&)>
void infer_product(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  rt::Shape xs, ys;
  if (!x.known || !y.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, y, ys)) return;
  shapes::MatmulShape s;
  if (std::string e = Rule(xs, ys, parse_attrs<Attrs>(c.op()), s); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(s.out);
  c.set_output("Out", out);
}

// fc: mul's rule with X = Input flattened at in_num_col_dims and Y = W.
void infer_fc(ShapeCtx& c) {
  const TensorType& x = c.input("Input");
  const TensorType& w = c.input("W");
  rt::Shape xs, ws;
  if (!x.known || !w.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, w, ws)) return;
  kernels::MulAttrs m;
  m.x_num_col_dims = parse_attrs<kernels::FcAttrs>(c.op()).in_num_col_dims;
  shapes::MatmulShape s;
  if (std::string e = shapes::mul_shape(xs, ws, m, s); !e.empty()) return c.error("fc: " + e);
  TensorType out = x;
  out.dims = shape_rules::from_shape(s.out);
  c.set_output("Out", out);
}

// addmm: Out [X rows, Y columns] in X's dtype (kernels/shapes/matmul.h).
void infer_addmm(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  rt::Shape is, xs, ys, os;
  if (!in.known || !x.known || !y.known) return;
  if (in.dtype != x.dtype || x.dtype != y.dtype) {
    c.error(fmt::format("Input {}, X {} and Y {} must have one dtype", in.str(), x.str(), y.str()));
    return;
  }
  if (!shape_rules::to_shape(c, in, is) || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, y, ys))
    return;
  if (std::string e = shapes::addmm_shape(is, xs, ys, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

}  // namespace

void add_matmul_ops(std::vector<OpDef>& t) {
  struct Variant {
    const char* type;
    std::vector<AttrDef> attrs;
    const char* attrs_struct;
    InferShapeFn infer;
  };
  using kernels::MatmulAttrs, kernels::MatmulV2Attrs, kernels::MulAttrs;
  const Variant variants[] = {
      {"mul", kernel_attrs<MulAttrs>(), "MulAttrs", infer_product<MulAttrs, shapes::mul_shape>},
      {"matmul", kernel_attrs<MatmulAttrs>(), "MatmulAttrs", infer_product<MatmulAttrs, shapes::matmul_shape>},
      {"matmul_v2", kernel_attrs<MatmulV2Attrs>(), "MatmulV2Attrs",
       infer_product<MatmulV2Attrs, shapes::matmul_v2_shape>},
  };
  for (const auto& v : variants) {
    std::string fwd = v.type;
    t.push_back({.type = fwd, .family = "matmul", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .attrs = v.attrs, .attrs_struct = v.attrs_struct, .grad = fwd + "_grad", .infer_shape = v.infer,
                 .share_lod = "X"});
    t.push_back({.type = fwd + "_grad", .family = "matmul", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .attrs = v.attrs, .attrs_struct = v.attrs_struct,
                 .infer_shape = shape_rules::grads_like_inputs});
  }
  // bmm: batched 3-D products, no attributes (BmmAttrs only names the shape rule's).
  t.push_back({.type = "bmm", .family = "matmul", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}}, .grad = "bmm_grad",
               .infer_shape = infer_product<kernels::BmmAttrs, shapes::bmm_shape>});
  t.push_back({.type = "bmm_grad", .family = "matmul", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  // paddle.addmm: Beta * Input (broadcast) + Alpha * X @ Y.
  const auto addmm_attrs = kernel_attrs<kernels::AddmmAttrs>();
  t.push_back({.type = "addmm", .family = "matmul", .inputs = {{"Input"}, {"X"}, {"Y"}}, .outputs = {{"Out"}},
               .attrs = addmm_attrs, .attrs_struct = "AddmmAttrs", .grad = "addmm_grad", .infer_shape = infer_addmm,
               .share_lod = kShareLodNone});
  t.push_back({.type = "addmm_grad", .family = "matmul", .inputs = {{"Input"}, {"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"Input@GRAD", true}, {"X@GRAD", true}, {"Y@GRAD", true}}, .attrs = addmm_attrs,
               .attrs_struct = "AddmmAttrs", .infer_shape = shape_rules::grads_like_inputs});
  // dot: row-wise inner products of 1-D or 2-D operands.
  t.push_back({.type = "dot", .family = "matmul", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}}, .grad = "dot_grad",
               .infer_shape = infer_product<kernels::DotAttrs, shapes::dot_shape>});
  t.push_back({.type = "dot_grad", .family = "matmul", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  // Paddle Inference's fc_fuse_pass writes it (mul + elementwise_add [+ relu]) into the programs it saves
  // optimised; no gradient (Paddle has none).
  t.push_back({.type = "fc", .family = "fc", .inputs = {{"Input"}, {"W"}, {"Bias", true}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::FcAttrs>(), .attrs_struct = "FcAttrs", .infer_shape = infer_fc});
}

}  // namespace fluidc::ops
