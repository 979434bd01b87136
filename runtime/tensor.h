// runtime/tensor.h - the dense tensor every kernel and generated program works on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace fluidc::rt {

/// Level-of-detail offsets of a LoD (sequence) tensor, outermost level first:
/// level l's offsets index level l+1's entries, the last level's index rows.
/// Dense tensors have none (an empty Lod). Checked by runtime/lod.h.
using Lod = std::vector<std::vector<uint64_t>>;

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

/// Where a tensor's bytes live. Owned storage is host memory; device memory
/// reaches a Tensor only as a view (a device arena hands it out), so the
/// runtime library itself never needs a device API.
enum class Device : uint8_t {
  kCPU = 0,
  kCUDA = 1,
};
const char* device_name(Device d);

/// Bytes per element; 0 for a code that is not a tensor element type.
size_t dtype_size(DType t);
/// "float32", "int64", ... (Paddle/NumPy spelling).
const char* dtype_name(DType t);
bool dtype_is_valid(int32_t code);
/// An integer element type (int8 to int64, uint8; not bool).
inline bool is_integer(DType t) {
  return t == DType::kInt8 || t == DType::kUInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

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
  /// The byte size of a tensor of this shape and element size, for shapes
  /// read from untrusted files: false when a dim is negative or the element
  /// count or byte count overflows at any prefix of the dims (a later 0 dim
  /// does not rescue it, since numel() multiplies left to right).
  bool checked_bytes(size_t elem_size, size_t* bytes) const;
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  /// "[2, 3, -1]"
  std::string str() const;
};

/// The bytes a tensor of this shape and type takes; a located failure
/// (rt::fail) for a negative dim, a count that overflows, or more than
/// 2^48 bytes. Every allocation of a tensor (host or device) sizes it so.
size_t tensor_bytes(const Shape& shape, DType dtype);

/// A dense, row-major tensor. It either owns host storage, which only grows
/// (resizing to a smaller or equal byte count reuses the buffer, so a step
/// loop allocates nothing after its first iteration), or views memory it
/// does not own (a slice of a memory plan's arena, possibly on a device),
/// which never grows: resizing a view past its capacity throws Error.
class Tensor {
 public:
  /// Out of line on purpose: a generated class holds one Tensor per
  /// program variable, and inlined, 10,000 of them made its constructor a
  /// single basic block that took clang over a minute to schedule.
  Tensor() noexcept;
  ~Tensor();
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  Tensor(Tensor&& o) noexcept;
  Tensor& operator=(Tensor&& o) noexcept;

  /// Makes this tensor a view of `capacity` bytes at `data` on `device`,
  /// releasing storage it owned. The memory must outlive the view (or the
  /// next view()/resize of an owned tensor); it holds no value until resized.
  void view(void* data, size_t capacity, Device device = Device::kCPU);

  /// Sets shape and dtype, growing owned storage when needed (a view that
  /// is too small throws Error instead). Contents are unspecified
  /// afterwards unless the byte size did not change.
  void resize(const Shape& shape, DType dtype);
  void resize(const Shape& shape) { resize(shape, dtype_); }
  /// Deep copy of `src` (shape, dtype and data, not the LoD: kernels copy
  /// through scratch tensors, and an op's LoD is the emitter's business,
  /// OpDef::share_lod); both on the CPU.
  void copy_from(const Tensor& src);
  /// Sets every byte to zero (CPU only).
  void zero();

  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank; }
  int64_t dim(int i) const { return shape_.d[i]; }
  int64_t numel() const { return shape_.numel(); }
  DType dtype() const { return dtype_; }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  /// True once resize() has been called (a variable that holds a value).
  bool initialized() const { return initialized_; }
  Device device() const { return device_; }
  /// True when the bytes belong to someone else (see view()).
  bool is_view() const { return !owns_; }
  /// Bytes available without reallocating (a view: all it may ever hold).
  size_t capacity() const { return capacity_; }

  /// The sequence offsets, or nullptr for a dense tensor (most tensors:
  /// they pay one null pointer). Kept across resize() and view().
  const Lod* lod() const { return lod_ && !lod_->empty() ? lod_ : nullptr; }
  /// The offsets to fill (allocated on first use; storage reused afterwards).
  Lod& mutable_lod();
  /// Makes this tensor dense again (keeps the storage for the next LoD).
  void clear_lod() { if (lod_) lod_->clear(); }
  /// This tensor's offsets become a copy of `src`'s (none when it has none):
  /// what an op that keeps its input's sequences does to its output.
  void share_lod(const Tensor& src);

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T> T* data() { return static_cast<T*>(data_); }
  template <class T> const T* data() const { return static_cast<const T*>(data_); }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
  Shape shape_;
  DType dtype_ = DType::kFP32;
  Device device_ = Device::kCPU;
  bool owns_ = true;
  bool initialized_ = false;
  Lod* lod_ = nullptr;  ///< owned; null until a LoD is first set
};

}  // namespace fluidc::rt
