// kernels/cpu/beam_search_decode.cc - beam_search_decode: each source's final beam traced back through the steps' LoDs to whole sentences.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kernels/beam_search.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;
constexpr const char* kOp = "beam_search_decode";

// One sentence being traced, last word first.
template <class T>
struct Trace {
  std::vector<int64_t> ids;
  std::vector<T> scores;
  uint64_t row = 0;  // its row in the step read next (the prefix it continues)
};

// Checks step `t`'s two elements: initialized, int64 ids and T scores of
// the same rows, and a two-level LoD whose level 0 has `sources` entries.
void check_step(const TensorArray& ids, const TensorArray& scores, size_t t, size_t sources) {
  const Tensor &i = ids[t], &s = scores[t];
  if (!i.initialized() || !s.initialized()) rt::fail(fmt::format("{}: step {} was never written", kOp, t));
  if (i.dtype() != DType::kInt64) rt::fail(fmt::format("{}: Ids[{}] must be int64, got {}", kOp, t, rt::dtype_name(i.dtype())));
  if (s.dtype() != scores[0].dtype() || s.numel() != i.numel() || i.rank() < 1 || i.numel() != i.dim(0))
    rt::fail(fmt::format("{}: step {}: Ids {} and Scores {} {} must be one column of the same rows", kOp, t,
                         i.shape().str(), rt::dtype_name(s.dtype()), s.shape().str()));
  const rt::Lod* lod = i.lod();
  if (!lod || lod->size() < 2)
    rt::fail(fmt::format("{}: Ids[{}] must carry beam_search's two LoD levels, it has {}", kOp, t, lod ? lod->size() : 0));
  rt::check_lod(*lod, i.dim(0), fmt::format("{}: Ids[{}]", kOp, t));
  if ((*lod)[0].size() != sources + 1)
    rt::fail(fmt::format("{}: Ids[{}] has {} source sentences, step 0 has {}", kOp, t, (*lod)[0].size() - 1, sources));
}

template <class T>
void run(const TensorArray& ids, const TensorArray& scores, Tensor& out_ids, Tensor& out_scores,
         const BeamSearchDecodeAttrs& a) {
  const size_t sources = ids[0].lod()->at(0).size() - 1;
  std::vector<std::vector<Trace<T>>> traces(sources);
  for (size_t t = ids.size(); t-- > 0;) {
    const rt::Lod& lod = *ids[t].lod();
    const std::vector<uint64_t>&src = lod[0], &pre = lod[1];  // source -> prefixes, prefix -> rows
    const int64_t* id = ids[t].data<int64_t>();
    const T* sc = scores[t].data<T>();
    const uint64_t rows = static_cast<uint64_t>(ids[t].dim(0));
    for (size_t s = 0; s < sources; ++s) {
      std::vector<Trace<T>>& sent = traces[s];
      if (sent.empty()) {  // the source's last step (it was dropped after this one, or this is the last)
        for (uint64_t p = src[s]; p < src[s + 1]; ++p)
          for (uint64_t r = pre[p]; r < pre[p + 1]; ++r) {
            if (sent.size() == static_cast<size_t>(a.beam_size))
              rt::fail(fmt::format("{}: source {} has more than beam_size {} candidates at step {}", kOp, s,
                                   a.beam_size, t));
            sent.push_back({{id[r]}, {sc[r]}, p});  // continues row p of the step before
          }
      } else {
        // Rows only ascend, so the prefix holding each one is found scanning forward.
        uint64_t prefix = src[s];
        for (Trace<T>& tr : sent) {
          if (tr.row >= rows) rt::fail(fmt::format("{}: step {} has no row {}", kOp, t, tr.row));
          if (id[tr.row] != a.end_id || tr.ids.empty()) {  // an ended branch's repeated ends count once
            tr.ids.push_back(id[tr.row]);
            tr.scores.push_back(sc[tr.row]);
          }
          while (prefix < src[s + 1] && pre[prefix + 1] <= tr.row) ++prefix;
          if (prefix == src[s + 1])
            rt::fail(fmt::format("{}: step {}: row {} is outside source {}'s prefixes", kOp, t, tr.row, s));
          tr.row = prefix;  // the row of the previous step this candidate extends
        }
      }
    }
  }
  rt::Lod lod{{0}, {0}};
  std::vector<int64_t> all_ids;
  std::vector<T> all_scores;
  for (auto& sent : traces) {
    // Final score (the first one traced) descending; ties keep beam order.
    std::stable_sort(sent.begin(), sent.end(),
                     [](const Trace<T>& x, const Trace<T>& y) { return x.scores.front() > y.scores.front(); });
    for (const Trace<T>& tr : sent) {
      all_ids.insert(all_ids.end(), tr.ids.rbegin(), tr.ids.rend());
      all_scores.insert(all_scores.end(), tr.scores.rbegin(), tr.scores.rend());
      lod[1].push_back(lod[1].back() + tr.ids.size());
    }
    lod[0].push_back(lod[0].back() + sent.size());
  }
  const int64_t n = static_cast<int64_t>(all_ids.size());
  out_ids.resize(Shape{n}, DType::kInt64);
  out_scores.resize(Shape{n}, scores[0].dtype());
  std::copy(all_ids.begin(), all_ids.end(), out_ids.data<int64_t>());
  std::copy(all_scores.begin(), all_scores.end(), out_scores.data<T>());
  out_ids.mutable_lod() = lod;
  out_scores.mutable_lod() = std::move(lod);
}

}  // namespace

void beam_search_decode(const TensorArray& ids, const TensorArray& scores, Tensor& sentence_ids,
                        Tensor& sentence_scores, const BeamSearchDecodeAttrs& a) {
  if (ids.empty()) rt::fail(fmt::format("{}: Ids is empty (no decoding step was written)", kOp));
  if (ids.size() != scores.size())
    rt::fail(fmt::format("{}: Ids has {} steps but Scores has {}", kOp, ids.size(), scores.size()));
  if (a.beam_size < 1) rt::fail(fmt::format("{}: beam_size must be at least 1, got {}", kOp, a.beam_size));
  if (!ids[0].lod() || ids[0].lod()->size() < 2)
    rt::fail(fmt::format("{}: Ids[0] must carry beam_search's two LoD levels", kOp));
  const size_t sources = ids[0].lod()->at(0).size() - 1;
  for (size_t t = 0; t < ids.size(); ++t) check_step(ids, scores, t, sources);
  visit_float(kOp, "Scores", scores[0].dtype(), [&](auto tag) {
    run<decltype(tag)>(ids, scores, sentence_ids, sentence_scores, a);
  });
}

}  // namespace fluidc::kernels
