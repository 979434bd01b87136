// compiler/codegen/arena_placement.cc - best-fit placement of live ranges, tried in several orders.
#include "compiler/codegen/arena_placement.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace fluidc {
namespace {

// Up to this many buffers, every placement order is tried (8! = 40,320 orders of 8 buffers).
constexpr size_t kExhaustiveUpTo = 8;

bool interfere(const LiveBuffer& a, const LiveBuffer& b) { return a.first <= b.last && b.first <= a.last; }

// Best fit in the given order: among the gaps left by already placed
// buffers that interfere, the smallest that fits, else the top of them.
int64_t place_in_order(std::vector<LiveBuffer>& bufs, const std::vector<size_t>& order, int64_t align) {
  // Placed buffers by start; one that interferes with b starts in
  // [b.first - longest placed span, b.last], so only that slice is scanned.
  std::vector<std::pair<int, size_t>> placed;  // (first, index), sorted
  int longest = 0;
  std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of interfering placed buffers
  int64_t arena = 0;
  for (size_t idx : order) {
    LiveBuffer& b = bufs[idx];
    busy.clear();
    auto it = std::lower_bound(placed.begin(), placed.end(), std::make_pair(b.first - longest, size_t{0}));
    for (; it != placed.end() && it->first <= b.last; ++it) {
      const LiveBuffer& p = bufs[it->second];
      if (interfere(p, b)) busy.emplace_back(p.offset, p.offset + p.size);
    }
    std::sort(busy.begin(), busy.end());
    int64_t cur = 0, best = -1, best_gap = 0;
    for (const auto& [off, end] : busy) {
      if (off > cur && off - cur >= b.size && (best < 0 || off - cur < best_gap)) best = cur, best_gap = off - cur;
      cur = std::max(cur, end);
    }
    b.offset = best >= 0 ? best : align_up(cur, align);
    arena = std::max(arena, b.offset + b.size);
    placed.insert(std::upper_bound(placed.begin(), placed.end(), std::make_pair(b.first, idx)), {b.first, idx});
    longest = std::max(longest, b.last - b.first);
  }
  return arena;
}

}  // namespace

Placement lower_bound(const std::vector<LiveBuffer>& bufs) {
  Placement p;
  std::map<int, int64_t> delta;  // position -> change in live bytes
  for (const auto& b : bufs) delta[b.first] += b.size, delta[b.last + 1] -= b.size;
  int64_t live = 0;
  for (const auto& [pos, d] : delta) {
    live += d;
    if (live > p.lower_bound) p.lower_bound = live, p.peak = pos;
  }
  return p;
}

Placement place_buffers(std::vector<LiveBuffer>& bufs, int64_t align) {
  Placement best = lower_bound(bufs);
  if (bufs.empty()) return best;
  std::vector<size_t> base(bufs.size());
  std::iota(base.begin(), base.end(), 0);
  struct Order {
    const char* name;
    bool (*less)(const LiveBuffer&, const LiveBuffer&);
  };
  static const Order kOrders[] = {
      {"size", [](const LiveBuffer& a, const LiveBuffer& b) {
         return a.size != b.size ? a.size > b.size : a.first < b.first;
       }},
      {"start", [](const LiveBuffer& a, const LiveBuffer& b) {
         return a.first != b.first ? a.first < b.first : a.size > b.size;
       }},
      {"span", [](const LiveBuffer& a, const LiveBuffer& b) {
         return a.last - a.first != b.last - b.first ? a.last - a.first > b.last - b.first : a.size > b.size;
       }},
      {"area", [](const LiveBuffer& a, const LiveBuffer& b) {  // bytes x ops
         const int64_t x = a.size * (a.last - a.first + 1), y = b.size * (b.last - b.first + 1);
         return x != y ? x > y : a.first < b.first;
       }},
  };
  std::vector<int64_t> best_offsets;
  best.arena = -1;
  auto try_order = [&](const std::vector<size_t>& order, const char* name) {
    const int64_t arena = place_in_order(bufs, order, align);
    if (best.arena < 0 || arena < best.arena) {
      best.arena = arena;
      best.order = name;
      best_offsets.clear();
      for (const auto& b : bufs) best_offsets.push_back(b.offset);
    }
  };
  for (const auto& o : kOrders) {
    std::vector<size_t> order = base;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return o.less(bufs[x], bufs[y]); });
    try_order(order, o.name);
  }
  // A handful of buffers (small programs, where one misplaced buffer is a
  // large share of the arena): every order, until one meets the lower bound.
  if (bufs.size() <= kExhaustiveUpTo && best.arena > best.lower_bound) {
    std::vector<size_t> order = base;
    do {
      try_order(order, "exhaustive");
    } while (best.arena > best.lower_bound && std::next_permutation(order.begin(), order.end()));
  }
  for (size_t i = 0; i < bufs.size(); ++i) bufs[i].offset = best_offsets[i];
  return best;
}

std::string check_placement(const std::vector<LiveBuffer>& bufs, int64_t arena, int64_t align,
                            const std::vector<std::string>* names) {
  auto name = [&](size_t i) { return names && i < names->size() ? (*names)[i] : fmt::format("buffer {}", i); };
  std::vector<size_t> by_offset(bufs.size());
  std::iota(by_offset.begin(), by_offset.end(), 0);
  for (size_t i = 0; i < bufs.size(); ++i) {
    const LiveBuffer& b = bufs[i];
    if (b.offset < 0 || b.offset % align != 0)
      return fmt::format("{} at offset {} is not aligned to {} bytes", name(i), b.offset, align);
    if (b.offset + b.size > arena) return fmt::format("{} ends at {}, past the arena's {} bytes", name(i), b.offset + b.size, arena);
    if (b.first > b.last) return fmt::format("{} has an empty live range {}-{}", name(i), b.first, b.last);
  }
  std::sort(by_offset.begin(), by_offset.end(), [&](size_t x, size_t y) { return bufs[x].offset < bufs[y].offset; });
  // Sweep by offset: each buffer against the later ones that start inside it.
  for (size_t i = 0; i < by_offset.size(); ++i) {
    const LiveBuffer& a = bufs[by_offset[i]];
    for (size_t j = i + 1; j < by_offset.size() && bufs[by_offset[j]].offset < a.offset + a.size; ++j) {
      const LiveBuffer& b = bufs[by_offset[j]];
      if (b.size > 0 && a.size > 0 && interfere(a, b))
        return fmt::format("{} and {} share bytes at offset {} while both live (ops {}-{} and {}-{})",
                           name(by_offset[i]), name(by_offset[j]), b.offset, a.first, a.last, b.first, b.last);
    }
  }
  return "";
}

}  // namespace fluidc
