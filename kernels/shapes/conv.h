// kernels/shapes/conv.h - the shape rules of the convolutions and transposed convolutions, for kernels and compiler.
#pragma once

#include <algorithm>
#include <string>

#include "kernels/conv.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Everything a convolution kernel needs to know about one call. Spatial
/// values are kept for three dims; a 2-D convolution is a 3-D one of depth 1
/// (index 0 then has size 1, kernel 1, stride 1, no padding), so one
/// im2col/col2im serves both.
struct ConvGeometry {
  int nsp = 2;                 ///< spatial dims of the op (2 or 3)
  bool channel_last = false;   ///< NHWC / NDHWC
  int64_t N = 0;               ///< batch
  int64_t C = 0;               ///< Input's channels
  int64_t M = 0;               ///< Output's channels
  int64_t groups = 1;
  int64_t in[3] = {1, 1, 1};   ///< Input's spatial dims
  int64_t out[3] = {1, 1, 1};  ///< Output's spatial dims
  int64_t k[3] = {1, 1, 1};    ///< Filter's spatial dims
  int64_t stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};  ///< padding before; the padding after only shows in `out`
  Shape out_shape;             ///< Output in the op's layout
};

namespace conv_detail {

/// Paddle's layouts: only the channel-last names put channels last.
inline std::string channel_last(const std::string& f, bool& last) {
  if (f == "NHWC" || f == "NDHWC") last = true;
  else if (f == "NCHW" || f == "NCDHW" || f == "AnyLayout") last = false;
  else return fmt::format("data_format '{}' is not one of NCHW, NHWC, NCDHW, NDHWC, AnyLayout", f);
  return {};
}

/// Splits Input into batch, channels and spatial dims (last `nsp` of 3 slots).
inline std::string split_input(const Shape& x, int nsp, bool last, ConvGeometry& g) {
  if (x.rank != nsp + 2) return fmt::format("Input must have rank {} but has shape {}", nsp + 2, x.str());
  g.N = x[0];
  g.C = last ? x[nsp + 1] : x[1];
  for (int i = 0; i < nsp; ++i) g.in[3 - nsp + i] = x[(last ? 1 : 2) + i];
  return {};
}

/// Strides, dilations and paddings per spatial dim, after padding_algorithm
/// (Paddle's rule: SAME pads so that out = ceil(in / stride), the odd pixel
/// after, and sets dilations to 1; VALID pads nothing). `in` is the dims the
/// padding applies to (the Input, for transposed convolutions too).
/// Writes pad-after sums into `pad_after`.
template <class Attrs>
std::string window(const Attrs& a, int nsp, ConvGeometry& g, int64_t pad_after[3]) {
  const int off = 3 - nsp;
  auto sized = [&](const std::vector<int>& v, const char* what) -> std::string {
    if (!v.empty() && static_cast<int>(v.size()) != nsp)
      return fmt::format("{} has {} values but the convolution has {} spatial dims", what, v.size(), nsp);
    return {};
  };
  if (std::string e = sized(a.strides, "strides"); !e.empty()) return e;
  if (std::string e = sized(a.dilations, "dilations"); !e.empty()) return e;
  for (int i = 0; i < nsp; ++i) {
    g.stride[off + i] = a.strides.empty() ? 1 : a.strides[i];
    g.dil[off + i] = a.dilations.empty() ? 1 : a.dilations[i];
    if (g.stride[off + i] <= 0) return fmt::format("strides must be positive, got {}", g.stride[off + i]);
    if (g.dil[off + i] <= 0) return fmt::format("dilations must be positive, got {}", g.dil[off + i]);
  }
  const size_t np = a.paddings.size();
  if (np != 0 && np != static_cast<size_t>(nsp) && np != static_cast<size_t>(2 * nsp))
    return fmt::format("paddings has {} values; a {}-D convolution takes {} or {}", np, nsp, nsp, 2 * nsp);
  for (int i = 0; i < nsp; ++i) {
    int64_t before = 0, after = 0;
    if (np == static_cast<size_t>(nsp)) before = after = a.paddings[i];
    else if (np != 0) before = a.paddings[2 * i], after = a.paddings[2 * i + 1];
    if (before < 0 || after < 0) return fmt::format("paddings must not be negative, got {}", a.paddings[i]);
    g.pad[off + i] = before;
    pad_after[off + i] = after;
  }
  if (a.padding_algorithm == "VALID") {
    for (int i = 0; i < 3; ++i) g.pad[i] = pad_after[i] = 0;
  } else if (a.padding_algorithm == "SAME") {
    for (int i = off; i < 3; ++i) {
      g.dil[i] = 1;
      if (g.in[i] < 0) continue;  // run-time dim: the padding is worked out then
      const int64_t o = (g.in[i] + g.stride[i] - 1) / g.stride[i];
      const int64_t sum = std::max<int64_t>((o - 1) * g.stride[i] + g.k[i] - g.in[i], 0);
      g.pad[i] = sum / 2;
      pad_after[i] = sum - sum / 2;
    }
  } else if (a.padding_algorithm != "EXPLICIT") {
    return fmt::format("padding_algorithm '{}' is not one of EXPLICIT, SAME, VALID", a.padding_algorithm);
  }
  return {};
}

/// Output in the op's layout from the geometry.
inline Shape output_shape(const ConvGeometry& g) {
  Shape s;
  s.rank = g.nsp + 2;
  s[0] = g.N;
  s[g.channel_last ? g.nsp + 1 : 1] = g.M;
  for (int i = 0; i < g.nsp; ++i) s[(g.channel_last ? 1 : 2) + i] = g.out[3 - g.nsp + i];
  return s;
}

}  // namespace conv_detail

