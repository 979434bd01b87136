// compiler/codegen/arena_placement.h - offsets for live ranges in one arena (best fit), its lower bound, and a checker.
//
// Pure arithmetic over (size, first, last) triples, so the memory plan and
// its unit tests share it. Two ranges interfere when their [first, last]
// op spans intersect (inclusive: an op's inputs and outputs never share).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fluidc {

struct LiveBuffer {
  int64_t size = 0;       ///< bytes (a multiple of the alignment)
  int first = 0, last = 0;
  int64_t offset = -1;    ///< set by place_buffers
};

struct Placement {
  int64_t arena = 0;        ///< bytes the offsets need
  int64_t lower_bound = 0;  ///< the most bytes live at one position
  int peak = -1;            ///< a position where lower_bound is reached
  std::string order;        ///< the placement order that won ("size", "start", "span", "area", "exhaustive")
};

/// Sets every buffer's offset (a multiple of `align`) by best fit, placing
/// the buffers by decreasing size, by start, by decreasing span and by
/// decreasing size x span in turn (and, for at most 8 buffers, in every
/// order until one meets the lower bound), keeping the smallest arena.
Placement place_buffers(std::vector<LiveBuffer>& buffers, int64_t align);

/// The most bytes live at one position, and where (first such position).
Placement lower_bound(const std::vector<LiveBuffer>& buffers);

/// "" when the placement is sound, else the first problem: an offset not a
/// multiple of `align`, a buffer past `arena`, or two buffers whose live
/// ranges intersect sharing a byte. `names` (one per buffer) name them in
/// the message; without, their indices do.
std::string check_placement(const std::vector<LiveBuffer>& buffers, int64_t arena, int64_t align,
                            const std::vector<std::string>* names = nullptr);

inline int64_t align_up(int64_t n, int64_t align) { return (n + align - 1) / align * align; }

}  // namespace fluidc
