// runtime/cuda/device_feeds.cc - a feed's data set uploaded once and the per-step staging of its rows.
#include "runtime/cuda/device_feeds.h"

#include <cuda_runtime.h>

#include <cstring>

#include "runtime/cuda/cuda_model.h"

namespace fluidc::cu {

DeviceFeed::~DeviceFeed() { release(); }

void DeviceFeed::release() {
  if (data_) device_release(data_, data_cap_);
  if (index_dev_) device_release(index_dev_, index_cap_);
  if (index_host_) cudaFreeHost(index_host_);
  data_ = index_dev_ = nullptr;
  index_host_ = nullptr;
  data_cap_ = index_cap_ = index_host_cap_ = 0;
  host_ = nullptr;
  bytes_ = 0;
}

bool DeviceFeed::stage(const rt::Tensor& data, const int64_t* rows, int64_t count, DTensor& feed) {
  pending_ = false;
  if (data.lod() || data.rank() < 1 || data.dim(0) < 1) return false;
  const size_t bytes = data.nbytes();
  if (data.raw() != host_ || bytes != bytes_) {  // a new data set: upload it if it fits
    release();
    host_ = data.raw(), bytes_ = bytes;
    size_t free_bytes = 0, total = 0;
    check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    refused_ = bytes > free_bytes / 4;
    if (refused_) return false;
    data_ = device_alloc(bytes, &data_cap_);
    check(cudaMemcpyAsync(data_, data.raw(), bytes, cudaMemcpyHostToDevice, current().stream),
          "cudaMemcpyAsync (training data to the device)");
  }
  if (refused_) return false;
  const size_t index_bytes = static_cast<size_t>(count) * sizeof(int64_t);
  if (index_bytes > index_host_cap_) {
    // The previous step's copy from the old buffer finished at its synchronisation.
    if (index_host_) cudaFreeHost(index_host_);
    index_host_ = nullptr;
    check(cudaMallocHost(reinterpret_cast<void**>(&index_host_), index_bytes), "cudaMallocHost (row indices)");
    index_host_cap_ = index_bytes;
  }
  if (index_bytes > index_cap_) {
    if (index_dev_) device_release(index_dev_, index_cap_);
    index_dev_ = device_alloc(index_bytes, &index_cap_);
  }
  std::memcpy(index_host_, rows, index_bytes);
  if (index_bytes)
    check(cudaMemcpyAsync(index_dev_, index_host_, index_bytes, cudaMemcpyHostToDevice, current().stream),
          "cudaMemcpyAsync (row indices)");
  rt::Shape s = data.shape();
  s[0] = count;
  feed.resize(s, data.dtype());  // the host mirror: shape only (the values live on the device)
  feed.dresize(s, data.dtype());
  count_ = count;
  row_bytes_ = bytes / static_cast<size_t>(data.dim(0));
  pending_ = true;
  return true;
}

void DeviceFeed::gather(DTensor& feed) {
  if (count_ == 0 || row_bytes_ == 0) return;
  gather_rows_on_device(data_, static_cast<const int64_t*>(index_dev_), count_, row_bytes_, feed.dptr<unsigned char>(),
                        current().stream);
  launched("feed gather");
}

}  // namespace fluidc::cu
