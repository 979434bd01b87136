// runtime/tensor_record.cc - Paddle's tensor-record format: parameters in, checkpoints out.
#include "runtime/tensor_record.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>

#include "runtime/atomic_file.h"
#include "runtime/error.h"
#include "runtime/lod.h"
#include "runtime/var_file_name.h"

namespace fluidc::rt {

static_assert(std::endian::native == std::endian::little,
              "tensor records are little-endian and read by memcpy");
static_assert(sizeof(size_t) == 8, "Paddle writes LoD offsets as 64-bit size_t");

namespace {

// Sanity limits for fields read from a possibly corrupt file, so that a bad
// byte gives a clear error instead of a huge allocation.
constexpr uint64_t kMaxLodLevels = 64;
constexpr int32_t kMaxDescBytes = 4096;  // 9 dims take at most ~110 bytes

/// Bytes left between the read position and the end, if the stream can tell.
std::optional<uint64_t> remaining(std::istream& in) {
  if (!in.good()) return std::nullopt;
  std::streampos cur = in.tellg();
  if (cur == std::streampos(-1)) {
    in.clear();
    return std::nullopt;
  }
  in.seekg(0, std::ios::end);
  std::streampos end = in.tellg();
  in.clear();
  in.seekg(cur);
  if (end == std::streampos(-1) || !in.good()) {
    in.clear();
    in.seekg(cur);
    return std::nullopt;
  }
  return static_cast<uint64_t>(end - cur);
}

void read_exact(std::istream& in, void* dst, size_t n, const std::string& where, const char* what) {
  if (n == 0) return;
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
  size_t got = static_cast<size_t>(in.gcount());
  if (got != n)
    fail(where + ": truncated: " + what + " needs " + std::to_string(n) + " bytes but only " +
         std::to_string(got) + " remain");
}

template <class T>
T read_pod(std::istream& in, const std::string& where, const char* what) {
  T v;
  read_exact(in, &v, sizeof v, where, what);
  return v;
}

template <class T>
void write_pod(std::ostream& out, T v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof v);
}

/// Fails unless `need` bytes can still follow (when the stream can tell).
void check_room(std::istream& in, uint64_t need, const std::string& where, const std::string& what) {
  if (auto left = remaining(in); left && *left < need)
    fail(where + ": truncated: " + what + " needs " + std::to_string(need) + " bytes but only " +
         std::to_string(*left) + " remain");
}

std::string paddle_type_name(int64_t code) {
  if (code >= INT32_MIN && code <= INT32_MAX && dtype_is_valid(static_cast<int32_t>(code)))
    return dtype_name(static_cast<DType>(code));
  switch (code) {
    case 19: return "SIZE_T";
    case 22: return "BF16";
    case 23: return "COMPLEX64";
    case 24: return "COMPLEX128";
    default: return "not an element type";
  }
}

// --- TensorDesc protobuf, by hand -------------------------------------------

void put_varint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  s += static_cast<char>(v);
}

std::string encode_desc(const Tensor& t) {
  std::string s;
  s += '\x08';  // field 1, varint
  put_varint(s, static_cast<uint64_t>(static_cast<int64_t>(t.dtype())));
  for (int i = 0; i < t.rank(); ++i) {
    s += '\x10';  // field 2, varint: one tag per element, as proto2 writes it
    put_varint(s, static_cast<uint64_t>(t.dim(i)));
  }
  return s;
}

class DescReader {
 public:
  DescReader(const std::string& b, const std::string& where) : b_(b), where_(where) {}

  void parse(DType* dtype, Shape* shape) {
    bool have_type = false;
    Shape s;
    while (pos_ < b_.size()) {
      uint64_t tag = varint(b_.size());
      uint64_t field = tag >> 3, wire = tag & 7;
      if (field == 1 && wire == 0) {
        int64_t code = static_cast<int64_t>(varint(b_.size()));
        if (code < INT32_MIN || code > INT32_MAX || !dtype_is_valid(static_cast<int32_t>(code)))
          fail(where_ + ": unsupported data type code " + std::to_string(code) + " (" +
               paddle_type_name(code) +
               ") in the TensorDesc; fluidc reads bool, int8/16/32/64, uint8, float16/32/64");
        *dtype = static_cast<DType>(code);
        have_type = true;
      } else if (field == 2 && wire == 0) {
        add_dim(s, static_cast<int64_t>(varint(b_.size())));
      } else if (field == 2 && wire == 2) {
        uint64_t len = varint(b_.size());
        if (len > b_.size() - pos_) bad("packed dims run past the end of the message");
        size_t end = pos_ + static_cast<size_t>(len);
        while (pos_ < end) add_dim(s, static_cast<int64_t>(varint(end)));
      } else {
        skip(wire, field);
      }
    }
    if (!have_type) bad("it has no data_type (field 1)");
    *shape = s;
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail(where_ + ": malformed TensorDesc: " + what);
  }
  uint64_t varint(size_t end) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= end) bad("a varint runs past the end of the message");
      uint8_t byte = static_cast<uint8_t>(b_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    bad("a varint is longer than 10 bytes");
  }
  void add_dim(Shape& s, int64_t d) {
    if (d < 0)
      fail(where_ + ": negative dimension " + std::to_string(d) + " at index " +
           std::to_string(s.rank) + " in the TensorDesc");
    if (s.rank == Shape::kMaxRank)
      fail(where_ + ": the TensorDesc has more than " + std::to_string(Shape::kMaxRank) +
           " dims; fluidc tensors have rank 9 at most");
    s.d[s.rank++] = d;
  }
  void skip(uint64_t wire, uint64_t field) {
    size_t n;
    switch (wire) {
      case 0: varint(b_.size()); return;
      case 1: n = 8; break;
      case 5: n = 4; break;
      case 2: {
        uint64_t len = varint(b_.size());
        if (len > b_.size() - pos_) bad("field " + std::to_string(field) + " runs past the end");
        n = static_cast<size_t>(len);
        break;
      }
      default:
        bad("field " + std::to_string(field) + " has wire type " + std::to_string(wire) +
            ", which a TensorDesc never uses");
    }
    if (n > b_.size() - pos_) bad("field " + std::to_string(field) + " runs past the end");
    pos_ += n;
  }

  const std::string& b_;
  const std::string& where_;
  size_t pos_ = 0;
};

