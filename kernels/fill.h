// kernels/fill.h - tensor creation and copying: fill_constant, *_like, assign, cast, random init.
//
// dtype attributes are Paddle VarType codes (rt::DType values). Fills and
// cast support bool, int32, int64, fp32 and fp64; assign copies any dtype;
// the random ops produce fp32 or fp64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `fill_constant`.
struct FillConstantAttrs {
  std::vector<int64_t> shape;
  int dtype = 5;
  float value = 0.0f;
  std::string str_value;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("shape", &FillConstantAttrs::shape);
    f("dtype", &FillConstantAttrs::dtype, kRequiredAttr);
    f("value", &FillConstantAttrs::value);
    f("str_value", &FillConstantAttrs::str_value);
  }
};

/// Attributes of `fill_any_like`.
struct FillAnyLikeAttrs {
  float value = 0.0f;
  int dtype = -1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("value", &FillAnyLikeAttrs::value);
    f("dtype", &FillAnyLikeAttrs::dtype);
  }
};

/// Attributes of `fill_zeros_like2`.
struct FillZerosLike2Attrs {
  int dtype = 5;  ///< Paddle's dtype code (its default: float32)

  template <class F>
  static void fields(F&& f) {
    f("dtype", &FillZerosLike2Attrs::dtype);
  }
};

/// Attributes of `cast`.
struct CastAttrs {
  int in_dtype = 5;
  int out_dtype = 5;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("in_dtype", &CastAttrs::in_dtype);
    f("out_dtype", &CastAttrs::out_dtype, kRequiredAttr);
  }
};

/// Attributes of `uniform_random`.
struct UniformRandomAttrs {
  std::vector<int64_t> shape;
  float min = -1.0f;
  float max = 1.0f;
  int seed = 0;
  int dtype = 5;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("shape", &UniformRandomAttrs::shape);
    f("min", &UniformRandomAttrs::min);
    f("max", &UniformRandomAttrs::max);
    f("seed", &UniformRandomAttrs::seed);
    f("dtype", &UniformRandomAttrs::dtype);
  }
};

/// Attributes of `gaussian_random`. (`shape` is spelled ::std::vector
/// because the member named `std` would otherwise change what `std` means
/// inside the struct.)
struct GaussianRandomAttrs {
  ::std::vector<int64_t> shape;
  float mean = 0.0f;
  float std = 1.0f;
  int seed = 0;
  int dtype = 5;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("shape", &GaussianRandomAttrs::shape);
    f("mean", &GaussianRandomAttrs::mean);
    f("std", &GaussianRandomAttrs::std);
    f("seed", &GaussianRandomAttrs::seed);
    f("dtype", &GaussianRandomAttrs::dtype);
  }
};

/// Seeds the process-wide generator used by random ops whose `seed` is 0,
/// and restarts its stream. Until called, the seed is 0 (so runs are
/// reproducible by default).
void set_global_seed(uint64_t seed);

/// The generator behind uniform_random, for random kernels of other
/// families (dropout): claims `count` draws under the same seed rules (a
/// nonzero seed restarts its own stream, 0 takes the next draws of the
/// global stream); random_unit(s, i) is draw i in [0, 1) with 53 bits.
struct RandomStreamStart {
  uint64_t key = 0;
  uint64_t start = 0;
};
RandomStreamStart claim_random_stream(int seed, uint64_t count);
double random_unit(const RandomStreamStart& s, uint64_t i);

/// Out = a tensor of `shape` and `dtype` filled with `value`. When str_value
/// is non-empty it wins and is parsed as a number ("inf", "-inf", "nan",
/// "true", "false" too): integer dtypes parse it as an integer, so int64
/// values beyond float precision survive.
/// Values a program computes at run time win over the attributes, as in
/// Paddle: ValueTensor (one element, any numeric dtype) over value and
/// str_value; ShapeTensor (a 1-D int32/int64 tensor) over ShapeTensorList
/// (one 1-element int tensor per dim) over shape.
void fill_constant(const Tensor* value_tensor, const Tensor* shape_tensor, const Tensor* const* shape_list,
                   int num_shape_list, Tensor& out, const FillConstantAttrs& attrs);
/// fill_constant with the attributes' shape and value.
inline void fill_constant(Tensor& out, const FillConstantAttrs& attrs) {
  fill_constant(nullptr, nullptr, nullptr, 0, out, attrs);
}
/// Out = X's shape filled with `value`, in `dtype` (-1 = X's dtype).
void fill_any_like(const Tensor& x, Tensor& out, const FillAnyLikeAttrs& attrs);
/// Out = zeros of X's shape and dtype.
void fill_zeros_like(const Tensor& x, Tensor& out);
/// Out = zeros of X's shape in `dtype` (Paddle's backward writes it for the
/// gradients a control-flow block does not produce).
void fill_zeros_like2(const Tensor& x, Tensor& out, const FillZerosLike2Attrs& attrs);
/// Out = a copy of X (any dtype).
void assign(const Tensor& x, Tensor& out);
/// Out = X converted to out_dtype. X's actual dtype is used as the source
/// (in_dtype is not trusted). Float to integer truncates toward zero; NaN
/// and out-of-range values give the integer type's minimum (what x86 does,
/// made defined); nonzero to bool is true.
void cast(const Tensor& x, Tensor& out, const CastAttrs& attrs);
/// Out = uniform samples in [min, max). Our own counter-based generator
/// (splitmix64), not Paddle's bits: seed != 0 gives the same numbers on
/// every call; seed == 0 draws the next numbers of the global stream.
/// ShapeTensor / ShapeTensorList win over `shape` as for fill_constant.
void uniform_random(const Tensor* shape_tensor, const Tensor* const* shape_list, int num_shape_list, Tensor& out,
                    const UniformRandomAttrs& attrs);
/// uniform_random with the attribute's shape.
inline void uniform_random(Tensor& out, const UniformRandomAttrs& attrs) {
  uniform_random(nullptr, nullptr, 0, out, attrs);
}
/// Out = normal samples with `mean` and `std` (Box-Muller over the same
/// generator and seed rules as uniform_random).
/// ShapeTensor / ShapeTensorList win over `shape` as for fill_constant.
void gaussian_random(const Tensor* shape_tensor, const Tensor* const* shape_list, int num_shape_list, Tensor& out,
                     const GaussianRandomAttrs& attrs);
/// gaussian_random with the attribute's shape.
inline void gaussian_random(Tensor& out, const GaussianRandomAttrs& attrs) {
  gaussian_random(nullptr, nullptr, 0, out, attrs);
}
/// truncated_gaussian_random (paddle.nn.initializer.TruncatedNormal): the
/// normal distribution of `mean` and `std` restricted to [mean - 2 std,
/// mean + 2 std], as Paddle 2.6.2 draws it: a uniform draw between the two
/// bounds' probabilities, through the inverse normal CDF. Same attributes
/// as gaussian_random (shape from the attribute only).
void truncated_gaussian_random(Tensor& out, const GaussianRandomAttrs& attrs);

}  // namespace fluidc::kernels
