// kernels/shapes/einsum.h - parsing an einsum equation and planning its loops, for the kernels and the compiler.
//
// The equation comes from the program file: it is untrusted, so every
// malformed form is an error naming the character at fault. Fixed-size
// arrays throughout: the kernel parses on every call without allocating.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kernels/einsum.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

constexpr int kEinsumMaxOperands = 8;
/// Letters (52) and broadcast dims (at most 9).
constexpr int kEinsumMaxLabels = 64;
/// Token standing for "..." in a parsed term.
constexpr char kEinsumEllipsis = '.';

struct EinsumEquation {
  int num_terms = 0;
  char term[kEinsumMaxOperands][Shape::kMaxRank + 1] = {};  ///< letters, kEinsumEllipsis for "..."
  int len[kEinsumMaxOperands] = {};
  char out[Shape::kMaxRank + 1] = {};
  int out_len = 0;
  bool explicit_out = false;  ///< "->" given
};

namespace einsum_detail {
inline std::string show(char c) {
  return std::isprint(static_cast<unsigned char>(c)) ? fmt::format("'{}'", c)
                                                     : fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
}
}  // namespace einsum_detail

/// Parses `eq` for `num_operands` operands. "" or the reason, naming the
/// position (0-based character index) where the equation goes wrong.
inline std::string parse_einsum(std::string_view eq, int num_operands, EinsumEquation& e) {
  using einsum_detail::show;
  e = EinsumEquation{};
  if (num_operands < 1 || num_operands > kEinsumMaxOperands)
    return fmt::format("einsum takes 1 to {} operands, got {}", kEinsumMaxOperands, num_operands);
  auto where = [&](size_t pos, const std::string& why) {
    return fmt::format("equation at character {}: {}", pos, why);
  };
  int term = 0;
  bool in_out = false, ellipsis = false;
  char* cur = e.term[0];
  int* len = &e.len[0];
  for (size_t i = 0; i < eq.size(); ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '-') {
      if (in_out) return where(i, "a second \"->\"");
      if (i + 1 >= eq.size() || eq[i + 1] != '>') return where(i, "'-' not followed by '>'");
      ++i;
      in_out = true;
      e.explicit_out = true;
      ellipsis = false;
      cur = e.out;
      len = &e.out_len;
      continue;
    }
    if (c == ',') {
      if (in_out) return where(i, "',' in the output labels");
      if (++term >= num_operands)
        return where(i, fmt::format("more terms than the {} operand{}", num_operands, num_operands == 1 ? "" : "s"));
      ellipsis = false;
      cur = e.term[term];
      len = &e.len[term];
      continue;
    }
    if (c == '.') {
      if (eq.substr(i, 3) != "...") return where(i, "'.' that is not part of \"...\"");
      if (ellipsis) return where(i, "a second \"...\" in one term");
      ellipsis = true;
      i += 2;
    } else if (!std::isalpha(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 128) {
      return where(i, fmt::format("unexpected {} (labels are letters)", show(c)));
    }
    // Nine labels and "...": more cannot match a tensor of rank <= 9.
    if (*len == Shape::kMaxRank + 1) return where(i, fmt::format("a term with more than {} labels", Shape::kMaxRank));
    cur[(*len)++] = c == '.' ? kEinsumEllipsis : c;
  }
  e.num_terms = term + 1;
  if (e.num_terms != num_operands)
    return fmt::format("equation has {} term{} for {} operands", e.num_terms, e.num_terms == 1 ? "" : "s",
                       num_operands);
  return {};
}

/// The loops of one einsum: every label with its size; each operand's and
/// the output's element stride per label (0 where the label is absent or
/// the dim is a broadcast 1; a label repeated in a term adds its strides,
/// which walks the diagonal). The first `num_out_labels` labels are the
/// output's, in its order.
struct EinsumPlan {
  int num_labels = 0;
  int num_out_labels = 0;
  int64_t size[kEinsumMaxLabels] = {};
  int64_t stride[kEinsumMaxOperands][kEinsumMaxLabels] = {};
  int64_t out_stride[kEinsumMaxLabels] = {};
  Shape out;
};

