// kernels/cpu/beam_search.cc - one step of Fluid 1.x beam search: the best beam_size candidates of each source sentence.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "kernels/beam_search.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;
constexpr const char* kOp = "beam_search";

struct Candidate {
  uint64_t prefix;  // row of scores (the prefix it extends)
  int64_t id;
  double score;     // exact copy of a T score
};

// `a` ranks strictly above `b`: higher score, equal scores the later prefix
// (Paddle's order; within one prefix equal scores do not rank).
bool above(const Candidate& a, const Candidate& b) {
  return a.score > b.score || (a.score == b.score && a.prefix > b.prefix);
}

// Adds `c` to `beam` (best first, at most `size`): after every candidate
// it does not rank above, so a full beam's last entry gives way to a
// candidate that ties it (Paddle keeps the later of two such ties).
void offer(std::vector<Candidate>& beam, const Candidate& c, size_t size) {
  if (beam.size() == size) {
    if (above(beam.back(), c)) return;
    beam.pop_back();
  }
  size_t at = beam.size();
  while (at > 0 && above(c, beam[at - 1])) --at;
  beam.insert(beam.begin() + static_cast<std::ptrdiff_t>(at), c);
}

// LoD level `level` in rows (Paddle's absolute offsets): each offset mapped
// through every deeper level.
std::vector<uint64_t> row_offsets(const rt::Lod& lod, size_t level) {
  std::vector<uint64_t> off = lod[level];
  for (size_t l = level + 1; l < lod.size(); ++l)
    for (uint64_t& o : off) o = lod[l][o];
  return off;
}

void require_rows(const char* role, const Tensor& t, int64_t rows, DType dtype) {
  require_init(kOp, role, t);
  if (t.dtype() != dtype)
    rt::fail(fmt::format("{}: {} must be {}, got {}", kOp, role, rt::dtype_name(dtype), rt::dtype_name(t.dtype())));
  if (t.rank() < 1 || t.dim(0) != rows || t.numel() != rows)
    rt::fail(fmt::format("{}: {} must be [{}, 1] (one per row of scores), got {}", kOp, role, rows, t.shape().str()));
}

template <class T>
void run(const Tensor& pre_ids, const Tensor& pre_scores, const Tensor* ids, const Tensor& scores,
         Tensor& selected_ids, Tensor& selected_scores, Tensor* parent_idx, const BeamSearchAttrs& a) {
  const rt::Lod& lod = *scores.lod();
  const int64_t rows = scores.dim(0), width = rows ? scores.numel() / rows : 0;
  const std::vector<uint64_t> sources = row_offsets(lod, static_cast<size_t>(a.level));
  const int64_t* pid = pre_ids.data<int64_t>();
  const T* psc = pre_scores.data<T>();
  const T* sc = scores.data<T>();
  const int64_t* cid = ids ? ids->data<int64_t>() : nullptr;
  const size_t beam_size = static_cast<size_t>(a.beam_size);

  // Each prefix's kept candidates, in beam order.
  std::vector<std::vector<Candidate>> kept(static_cast<size_t>(rows));
  std::vector<Candidate> beam;
  for (size_t s = 0; s + 1 < sources.size(); ++s) {
    beam.clear();
    for (uint64_t r = sources[s]; r < sources[s + 1]; ++r) {
      if (pid[r] == a.end_id) {  // an ended prefix offers its end token alone
        offer(beam, {r, a.end_id, static_cast<double>(psc[r])}, beam_size);
        continue;
      }
      for (int64_t k = 0; k < width; ++k) {
        const T p = sc[static_cast<int64_t>(r) * width + k];
        const T score = a.is_accumulated ? p : static_cast<T>(psc[r] + std::log(p));
        offer(beam, {r, cid ? cid[static_cast<int64_t>(r) * width + k] : k, static_cast<double>(score)}, beam_size);
      }
    }
    // A source whose every kept candidate only repeats an ended prefix's end is finished: dropped.
    bool finished = true;
    for (const Candidate& c : beam) finished &= c.id == a.end_id && pid[c.prefix] == a.end_id;
    if (finished) continue;
    for (const Candidate& c : beam) kept[c.prefix].push_back(c);
  }

  rt::Lod out_lod{sources, {0}};
  std::vector<uint64_t>& per_prefix = out_lod[1];
  for (const auto& k : kept) per_prefix.push_back(per_prefix.back() + k.size());
  const int64_t n = static_cast<int64_t>(per_prefix.back());
  selected_ids.resize(Shape{n, 1}, DType::kInt64);
  selected_scores.resize(Shape{n, 1}, scores.dtype());
  if (parent_idx) parent_idx->resize(Shape{n}, DType::kInt32);
  int64_t at = 0;
  for (const auto& k : kept)
    for (const Candidate& c : k) {
      selected_ids.data<int64_t>()[at] = c.id;
      selected_scores.data<T>()[at] = static_cast<T>(c.score);
      if (parent_idx) parent_idx->data<int32_t>()[at] = static_cast<int32_t>(c.prefix);
      ++at;
    }
  selected_ids.mutable_lod() = out_lod;
  selected_scores.mutable_lod() = std::move(out_lod);
  if (parent_idx) parent_idx->clear_lod();
}

}  // namespace

void beam_search(const Tensor& pre_ids, const Tensor& pre_scores, const Tensor* ids, const Tensor& scores,
                 Tensor& selected_ids, Tensor& selected_scores, Tensor* parent_idx, const BeamSearchAttrs& a) {
  require_init(kOp, "scores", scores);
  // Paddle 2.6.2's CPU kernel reads pre_scores and scores as float32 whatever it is registered for.
  if (scores.dtype() != DType::kFP32)
    rt::fail(fmt::format("{}: scores must be float32, got {}", kOp, rt::dtype_name(scores.dtype())));
  if (a.beam_size < 1) rt::fail(fmt::format("{}: beam_size must be at least 1, got {}", kOp, a.beam_size));
  if (scores.rank() < 2)
    rt::fail(fmt::format("{}: scores must be [rows, candidates], got {}", kOp, scores.shape().str()));
  const rt::Lod* lod = scores.lod();
  if (!lod || a.level < 0 || static_cast<size_t>(a.level) >= lod->size())
    rt::fail(fmt::format("{}: scores must carry LoD level {} (source sentences), it has {} level(s)", kOp, a.level,
                         lod ? lod->size() : 0));
  rt::check_lod(*lod, scores.dim(0), "beam_search: scores");
  const int64_t rows = scores.dim(0);
  require_rows("pre_ids", pre_ids, rows, DType::kInt64);
  require_rows("pre_scores", pre_scores, rows, scores.dtype());
  if (ids) {
    require_init(kOp, "ids", *ids);
    if (ids->dtype() != DType::kInt64 || ids->shape() != scores.shape())
      rt::fail(fmt::format("{}: ids must be int64 {} like scores, got {} {}", kOp, scores.shape().str(),
                           rt::dtype_name(ids->dtype()), ids->shape().str()));
  }
  // Outputs are written only after every input was read, so they may share an input's variable.
  run<float>(pre_ids, pre_scores, ids, scores, selected_ids, selected_scores, parent_idx, a);
}

}  // namespace fluidc::kernels
