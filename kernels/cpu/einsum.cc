// kernels/cpu/einsum.cc - einsum and einsum_grad as one strided sum-of-products loop over the equation's labels.
//
// Every einsum, and each operand's gradient, is dst[outer] = sum over inner
// of a product of strided reads: the forward sums the operands' product
// over the labels missing from the output; operand k's gradient sums
// Out@GRAD times the other operands over the labels k lacks. One loop nest
// thus covers transposes, batched products, traces, diagonals and
// broadcasting, with a double (or int64) accumulator per output element.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/sgemm.h"
#include "kernels/einsum.h"
#include "kernels/shapes/einsum.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

constexpr int kMaxSrc = shapes::kEinsumMaxOperands;
using Strides = int64_t[shapes::kEinsumMaxLabels];

/// Calls f(e, off) for the points of labels `ls` in row-major order over
/// them: e counts the points, off is the point's offset under strides `st`.
template <class F>
void for_each_point(const int64_t* st, const shapes::EinsumPlan& p, const int* ls, int nl, F&& f) {
  int64_t idx[shapes::kEinsumMaxLabels] = {}, off = 0, total = 1;
  for (int q = 0; q < nl; ++q) total *= p.size[ls[q]];
  for (int64_t e = 0; e < total; ++e) {
    f(e, off);
    for (int q = nl - 1; q >= 0; --q) {
      off += st[ls[q]];
      if (++idx[q] < p.size[ls[q]]) break;
      off -= p.size[ls[q]] * st[ls[q]];
      idx[q] = 0;
    }
  }
}

/// Copies the elements of `src` at the points of labels `ls` (row-major
/// over them, strides `st`) into contiguous `dst`; scatter() writes back.
template <class T>
void gather(const T* src, const int64_t* st, const shapes::EinsumPlan& p, const int* ls, int nl, T* dst) {
  for_each_point(st, p, ls, nl, [&](int64_t e, int64_t off) { dst[e] = src[off]; });
}

template <class T>
void scatter(const T* src, const int64_t* st, const shapes::EinsumPlan& p, const int* ls, int nl, T* dst) {
  for_each_point(st, p, ls, nl, [&](int64_t e, int64_t off) { dst[off] = src[e]; });
}

/// The batched-product path for two sources: when every label (of size >
/// 1) is a batch label (in both sources and dst), a row label (first source
/// and dst), a column label (second source and dst) or a summed one (both
/// sources, not dst), dst = per batch [rows x summed] @ [summed x columns],
/// the operands gathered into that layout first (the transposes), the
/// product on fluidc's packed GEMM for fp32. False: another pattern (a label
/// summed within one source, a label only dst has), left to the loop.
template <class T>
bool batched_product(const shapes::EinsumPlan& p, const T* const* src, const int64_t* const* st, T* dst,
                     const int64_t* dst_stride) {
  int bl[shapes::kEinsumMaxLabels], ml[shapes::kEinsumMaxLabels], nl[shapes::kEinsumMaxLabels],
      kl[shapes::kEinsumMaxLabels];
  int nb = 0, nm = 0, nn = 0, nk = 0;
  int64_t B = 1, M = 1, N = 1, K = 1;
  for (int l = 0; l < p.num_labels; ++l) {
    if (p.size[l] <= 1) continue;
    const bool a = st[0][l] != 0, b = st[1][l] != 0, d = dst_stride[l] != 0;
    if (a && b && d) bl[nb++] = l, B *= p.size[l];
    else if (a && !b && d) ml[nm++] = l, M *= p.size[l];
    else if (!a && b && d) nl[nn++] = l, N *= p.size[l];
    else if (a && b && !d) kl[nk++] = l, K *= p.size[l];
    else return false;
  }
  // Small products: the loop is as fast as the copies would be.
  if (B * M * N * K < 32 * 1024) return false;
  int la[shapes::kEinsumMaxLabels], lb[shapes::kEinsumMaxLabels], lc[shapes::kEinsumMaxLabels];
  int na = 0, nbb = 0, nc = 0;
  for (int q = 0; q < nb; ++q) la[na++] = lb[nbb++] = lc[nc++] = bl[q];
  for (int q = 0; q < nm; ++q) la[na++] = lc[nc++] = ml[q];
  for (int q = 0; q < nk; ++q) la[na++] = lb[nbb++] = kl[q];
  for (int q = 0; q < nn; ++q) lb[nbb++] = lc[nc++] = nl[q];
  Tensor& ta = scratch(Slot::kTmp0);
  Tensor& tb = scratch(Slot::kTmp1);
  Tensor& tc = scratch(Slot::kAcc);
  const DType dt = DTypeOf<T>::value;
  ta.resize(Shape{B * M * K}, dt);
  tb.resize(Shape{B * K * N}, dt);
  tc.resize(Shape{B * M * N}, dt);
  gather(src[0], st[0], p, la, na, ta.data<T>());
  gather(src[1], st[1], p, lb, nbb, tb.data<T>());
  for (int64_t i = 0; i < B; ++i) {
    const T* A = ta.data<T>() + i * M * K;
    const T* Bm = tb.data<T>() + i * K * N;
    T* C = tc.data<T>() + i * M * N;
    if constexpr (std::is_same_v<T, float>) {
      packed_sgemm(false, false, M, N, K, 1.0f, A, K, Bm, N, 0.0f, C, N);
    } else {
      for (int64_t r = 0; r < M; ++r) {
        T* cr = C + r * N;
        std::fill(cr, cr + N, T(0));
        for (int64_t q = 0; q < K; ++q) {
          const T a = A[r * K + q];
          const T* br = Bm + q * N;
          for (int64_t c = 0; c < N; ++c) cr[c] += a * br[c];
        }
      }
    }
  }
  scatter(tc.data<T>(), dst_stride, p, lc, nc, dst);
  return true;
}