/// conv2d (nsp 2) and conv3d (nsp 3): Filter [M, C/groups, k...];
/// out = (in + pad_before + pad_after - (dilation*(k-1)+1)) / stride + 1.
inline std::string conv_shape(const Shape& x, const Shape& w, const kernels::ConvAttrs& a, int nsp,
                              ConvGeometry& g) {
  g = ConvGeometry{};
  g.nsp = nsp;
  if (std::string e = conv_detail::channel_last(a.data_format, g.channel_last); !e.empty()) return e;
  if (std::string e = conv_detail::split_input(x, nsp, g.channel_last, g); !e.empty()) return e;
  if (w.rank != nsp + 2) return fmt::format("Filter must have rank {} but has shape {}", nsp + 2, w.str());
  if (a.groups <= 0) return fmt::format("groups must be positive, got {}", a.groups);
  g.groups = a.groups;
  g.M = w[0];
  for (int i = 0; i < nsp; ++i) g.k[3 - nsp + i] = w[2 + i];
  if (g.C >= 0 && w[1] >= 0 && g.C != w[1] * a.groups)
    return fmt::format("Input has {} channels but Filter {} with groups {} takes {}", g.C, w.str(), a.groups,
                       w[1] * a.groups);
  if (g.M >= 0 && g.M % a.groups != 0)
    return fmt::format("Filter's {} output channels are not divisible by groups {}", g.M, a.groups);
  int64_t after[3] = {0, 0, 0};
  if (std::string e = conv_detail::window(a, nsp, g, after); !e.empty()) return e;
  for (int i = 3 - nsp; i < 3; ++i) {
    if (g.in[i] < 0 || g.k[i] < 0) {
      g.out[i] = kUnknown;
      continue;
    }
    const int64_t extent = g.dil[i] * (g.k[i] - 1) + 1;
    const int64_t span = g.in[i] + g.pad[i] + after[i] - extent;
    if (g.k[i] <= 0 || span < 0)
      return fmt::format("the filter's window {} is larger than the padded input {} (Input {}, Filter {})", extent,
                         g.in[i] + g.pad[i] + after[i], x.str(), w.str());
    g.out[i] = span / g.stride[i] + 1;
  }
  g.out_shape = conv_detail::output_shape(g);
  return {};
}

/// unfold/fold: the image [N, C, H, W] and its windows. `window` fills the
/// kernel, stride, dilation and padding (before, after) of both spatial
/// dims from the attributes and the window counts from H and W; errors
/// name the attribute.
struct UnfoldGeometry {
  int64_t N = 0, C = 0, H = 0, W = 0;
  int64_t k[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1}, before[2] = {0, 0}, after[2] = {0, 0};
  int64_t out[2] = {0, 0};  ///< window positions down and across (L = out[0] * out[1])
  int64_t rows() const { return C * k[0] * k[1]; }
  int64_t positions() const { return out[0] * out[1]; }
};

