// compiler/ir/program.h - a loaded ProgramDesc with name lookup and locations for diagnostics.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "framework.pb.h"

namespace fluidc {

namespace pb = paddle::framework::proto;

/// A program as fluidc sees it: the ProgramDesc itself (kept whole, so
/// unknown fields and attributes survive a round trip) plus the file it came
/// from. Every pass reads and writes the protobuf; this class adds lookup.
class Program {
 public:
  /// Reads a binary (`.pdmodel`, `__model__`) or text (`.pbtxt`) program.
  /// Truncated or corrupt files are a UserError naming the file.
  static Program load(const std::string& path);
  /// Parses bytes already in memory; `origin` names them in diagnostics.
  static Program parse(const std::string& bytes, const std::string& origin, bool text);
  static Program from_desc(pb::ProgramDesc desc, std::string origin);

  /// Writes binary, or protobuf text when `path` ends in `.pbtxt` / `.txt`.
  void save(const std::string& path) const;
  std::string to_text() const;

  const pb::ProgramDesc& desc() const { return desc_; }
  pb::ProgramDesc& mutable_desc() { return desc_; }
  const std::string& origin() const { return origin_; }
  /// SHA-256 of the bytes the program was read from (of its serialization
  /// when built in memory).
  const std::string& sha256() const { return sha256_; }

  int num_blocks() const { return desc_.blocks_size(); }
  const pb::BlockDesc& block(int i) const { return desc_.blocks(i); }
  int parent_of(int block) const;

  /// Looks `name` up in `block` and then its ancestors, as Paddle's scopes
  /// do. Returns nullptr when no block defines it; `found_in` gets the index
  /// of the defining block.
  const pb::VarDesc* find_var(int block, const std::string& name, int* found_in = nullptr) const;

  /// A location for op `op` of `block` (or the block itself when op < 0),
  /// with the user's Python line taken from op_callstack.
  Location loc(int block, int op = -1, const std::string& var = "") const;

 private:
  void index();
  int defining_block(int block, const std::string& name) const;
  int search_visible(int block, const std::string& name) const;
  pb::ProgramDesc desc_;
  std::string origin_;
  std::string sha256_;
  // Per block: variable name -> index into BlockDesc.vars.
  std::vector<std::unordered_map<std::string, int>> var_index_;
  // Per block: name -> the block that defines it as seen from here (-1:
  // none); filled lazily by find_var. Like var_index_, valid until the
  // desc is changed through mutable_desc() without re-indexing.
  mutable std::vector<std::unordered_map<std::string, int>> resolved_;
};

/// True for a variable holding one dense tensor (VarType LOD_TENSOR).
bool is_dense_tensor(const pb::VarDesc& var);

/// The variable `name` declared in `block` itself (no ancestors), or nullptr.
const pb::VarDesc* find_block_var(const pb::BlockDesc& block, const std::string& name);
pb::VarDesc* find_block_var(pb::BlockDesc& block, const std::string& name);

/// Declares a dense-tensor variable in `block` and returns it for further
/// flags (persistable, need_check_feed, ...).
pb::VarDesc& add_tensor_var(pb::BlockDesc& block, const std::string& name, pb::VarType::Type dtype,
                            const std::vector<int64_t>& dims);

/// True for a name Paddle uses to mean "no variable" in an op slot.
bool is_empty_var_name(const std::string& name);

/// The TensorDesc of a variable that holds a tensor (LOD_TENSOR,
/// SELECTED_ROWS or LOD_TENSOR_ARRAY elements); nullptr otherwise.
const pb::VarType::TensorDesc* tensor_desc(const pb::VarDesc& var);

/// "float32", "int64", ... for an element type; the enum name otherwise.
std::string dtype_str(pb::VarType::Type t);
/// "[-1, 13]"
std::string dims_str(const google::protobuf::RepeatedField<int64_t>& dims);
std::string dims_str(const std::vector<int64_t>& dims);

}  // namespace fluidc
