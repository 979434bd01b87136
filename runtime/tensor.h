// runtime/tensor.h - the dense tensor every kernel and generated program works on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace fluidc::rt {

/// Element types. The numeric values are Paddle's VarType.Type codes, so a
/// dtype read from a ProgramDesc or a tensor record converts by a cast.
enum class DType : int32_t {
  kBool = 0,
  kInt16 = 1,
  kInt32 = 2,
  kInt64 = 3,
  kFP16 = 4,
  kFP32 = 5,
  kFP64 = 6,
  kUInt8 = 20,
  kInt8 = 21,
};

/// Bytes per element; 0 for a code that is not a tensor element type.
size_t dtype_size(DType t);
/// "float32", "int64", ... (Paddle/NumPy spelling).
const char* dtype_name(DType t);
bool dtype_is_valid(int32_t code);

/// Fixed-capacity shape: no heap allocation when shapes change per step.
struct Shape {
  static constexpr int kMaxRank = 9;
  int rank = 0;
  int64_t d[kMaxRank] = {};

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  static Shape from(const int64_t* dims, int rank);

  int64_t operator[](int i) const { return d[i]; }
  int64_t& operator[](int i) { return d[i]; }
  int64_t numel() const;
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  /// "[2, 3, -1]"
  std::string str() const;
};

/// A dense, row-major tensor that owns its storage. Storage only grows:
/// resizing to a smaller or equal byte count reuses the buffer, so a step
/// loop allocates nothing after its first iteration.
class Tensor {
 public:
  Tensor() = default;
  ~Tensor();
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  Tensor(Tensor&& o) noexcept;
  Tensor& operator=(Tensor&& o) noexcept;

  /// Sets shape and dtype, growing storage when needed. Contents are
  /// unspecified afterwards unless the byte size did not change.
  void resize(const Shape& shape, DType dtype);
  void resize(const Shape& shape) { resize(shape, dtype_); }
  /// Deep copy of `src` (shape, dtype and data).
  void copy_from(const Tensor& src);
  /// Sets every byte to zero.
  void zero();

  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank; }
  int64_t dim(int i) const { return shape_.d[i]; }
  int64_t numel() const { return shape_.numel(); }
  DType dtype() const { return dtype_; }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  /// True once resize() has been called (a variable that holds a value).
  bool initialized() const { return initialized_; }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T> T* data() { return static_cast<T*>(data_); }
  template <class T> const T* data() const { return static_cast<const T*>(data_); }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
  Shape shape_;
  DType dtype_ = DType::kFP32;
  bool initialized_ = false;
};

}  // namespace fluidc::rt