void check_value(const Tensor& t, const std::string& where) {
  if (!t.initialized()) fail(where + ": cannot save: the tensor holds no value (it was never resized)");
}

void check_same_size(const std::vector<std::string>& names, size_t n, const char* what) {
  if (names.size() != n)
    fail(std::string(what) + ": " + std::to_string(names.size()) + " names but " +
         std::to_string(n) + " tensors");
}

std::string var_where(const std::string& path, const std::string& var) {
  return var.empty() ? path : path + " (variable '" + var + "')";
}

void check_at_end(std::istream& in, const std::string& where, const std::string& what) {
  if (in.peek() == std::char_traits<char>::eof()) {
    in.clear();
    return;
  }
  auto left = remaining(in);
  fail(where + ": " + (left ? std::to_string(*left) : std::string("some")) +
       " bytes of trailing data after " + what);
}

std::ifstream open_in(const std::string& path, const std::string& var) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int e = errno;
    std::string reason = e ? std::strerror(e) : "cannot open";
    if (var.empty()) fail(path + ": cannot open: " + reason);
    fail(path + ": cannot open the parameter file of variable '" + var + "': " + reason);
  }
  if (std::filesystem::is_directory(path)) fail(path + ": cannot open: " + std::strerror(EISDIR));
  return in;
}

}  // namespace

void read_tensor_record(std::istream& in, Tensor& out, const std::string& where, Lod* lod) {
  uint32_t version = read_pod<uint32_t>(in, where, "the version field");
  if (version != 0) {
    const auto* b = reinterpret_cast<const unsigned char*>(&version);
    if (b[0] == 0x80 && b[1] >= 2 && b[1] <= 5)
      fail(where + ": not a tensor record: this looks like a Python pickle (paddle.save / "
                   "paddle.static.save .pdparams); save with paddle.static.save_inference_model "
                   "or paddle.static.io.save_vars instead");
    fail(where + ": unsupported tensor record version " + std::to_string(version) + " (expected 0)");
  }
  uint64_t levels = read_pod<uint64_t>(in, where, "the lod_level field");
  if (levels > kMaxLodLevels)
    fail(where + ": implausible lod_level " + std::to_string(levels) + " (more than " +
         std::to_string(kMaxLodLevels) + "): the file is corrupt or not a tensor record");
  Lod kept;
  if (lod) lod->assign(levels, {});
  else kept.assign(levels, {});
  for (uint64_t l = 0; l < levels; ++l) {
    uint64_t bytes = read_pod<uint64_t>(in, where, "a LoD level size");
    if (bytes % 8 != 0)
      fail(where + ": LoD level " + std::to_string(l) + " has " + std::to_string(bytes) +
           " bytes, not a multiple of 8");
    check_room(in, bytes, where, "LoD level " + std::to_string(l));
    std::vector<uint64_t> offsets(bytes / 8);
    read_exact(in, offsets.data(), bytes, where, "a LoD level");
    if (lod) (*lod)[l] = std::move(offsets);
    else kept[l] = std::move(offsets);
  }
  uint32_t tversion = read_pod<uint32_t>(in, where, "the tensor version field");
  if (tversion != 0)
    fail(where + ": unsupported tensor version " + std::to_string(tversion) + " (expected 0)");
  int32_t desc_size = read_pod<int32_t>(in, where, "the TensorDesc size");
  if (desc_size < 0 || desc_size > kMaxDescBytes)
    fail(where + ": implausible TensorDesc size " + std::to_string(desc_size) +
         ": the file is corrupt or not a tensor record");
  std::string desc(static_cast<size_t>(desc_size), '\0');
  read_exact(in, desc.data(), desc.size(), where, "the TensorDesc");
  DType dtype = DType::kFP32;
  Shape shape;
  DescReader(desc, where).parse(&dtype, &shape);
  size_t bytes = 0;
  if (!shape.checked_bytes(dtype_size(dtype), &bytes))
    fail(where + ": shape " + shape.str() + " is too large");
  std::string what = "the data of shape " + shape.str() + " " + dtype_name(dtype);
  check_room(in, bytes, where, what);
  out.resize(shape, dtype);
  read_exact(in, out.raw(), bytes, where, what.c_str());
  if (!lod) {
    // Without a place for it, the LoD goes with the tensor (a sequence
    // tensor read back keeps its sequences), checked against its rows.
    if (levels > 0 && shape.rank > 0) {
      Lod& own = out.mutable_lod();
      own = std::move(kept);
      check_lod(own, shape.d[0], where);
    } else {
      out.clear_lod();
    }
  }
}

