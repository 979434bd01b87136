// compiler/ops/matmul.cc - mul, matmul (v1) and matmul_v2 with their grads: the GEMM ops.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/shape_infer.h"

namespace fluidc::ops {
namespace {

int64_t product(const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) {
    if (d[i] < 0) return -1;
    p *= d[i];
  }
  return p;
}

// mul flattens X to 2-D at x_num_col_dims and Y at y_num_col_dims.
void infer_mul(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  if (!x.known || !y.known) return;
  size_t xn = attr_int(c.op(), "x_num_col_dims", 1), yn = attr_int(c.op(), "y_num_col_dims", 1);
  if (xn < 1 || xn >= x.dims.size() + (x.dims.size() == 1) || yn < 1 || yn >= y.dims.size() + (y.dims.size() == 1)) {
    c.error(fmt::format("x_num_col_dims={} / y_num_col_dims={} do not fit X {} and Y {}", xn, yn,
                        dims_str(x.dims), dims_str(y.dims)));
    return;
  }
  int64_t k_x = product(x.dims, xn, x.dims.size()), k_y = product(y.dims, 0, yn);
  if (!shape_rules::dims_agree(k_x, k_y)) {
    c.error(fmt::format("X {} flattens to {} columns but Y {} to {} rows", dims_str(x.dims), k_x,
                        dims_str(y.dims), k_y));
    return;
  }
  TensorType out = x;
  out.dims.assign(x.dims.begin(), x.dims.begin() + xn);
  out.dims.insert(out.dims.end(), y.dims.begin() + yn, y.dims.end());
  c.set_output("Out", out);
}

// numpy matmul: 1-D operands are promoted and the promoted dim dropped;
// batch dims broadcast.
void infer_matmul_common(ShapeCtx& c, bool tx, bool ty) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  if (!x.known || !y.known) return;
  if (x.dims.empty() || y.dims.empty()) {
    c.error("matmul operands must have rank >= 1");
    return;
  }
  std::vector<int64_t> xd = x.dims, yd = y.dims;
  bool x_vec = xd.size() == 1, y_vec = yd.size() == 1;
  if (x_vec) xd.insert(xd.begin(), 1);
  if (y_vec) yd.push_back(1);
  if (tx && !x_vec) std::swap(xd[xd.size() - 1], xd[xd.size() - 2]);
  if (ty && !y_vec) std::swap(yd[yd.size() - 1], yd[yd.size() - 2]);
  int64_t m = xd[xd.size() - 2], kx = xd.back(), ky = yd[yd.size() - 2], n = yd.back();
  if (!shape_rules::dims_agree(kx, ky)) {
    c.error(fmt::format("X {} and Y {} have inner dims {} and {} (trans_x={}, trans_y={})", dims_str(x.dims),
                        dims_str(y.dims), kx, ky, tx, ty));
    return;
  }
  std::vector<int64_t> xb(xd.begin(), xd.end() - 2), yb(yd.begin(), yd.end() - 2), batch;
  if (!shape_rules::broadcast(xb, yb, -1, batch)) {
    c.error(fmt::format("batch dims of X {} and Y {} do not broadcast", dims_str(x.dims), dims_str(y.dims)));
    return;
  }
  TensorType out = x;
  out.dims = batch;
  if (!x_vec) out.dims.push_back(m);
  if (!y_vec) out.dims.push_back(n);
  c.set_output("Out", out);
}

void infer_matmul_v2(ShapeCtx& c) {
  infer_matmul_common(c, attr_bool(c.op(), "trans_x", false), attr_bool(c.op(), "trans_y", false));
}

void infer_matmul(ShapeCtx& c) {
  infer_matmul_common(c, attr_bool(c.op(), "transpose_X", false), attr_bool(c.op(), "transpose_Y", false));
}

}  // namespace

void add_matmul_ops(std::vector<OpDef>& t) {
  struct Variant {
    const char* type;
    std::vector<AttrDef> attrs;
    const char* attrs_struct;
    InferShapeFn infer;
  };
  const Variant variants[] = {
      {"mul", {{"x_num_col_dims", pb::INT}, {"y_num_col_dims", pb::INT}}, "MulAttrs", infer_mul},
      {"matmul",
       {{"transpose_X", pb::BOOLEAN}, {"transpose_Y", pb::BOOLEAN}, {"alpha", pb::FLOAT}},
       "MatmulAttrs",
       infer_matmul},
      {"matmul_v2", {{"trans_x", pb::BOOLEAN}, {"trans_y", pb::BOOLEAN}}, "MatmulV2Attrs", infer_matmul_v2},
  };
  for (const auto& v : variants) {
    std::string fwd = v.type;
    t.push_back({.type = fwd, .family = "matmul", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .attrs = v.attrs, .attrs_struct = v.attrs_struct, .grad = fwd + "_grad", .infer_shape = v.infer});
    t.push_back({.type = fwd + "_grad", .family = "matmul", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .attrs = v.attrs, .attrs_struct = v.attrs_struct,
                 .infer_shape = shape_rules::grads_like_inputs});
  }
}

}  // namespace fluidc::ops
