// kernels/cuda/transformer.cc - gelu, layer_norm and lookup_table_v2 (and gradients) on the device: checks, then launches.
#include <cstdint>
#include <string>

#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/index.h"
#include "kernels/shapes/norm.h"

namespace fluidc::kernels::cuda {

using namespace util;

void gelu(const DTensor& x, DTensor& out, const GeluAttrs& a) {
  require_f32("gelu", "X", x);
  out.dresize(x.dshape(), rt::DType::kFP32);
  dev::gelu(f(x), f(out), x.dnumel(), a.approximate, stream());
  cu::launched("gelu");
}

void gelu_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad, const GeluAttrs& a) {
  const char* op = "gelu_grad";
  if (!x_grad) return;
  require_f32(op, "X", x);
  require_f32(op, "Out@GRAD", out_grad);
  if (out_grad.dshape() != x.dshape())
    rt::fail(std::string(op) + ": Out@GRAD " + out_grad.dshape().str() + " does not match X " + x.dshape().str());
  x_grad->dresize(x.dshape(), rt::DType::kFP32);
  dev::gelu_grad(f(x), f(out_grad), f(*x_grad), x.dnumel(), a.approximate, stream());
  cu::launched(op);
}

void layer_norm(const DTensor& x, const DTensor* scale, const DTensor* bias, DTensor& y, DTensor* mean,
                DTensor* variance, const LayerNormAttrs& a) {
  const char* op = "layer_norm";
  require_f32(op, "X", x);
  int64_t left = 0, right = 0;
  rt::Shape stats;
  require_rule(op, shapes::layer_norm_shape(x.dshape(), a, left, right, stats));
  if (scale) require_f32_count(op, "Scale", *scale, right);
  if (bias) require_f32_count(op, "Bias", *bias, right);
  if (same_storage(y, x)) rt::fail(std::string(op) + ": Y must not share storage with X");
  y.dresize(x.dshape(), rt::DType::kFP32);
  if (mean) mean->dresize(stats, rt::DType::kFP32);
  if (variance) variance->dresize(stats, rt::DType::kFP32);
  dev::layer_norm(f(x), f_or_null(scale), f_or_null(bias), f(y), mean ? f(*mean) : nullptr,
                  variance ? f(*variance) : nullptr, left, right, a.epsilon, stream());
  cu::launched(op);
}

void layer_norm_grad(const DTensor& x, const DTensor* scale, const DTensor* /*bias*/, const DTensor& mean,
                     const DTensor& variance, const DTensor& y_grad, DTensor* x_grad, DTensor* scale_grad,
                     DTensor* bias_grad, const LayerNormAttrs& a) {
  const char* op = "layer_norm_grad";
  require_f32(op, "X", x);
  int64_t left = 0, right = 0;
  rt::Shape stats;
  require_rule(op, shapes::layer_norm_shape(x.dshape(), a, left, right, stats));
  require_f32(op, "Y@GRAD", y_grad);
  if (y_grad.dshape() != x.dshape())
    rt::fail(std::string(op) + ": Y@GRAD " + y_grad.dshape().str() + " does not match X " + x.dshape().str());
  require_f32_count(op, "Mean", mean, left);
  require_f32_count(op, "Variance", variance, left);
  if (scale) require_f32_count(op, "Scale", *scale, right);
  // Every row's sums are read before its dx is written, but the parameter sums read all of X and Y@GRAD.
  for (const DTensor* out : {x_grad, scale_grad, bias_grad})
    if (out && (same_storage(*out, x) || same_storage(*out, y_grad)))
      rt::fail(std::string(op) + ": a gradient must not share storage with X or Y@GRAD");
  if (x_grad) x_grad->dresize(x.dshape(), rt::DType::kFP32);
  if (scale_grad && scale) scale_grad->dresize(scale->dshape(), rt::DType::kFP32);
  if (bias_grad) bias_grad->dresize(rt::Shape{right}, rt::DType::kFP32);
  dev::layer_norm_grad(f(x), f_or_null(scale), f(mean), f(variance), f(y_grad), x_grad ? f(*x_grad) : nullptr,
                       scale_grad && scale ? f(*scale_grad) : nullptr, bias_grad ? f(*bias_grad) : nullptr, left,
                       right, a.epsilon, stream());
  cu::launched(op);
}

namespace {

// Paddle's -1 means "no padding id" (as the CPU kernel).
int64_t padding_id(const LookupTableV2Attrs& a) { return a.padding_idx == -1 ? INT64_MIN : a.padding_idx; }

bool ids_are_64(const char* op, const DTensor& ids) {
  require_dev(op, "Ids", ids);
  if (ids.ddtype() != rt::DType::kInt64 && ids.ddtype() != rt::DType::kInt32)
    rt::fail(std::string(op) + ": Ids must be int64 or int32, not " + rt::dtype_name(ids.ddtype()));
  return ids.ddtype() == rt::DType::kInt64;
}

}  // namespace

void lookup_table_v2(const DTensor& ids, const DTensor& w, DTensor& out, const LookupTableV2Attrs& a) {
  const char* op = "lookup_table_v2";
  const bool ids64 = ids_are_64(op, ids);
  require_f32(op, "W", w);
  rt::Shape s;
  require_rule(op, shapes::lookup_table_v2_shape(ids.dshape(), w.dshape(), s));
  if (same_storage(out, w) || same_storage(out, ids)) rt::fail(std::string(op) + ": Out must not share storage");
  out.dresize(s, rt::DType::kFP32);
  dev::embedding(ids.dev().raw(), ids64, f(w), f(out), ids.dnumel(), w.dshape().d[0], w.dshape().d[1], padding_id(a),
                 stream());
  cu::launched(op);
}

void lookup_table_v2_grad(const DTensor& ids, const DTensor& w, const DTensor& out_grad, DTensor* w_grad,
                          const LookupTableV2Attrs& a) {
  const char* op = "lookup_table_v2_grad";
  if (!w_grad) return;
  const bool ids64 = ids_are_64(op, ids);
  require_f32(op, "Out@GRAD", out_grad);
  if (w.dshape().rank != 2) rt::fail(std::string(op) + ": W must be 2-D, got " + w.dshape().str());
  const int64_t rows = w.dshape().d[0], d = w.dshape().d[1], n = ids.dnumel();
  if (out_grad.dnumel() != n * d)
    rt::fail(std::string(op) + ": Out@GRAD " + out_grad.dshape().str() + " does not match Ids " +
             ids.dshape().str() + " and W " + w.dshape().str());
  if (same_storage(*w_grad, out_grad) || same_storage(*w_grad, ids))
    rt::fail(std::string(op) + ": W@GRAD must not share storage with Ids or Out@GRAD");
  w_grad->dresize(w.dshape(), rt::DType::kFP32);
  // With is_sparse the padding row gets its gradient like any other (as Paddle's sparse kernel).
  dev::embedding_grad(ids.dev().raw(), ids64, f(out_grad), f(*w_grad), n, rows, d, padding_id(a), a.is_sparse,
                      stream());
  cu::launched(op);
}

}  // namespace fluidc::kernels::cuda