inline std::string unfold_window(const kernels::UnfoldAttrs& a, UnfoldGeometry& g) {
  auto pair = [](const std::vector<int>& v, const char* what, int64_t dst[2], int64_t least) -> std::string {
    if (v.size() != 2) return fmt::format("{} must have 2 values, got {}", what, v.size());
    for (int i = 0; i < 2; ++i) {
      if (v[i] < least) return fmt::format("{} must be at least {}, got {}", what, least, v[i]);
      dst[i] = v[i];
    }
    return {};
  };
  if (std::string e = pair(a.kernel_sizes, "kernel_sizes", g.k, 1); !e.empty()) return e;
  if (std::string e = pair(a.strides, "strides", g.s, 1); !e.empty()) return e;
  if (std::string e = pair(a.dilations, "dilations", g.d, 1); !e.empty()) return e;
  const size_t np = a.paddings.size();
  if (np != 2 && np != 4) return fmt::format("paddings must have 2 or 4 values, got {}", np);
  for (int i = 0; i < 2; ++i) {
    g.before[i] = a.paddings[static_cast<size_t>(i)];
    g.after[i] = a.paddings[np == 4 ? static_cast<size_t>(i) + 2 : static_cast<size_t>(i)];
    if (g.before[i] < 0 || g.after[i] < 0) return "paddings must not be negative";
  }
  const int64_t size[2] = {g.H, g.W};
  for (int i = 0; i < 2; ++i) {
    if (size[i] < 0) {
      g.out[i] = kUnknown;
      continue;
    }
    const int64_t span = size[i] + g.before[i] + g.after[i] - (g.d[i] * (g.k[i] - 1) + 1);
    if (span < 0)
      return fmt::format("the window {} is larger than the padded image {}", g.d[i] * (g.k[i] - 1) + 1,
                         size[i] + g.before[i] + g.after[i]);
    g.out[i] = span / g.s[i] + 1;
  }
  return {};
}

/// unfold: X [N, C, H, W] -> Y [N, C*kh*kw, L].
inline std::string unfold_shape(const Shape& x, const kernels::UnfoldAttrs& a, UnfoldGeometry& g, Shape& y) {
  if (x.rank != 4) return fmt::format("X must have rank 4 [N, C, H, W], got {}", x.str());
  g = UnfoldGeometry{.N = x[0], .C = x[1], .H = x[2], .W = x[3]};
  if (std::string e = unfold_window(a, g); !e.empty()) return e;
  y = Shape{g.N, g.C < 0 ? kUnknown : g.rows(), g.out[0] < 0 || g.out[1] < 0 ? kUnknown : g.positions()};
  return {};
}

/// fold: X [N, C*kh*kw, L] -> Y [N, C, output_sizes]; L must be the number
/// of windows the output size takes.
inline std::string fold_shape(const Shape& x, const kernels::UnfoldAttrs& a, UnfoldGeometry& g, Shape& y) {
  if (x.rank != 3) return fmt::format("X must have rank 3 [N, C*kh*kw, L], got {}", x.str());
  if (a.output_sizes.size() != 2 || a.output_sizes[0] < 1 || a.output_sizes[1] < 1)
    return "output_sizes must be two positive values";
  g = UnfoldGeometry{.N = x[0], .H = a.output_sizes[0], .W = a.output_sizes[1]};
  if (std::string e = unfold_window(a, g); !e.empty()) return e;
  const int64_t taps = g.k[0] * g.k[1];
  if (x[1] >= 0 && x[1] % taps != 0)
    return fmt::format("X's {} rows are not a multiple of the {} kernel taps", x[1], taps);
  g.C = x[1] < 0 ? kUnknown : x[1] / taps;
  if (x[2] >= 0 && x[2] != g.positions())
    return fmt::format("X has {} columns but output_sizes [{}, {}] takes {} windows", x[2], g.H, g.W,
                       g.positions());
  y = Shape{g.N, g.C, g.H, g.W};
  return {};
}

/// Whether a Winograd F(2x2, 3x3) convolution (conv2d_winograd) computes
/// this 2-D convolution: a 3x3 window, stride 1, dilation 1, one group,
/// channels first.
inline bool winograd_applies(const ConvGeometry& g) {
  return g.nsp == 2 && !g.channel_last && g.groups == 1 && g.k[1] == 3 && g.k[2] == 3 && g.stride[1] == 1 &&
         g.stride[2] == 1 && g.dil[1] == 1 && g.dil[2] == 1;
}