/// dst[outer] = sum_inner prod_j src[j][...] where the outer labels are
/// those dst moves along (dst_stride != 0) and the inner ones the rest.
/// Every dst element is written once (zero when it lies off the labels,
/// e.g. off a diagonal). Threaded over the outer elements.
template <class T>
void sum_of_products(const shapes::EinsumPlan& p, int ns, const T* const* src, const int64_t* const* src_stride,
                     T* dst, const int64_t* dst_stride, int64_t dst_numel) {
  std::fill(dst, dst + dst_numel, T(0));
  for (int l = 0; l < p.num_labels; ++l)
    if (p.size[l] == 0) return;  // nothing to sum: zeros
  if (ns == 2 && batched_product(p, src, src_stride, dst, dst_stride)) return;
  int outer[shapes::kEinsumMaxLabels], inner[shapes::kEinsumMaxLabels];
  int no = 0, ni = 0;
  int64_t n_outer = 1, n_inner = 1;
  for (int l = 0; l < p.num_labels; ++l) {
    if (p.size[l] == 0) return;  // nothing to sum: zeros
    if (p.size[l] == 1) continue;
    if (dst_stride[l] != 0) outer[no++] = l, n_outer *= p.size[l];
    else inner[ni++] = l, n_inner *= p.size[l];
  }
  parallel_items(n_outer, n_inner * ns, [&](int64_t begin, int64_t end) {
    int64_t idx[shapes::kEinsumMaxLabels] = {};
    int64_t base[kMaxSrc] = {}, dbase = 0;
    int64_t rem = begin;  // the coordinates of `begin`, innermost label last
    for (int q = no - 1; q >= 0; --q) {
      const int l = outer[q];
      idx[q] = rem % p.size[l];
      rem /= p.size[l];
      dbase += idx[q] * dst_stride[l];
      for (int j = 0; j < ns; ++j) base[j] += idx[q] * src_stride[j][l];
    }
    for (int64_t o = begin; o < end; ++o) {
      Acc<T> acc = 0;
      int64_t jdx[shapes::kEinsumMaxLabels] = {};
      int64_t off[kMaxSrc];
      for (int j = 0; j < ns; ++j) off[j] = base[j];
      for (int64_t i = 0; i < n_inner; ++i) {
        Acc<T> prod = 1;
        for (int j = 0; j < ns; ++j) prod *= static_cast<Acc<T>>(src[j][off[j]]);
        acc += prod;
        for (int q = ni - 1; q >= 0; --q) {  // next inner point
          const int l = inner[q];
          for (int j = 0; j < ns; ++j) off[j] += src_stride[j][l];
          if (++jdx[q] < p.size[l]) break;
          for (int j = 0; j < ns; ++j) off[j] -= p.size[l] * src_stride[j][l];
          jdx[q] = 0;
        }
      }
      dst[dbase] = static_cast<T>(acc);
      for (int q = no - 1; q >= 0; --q) {  // next outer point
        const int l = outer[q];
        dbase += dst_stride[l];
        for (int j = 0; j < ns; ++j) base[j] += src_stride[j][l];
        if (++idx[q] < p.size[l]) break;
        dbase -= p.size[l] * dst_stride[l];
        for (int j = 0; j < ns; ++j) base[j] -= p.size[l] * src_stride[j][l];
        idx[q] = 0;
      }
    }
  });
}

