// test/lib/npy_lite.h - a float32 / int64 .npy reader in standard C++ only: the library tests link nothing of fluidc but the archive.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace npy_lite {

template <class T>
struct ArrayOf {
  std::vector<int64_t> shape;
  std::vector<T> data;
  int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
  int64_t row_size() const { return rows() ? static_cast<int64_t>(data.size()) / rows() : 0; }
};
using Array = ArrayOf<float>;

// Little-endian `descr` ('<f4' or '<i8') in C order, format version 1 or 2: what the fixtures hold.
template <class T>
inline ArrayOf<T> load_as(const std::string& path, const char* descr) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not .npy");
  uint32_t header_len = 0;
  unsigned char b[4] = {};
  in.read(reinterpret_cast<char*>(b), magic[6] == 1 ? 2 : 4);
  header_len = b[0] | b[1] << 8 | (magic[6] == 1 ? 0u : (b[2] << 16 | static_cast<uint32_t>(b[3]) << 24));
  std::string header(header_len, ' ');
  in.read(header.data(), header_len);
  if (header.find(std::string("'") + descr + "'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error(path + ": not a C-order " + descr + " array");
  ArrayOf<T> a;
  const size_t open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  std::string dims = header.substr(open + 1, close - open - 1);
  int64_t n = 1;
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    std::string d = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (d.find_first_of("0123456789") != std::string::npos) a.shape.push_back(std::stoll(d)), n *= a.shape.back();
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  a.data.resize(static_cast<size_t>(n));
  if (!in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(n * sizeof(T))))
    throw std::runtime_error(path + ": truncated");
  return a;
}

inline Array load(const std::string& path) { return load_as<float>(path, "<f4"); }
inline ArrayOf<int64_t> load_i64(const std::string& path) { return load_as<int64_t>(path, "<i8"); }

}  // namespace npy_lite
