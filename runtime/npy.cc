// runtime/npy.cc - NumPy .npy reading and writing: the feed/fetch format of generated binaries.
#include "runtime/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <ostream>
#include <string_view>

#include "runtime/atomic_file.h"
#include "runtime/error.h"

namespace fluidc::rt {

static_assert(std::endian::native == std::endian::little,
              "the .npy and tensor-record code assumes a little-endian host");

namespace {

// Layout facts of the format: "\x93NUMPY", major, minor, then a little-endian
// uint16 (version 1) or uint32 (versions 2 and 3) header length, then the
// header (a Python dict literal), then the raw data.
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;
constexpr size_t kGrowthAxisMaxDigits = 21;

struct NpyHeader {
  DType dtype = DType::kFP32;
  Shape shape;
  size_t data_bytes = 0;
};

std::string describe(const NpyHeader& h) {
  return "shape " + h.shape.str() + " " + dtype_name(h.dtype) + " (" +
         std::to_string(h.data_bytes) + " bytes of data)";
}

/// Checks magic and version and returns the offset at which the header dict
/// text starts and its length. `p` holds the first `n` bytes of the file.
void parse_preamble(const unsigned char* p, size_t n, const std::string& name,
                    size_t* dict_offset, size_t* dict_len) {
  if (n < kMagicLen || std::memcmp(p, kMagic, kMagicLen) != 0)
    fail(name + ": not a .npy file: it does not start with the magic \"\\x93NUMPY\"");
  if (n < kMagicLen + 2) fail(name + ": truncated: the file ends inside the .npy preamble");
  unsigned major = p[6], minor = p[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(name + ": unsupported .npy format version " + std::to_string(major) + "." +
         std::to_string(minor) + " (fluidc reads 1.0, 2.0 and 3.0)");
  size_t len_bytes = major == 1 ? 2 : 4;
  if (n < 8 + len_bytes) fail(name + ": truncated: the file ends inside the .npy preamble");
  size_t len = 0;
  for (size_t i = 0; i < len_bytes; ++i) len |= static_cast<size_t>(p[8 + i]) << (8 * i);
  *dict_offset = 8 + len_bytes;
  *dict_len = len;
}

/// A tiny reader for the Python dict literal in a .npy header.
class DictParser {
 public:
  DictParser(std::string_view s, const std::string& name) : s_(s), name_(name) {}

  NpyHeader parse() {
    bool have_descr = false, have_order = false, have_shape = false;
    std::string descr;
    bool fortran = false;
    Shape shape;
    expect('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') break;
      std::string key = parse_string("a key");
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        dup(have_descr, key);
        if (peek() == '[')
          fail(name_ + ": structured dtypes (a list in 'descr') are not supported; save a plain array");
        descr = parse_string("the 'descr' value");
      } else if (key == "fortran_order") {
        dup(have_order, key);
        fortran = parse_bool();
      } else if (key == "shape") {
        dup(have_shape, key);
        shape = parse_shape();
      } else {
        bad("unexpected key '" + key + "' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != '}') bad("expected ',' or '}'");
    }
    ++pos_;
    skip_ws();
    if (pos_ != s_.size()) bad("unexpected text after the closing '}'");
    if (!have_descr) bad("no 'descr' key");
    if (!have_order) bad("no 'fortran_order' key");
    if (!have_shape) bad("no 'shape' key");
    if (fortran && shape.rank > 1)
      fail(name_ + ": fortran_order True (column-major) arrays are not supported; save with "
                   "np.ascontiguousarray(a)");
    NpyHeader h;
    h.dtype = dtype_from_descr(descr);
    h.shape = shape;
    size_t bytes = 0;
    if (!shape.checked_bytes(dtype_size(h.dtype), &bytes))
      fail(name_ + ": header shape " + shape.str() + " is too large");
    h.data_bytes = bytes;
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail(name_ + ": malformed .npy header: " + what + " at offset " + std::to_string(pos_) +
         " in " + quoted());
  }
  std::string quoted() const {
    std::string t(s_.substr(0, 200));
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n')) t.pop_back();
    return "\"" + t + "\"";
  }
  void dup(bool& seen, const std::string& key) {
    if (seen) bad("duplicate key '" + key + "'");
    seen = true;
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parse_string(const char* what) {
    char q = peek();
    if (q != '\'' && q != '"') bad(std::string("expected a quoted string for ") + what);
    size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) bad("unterminated string");
    std::string v(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return v;
  }
  bool parse_bool() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad("expected True or False for 'fortran_order'");
  }
  Shape parse_shape() {
    if (peek() != '(') bad("expected a tuple for 'shape'");
    ++pos_;
    Shape shape;
    for (;;) {
      skip_ws();
      if (peek() == ')') break;
      bool neg = false;
      if (peek() == '-') {
        neg = true;
        ++pos_;
      }
      if (peek() < '0' || peek() > '9') bad("expected an integer in 'shape'");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (__builtin_mul_overflow(v, int64_t{10}, &v) ||
            __builtin_add_overflow(v, int64_t{peek() - '0'}, &v))
          bad("dimension too large in 'shape'");
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literal, as in old files.
      if (neg) fail(name_ + ": negative dimension -" + std::to_string(v) + " in the .npy header shape");
      if (shape.rank == Shape::kMaxRank)
        fail(name_ + ": .npy array has more than " + std::to_string(Shape::kMaxRank) +
             " dimensions; fluidc tensors have rank 9 at most");
      shape.d[shape.rank++] = v;
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != ')') bad("expected ',' or ')' in 'shape'");
    }
    ++pos_;
    return shape;
  }
  DType dtype_from_descr(const std::string& descr) {
    std::string code = descr;
    char order = '=';
    if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '=' || code[0] == '|')) {
      order = code[0];
      code.erase(0, 1);
    }
    DType t;
    if (code == "f2") t = DType::kFP16;
    else if (code == "f4") t = DType::kFP32;
    else if (code == "f8") t = DType::kFP64;
    else if (code == "i1") t = DType::kInt8;
    else if (code == "i2") t = DType::kInt16;
    else if (code == "i4") t = DType::kInt32;
    else if (code == "i8") t = DType::kInt64;
    else if (code == "u1") t = DType::kUInt8;
    else if (code == "b1" || code == "?") t = DType::kBool;
    else
      fail(name_ + ": unsupported .npy dtype '" + descr +
           "' (fluidc reads float16/32/64, int8/16/32/64, uint8 and bool)");
    if (order == '>' && dtype_size(t) > 1)
      fail(name_ + ": big-endian .npy data ('" + descr +
           "') is not supported; convert it with a.astype(a.dtype.newbyteorder('<'))");
    return t;
  }

