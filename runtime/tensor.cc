// runtime/tensor.cc - Tensor storage, shapes and dtype tables.
#include "runtime/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "runtime/error.h"

namespace fluidc::rt {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kBool: case DType::kUInt8: case DType::kInt8: return 1;
    case DType::kInt16: case DType::kFP16: return 2;
    case DType::kInt32: case DType::kFP32: return 4;
    case DType::kInt64: case DType::kFP64: return 8;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kBool: return "bool";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFP16: return "float16";
    case DType::kFP32: return "float32";
    case DType::kFP64: return "float64";
    case DType::kUInt8: return "uint8";
    case DType::kInt8: return "int8";
  }
  return "unknown";
}

const char* device_name(Device d) {
  switch (d) {
    case Device::kCPU: return "cpu";
    case Device::kCUDA: return "cuda";
  }
  return "unknown";
}

bool dtype_is_valid(int32_t code) {
  return dtype_size(static_cast<DType>(code)) != 0;
}

void fail(const std::string& msg) { throw Error(msg); }

Shape::Shape(std::initializer_list<int64_t> dims) {
  for (int64_t v : dims) {
    if (rank == kMaxRank) fail("tensor rank exceeds 9");
    d[rank++] = v;
  }
}

Shape Shape::from(const int64_t* dims, int r) {
  if (r < 0 || r > kMaxRank) fail("tensor rank " + std::to_string(r) + " outside 0..9");
  Shape s;
  s.rank = r;
  for (int i = 0; i < r; ++i) s.d[i] = dims[i];
  return s;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= d[i];
  return n;
}

bool Shape::checked_bytes(size_t elem_size, size_t* bytes) const {
  int64_t n = 1;
  size_t b = elem_size;
  for (int i = 0; i < rank; ++i) {
    if (d[i] < 0) return false;
    if (__builtin_mul_overflow(n, d[i], &n)) return false;
    if (__builtin_mul_overflow(b, static_cast<size_t>(d[i]), &b)) return false;
  }
  *bytes = b;
  return true;
}

bool Shape::operator==(const Shape& o) const {
  if (rank != o.rank) return false;
  for (int i = 0; i < rank; ++i)
    if (d[i] != o.d[i]) return false;
  return true;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) {
    if (i) s += ", ";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

Tensor::Tensor() noexcept = default;

Tensor::~Tensor() {
  if (owns_) std::free(data_);
  delete lod_;
}

Tensor::Tensor(Tensor&& o) noexcept { *this = std::move(o); }

Tensor& Tensor::operator=(Tensor&& o) noexcept {
  if (this != &o) {
    if (owns_) std::free(data_);
    data_ = std::exchange(o.data_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
    shape_ = o.shape_;
    dtype_ = o.dtype_;
    device_ = std::exchange(o.device_, Device::kCPU);
    owns_ = std::exchange(o.owns_, true);
    initialized_ = std::exchange(o.initialized_, false);
    delete lod_;
    lod_ = std::exchange(o.lod_, nullptr);
  }
  return *this;
}

void Tensor::view(void* data, size_t capacity, Device device) {
  if (owns_) std::free(data_);
  data_ = data;
  capacity_ = capacity;
  device_ = device;
  owns_ = false;
  shape_ = Shape();
  initialized_ = false;
}

size_t tensor_bytes(const Shape& shape, DType dtype) {
  for (int i = 0; i < shape.rank; ++i)
    if (shape.d[i] < 0) fail("cannot allocate a tensor of shape " + shape.str());
  // A shape made from the input (a fed shape tensor, an attribute) can be
  // large enough for its element or byte count to wrap: that would allocate
  // a small buffer for a large tensor, which every kernel then overruns.
  // Past 2^48 bytes (256 TiB, beyond any machine's memory) is refused too.
  size_t need = 0;
  if (!shape.checked_bytes(dtype_size(dtype), &need) || need > (size_t{1} << 48))
    fail(std::string("a tensor of ") + dtype_name(dtype) + shape.str() + " is too large to allocate");
  return need;
}

void Tensor::resize(const Shape& shape, DType dtype) {
  const size_t need = tensor_bytes(shape, dtype);
  if (need > capacity_ && !owns_)
    fail("a view of " + std::to_string(capacity_) + " bytes of " + device_name(device_) +
         " memory cannot hold " + dtype_name(dtype) + shape.str() + " (" + std::to_string(need) + " bytes)");
  if (need > capacity_) {
    // 64-byte alignment suits AVX-512 loads and oneDNN; round the size up
    // because aligned_alloc requires a multiple of the alignment.
    size_t cap = (need + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, cap);
    if (!p) throw std::bad_alloc();
    std::free(data_);
    data_ = p;
    capacity_ = cap;
  }
  shape_ = shape;
  dtype_ = dtype;
  initialized_ = true;
}

void Tensor::copy_from(const Tensor& src) {
  if (&src == this) return;
  if (device_ != Device::kCPU || src.device_ != Device::kCPU)
    fail(std::string("copy_from between ") + device_name(src.device_) + " and " + device_name(device_) +
         " memory needs the device runtime");
  resize(src.shape_, src.dtype_);
  if (src.nbytes()) std::memcpy(data_, src.data_, src.nbytes());
}

Lod& Tensor::mutable_lod() {
  if (!lod_) lod_ = new Lod();
  return *lod_;
}

void Tensor::share_lod(const Tensor& src) {
  if (&src == this) return;
  const Lod* from = src.lod();
  if (!from) {
    clear_lod();
    return;
  }
  Lod& to = mutable_lod();
  to.resize(from->size());
  for (size_t l = 0; l < from->size(); ++l) to[l].assign((*from)[l].begin(), (*from)[l].end());
}

void Tensor::zero() {
  if (device_ != Device::kCPU) fail(std::string("zero() of ") + device_name(device_) + " memory needs the device runtime");
  if (nbytes()) std::memset(data_, 0, nbytes());
}

}  // namespace fluidc::rt