void plan(const char* op, const char* role, const Tensor* const* xs, int n, const EinsumAttrs& a,
          shapes::EinsumPlan& p) {
  shapes::EinsumEquation e;
  require_rule(op, shapes::parse_einsum(a.equation, n, e));
  Shape shapes_[kMaxSrc];
  for (int k = 0; k < n; ++k) {
    if (!xs[k]) rt::fail(fmt::format("{}: {} entry {} is missing", op, role, k));
    require_init(op, role, *xs[k]);
    if (k > 0) require_same_dtype(op, role, *xs[0], role, *xs[k]);
    shapes_[k] = xs[k]->shape();
  }
  require_rule(op, shapes::plan_einsum(e, shapes_, n, p));
}

}  // namespace

void einsum(const Tensor* const* operands, int n, Tensor& out, Tensor* const*, int, Tensor* const* x_shape,
            int num_x_shape, const EinsumAttrs& attrs) {
  constexpr const char* op = "einsum";
  shapes::EinsumPlan p;
  plan(op, "Operands", operands, n, attrs, p);
  for (int k = 0; k < num_x_shape && k < n; ++k)  // before Out, which may alias an operand
    if (x_shape[k] && x_shape[k] != operands[k]) x_shape[k]->copy_from(*operands[k]);
  const bool aliased = std::any_of(operands, operands + n, [&](const Tensor* t) { return t == &out; });
  OutBuf buf(&out, Slot::kOut0, aliased);
  Tensor& o = buf.get();
  o.resize(p.out, operands[0]->dtype());
  visit_float(op, "Operands", operands[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src[kMaxSrc];
    const int64_t* st[kMaxSrc];
    for (int k = 0; k < n; ++k) src[k] = operands[k]->data<T>(), st[k] = p.stride[k];
    sum_of_products<T>(p, n, src, st, o.data<T>(), p.out_stride, o.numel());
  });
  buf.finish();
}

void einsum_grad(const Tensor* const* x_shape, int n, const Tensor* const*, int, const Tensor& out_grad,
                 Tensor* const* operands_grad, int num_grads, const EinsumAttrs& attrs) {
  constexpr const char* op = "einsum_grad";
  shapes::EinsumPlan p;
  plan(op, "x_shape", x_shape, n, attrs, p);
  require_init(op, "Out@GRAD", out_grad);
  if (out_grad.shape() != p.out)
    rt::fail(fmt::format("{}: Out@GRAD is {} but the equation gives {}", op, out_grad.shape().str(), p.out.str()));
  require_same_dtype(op, "Out@GRAD", out_grad, "x_shape", *x_shape[0]);
  if (num_grads > n) rt::fail(fmt::format("{}: {} gradients for {} operands", op, num_grads, n));
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int k = 0; k < num_grads; ++k) {
      Tensor* g = operands_grad[k];
      if (!g) continue;
      // Sources: Out@GRAD and the other operands. A gradient that aliases
      // an input is computed into scratch first.
      const T* src[kMaxSrc + 1];
      const int64_t* st[kMaxSrc + 1];
      int ns = 0;
      src[ns] = out_grad.data<T>(), st[ns++] = p.out_stride;
      for (int j = 0; j < n; ++j)
        if (j != k) src[ns] = x_shape[j]->data<T>(), st[ns++] = p.stride[j];
      bool aliased = g == &out_grad;
      for (int j = 0; j < n; ++j) aliased = aliased || g == x_shape[j];
      OutBuf buf(g, Slot::kOut0, aliased);
      Tensor& o = buf.get();
      o.resize(x_shape[k]->shape(), out_grad.dtype());
      sum_of_products<T>(p, ns, src, st, o.data<T>(), p.stride[k], o.numel());
      buf.finish();
    }
  });
}

}  // namespace fluidc::kernels
