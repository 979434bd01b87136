// runtime/tensor_record.h - Paddle's tensor-record format: parameters in, checkpoints out.
//
// One record, all integers little-endian, byte-compatible with Paddle 2.6
// (the `save` / `save_combine` ops behind paddle.static.save_inference_model
// and paddle.static.io.save_vars):
//   uint32 version (0)
//   uint64 lod_level; per level: uint64 byte size, then that many bytes of
//          uint64 offsets
//   uint32 tensor version (0)
//   int32  size of the TensorDesc message, then the message
//          (field 1: data_type varint = Paddle VarType.Type code;
//           field 2: dims, int64 varints, unpacked when written)
//   raw data, numel * dtype_size bytes, row-major
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// Reads one tensor record from `in` into `out` (resized to the record's shape
/// and dtype). `where` names the file and variable; every Error starts with it,
/// e.g. "w.pdiparams, record 2 of 3 (variable 'fc_0.w_0'): truncated: ...".
/// Checks both version fields, the TensorDesc (dims packed or unpacked, unknown
/// fields skipped; missing data_type, negative dims, rank above 9 and dtype
/// codes fluidc has no DType for are errors), plausible sizes, and truncation.
/// The LoD is stored in `*lod` when given, otherwise in `out`'s own LoD
/// (checked against its rows; cleared when the record has none).
/// After an error `out` and the stream position are unspecified.
void read_tensor_record(std::istream& in, Tensor& out, const std::string& where,
                        Lod* lod = nullptr);

/// Writes `t` as one tensor record: dims unpacked, exactly as Paddle writes
/// them, so the bytes equal Paddle's for the same tensor. `lod` defaults to
/// `t`'s own (none for a dense tensor: lod_level 0). Stream errors are left to the caller to check.
void write_tensor_record(std::ostream& out, const Tensor& t, const Lod* lod = nullptr);

/// The order in which a combined parameter file holds `names`: indices into
/// `names`, sorted by name in byte-wise (std::string operator<) order. That is
/// Paddle's order: Python's sorted() of the names in save_vars /
/// save_inference_model, and std::sort in the C++ predictor. Throws Error on
/// a duplicate name.
std::vector<size_t> combined_params_order(const std::vector<std::string>& names);

/// Reads a combined parameter file (`.pdiparams`, `__params__`): one record
/// per variable, with no names in the file, in combined_params_order(names).
/// `names` may be given in any order; `outs[i]` receives the tensor of
/// `names[i]`. Throws Error naming `path` if the file ends before all records
/// were read or has bytes left over after them (both say how many records
/// were expected and found). Shapes are taken from the file: compare them with
/// the program's VarDescs yourself.
void read_combined_params(const std::string& path, const std::vector<std::string>& names,
                          const std::vector<Tensor*>& outs);

/// The same, from a stream holding exactly the records (e.g. the bytes of
/// paddle.static.serialize_persistables); `where` names it in errors.
void read_combined_params(std::istream& in, const std::string& where,
                          const std::vector<std::string>& names,
                          const std::vector<Tensor*>& outs);

/// Atomically writes a combined parameter file that Paddle's load_combine
/// (and read_combined_params) reads back: the records of `tensors[i]` in
/// combined_params_order(names). Every tensor must hold a value.
void write_combined_params(const std::string& path, const std::vector<std::string>& names,
                           const std::vector<const Tensor*>& tensors);

/// Reads one variable per file, `dir + "/" + names[i]` into `outs[i]`, as
/// written by Paddle's save_vars / save_persistables without a filename. A
/// missing file is an Error naming the path and the variable; so are bytes
/// after the record.
void read_param_dir(const std::string& dir, const std::vector<std::string>& names,
                    const std::vector<Tensor*>& outs);

/// Writes `tensors[i]` to `dir + "/" + names[i]`, each file atomically;
/// creates `dir` (and its parents) when missing.
void write_param_dir(const std::string& dir, const std::vector<std::string>& names,
                     const std::vector<const Tensor*>& tensors);

/// Reads a file that holds exactly one tensor record (one per-variable file);
/// `var` names the variable in errors (may be empty).
void read_tensor_file(const std::string& path, Tensor& out, const std::string& var = "");

/// Atomically writes `t` as a file holding exactly one tensor record.
void write_tensor_file(const std::string& path, const Tensor& t);

}  // namespace fluidc::rt
