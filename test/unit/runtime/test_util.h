// test/unit/runtime/test_util.h - scratch directories and byte helpers for the runtime IO tests.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "runtime/atomic_file.h"
#include "runtime/tensor.h"

namespace fluidc::rt::test {

/// Every element type the runtime can store.
inline constexpr DType kAllDTypes[] = {DType::kBool, DType::kInt16, DType::kInt32, DType::kInt64, DType::kFP16,
                                       DType::kFP32, DType::kFP64,  DType::kUInt8, DType::kInt8};

/// A fresh empty directory, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("fluidc_rt_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// Path of `name` inside the directory.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }
  /// Number of entries in the directory.
  size_t count() const {
    size_t n = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(path_)) ++n;
    return n;
  }

 private:
  std::filesystem::path path_;
};

/// Little-endian bytes of an integer, for building files by hand.
template <class T>
std::string le(T v) {
  std::string s(sizeof v, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}

/// Fills every byte of `t` with a pattern that depends on `seed`, so that
/// round trips compare real contents (bool elements get 0/1).
inline void fill_pattern(Tensor& t, unsigned seed) {
  auto* p = static_cast<unsigned char*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i)
    p[i] = t.dtype() == DType::kBool ? (i + seed) % 2 : static_cast<unsigned char>(i * 37 + seed * 11 + 1);
}

inline bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0);
}

inline const std::string& fixtures() {
  static const std::string dir = FLUIDC_RUNTIME_FIXTURES;
  return dir;
}

}  // namespace fluidc::rt::test
