// kernels/shapes/pad.h - the geometry of pad, pad2d and pad3d (paddings, modes, output size), for kernels and compiler.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/pad.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

enum class PadMode { kConstant, kReflect, kReplicate, kCircular };

/// Where pad2d/pad3d's spatial dims are and which X index each output index
/// reads. Spatial dims are padded to 3 (D, H, W; leading extents of 1) so
/// one loop nest serves both ops.
struct PadGeom {
  PadMode mode = PadMode::kConstant;
  bool channel_last = false;
  int64_t n = 0, c = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, before[3] = {0, 0, 0};

  /// The X index that output index o along geometry dim d reads, or -1 for
  /// constant padding. pad_geom has checked that the mode's mapping lands
  /// inside [0, in[d]).
  int64_t source(int d, int64_t o) const {
    const int64_t i = o - before[d], n_ = in[d];
    if (i >= 0 && i < n_) return i;
    switch (mode) {
      case PadMode::kConstant: return -1;
      case PadMode::kReflect: return i < 0 ? -i : 2 * (n_ - 1) - i;
      case PadMode::kReplicate: return i < 0 ? 0 : n_ - 1;
      case PadMode::kCircular: return (i % n_ + n_) % n_;
    }
    return -1;
  }
};

/// The geometry of padding rank-(nsp+2) X by `pads`: (before, after) per
/// spatial dim in D, H, W order (the last nsp of them); nullopt when they
/// come from a tensor known only at run time (spatial dims unknown).
inline std::string pad_geom(const Shape& x, int nsp, PadMode mode, const std::string& data_format,
                            const char* first_format, const char* last_format,
                            std::optional<std::span<const int64_t>> pads, PadGeom& g, Shape& out) {
  if (x.rank != nsp + 2) return fmt::format("X {} must have rank {}", x.str(), nsp + 2);
  if (data_format == first_format || data_format == "AnyLayout" || data_format.empty()) g.channel_last = false;
  else if (data_format == last_format) g.channel_last = true;
  else return fmt::format("data_format {} is neither {} nor {}", data_format, first_format, last_format);
  g.mode = mode;
  g.n = x.d[0];
  g.c = g.channel_last ? x.d[x.rank - 1] : x.d[1];
  const int first = g.channel_last ? 1 : 2, off = 3 - nsp;
  out = x;
  for (int i = 0; i < nsp; ++i) {
    const int d = off + i;
    const int64_t n = x.d[first + i];
    g.in[d] = n;
    if (!pads) {
      g.out[d] = kUnknown;
      out.d[first + i] = kUnknown;
      continue;
    }
    const int64_t b = (*pads)[2 * i], a = (*pads)[2 * i + 1];
    g.before[d] = b;
    if (n < 0) {
      g.out[d] = kUnknown;
      out.d[first + i] = kUnknown;
      continue;
    }
    const int64_t o = n + b + a;
    if (o < 0) return fmt::format("paddings {} and {} crop more than X's extent {}", b, a, n);
    if (mode == PadMode::kReflect && (b >= n || a >= n))
      return fmt::format("reflect padding {} and {} must each be less than X's extent {}", b, a, n);
    if (mode != PadMode::kConstant && n == 0 && o > 0)
      return "padding an empty extent needs constant mode";
    g.out[d] = o;
    out.d[first + i] = o;
  }
  return {};
}

inline std::string pad_mode(const std::string& m, bool pad2d, PadMode& mode) {
  if (m == "constant") mode = PadMode::kConstant;
  else if (m == "reflect") mode = PadMode::kReflect;
  else if (m == (pad2d ? "edge" : "replicate")) mode = PadMode::kReplicate;
  else if (!pad2d && m == "circular") mode = PadMode::kCircular;
  else
    return fmt::format("mode {} is not one of {}", m,
                       pad2d ? "constant, reflect, edge" : "constant, reflect, replicate, circular");
  return {};
}

