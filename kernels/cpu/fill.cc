// kernels/cpu/fill.cc - constant, like, copy, cast and random-initialisation kernels.
#include "kernels/fill.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/pointwise_unary.h"
#include "kernels/shapes/fill.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

Shape shape_from_attr(const char* op, const std::vector<int64_t>& v) {
  Shape s;
  require_rule(op, shapes::shape_attr_shape(v, s));
  return s;
}

// The shape a creating op makes: ShapeTensor, else ShapeTensorList, else
// the attribute (Paddle's precedence). Run-time shapes are read into a vector
// of their own; the attribute is used in place (no allocation in steady state).
Shape shape_in_effect(const char* op, const Tensor* shape_tensor, const Tensor* const* shape_list, int num_shape_list,
                      const std::vector<int64_t>& attr) {
  if (shape_tensor) return shape_from_attr(op, int_values(op, "ShapeTensor", *shape_tensor));
  if (num_shape_list > 0) return shape_from_attr(op, int_list_values(op, "ShapeTensorList", shape_list, num_shape_list));
  return shape_from_attr(op, attr);
}

DType dtype_from_code(const char* op, const char* what, int code) {
  if (!rt::dtype_is_valid(code)) rt::fail(fmt::format("{}: {} {} is not a dtype code", op, what, code));
  return static_cast<DType>(code);
}

/// Value conversion used by fills and cast. Float to integer is defined for
/// every input: in-range values truncate, NaN and out-of-range values give
/// the minimum (x86's cvtt* result), instead of C++'s undefined behaviour.
template <class To, class From>
To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // 2^63 and 2^31 are exact in float/double; the bound is exclusive.
    const double lo = static_cast<double>(std::numeric_limits<To>::min());
    const double hi = -lo;
    const double d = static_cast<double>(v);
    if (!(d >= lo && d < hi)) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

/// Parses fill_constant's str_value for dtype T.
template <class T>
T parse_value(const char* op, const std::string& s) {
  const char* c = s.c_str();
  if (s == "true" || s == "True") return convert<T>(1);
  if (s == "false" || s == "False") return convert<T>(0);
  char* end = nullptr;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Integers first, so large int64 values keep every digit.
    errno = 0;
    long long i = std::strtoll(c, &end, 10);
    if (end != c && *end == '\0' && errno == 0) return static_cast<T>(i);
  }
  errno = 0;
  double d = std::strtod(c, &end);  // also reads inf, -inf, nan
  if (end == c || *end != '\0')
    rt::fail(fmt::format("{}: str_value '{}' is not a number", op, s));
  return convert<T>(d);
}

template <class T>
void fill_with(Tensor& t, T v) {
  T* p = t.data<T>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = v;
}

// ---- random numbers ---------------------------------------------------------
// splitmix64 evaluated at a counter: sample i of a stream with key k is
// mix(k + (i + 1) * golden). Counter-based, so a call can claim a block of
// the global stream with one atomic add and fill it in any order.
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
std::atomic<uint64_t> g_seed{0};
std::atomic<uint64_t> g_next{0};

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Stream {
  uint64_t key;
  uint64_t start;
  uint64_t bits(uint64_t i) const { return mix(key + (start + i + 1) * kGolden); }
  /// Uniform in [0, 1) with 53 random bits.
  double unit(uint64_t i) const { return static_cast<double>(bits(i) >> 11) * 0x1.0p-53; }
};

/// A fixed seed restarts its own stream each call; seed 0 takes the next
/// `count` draws of the global stream.
Stream stream_for(int seed, uint64_t count) {
  if (seed != 0) return Stream{mix(static_cast<uint64_t>(static_cast<int64_t>(seed))), 0};
  return Stream{mix(g_seed.load()), g_next.fetch_add(count)};
}

}  // namespace

void set_global_seed(uint64_t seed) {
  g_seed.store(seed);
  g_next.store(0);
}

RandomStreamStart claim_random_stream(int seed, uint64_t count) {
  const Stream st = stream_for(seed, count);
  return {st.key, st.start};
}

double random_unit(const RandomStreamStart& s, uint64_t i) { return Stream{s.key, s.start}.unit(i); }

void fill_constant(const Tensor* value_tensor, const Tensor* shape_tensor, const Tensor* const* shape_list,
                   int num_shape_list, Tensor& out, const FillConstantAttrs& attrs) {
  const char* op = "fill_constant";
  const DType dt = dtype_from_code(op, "dtype", attrs.dtype);
  const Shape s = shape_in_effect(op, shape_tensor, shape_list, num_shape_list, attrs.shape);
  // Read before out is resized: the value tensor may be out itself. An
  // integer value is kept as one: an int64 above 2^53 does not survive a double.
  const double run_time_value = value_tensor ? scalar_of(op, "ValueTensor", *value_tensor) : 0;
  const bool integral_value = value_tensor && (value_tensor->dtype() == DType::kInt32 ||
                                               value_tensor->dtype() == DType::kInt64);
  const int64_t run_time_int = integral_value ? int_at(op, "ValueTensor", *value_tensor, 0) : 0;
  visit_all(op, "dtype", dt, [&](auto tag) {
    using T = decltype(tag);
    const T v = integral_value            ? convert<T>(run_time_int)
                : value_tensor            ? convert<T>(run_time_value)
                : attrs.str_value.empty() ? convert<T>(attrs.value)
                                          : parse_value<T>(op, attrs.str_value);
    out.resize(s, dt);
    fill_with<T>(out, v);
  });
}