  std::string_view s_;
  const std::string& name_;
  size_t pos_ = 0;
};

/// Parses the preamble and header in the first `n` bytes of a file of
/// `file_size` bytes and checks that exactly the data follows. Returns the
/// header and sets `*data_offset`.
NpyHeader parse_and_check(const unsigned char* p, size_t n, size_t file_size,
                          const std::string& name, size_t* data_offset) {
  size_t dict_off = 0, dict_len = 0;
  parse_preamble(p, n, name, &dict_off, &dict_len);
  if (dict_off + dict_len > n)
    fail(name + ": truncated: the .npy header says it is " + std::to_string(dict_len) +
         " bytes long but the file has only " + std::to_string(n - dict_off) + " bytes after the preamble");
  NpyHeader h = DictParser(std::string_view(reinterpret_cast<const char*>(p) + dict_off, dict_len), name)
                    .parse();
  *data_offset = dict_off + dict_len;
  size_t follow = file_size - *data_offset;
  if (follow < h.data_bytes)
    fail(name + ": truncated: header says " + describe(h) + " but only " + std::to_string(follow) +
         " bytes follow");
  if (follow > h.data_bytes)
    fail(name + ": " + std::to_string(follow - h.data_bytes) +
         " unexpected bytes after the data: header says " + describe(h) + " but " +
         std::to_string(follow) + " bytes follow");
  return h;
}

std::string header_text(const Tensor& t) {
  std::string dict = "{'descr': '";
  dict += npy_descr(t.dtype());
  dict += "', 'fortran_order': False, 'shape': (";
  const Shape& s = t.shape();
  for (int i = 0; i < s.rank; ++i) {
    if (i) dict += ", ";
    dict += std::to_string(s.d[i]);
  }
  if (s.rank == 1) dict += ",";
  dict += "), }";
  if (s.rank > 0) {
    size_t digits = std::to_string(s.d[0]).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  size_t used = kMagicLen + 2 + 2 + dict.size() + 1;  // magic, version, uint16 length, dict, '\n'
  dict.append(kAlign - used % kAlign, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  size_t len = dict.size();  // at most a few hundred bytes: rank <= 9
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += dict;
  return out;
}

}  // namespace

const char* npy_descr(DType t) {
  switch (t) {
    case DType::kBool: return "|b1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kFP16: return "<f2";
    case DType::kFP32: return "<f4";
    case DType::kFP64: return "<f8";
    case DType::kUInt8: return "|u1";
    case DType::kInt8: return "|i1";
  }
  return "?";
}

void read_npy_from_buffer(const void* data, size_t size, Tensor& out, const std::string& name) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t off = 0;
  NpyHeader h = parse_and_check(p, size, size, name, &off);
  out.resize(h.shape, h.dtype);
  if (h.data_bytes) std::memcpy(out.raw(), p + off, h.data_bytes);
}

void read_npy(const std::string& path, Tensor& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    fail(path + ": cannot open: " + std::strerror(e));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    fail(path + ": cannot open: not a regular file");
  const size_t file_size = static_cast<size_t>(st.st_size);

  auto read_at = [&](void* dst, size_t n, size_t offset) -> size_t {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd, static_cast<char*>(dst) + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0) {
        if (errno == EINTR) continue;
        int e = errno;
        fail(path + ": read failed: " + std::strerror(e));
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    return got;
  };

  // Preamble first, then the whole header, then the data straight into `out`.
  unsigned char pre[12];
  size_t n = read_at(pre, sizeof pre, 0);
  size_t dict_off = 0, dict_len = 0;
  parse_preamble(pre, n, path, &dict_off, &dict_len);
  size_t head_len = std::min(dict_off + dict_len, file_size);
  std::string head(head_len, '\0');
  head_len = read_at(head.data(), head_len, 0);
  size_t data_off = 0;
  NpyHeader h = parse_and_check(reinterpret_cast<const unsigned char*>(head.data()), head_len,
                                file_size, path, &data_off);
  out.resize(h.shape, h.dtype);
  if (h.data_bytes && read_at(out.raw(), h.data_bytes, data_off) != h.data_bytes)
    fail(path + ": truncated: the file shrank while it was being read");
}

void write_npy(std::ostream& os, const Tensor& t) {
  if (!t.initialized()) fail("write_npy: the tensor holds no value (it was never resized)");
  std::string head = header_text(t);
  os.write(head.data(), static_cast<std::streamsize>(head.size()));
  if (t.nbytes()) os.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.nbytes()));
}

void write_npy(const std::string& path, const Tensor& t) {
  if (!t.initialized()) fail(path + ": cannot write: the tensor holds no value (it was never resized)");
  write_file_atomically(path, [&t](std::ostream& os) { write_npy(os, t); });
}

}  // namespace fluidc::rt