/// The paddings in effect: the run-time values when given, else the
/// attribute's; `count` values either way.
inline std::string pad_values(const std::vector<int>& attr, std::optional<std::span<const int64_t>> run_time,
                              size_t count, int64_t* buf, std::optional<std::span<const int64_t>>& pads) {
  if (run_time) {
    if (run_time->size() != count) return fmt::format("Paddings has {} values; {} expected", run_time->size(), count);
    pads = run_time;
    return {};
  }
  if (attr.size() != count) return fmt::format("paddings has {} values; {} expected", attr.size(), count);
  for (size_t k = 0; k < count; ++k) buf[k] = attr[k];
  pads = std::span<const int64_t>(buf, count);
  return {};
}

/// pad3d: paddings [left, right, top, bottom, front, back]. `run_time`: the
/// Paddings tensor's values; `unknown_run_time`: it exists but its values
/// are known only when the program runs (the compiler).
inline std::string pad3d_geom(const Shape& x, const kernels::Pad3dAttrs& a,
                              std::optional<std::span<const int64_t>> run_time, bool unknown_run_time, PadGeom& g,
                              Shape& out) {
  PadMode mode;
  if (std::string e = pad_mode(a.mode, false, mode); !e.empty()) return e;
  if (unknown_run_time) return pad_geom(x, 3, mode, a.data_format, "NCDHW", "NDHWC", std::nullopt, g, out);
  int64_t buf[6], dhw[6];
  std::optional<std::span<const int64_t>> p;
  if (std::string e = pad_values(a.paddings, run_time, 6, buf, p); !e.empty()) return e;
  const int order[6] = {4, 5, 2, 3, 0, 1};  // D, H, W pairs from W, H, D ones
  for (int k = 0; k < 6; ++k) dhw[k] = (*p)[order[k]];
  return pad_geom(x, 3, mode, a.data_format, "NCDHW", "NDHWC", std::span<const int64_t>(dhw, 6), g, out);
}

/// pad2d: paddings [top, bottom, left, right] (already H, W order).
inline std::string pad2d_geom(const Shape& x, const kernels::Pad2dAttrs& a,
                              std::optional<std::span<const int64_t>> run_time, bool unknown_run_time, PadGeom& g,
                              Shape& out) {
  PadMode mode;
  if (std::string e = pad_mode(a.mode, true, mode); !e.empty()) return e;
  if (unknown_run_time) return pad_geom(x, 2, mode, a.data_format, "NCHW", "NHWC", std::nullopt, g, out);
  int64_t buf[4];
  std::optional<std::span<const int64_t>> p;
  if (std::string e = pad_values(a.paddings, run_time, 4, buf, p); !e.empty()) return e;
  return pad_geom(x, 2, mode, a.data_format, "NCHW", "NHWC", p, g, out);
}

/// pad's Out (dir = +1) or, from Out@GRAD, pad_grad's X@GRAD (dir = -1):
/// each dim grows (shrinks) by its two paddings, which must be >= 0.
inline std::string pad_shape(const Shape& x, const std::vector<int>& paddings, int dir, Shape& out) {
  if (paddings.size() != static_cast<size_t>(2 * x.rank))
    return fmt::format("paddings has {} values; {} expected for a rank-{} tensor", paddings.size(), 2 * x.rank,
                       x.rank);
  out = x;
  for (int i = 0; i < x.rank; ++i) {
    const int64_t b = paddings[2 * i], a = paddings[2 * i + 1];
    if (b < 0 || a < 0) return fmt::format("paddings {} and {} of dim {} must not be negative", b, a, i);
    if (x.d[i] < 0) continue;
    out.d[i] = x.d[i] + dir * (b + a);
    if (out.d[i] < 0) return fmt::format("Out@GRAD {} is smaller than its paddings", x.str());
  }
  return {};
}

}  // namespace fluidc::shapes
