// kernels/cpu/linalg_lu.cc - inverse, determinant and slogdeterminant with their gradients: one LU factorisation per matrix.
#include <cmath>
#include <limits>

#include "kernels/cpu/lu_util.h"
#include "kernels/linalg_lu.h"
#include "kernels/shapes/linalg_lu.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// Input@GRAD = scale(m) * Input^-T per matrix, or `fill` everywhere when
/// any matrix is singular: determinant's and slogdeterminant's gradients.
/// One factorisation per matrix: a singular one overwrites what the regular
/// ones before it wrote.
template <class Scale>
void scaled_inverse_transpose(const char* op, const Tensor& input, const Tensor& out_grad, Tensor* input_grad,
                              double fill, Scale scale) {
  const SquareBatch b = checked_batch(op, "Input", input);
  require_init(op, "Out@GRAD", out_grad);
  if (!input_grad) return;
  OutBuf buf(input_grad, Slot::kOut0, aliases(input_grad, {&input, &out_grad}));
  Tensor& g = buf.get();
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Factored f = work_for(b);
    g.resize(input.shape(), input.dtype());
    for (int64_t m = 0; m < b.count; ++m) {
      factor<T>(input, b, m, f, true);
      if (!f.regular) {
        T* gv = g.data<T>();
        for (int64_t i = 0; i < g.numel(); ++i) gv[i] = static_cast<T>(fill);
        return;
      }
      const double s = scale(m);
      for (int64_t i = 0; i < b.n; ++i)
        for (int64_t j = 0; j < b.n; ++j) f.lu[i * b.n + j] = s * f.inv[j * b.n + i];
      store_matrix<T>(f.lu, b, m, g);
    }
  });
  buf.finish();
}

/// Element m of a float tensor, widened.
double element(const Tensor& t, int64_t m) {
  return t.dtype() == DType::kFP64 ? t.data<double>()[m] : static_cast<double>(t.data<float>()[m]);
}

}  // namespace

void inverse(const Tensor& input, Tensor& output) {
  constexpr const char* op = "inverse";
  const SquareBatch b = checked_batch(op, "Input", input);
  OutBuf buf(&output, Slot::kOut0, aliases(&output, {&input}));
  Tensor& o = buf.get();
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(input.shape(), input.dtype());
    Factored f = work_for(b);
    for (int64_t m = 0; m < b.count; ++m) {
      factor<T>(input, b, m, f, true);
      if (!f.regular) rt::fail(fmt::format("inverse: matrix {} of Input {} is not invertible (a zero pivot)", m,
                                           input.shape().str()));
      store_matrix<T>(f.inv, b, m, o);
    }
  });
  buf.finish();
}

void inverse_grad(const Tensor& output, const Tensor& output_grad, Tensor* input_grad) {
  constexpr const char* op = "inverse_grad";
  const SquareBatch b = checked_batch(op, "Output", output);
  require_init(op, "Output@GRAD", output_grad);
  require_same_shape(op, "Output", output, "Output@GRAD", output_grad);
  require_same_dtype(op, "Output", output, "Output@GRAD", output_grad);
  if (!input_grad) return;
  OutBuf buf(input_grad, Slot::kOut0, aliases(input_grad, {&output, &output_grad}));
  Tensor& g = buf.get();
  visit_float(op, "Output", output.dtype(), [&](auto tag) {
    using T = decltype(tag);
    g.resize(output.shape(), output.dtype());
    double* w = lu_work(4 * b.size());
    double *inv = w, *dout = w + b.size(), *t = w + 2 * b.size(), *r = w + 3 * b.size();
    for (int64_t m = 0; m < b.count; ++m) {
      load_matrix<T>(output, b, m, inv);
      load_matrix<T>(output_grad, b, m, dout);
      square_product(inv, true, dout, false, b.n, t);  // Output^T G
      square_product(t, false, inv, true, b.n, r);     // ... Output^T
      for (int64_t i = 0; i < b.size(); ++i) r[i] = -r[i];
      store_matrix<T>(r, b, m, g);
    }
  });
  buf.finish();
}

void determinant(const Tensor& input, Tensor& out) {
  constexpr const char* op = "determinant";
  const SquareBatch b = checked_batch(op, "Input", input);
  Shape os;
  require_rule(op, shapes::determinant_shape(input.shape(), os));
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&input}));
  Tensor& o = buf.get();
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(os, input.dtype());
    Factored f = work_for(b);
    for (int64_t m = 0; m < b.count; ++m) {
      factor<T>(input, b, m, f, false);
      double det = f.regular ? f.sign : 0.0;
      for (int64_t i = 0; f.regular && i < b.n; ++i) det *= f.lu[i * b.n + i];
      o.data<T>()[m] = static_cast<T>(det);
    }
  });
  buf.finish();
}

void determinant_grad(const Tensor& input, const Tensor& out, const Tensor& out_grad, Tensor* input_grad) {
  constexpr const char* op = "determinant_grad";
  require_init(op, "Out", out);
  if (out.numel() != out_grad.numel() || out.dtype() != input.dtype())
    rt::fail(fmt::format("determinant_grad: Out {} and Out@GRAD {} must hold one {} per matrix of Input {}",
                         out.shape().str(), out_grad.shape().str(), rt::dtype_name(input.dtype()),
                         input.shape().str()));
  scaled_inverse_transpose(op, input, out_grad, input_grad, 0.0,
                           [&](int64_t m) { return element(out_grad, m) * element(out, m); });
}

void slogdeterminant(const Tensor& input, Tensor& out) {
  constexpr const char* op = "slogdeterminant";
  const SquareBatch b = checked_batch(op, "Input", input);
  Shape os;
  require_rule(op, shapes::slogdeterminant_shape(input.shape(), os));
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&input}));
  Tensor& o = buf.get();
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(os, input.dtype());
    T* sign = o.data<T>();
    T* logabs = sign + b.count;
    Factored f = work_for(b);
    for (int64_t m = 0; m < b.count; ++m) {
      factor<T>(input, b, m, f, false);
      if (!f.regular) {
        sign[m] = 0;
        logabs[m] = -std::numeric_limits<T>::infinity();
        continue;
      }
      double s = f.sign, l = 0.0;
      for (int64_t i = 0; i < b.n; ++i) {
        const double u = f.lu[i * b.n + i];
        if (u < 0) s = -s;
        l += std::log(std::fabs(u));
      }
      sign[m] = static_cast<T>(s);
      logabs[m] = static_cast<T>(l);
    }
  });
  buf.finish();
}

void slogdeterminant_grad(const Tensor& input, const Tensor& out, const Tensor& out_grad, Tensor* input_grad) {
  constexpr const char* op = "slogdeterminant_grad";
  require_init(op, "Out", out);
  const int64_t count = input.shape().rank >= 2 ? prod(input.shape(), 0, input.shape().rank - 2) : 0;
  if (out_grad.numel() != 2 * count || out_grad.dtype() != input.dtype())
    rt::fail(fmt::format("slogdeterminant_grad: Out@GRAD {} must hold two {} per matrix of Input {}",
                         out_grad.shape().str(), rt::dtype_name(input.dtype()), input.shape().str()));
  scaled_inverse_transpose(op, input, out_grad, input_grad, std::numeric_limits<double>::quiet_NaN(),
                           [&](int64_t m) { return element(out_grad, count + m); });
}

}  // namespace fluidc::kernels
