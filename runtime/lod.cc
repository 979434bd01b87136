// runtime/lod.cc - LoD offset checks, offsets .npy IO and whole-sequence batching.
#include "runtime/lod.h"

#include <cstring>

#include "runtime/error.h"
#include "runtime/npy.h"

namespace fluidc::rt {

void check_lod(const Lod& lod, int64_t rows, const std::string& what) {
  for (size_t l = 0; l < lod.size(); ++l) {
    const std::vector<uint64_t>& o = lod[l];
    const std::string lv = what + ": LoD level " + std::to_string(l);
    if (o.empty()) fail(lv + " is empty (it needs at least the offset 0)");
    if (o[0] != 0) fail(lv + " starts at " + std::to_string(o[0]) + ", not 0");
    for (size_t i = 1; i < o.size(); ++i)
      if (o[i] < o[i - 1])
        fail(lv + " decreases at index " + std::to_string(i) + " (" + std::to_string(o[i - 1]) + " then " +
             std::to_string(o[i]) + "): offsets must never decrease");
    const uint64_t want = l + 1 < lod.size() ? lod[l + 1].size() - 1 : static_cast<uint64_t>(rows);
    if (l + 1 < lod.size() && lod[l + 1].empty()) continue;  // reported at the next level
    if (o.back() != want)
      fail(lv + " ends at " + std::to_string(o.back()) + ", but " +
           (l + 1 < lod.size() ? "level " + std::to_string(l + 1) + " has " + std::to_string(want) + " entries"
                               : "the tensor has " + std::to_string(want) + " rows"));
  }
}

void read_lod_npy(const std::vector<std::string>& files, Tensor& t, const std::string& what) {
  if (!t.initialized() || t.rank() == 0) fail(what + ": a LoD tensor needs a row axis");
  Lod lod(files.size());
  Tensor o;
  for (size_t l = 0; l < files.size(); ++l) {
    read_npy(files[l], o);
    if (o.rank() != 1) fail(files[l] + ": LoD offsets must be 1-D, got shape " + o.shape().str());
    const int64_t n = o.dim(0);
    lod[l].resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = 0;
      switch (o.dtype()) {
        case DType::kInt64: v = o.data<int64_t>()[i]; break;
        case DType::kInt32: v = o.data<int32_t>()[i]; break;
        default: fail(files[l] + ": LoD offsets must be int64 or int32, got " + dtype_name(o.dtype()));
      }
      if (v < 0) fail(files[l] + ": negative LoD offset " + std::to_string(v) + " at index " + std::to_string(i));
      lod[l][static_cast<size_t>(i)] = static_cast<uint64_t>(v);
    }
  }
  check_lod(lod, t.dim(0), what);
  t.mutable_lod() = std::move(lod);
}

void write_lod_npy(const std::string& stem, const Tensor& t) {
  const Lod* lod = t.lod();
  if (!lod) return;
  for (size_t l = 0; l < lod->size(); ++l) {
    Tensor o;
    o.resize(Shape{static_cast<int64_t>((*lod)[l].size())}, DType::kInt64);
    for (size_t i = 0; i < (*lod)[l].size(); ++i) o.data<int64_t>()[i] = static_cast<int64_t>((*lod)[l][i]);
    write_npy(stem + ".lod" + std::to_string(l) + ".npy", o);
  }
}

const std::vector<uint64_t>& last_lod_level(const Tensor& t, const char* op, const char* slot) {
  const Lod* lod = t.lod();
  if (!lod)
    fail(std::string(op) + ": " + slot + " must be a LoD tensor (sequences), got a dense " + t.shape().str() +
         " (feed it with --lod, or give the program lod_level >= 1)");
  const std::vector<uint64_t>& last = lod->back();
  if (t.rank() == 0 || last.empty() || last.back() != static_cast<uint64_t>(t.dim(0)))
    fail(std::string(op) + ": " + slot + "'s LoD ends at " + std::to_string(last.empty() ? 0 : last.back()) +
         " but it has " + std::to_string(t.rank() ? t.dim(0) : 0) + " rows");
  return last;
}

int64_t top_level_count(const Tensor& t) {
  const Lod* lod = t.lod();
  if (lod) return static_cast<int64_t>((*lod)[0].size()) - 1;
  return t.rank() ? t.dim(0) : 0;
}

void gather_sequences(const Tensor& src, const std::vector<int64_t>& order, int64_t begin, int64_t count,
                      Tensor& dst) {
  const Lod& lod = *src.lod();
  const size_t levels = lod.size();
  Lod& out = dst.mutable_lod();
  out.resize(levels);
  for (auto& level : out) level.assign(1, 0);
  // First pass: the new offsets and the total row count.
  int64_t rows = 0;
  for (int64_t k = 0; k < count; ++k) {
    uint64_t a = static_cast<uint64_t>(order[begin + k]), b = a + 1;
    for (size_t l = 0; l < levels; ++l) {
      for (uint64_t j = a; j < b; ++j) out[l].push_back(out[l].back() + (lod[l][j + 1] - lod[l][j]));
      a = lod[l][a], b = lod[l][b];
    }
    rows += static_cast<int64_t>(b - a);
  }
  Shape s = src.shape();
  s[0] = rows;
  // resize() keeps the LoD just written.
  dst.resize(s, src.dtype());
  const size_t row_bytes = src.dim(0) ? src.nbytes() / static_cast<size_t>(src.dim(0)) : 0;
  const char* from = static_cast<const char*>(src.raw());
  char* to = static_cast<char*>(dst.raw());
  for (int64_t k = 0; k < count; ++k) {
    uint64_t a = static_cast<uint64_t>(order[begin + k]), b = a + 1;
    for (size_t l = 0; l < levels; ++l) a = lod[l][a], b = lod[l][b];
    const size_t n = static_cast<size_t>(b - a) * row_bytes;
    if (n) std::memcpy(to, from + a * row_bytes, n);
    to += n;
  }
}

std::vector<std::vector<std::string>> lod_files_for_inputs(const ModelInfo& m, const Flags& flags) {
  std::vector<std::vector<std::string>> out(static_cast<size_t>(m.num_feeds));
  if (!flags.has("lod")) return out;
  for (const auto& [name, list] : flags.pairs("lod")) {
    int i = 0;
    while (i < m.num_feeds && name != m.feeds[i].name) ++i;
    if (i == m.num_feeds) fail("--lod names '" + name + "', which is not an input of this program (see --help)");
    std::vector<std::string>& files = out[static_cast<size_t>(i)];
    size_t start = 0;
    for (;;) {
      const size_t comma = list.find(',', start);
      files.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (files.back().empty()) fail("--lod " + name + "=" + list + ": an empty file name");
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (static_cast<int>(files.size()) > m.feeds[i].lod_level)
      fail("--lod " + name + " gives " + std::to_string(files.size()) + " level(s), but the program declares '" +
           name + "' with lod_level " + std::to_string(m.feeds[i].lod_level));
  }
  return out;
}

}  // namespace fluidc::rt
