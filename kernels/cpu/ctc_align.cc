// kernels/cpu/ctc_align.cc - greedy CTC decoding (ctc_align): the LoD form and the padded Input + InputLength form.
#include <cstdint>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/vision_legacy2.h"
#include "runtime/lod.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

constexpr const char* kOp = "ctc_align";

// Copies the kept tokens of in[0, n) to out; returns how many. `prev`
// starts at -1, a value no token takes here (Paddle's start).
template <class T>
int64_t decode(const T* in, int64_t n, T* out, const CtcAlignAttrs& a) {
  int64_t kept = 0;
  T prev = static_cast<T>(-1);
  for (int64_t i = 0; i < n; ++i) {
    const T t = in[i];
    if (t != static_cast<T>(a.blank) && !(a.merge_repeated && t == prev)) out[kept++] = t;
    prev = t;
  }
  return kept;
}

template <class T>
void lod_form(const Tensor& input, Tensor& output, const CtcAlignAttrs& a) {
  const auto& lod = rt::last_lod_level(input, kOp, "Input");
  if (input.rank() != 2 || input.dim(1) != 1)
    rt::fail(fmt::format("{}: Input {} must be [T, 1] (a LoD tensor of tokens)", kOp, input.shape().str()));
  if (lod.size() < 1 || lod.back() != static_cast<uint64_t>(input.dim(0)))
    rt::fail(fmt::format("{}: Input's LoD does not cover its {} rows", kOp, input.dim(0)));
  // Decode into a scratch vector first: Output's rows are known only after.
  std::vector<T> kept(static_cast<size_t>(input.dim(0)) + 1);
  std::vector<uint64_t> offsets(1, 0);
  const T* in = input.data<T>();
  int64_t total = 0;
  for (size_t s = 0; s + 1 < lod.size(); ++s)
    offsets.push_back(total += decode(in + lod[s], static_cast<int64_t>(lod[s + 1] - lod[s]), kept.data() + total, a));
  if (total == 0) {
    // Paddle's marker for "nothing decoded": one row holding -1, offsets all 0.
    output.resize(Shape{1, 1}, input.dtype());
    output.data<T>()[0] = static_cast<T>(-1);
  } else {
    output.resize(Shape{total, 1}, input.dtype());
    std::copy(kept.begin(), kept.begin() + total, output.data<T>());
  }
  auto& olod = output.mutable_lod();
  olod.assign(1, std::move(offsets));
}

template <class T>
void padded_form(const Tensor& input, const Tensor& length, Tensor& output, Tensor* output_length,
                 const CtcAlignAttrs& a) {
  if (input.rank() != 2) rt::fail(fmt::format("{}: Input {} must be [batch, max_len]", kOp, input.shape().str()));
  require_init(kOp, "InputLength", length);
  const int64_t b = input.dim(0), l = input.dim(1);
  if (length.numel() != b)
    rt::fail(fmt::format("{}: InputLength {} needs one length per row of Input {}", kOp, length.shape().str(),
                         input.shape().str()));
  // Paddle reads the lengths in Input's own integer type.
  require_same_dtype(kOp, "Input", input, "InputLength", length);
  std::vector<T> counts(static_cast<size_t>(b));
  std::vector<T> row(static_cast<size_t>(l));
  Tensor& out = output;
  const bool same = &out == &input;
  if (!same) out.resize(input.shape(), input.dtype());
  for (int64_t r = 0; r < b; ++r) {
    const int64_t n = length.data<T>()[r];
    if (n < 0 || n > l) rt::fail(fmt::format("{}: InputLength[{}] = {} is outside [0, {}]", kOp, r, n, l));
    const int64_t k = decode(input.data<T>() + r * l, n, row.data(), a);
    std::fill(row.begin() + k, row.end(), static_cast<T>(a.padding_value));
    std::copy(row.begin(), row.end(), out.data<T>() + r * l);  // after reading the row: Output may be Input
    counts[r] = static_cast<T>(k);
  }
  out.clear_lod();
  if (output_length) {
    output_length->resize(Shape{b, 1}, input.dtype());
    std::copy(counts.begin(), counts.end(), output_length->data<T>());
    output_length->clear_lod();
  }
}

}  // namespace

void ctc_align(const Tensor& input, const Tensor* input_length, Tensor& output, Tensor* output_length,
               const CtcAlignAttrs& attrs) {
  require_init(kOp, "Input", input);
  if (input_length == &output || output_length == &input)
    rt::fail(fmt::format("{}: an output may not be InputLength, nor OutputLength Input", kOp));
  auto run = [&](auto tag) {
    using T = decltype(tag);
    if (input_length) padded_form<T>(input, *input_length, output, output_length, attrs);
    else lod_form<T>(input, output, attrs);
  };
  switch (input.dtype()) {
    case DType::kInt32: return run(int32_t{});
    case DType::kInt64: return run(int64_t{});
    default: rt::fail(fmt::format("{}: Input must be int32 or int64, got {}", kOp, rt::dtype_name(input.dtype())));
  }
}

}  // namespace fluidc::kernels