void fill_any_like(const Tensor& x, Tensor& out, const FillAnyLikeAttrs& attrs) {
  const char* op = "fill_any_like";
  require_init(op, "X", x);
  const DType dt = attrs.dtype == -1 ? x.dtype() : dtype_from_code(op, "dtype", attrs.dtype);
  const Shape s = x.shape();  // copied: out may be x
  visit_all(op, "dtype", dt, [&](auto tag) {
    using T = decltype(tag);
    out.resize(s, dt);
    fill_with<T>(out, convert<T>(attrs.value));
  });
}

void fill_zeros_like(const Tensor& x, Tensor& out) {
  require_init("fill_zeros_like", "X", x);
  const Shape s = x.shape();
  out.resize(s, x.dtype());
  out.zero();  // all-zero bytes are 0 / 0.0 / false in every dtype
}

void fill_zeros_like2(const Tensor& x, Tensor& out, const FillZerosLike2Attrs& attrs) {
  constexpr const char* op = "fill_zeros_like2";
  require_init(op, "X", x);
  const DType dt = dtype_from_code(op, "dtype", attrs.dtype);
  const Shape s = x.shape();  // copied: out may be x
  out.resize(s, dt);
  out.zero();  // all-zero bytes are 0 / 0.0 / false in every dtype
}

void assign(const Tensor& x, Tensor& out) {
  require_init("assign", "X", x);
  out.copy_from(x);  // a no-op when out is x
}

void cast(const Tensor& x, Tensor& out, const CastAttrs& attrs) {
  const char* op = "cast";
  require_init(op, "X", x);
  const DType to = dtype_from_code(op, "out_dtype", attrs.out_dtype);
  if (to == x.dtype()) {
    out.copy_from(x);
    return;
  }
  // Converting in place would overwrite elements not yet read when the
  // element sizes differ, so an aliased cast goes through scratch.
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  o.resize(x.shape(), to);
  visit_all(op, "X", x.dtype(), [&](auto in_tag) {
    using TI = decltype(in_tag);
    visit_all(op, "out_dtype", to, [&](auto out_tag) {
      using TO = decltype(out_tag);
      const TI* pi = x.data<TI>();
      TO* po = o.data<TO>();
      for (int64_t i = 0, n = x.numel(); i < n; ++i) po[i] = convert<TO>(pi[i]);
    });
  });
  buf.finish();
}

void uniform_random(const Tensor* shape_tensor, const Tensor* const* shape_list, int num_shape_list, Tensor& out,
                    const UniformRandomAttrs& attrs) {
  const char* op = "uniform_random";
  const DType dt = dtype_from_code(op, "dtype", attrs.dtype);
  const Shape s = shape_in_effect(op, shape_tensor, shape_list, num_shape_list, attrs.shape);
  if (!(attrs.min <= attrs.max))
    rt::fail(fmt::format("{}: min {} is greater than max {}", op, attrs.min, attrs.max));
  visit_float(op, "dtype", dt, [&](auto tag) {
    using T = decltype(tag);
    out.resize(s, dt);
    T* p = out.data<T>();
    const int64_t n = s.numel();
    const Stream st = stream_for(attrs.seed, static_cast<uint64_t>(n));
    const T lo = static_cast<T>(attrs.min), hi = static_cast<T>(attrs.max);
    for (int64_t i = 0; i < n; ++i) {
      T v = static_cast<T>(static_cast<double>(lo) + (static_cast<double>(hi) - lo) * st.unit(i));
      if (v >= hi && hi > lo) v = std::nextafter(hi, lo);  // rounding must not reach max
      p[i] = v;
    }
  });
}

void gaussian_random(const Tensor* shape_tensor, const Tensor* const* shape_list, int num_shape_list, Tensor& out,
                     const GaussianRandomAttrs& attrs) {
  const char* op = "gaussian_random";
  const DType dt = dtype_from_code(op, "dtype", attrs.dtype);
  const Shape s = shape_in_effect(op, shape_tensor, shape_list, num_shape_list, attrs.shape);
  visit_float(op, "dtype", dt, [&](auto tag) {
    using T = decltype(tag);
    out.resize(s, dt);
    T* p = out.data<T>();
    const int64_t n = s.numel();
    const Stream st = stream_for(attrs.seed, 2 * static_cast<uint64_t>(n));
    constexpr double kTwoPi = 6.283185307179586476925;
    for (int64_t i = 0; i < n; ++i) {
      const double u1 = 1.0 - st.unit(2 * i);  // (0, 1]: log is finite
      const double u2 = st.unit(2 * i + 1);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
      p[i] = static_cast<T>(attrs.mean + attrs.std * z);
    }
  });
}

void truncated_gaussian_random(Tensor& out, const GaussianRandomAttrs& attrs) {
  const char* op = "truncated_gaussian_random";
  const DType dt = dtype_from_code(op, "dtype", attrs.dtype);
  const Shape s = shape_in_effect(op, nullptr, nullptr, 0, attrs.shape);
  visit_float(op, "dtype", dt, [&](auto tag) {
    using T = decltype(tag);
    out.resize(s, dt);
    T* p = out.data<T>();
    const int64_t n = s.numel();
    const Stream st = stream_for(attrs.seed, static_cast<uint64_t>(n));
    // The standard normal CDF at -2 and 2: a draw u between them maps to
    // sqrt(2) erfinv(2u - 1), a z in [-2, 2].
    const double lo = 0.5 * std::erfc(std::sqrt(2.0)), hi = 1.0 - lo;
    constexpr double kSqrt2 = 1.4142135623730950488;
    for (int64_t i = 0; i < n; ++i) {
      const double u = lo + (hi - lo) * st.unit(i);
      const double z = std::clamp(kSqrt2 * pw::erfinv_f64(2.0 * u - 1.0), -2.0, 2.0);
      p[i] = static_cast<T>(attrs.mean + attrs.std * z);
    }
  });
}

}  // namespace fluidc::kernels