/// Plans `e` for operand dims shapes[0..n); unknown dims (-1) are allowed
/// (the compiler's case) and leave the output's dims they decide unknown.
inline std::string plan_einsum(const EinsumEquation& e, const Shape* shapes, int n, EinsumPlan& p) {
  using einsum_detail::show;
  p = EinsumPlan{};
  // Letters: sizes (-2 unset) and use counts; broadcast dims: sizes.
  int64_t letter_size[128];
  int letter_uses[128] = {};
  std::fill(letter_size, letter_size + 128, int64_t{-2});
  int bcast_rank = 0, covers[kEinsumMaxOperands] = {};
  for (int k = 0; k < n; ++k) {
    const bool has_ell = std::count(e.term[k], e.term[k] + e.len[k], kEinsumEllipsis) > 0;
    const int named = e.len[k] - (has_ell ? 1 : 0);
    const std::string term(e.term[k], e.term[k] + e.len[k]);
    if (has_ell ? shapes[k].rank < named : shapes[k].rank != named)
      return fmt::format("operand {} is {} but its term \"{}\" names {} dims", k, shapes[k].str(), term, named);
    covers[k] = has_ell ? shapes[k].rank - named : 0;
    bcast_rank = std::max(bcast_rank, covers[k]);
  }
  int64_t bsize[Shape::kMaxRank];
  std::fill(bsize, bsize + Shape::kMaxRank, int64_t{1});
  for (int k = 0; k < n; ++k) {
    int dim = 0;
    for (int t = 0; t < e.len[k]; ++t) {
      const char c = e.term[k][t];
      if (c == kEinsumEllipsis) {
        for (int j = 0; j < covers[k]; ++j, ++dim) {
          int64_t& b = bsize[bcast_rank - covers[k] + j];
          const int64_t d = shapes[k].d[dim];
          if (d == 1) continue;
          if (b == 1 || b < 0) b = d;
          else if (d >= 0 && d != b)
            return fmt::format("operand {}'s dim {} is {}, which does not broadcast with {} (\"...\")", k, dim, d, b);
        }
        continue;
      }
      const int64_t d = shapes[k].d[dim++];
      int64_t& s = letter_size[static_cast<unsigned char>(c)];
      ++letter_uses[static_cast<unsigned char>(c)];
      if (s == -2 || s == -1) s = d;
      else if (d >= 0 && d != s)
        return fmt::format("label {} is {} in one place and {} in operand {}", show(c), s, d, k);
    }
  }
  // Output labels: letters as char codes, broadcast dim j as 128 + j.
  int order[kEinsumMaxLabels];
  int num_out = 0;
  if (e.explicit_out) {
    const bool out_ell = std::count(e.out, e.out + e.out_len, kEinsumEllipsis) > 0;
    if (bcast_rank > 0 && !out_ell) return "the output labels leave out \"...\", which stands for broadcast dims";
    for (int t = 0; t < e.out_len; ++t) {
      const char c = e.out[t];
      if (c == kEinsumEllipsis) {
        for (int j = 0; j < bcast_rank; ++j) order[num_out++] = 128 + j;
        continue;
      }
      if (letter_size[static_cast<unsigned char>(c)] == -2)
        return fmt::format("output label {} is not among the operands' labels", show(c));
      if (std::find(order, order + num_out, static_cast<int>(c)) != order + num_out)
        return fmt::format("output label {} appears twice", show(c));
      order[num_out++] = c;
    }
  } else {
    for (int j = 0; j < bcast_rank; ++j) order[num_out++] = 128 + j;
    for (int c = 0; c < 128; ++c)
      if (letter_uses[c] == 1) order[num_out++] = c;
  }
  if (num_out > Shape::kMaxRank) return fmt::format("the output has {} dims, more than {}", num_out, Shape::kMaxRank);
  int num = num_out;
  for (int k = 0; k < n; ++k)  // summed letters, in order of appearance
    for (int t = 0; t < e.len[k]; ++t) {
      const int c = e.term[k][t];
      if (c != kEinsumEllipsis && std::find(order, order + num, c) == order + num) order[num++] = c;
    }
  for (int j = 0; j < bcast_rank; ++j)
    if (std::find(order, order + num, 128 + j) == order + num) order[num++] = 128 + j;
  auto label_of = [&](int code) { return static_cast<int>(std::find(order, order + num, code) - order); };
  p.num_labels = num;
  p.num_out_labels = num_out;
  for (int l = 0; l < num; ++l) p.size[l] = order[l] >= 128 ? bsize[order[l] - 128] : letter_size[order[l]];
  for (int k = 0; k < n; ++k) {
    int64_t st = 1;
    int dim = shapes[k].rank;
    for (int t = e.len[k] - 1; t >= 0; --t) {  // innermost dim first
      const char c = e.term[k][t];
      if (c == kEinsumEllipsis) {
        for (int j = covers[k] - 1; j >= 0; --j) {
          const int64_t d = shapes[k].d[--dim];
          if (d != 1) p.stride[k][label_of(128 + bcast_rank - covers[k] + j)] += st;
          st *= d < 0 ? 1 : d;
        }
        continue;
      }
      const int64_t d = shapes[k].d[--dim];
      if (d != 1) p.stride[k][label_of(static_cast<unsigned char>(c))] += st;
      st *= d < 0 ? 1 : d;
    }
  }
  p.out.rank = num_out;
  int64_t st = 1;
  for (int l = num_out - 1; l >= 0; --l) {
    p.out.d[l] = p.size[l];
    p.out_stride[l] = p.size[l] == 1 ? 0 : st;
    st *= p.size[l] < 0 ? 1 : p.size[l];
  }
  return {};
}

}  // namespace fluidc::shapes