void write_tensor_record(std::ostream& out, const Tensor& t, const Lod* lod) {
  check_value(t, "write_tensor_record");
  write_pod<uint32_t>(out, 0);
  if (!lod) lod = t.lod();  // a sequence tensor writes its own offsets
  uint64_t levels = lod ? lod->size() : 0;
  write_pod<uint64_t>(out, levels);
  for (uint64_t l = 0; l < levels; ++l) {
    const std::vector<uint64_t>& offs = (*lod)[l];
    write_pod<uint64_t>(out, offs.size() * sizeof(uint64_t));
    out.write(reinterpret_cast<const char*>(offs.data()),
              static_cast<std::streamsize>(offs.size() * sizeof(uint64_t)));
  }
  write_pod<uint32_t>(out, 0);
  std::string desc = encode_desc(t);
  write_pod<int32_t>(out, static_cast<int32_t>(desc.size()));
  out.write(desc.data(), static_cast<std::streamsize>(desc.size()));
  if (t.nbytes())
    out.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.nbytes()));
}

std::vector<size_t> combined_params_order(const std::vector<std::string>& names) {
  std::vector<size_t> order(names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return names[a] < names[b]; });
  for (size_t i = 1; i < order.size(); ++i)
    if (names[order[i]] == names[order[i - 1]])
      fail("combined parameters: variable '" + names[order[i]] + "' is listed twice");
  return order;
}

void read_combined_params(std::istream& in, const std::string& where,
                          const std::vector<std::string>& names,
                          const std::vector<Tensor*>& outs) {
  check_same_size(names, outs.size(), where.c_str());
  std::vector<size_t> order = combined_params_order(names);
  const size_t n = order.size();
  for (size_t k = 0; k < n; ++k) {
    const std::string& name = names[order[k]];
    if (in.peek() == std::char_traits<char>::eof())
      fail(where + ": ends early: expected " + std::to_string(n) +
           " tensor records (one per variable, in sorted name order) but found only " +
           std::to_string(k) + "; the first missing is variable '" + name + "'");
    read_tensor_record(in, *outs[order[k]],
                       where + ", record " + std::to_string(k + 1) + " of " + std::to_string(n) +
                           " (variable '" + name + "')");
  }
  check_at_end(in, where,
               "the " + std::to_string(n) +
                   " expected tensor records: the file holds more (or larger) variables than the " +
                   std::to_string(n) + " given");
}

void read_combined_params(const std::string& path, const std::vector<std::string>& names,
                          const std::vector<Tensor*>& outs) {
  std::ifstream in = open_in(path, "");
  read_combined_params(in, path, names, outs);
}

void write_combined_params(const std::string& path, const std::vector<std::string>& names,
                           const std::vector<const Tensor*>& tensors) {
  check_same_size(names, tensors.size(), path.c_str());
  std::vector<size_t> order = combined_params_order(names);
  for (size_t i : order) check_value(*tensors[i], var_where(path, names[i]));
  write_file_atomically(path, [&](std::ostream& os) {
    for (size_t i : order) write_tensor_record(os, *tensors[i]);
  });
}

void read_tensor_file(const std::string& path, Tensor& out, const std::string& var) {
  std::ifstream in = open_in(path, var);
  std::string where = var_where(path, var);
  read_tensor_record(in, out, where);
  check_at_end(in, where, "its tensor record");
}

void write_tensor_file(const std::string& path, const Tensor& t) {
  check_value(t, path);
  write_file_atomically(path, [&](std::ostream& os) { write_tensor_record(os, t); });
}

void read_param_dir(const std::string& dir, const std::vector<std::string>& names,
                    const std::vector<Tensor*>& outs) {
  check_same_size(names, outs.size(), dir.c_str());
  for (size_t i = 0; i < names.size(); ++i) read_tensor_file(dir + "/" + var_file_name(names[i]), *outs[i], names[i]);
}

void write_param_dir(const std::string& dir, const std::vector<std::string>& names,
                     const std::vector<const Tensor*>& tensors) {
  check_same_size(names, tensors.size(), dir.c_str());
  for (size_t i = 0; i < names.size(); ++i)
    check_value(*tensors[i], var_where(dir + "/" + var_file_name(names[i]), names[i]));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(dir + ": cannot create directory: " + ec.message());
  for (size_t i = 0; i < names.size(); ++i) write_tensor_file(dir + "/" + var_file_name(names[i]), *tensors[i]);
}

}  // namespace fluidc::rt
