// runtime/cuda/device_feeds.h - training data kept on the device: each step's batch gathered there, not copied up.
//
// The trainer (runtime/trainer.cc) hands every step's rows to Model::gather_feed. A CUDA model uploads a
// feed's whole data set once, when it fits, and gathers the step's rows on the device with a kernel that is
// part of the step (so the step's CUDA graph replays it too); per step only the row indices (8 bytes a row)
// cross the bus. Without it a batch of 4096 MNIST-sized rows is 12.8 MB gathered on the host and copied
// from pageable memory every step, longer than the MLP step's GEMMs on an H200.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/tensor.h"

struct CUstream_st;

namespace fluidc::cu {

class DTensor;

/// One feed's data set on the device and the gather of the coming step.
class DeviceFeed {
 public:
  DeviceFeed() = default;
  ~DeviceFeed();
  DeviceFeed(const DeviceFeed&) = delete;
  DeviceFeed& operator=(const DeviceFeed&) = delete;
  /// Stages rows[0..count) of `data` for `feed` on the current context's stream: uploads `data` when it is
  /// not the set uploaded before, copies the row indices up and shapes `feed` (host mirror and device). false
  /// when `data` is not dense or does not fit in a quarter of the device's free memory: the caller copies.
  bool stage(const rt::Tensor& data, const int64_t* rows, int64_t count, DTensor& feed);
  /// This step's rows are staged (gather() runs them in the step, or a graph replays that).
  bool pending() const { return pending_; }
  /// The last stage() took the data set (false: the caller copied the rows).
  bool on_device() const { return data_ && !refused_; }
  /// Launches the staged gather into `feed` on the current stream (inside the step).
  void gather(DTensor& feed);
  /// The step ran: the staged rows are used.
  void done() { pending_ = false; }

 private:
  void release();
  const void* host_ = nullptr;  ///< the data set uploaded, known by address and size
  size_t bytes_ = 0;
  bool refused_ = false;        ///< that data set does not fit
  void* data_ = nullptr;        ///< its device copy (device_alloc)
  size_t data_cap_ = 0;
  int64_t* index_host_ = nullptr;  ///< pinned staging for the row indices
  size_t index_host_cap_ = 0;
  void* index_dev_ = nullptr;
  size_t index_cap_ = 0;
  int64_t count_ = 0;
  size_t row_bytes_ = 0;
  bool pending_ = false;
};

/// out row r = src row index[r], for r < count (rows of row_bytes bytes), on stream `st`.
void gather_rows_on_device(const void* src, const int64_t* index, int64_t count, size_t row_bytes, void* out,
                           CUstream_st* st);

}  // namespace fluidc::cu
