// kernels/cpu/crf_chunk_eval.cc - chunk_eval: chunk precision / recall / F1 of a tagger's output (IOB, IOE, IOBES, plain schemes).
#include <algorithm>

#include "kernels/cpu/index_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/crf.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// The tag roles of a scheme; -1: the scheme has no such tag.
struct Scheme {
  int tags = 1;  // tags per chunk type
  int begin = -1, inside = -1, end = -1, single = -1;
};

Scheme scheme_of(const std::string& name) {
  if (name == "IOB") return {2, 0, 1, -1, -1};
  if (name == "IOE") return {2, -1, 0, 1, -1};
  if (name == "IOBES") return {4, 0, 1, 2, 3};
  if (name == "plain") return {1, -1, -1, -1, -1};
  rt::fail("chunk_eval: chunk_scheme must be IOB, IOE, IOBES or plain, got '" + name + "'");
}

struct Chunk {
  int64_t begin, end, type;
  bool operator==(const Chunk& o) const { return begin == o.begin && end == o.end && type == o.type; }
};

// Does the chunk of (prev_tag, prev_type) end before a row tagged (tag, type)?
bool chunk_ends(const Scheme& s, int64_t other, int64_t prev_tag, int64_t prev_type, int64_t tag, int64_t type) {
  if (prev_type == other) return false;
  if (type == other || type != prev_type) return true;
  if (prev_tag == s.begin || prev_tag == s.inside) return tag == s.begin || tag == s.single;
  return prev_tag == s.end || prev_tag == s.single;
}

// Does a chunk begin at a row tagged (tag, type) after one tagged (prev_tag, prev_type)?
bool chunk_begins(const Scheme& s, int64_t other, int64_t prev_tag, int64_t prev_type, int64_t tag, int64_t type) {
  if (prev_type == other) return type != other;
  if (type == other) return false;
  if (type != prev_type || tag == s.begin || tag == s.single) return true;
  if (tag == s.inside || tag == s.end) return prev_tag == s.end || prev_tag == s.single;
  return false;
}

// The chunks of one sequence of tag values v[0..n), in order.
void chunks_of(const Scheme& s, int64_t other, const int64_t* v, int64_t n, std::vector<Chunk>& out) {
  out.clear();
  int64_t start = 0, tag = -1, type = other;
  bool in_chunk = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t prev_tag = tag, prev_type = type;
    tag = v[i] % s.tags;
    type = v[i] / s.tags;
    if (in_chunk && chunk_ends(s, other, prev_tag, prev_type, tag, type)) {
      out.push_back({start, i - 1, prev_type});
      in_chunk = false;
    }
    if (chunk_begins(s, other, prev_tag, prev_type, tag, type)) {
      start = i;
      in_chunk = true;
    }
  }
  if (in_chunk) out.push_back({start, n - 1, type});
}

}  // namespace

void chunk_eval(const Tensor& inference, const Tensor& label, const Tensor* seq_length, Tensor& precision,
                Tensor& recall, Tensor& f1_score, Tensor& num_infer_chunks, Tensor& num_label_chunks,
                Tensor& num_correct_chunks, const ChunkEvalAttrs& a) {
  const char* op = "chunk_eval";
  const Scheme s = scheme_of(a.chunk_scheme);
  if (a.num_chunk_types < 1) rt::fail(fmt::format("{}: num_chunk_types must be at least 1, got {}", op, a.num_chunk_types));
  require_init(op, "Inference", inference);
  require_init(op, "Label", label);
  const int64_t n = inference.numel();
  if (label.numel() != n)
    rt::fail(fmt::format("{}: Label {} must hold as many tags as Inference {}", op, label.shape().str(),
                         inference.shape().str()));
  // Sequence bounds first (checked_indices reuses one scratch buffer per call).
  std::vector<int64_t> begins, lengths;
  if (seq_length) {
    require_init(op, "SeqLength", *seq_length);
    if (inference.rank() < 2)
      rt::fail(fmt::format("{}: with SeqLength, Inference must be [batch, max length], got {}", op,
                           inference.shape().str()));
    const int64_t batch = inference.dim(0), steps = n / std::max<int64_t>(batch, 1);
    if (seq_length->numel() != batch)
      rt::fail(fmt::format("{}: SeqLength must hold one length per row of Inference ({}), got {}", op, batch,
                           seq_length->shape().str()));
    const int64_t* len = checked_indices(op, "SeqLength", *seq_length, steps + 1);
    for (int64_t b = 0; b < batch; ++b) begins.push_back(b * steps), lengths.push_back(len[b]);
  } else {
    const rt::Lod* lod = inference.lod();
    if (lod && lod->size() != 1) rt::fail(fmt::format("{}: Inference must have one LoD level, got {}", op, lod->size()));
    const std::vector<uint64_t>& off = rt::last_lod_level(inference, op, "Inference");
    for (size_t i = 0; i + 1 < off.size(); ++i)
      begins.push_back(static_cast<int64_t>(off[i])), lengths.push_back(static_cast<int64_t>(off[i + 1] - off[i]));
  }
  const int64_t bound = int64_t{a.num_chunk_types} * s.tags + 1, other = a.num_chunk_types;
  const int64_t* checked = checked_indices(op, "Inference", inference, bound);
  const std::vector<int64_t> inf(checked, checked + n);  // Label's check reuses that buffer
  const int64_t* lab = checked_indices(op, "Label", label, bound);
  auto counted = [&](const Chunk& c) {
    return std::find(a.excluded_chunk_types.begin(), a.excluded_chunk_types.end(), c.type) ==
           a.excluded_chunk_types.end();
  };
  int64_t n_infer = 0, n_label = 0, n_correct = 0;
  std::vector<Chunk> ci, cl;
  for (size_t q = 0; q < begins.size(); ++q) {
    chunks_of(s, other, inf.data() + begins[q], lengths[q], ci);
    chunks_of(s, other, lab + begins[q], lengths[q], cl);
    // Both lists are ordered by end: walk them together.
    for (size_t i = 0, j = 0; i < ci.size() && j < cl.size();) {
      if (ci[i] == cl[j] && counted(ci[i])) ++n_correct;
      if (ci[i].end < cl[j].end) ++i;
      else if (ci[i].end > cl[j].end) ++j;
      else ++i, ++j;
    }
    n_infer += std::count_if(ci.begin(), ci.end(), counted);
    n_label += std::count_if(cl.begin(), cl.end(), counted);
  }
  const float p = n_infer ? static_cast<float>(n_correct) / static_cast<float>(n_infer) : 0.f;
  const float r = n_label ? static_cast<float>(n_correct) / static_cast<float>(n_label) : 0.f;
  const float f = n_correct ? 2 * p * r / (p + r) : 0.f;
  for (Tensor* t : {&precision, &recall, &f1_score}) {
    t->resize(Shape{1}, DType::kFP32);
    t->clear_lod();
  }
  for (Tensor* t : {&num_infer_chunks, &num_label_chunks, &num_correct_chunks}) {
    t->resize(Shape{1}, DType::kInt64);
    t->clear_lod();
  }
  precision.data<float>()[0] = p;
  recall.data<float>()[0] = r;
  f1_score.data<float>()[0] = f;
  num_infer_chunks.data<int64_t>()[0] = n_infer;
  num_label_chunks.data<int64_t>()[0] = n_label;
  num_correct_chunks.data<int64_t>()[0] = n_correct;
}

}  // namespace fluidc::kernels
