// kernels/shapes/pool.h - pool2d/pool3d geometry (windows, paddings, output size), for kernels and compiler.
#pragma once

#include <algorithm>

#include "kernels/pool.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Where the spatial dims are and how each output index maps to a window.
/// Spatial dims are padded to 3 (leading dims of extent 1) so one loop nest
/// serves pool2d and pool3d.
struct PoolGeom {
  int nsp = 2;                  ///< spatial dims of the op (2 or 3)
  bool channel_last = false;
  bool max = true;
  bool adaptive = false;
  bool exclusive = true;
  int64_t n = 0, c = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, pad[3] = {0, 0, 0};  ///< pad: the begin side

  /// Window [begin, end) of output index o along spatial dim d (0..2),
  /// clipped to the input, and the unclipped extent Paddle divides by in a
  /// non-exclusive average.
  void window(int d, int64_t o, int64_t& b, int64_t& e, int64_t& full) const {
    if (adaptive) {
      b = o * in[d] / out[d];                          // floor
      e = ((o + 1) * in[d] + out[d] - 1) / out[d];     // ceil
      full = e - b;
      return;
    }
    b = o * s[d] - pad[d];
    e = std::min(b + k[d], in[d] + pad[d]);
    full = e - b;
    b = std::max<int64_t>(b, 0);
    e = std::min(e, in[d]);
  }
};

/// The geometry of pooling X with `a`; nsp is 2 (pool2d) or 3 (pool3d).
/// X dims of kUnknown give output dims of kUnknown.
inline std::string pool_geom(const Shape& x, const kernels::PoolAttrs& a, int nsp, PoolGeom& g, Shape& out) {
  if (x.rank != nsp + 2) return fmt::format("X {} must have rank {}", x.str(), nsp + 2);
  const std::string& f = a.data_format;
  if (f == "NHWC" || f == "NDHWC") g.channel_last = true;
  else if (f == "NCHW" || f == "NCDHW" || f == "AnyLayout" || f.empty()) g.channel_last = false;
  else return fmt::format("data_format {} is not supported", f);
  if (a.pooling_type == "max") g.max = true;
  else if (a.pooling_type == "avg") g.max = false;
  else return fmt::format("pooling_type {} is neither max nor avg", a.pooling_type);
  if (a.padding_algorithm != "EXPLICIT" && a.padding_algorithm != "SAME" && a.padding_algorithm != "VALID")
    return fmt::format("padding_algorithm {} is not EXPLICIT, SAME or VALID", a.padding_algorithm);
  g.nsp = nsp;
  g.adaptive = a.adaptive;
  g.exclusive = a.exclusive;
  g.n = x.d[0];
  g.c = g.channel_last ? x.d[x.rank - 1] : x.d[1];
  const int first = g.channel_last ? 1 : 2;
  const int off = 3 - nsp;  // spatial dim i of the op is geometry dim off + i
  if (!a.global_pooling && static_cast<int>(a.ksize.size()) != nsp)
    return fmt::format("ksize has {} values; {} expected", a.ksize.size(), nsp);
  if (!a.strides.empty() && static_cast<int>(a.strides.size()) != nsp)
    return fmt::format("strides has {} values; {} expected", a.strides.size(), nsp);
  const size_t np = a.paddings.size();
  if (np != 0 && np != static_cast<size_t>(nsp) && np != static_cast<size_t>(2 * nsp))
    return fmt::format("paddings has {} values; 0, {} or {} expected", np, nsp, 2 * nsp);
  out = x;
  for (int i = 0; i < nsp; ++i) {
    const int d = off + i;
    const int64_t in = x.d[first + i];
    g.in[d] = in;
    g.k[d] = a.global_pooling ? in : a.ksize[i];
    g.s[d] = a.strides.empty() ? 1 : a.strides[i];
    if (g.s[d] <= 0) return fmt::format("strides must be positive");
    int64_t pb = 0, pe = 0;
    if (np == static_cast<size_t>(nsp)) pb = pe = a.paddings[i];
    else if (np != 0) pb = a.paddings[2 * i], pe = a.paddings[2 * i + 1];
    const bool unknown = in < 0 || g.k[d] < 0;
    if (a.padding_algorithm == "VALID") pb = pe = 0;
    if (a.padding_algorithm == "SAME" && !unknown) {
      const int64_t o = (in + g.s[d] - 1) / g.s[d];
      const int64_t sum = std::max<int64_t>((o - 1) * g.s[d] + g.k[d] - in, 0);
      pb = sum / 2;
      pe = sum - pb;
    }
    if (a.global_pooling || a.adaptive) pb = pe = 0;
    if (pb < 0 || pe < 0) return "paddings must not be negative";
    g.pad[d] = pb;
    int64_t o = kUnknown;
    if (a.adaptive) {
      o = g.k[d];  // ksize is the output size (with global_pooling, X's extent, as in Paddle)
      // A -1 in ksize itself is an output size saved as None (F.adaptive_avg_pool2d(x, (1, None)) on
      // a free width): Paddle 2.6.2 and 3.3.1 fail on it at run time too; here it is refused when built.
      if (o == 0 || o < kUnknown || (!a.global_pooling && o < 0))
        return fmt::format("adaptive output size {} must be positive (ksize [{}])", o, fmt::join(a.ksize, ", "));
    } else if (a.global_pooling) {
      o = 1;
    } else if (!unknown) {
      if (g.k[d] <= 0) return fmt::format("ksize {} must be positive", g.k[d]);
      const int64_t span = in - g.k[d] + pb + pe;
      o = (a.ceil_mode ? span + g.s[d] - 1 : span) / g.s[d] + 1;
      if (span < 0 || o <= 0)
        return fmt::format("window {} does not fit input extent {} with paddings {}+{}", g.k[d], in, pb, pe);
    }
    g.out[d] = o;
    out.d[first + i] = o;
  }
  return {};
}

/// The geometry of max_pool{2,3}d_with_index: pool_geom's, with Paddle's
/// rules for these ops (one padding per spatial dim, rounded-down sizes).
inline std::string pool_with_index_geom(const Shape& x, const kernels::MaxPoolWithIndexAttrs& a, int nsp,
                                        PoolGeom& g, Shape& out) {
  if (!a.global_pooling && !a.paddings.empty() && static_cast<int>(a.paddings.size()) != nsp)
    return fmt::format("paddings has {} values; {} expected (one per spatial dim)", a.paddings.size(), nsp);
  kernels::PoolAttrs p;
  p.pooling_type = "max";
  p.ksize = a.ksize;
  p.strides = a.strides;
  p.paddings = a.paddings;
  p.global_pooling = a.global_pooling;
  p.adaptive = a.adaptive;
  return pool_geom(x, p, nsp, g, out);
}

}  // namespace fluidc::shapes