/// conv2d_winograd: Filter is winograd_filter's [16, M, C] of a [M, C, 3, 3]
/// filter; the output is that convolution's, which must be one
/// winograd_applies to.
inline std::string winograd_conv_shape(const Shape& x, const Shape& u, const kernels::ConvAttrs& a,
                                       ConvGeometry& g) {
  if (u.rank != 3 || u[0] != 16)
    return fmt::format("Filter must be a transformed filter [16, M, C], got {}", u.str());
  Shape w;
  w.rank = 4;
  w[0] = u[1];
  w[1] = u[2];
  w[2] = w[3] = 3;
  if (std::string e = conv_shape(x, w, a, 2, g); !e.empty()) return e;
  if (!winograd_applies(g))
    return "the Winograd convolution takes a 3x3 window with strides 1, dilations 1, groups 1 and NCHW data";
  return {};
}

/// conv2d_transpose: Filter [C, M/groups, k...];
/// out = (in - 1) * stride - pad_before - pad_after + dilation*(k-1) + 1,
/// plus output_padding, or output_size when given (within a stride above).
inline std::string conv_transpose_shape(const Shape& x, const Shape& w, const kernels::ConvTransposeAttrs& a,
                                        int nsp, ConvGeometry& g) {
  g = ConvGeometry{};
  g.nsp = nsp;
  if (std::string e = conv_detail::channel_last(a.data_format, g.channel_last); !e.empty()) return e;
  if (std::string e = conv_detail::split_input(x, nsp, g.channel_last, g); !e.empty()) return e;
  if (w.rank != nsp + 2) return fmt::format("Filter must have rank {} but has shape {}", nsp + 2, w.str());
  if (a.groups <= 0) return fmt::format("groups must be positive, got {}", a.groups);
  g.groups = a.groups;
  g.M = w[1] < 0 ? kUnknown : w[1] * a.groups;
  for (int i = 0; i < nsp; ++i) g.k[3 - nsp + i] = w[2 + i];
  if (g.C >= 0 && w[0] >= 0 && g.C != w[0])
    return fmt::format("Input has {} channels but Filter {} takes {}", g.C, w.str(), w[0]);
  if (w[0] >= 0 && w[0] % a.groups != 0)
    return fmt::format("Filter's {} input channels are not divisible by groups {}", w[0], a.groups);
  if (!a.output_padding.empty() && static_cast<int>(a.output_padding.size()) != nsp)
    return fmt::format("output_padding has {} values but the convolution has {} spatial dims",
                       a.output_padding.size(), nsp);
  if (!a.output_size.empty() && static_cast<int>(a.output_size.size()) != nsp)
    return fmt::format("output_size has {} values but the convolution has {} spatial dims", a.output_size.size(),
                       nsp);
  int64_t after[3] = {0, 0, 0};
  if (std::string e = conv_detail::window(a, nsp, g, after); !e.empty()) return e;
  for (int i = 0; i < nsp; ++i) {
    const int s = 3 - nsp + i;
    if (g.in[s] < 0 || g.k[s] < 0) {
      g.out[s] = a.output_size.empty() ? kUnknown : a.output_size[i];
      continue;
    }
    if (g.k[s] <= 0) return fmt::format("Filter {} has an empty spatial dim", w.str());
    const int64_t computed = (g.in[s] - 1) * g.stride[s] - g.pad[s] - after[s] + g.dil[s] * (g.k[s] - 1) + 1;
    int64_t o = computed;
    if (!a.output_size.empty()) {
      o = a.output_size[i];
      if (o < computed || o >= computed + g.stride[s])
        return fmt::format("output_size {} must be in [{}, {}) for Input {} and Filter {}", o, computed,
                           computed + g.stride[s], x.str(), w.str());
    } else if (!a.output_padding.empty()) {
      const int64_t p = a.output_padding[i];
      if (p < 0 || p >= std::max(g.stride[s], g.dil[s]))
        return fmt::format("output_padding {} must be in [0, max(stride {}, dilation {}))", p, g.stride[s],
                           g.dil[s]);
      o += p;
    }
    if (o <= 0) return fmt::format("the output would have size {} (Input {}, Filter {})", o, x.str(), w.str());
    g.out[s] = o;
  }
  g.out_shape = conv_detail::output_shape(g);
  return {};
}

}  // namespace fluidc::shapes
