// runtime/library.h - one program instance behind a class that `fluidc build --emit lib` generates.
//
// The generated NAME.h declares a typed class over a pimpl; its methods
// (NAME_lib.cc, also generated) call this class and turn the runtime's Error
// into the header's fluidc::Error. Everything here is per instance: several
// instances may run side by side, one per thread (docs/library.md). Nothing
// here exits the process: every failure is an Error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/error.h"
#include "runtime/model.h"

namespace fluidc::rt {

class LibraryInstance {
 public:
  /// Makes the instance and its default state: the startup program when
  /// there is one, then the params embedded at build time when there are
  /// some. Inputs whose dims are all fixed get their buffer (zeroed) now.
  explicit LibraryInstance(const ModelInfo& info);
  ~LibraryInstance();

  const ModelInfo& info() const { return info_; }

  /// Input `i`'s buffer (nullptr before it has a shape) and shape.
  void* feed_data(int i);
  void feed_shape(int i, int64_t* out, int rank) const;
  /// Gives input `i` the shape `dims` (checked against its declared dims);
  /// set_feed also copies `data` (shape's element count) into it.
  void resize_feed(int i, const int64_t* dims, int rank);
  void set_feed(int i, const void* data, const int64_t* dims, int rank);
  /// Input `i`'s sequences: at most its declared lod_level offset vectors,
  /// checked now against the rows it has (runtime/lod.h's rule); resizing
  /// the input clears them. An empty `lod` makes it dense again.
  void set_feed_lod(int i, const Lod& lod);
  Lod feed_lod(int i) const;

  /// Output `i` after run()/step() (nullptr before), and its shape.
  const void* fetch_data(int i) const;
  void fetch_shape(int i, int64_t* out, int rank) const;
  /// Output `i`'s sequences after run()/step(); empty when dense or before the first.
  Lod fetch_lod(int i) const;

  /// One inference (or one training step: step() also returns the loss).
  /// Checks first that the state is complete and every input is set.
  void run();
  double step();

  /// Replaces the state from a combined file (every persistable, or just
  /// the parameters) or a per-variable directory, checked against the
  /// declared types. On failure the state is as before for a combined file.
  void load(const std::string& path);
  /// Writes every persistable to `path` (Paddle's combined format, atomic);
  /// refuses when one is NaN or Inf.
  void save(const std::string& path);

  /// A one-element float persistable by name (e.g. the learning rate).
  float get_scalar(const char* name);
  void set_scalar(const char* name, float value);

  void set_check_nan(bool on);

 private:
  const VarBinding& persistable(const char* name) const;
  /// Every persistable holds a value of its declared type: run() may go.
  void check_state(const std::string& source);

  const ModelInfo& info_;
  std::unique_ptr<Model> model_;
  bool ready_ = false;
};

/// The message of an Error caught from the instance, prefixed with the op
/// that was running ("block 0, op 3 (mul): ..."); clears that location.
std::string located_message(const Error& e);

/// The kernels' thread count (process-wide; see runtime/parallel.h).
void library_set_num_threads(int n);

}  // namespace fluidc::rt
