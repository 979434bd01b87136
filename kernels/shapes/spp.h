// kernels/shapes/spp.h - shape rule of spp, for the kernels and the compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/spp.h"

namespace fluidc::shapes {

/// The most levels spp takes: level 16 already has 2^30 bins per channel.
constexpr int kSppMaxLevels = 16;

/// X [N, C, H, W] -> Out [N, C * (4^pyramid_height - 1) / 3].
inline std::string spp_shape(const Shape& x, const kernels::SppAttrs& a, Shape& out) {
  if (a.pooling_type != "max" && a.pooling_type != "avg")
    return fmt::format("pooling_type must be \"max\" or \"avg\"");
  if (a.pyramid_height < 1 || a.pyramid_height > kSppMaxLevels)
    return fmt::format("pyramid_height {} must be 1 to {}", a.pyramid_height, kSppMaxLevels);
  if (x.rank != 4) return fmt::format("X must be 4-D NCHW, got {}", x.str());
  const int64_t finest = int64_t{1} << (a.pyramid_height - 1);
  if ((x.d[2] >= 0 && x.d[2] < finest) || (x.d[3] >= 0 && x.d[3] < finest))
    return fmt::format("X {} is smaller than the finest level's {} x {} bins", x.str(), finest, finest);
  const int64_t bins = ((int64_t{1} << (2 * a.pyramid_height)) - 1) / 3;
  out = Shape{x.d[0], x.d[1] < 0 ? -1 : x.d[1] * bins};
  return {};
}

}  // namespace fluidc::shapes
