// runtime/npy.h - NumPy .npy reading and writing: the feed/fetch format of generated binaries.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// Reads the .npy file at `path` into `out` (resized to the file's shape and
/// dtype). Accepts format versions 1.0, 2.0 and 3.0; a header dict with its
/// keys in any order and any spacing; little-endian or native ('<', '=') and,
/// for one-byte types, '|' descrs of float16/32/64, int8/16/32/64, uint8 and
/// bool. Throws Error, naming `path`, for a bad magic or version, a malformed
/// header, big-endian data, fortran_order True (accepted only for rank <= 1,
/// where the layout is the same), an unsupported dtype, rank
/// above 9, or a payload that is not exactly numel * itemsize bytes (too
/// short or with trailing bytes). `out` is left untouched when the header is
/// rejected; after a failed data read its contents are unspecified.
void read_npy(const std::string& path, Tensor& out);

/// Same as read_npy for a whole .npy file already in memory; `name` stands
/// for the file in error messages.
void read_npy_from_buffer(const void* data, size_t size, Tensor& out,
                          const std::string& name);

/// Atomically writes `t` to `path` as a version 1.0 .npy file, little-endian,
/// C order. The header is laid out as current NumPy lays it out (sorted keys,
/// spare room for growing the first axis, padded with spaces and a final '\n'
/// so the data starts at a multiple of 64), so the bytes equal those of
/// numpy.save for the same array (checked against NumPy 2.4).
void write_npy(const std::string& path, const Tensor& t);

/// Writes the same .npy bytes as write_npy to a stream (no atomicity).
void write_npy(std::ostream& out, const Tensor& t);

/// The NumPy descr string fluidc writes for `t`: "<f4", "|b1", "<i8", ...
const char* npy_descr(DType t);

}  // namespace fluidc::rt
