// compiler/ir/pir_json.h - reads a Paddle 3 PIR program (inference.json) into plain structs, checking its shape.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc::pir {

/// A value's type: a dense tensor (dtype, dims; -1 = unknown size) or a
/// vector of them (what builtin.combine makes and builtin.split unpacks).
struct Type {
  enum Kind { kTensor, kVector, kOther };
  Kind kind = kOther;
  pb::VarType::Type dtype = pb::VarType::FP32;
  std::vector<int64_t> dims;
  std::vector<Type> elements;  ///< kVector only
  std::string name;            ///< kOther: PIR's name of the type ("0.t_selected_rows", ...)
};

/// One attribute value, in PIR's own kinds.
struct Attr {
  enum Kind { kBool, kInt32, kInt64, kFloat32, kFloat64, kString, kArray, kIntArray, kDType, kOther };
  Kind kind = kOther;
  bool b = false;
  int64_t i = 0;  ///< kInt32, kInt64; kDType: the pb::VarType::Type
  double f = 0;
  std::string s;            ///< kString; kOther: PIR's type name of the attribute
  std::vector<Attr> items;  ///< kArray
  std::vector<int64_t> ints;  ///< kIntArray
};

struct Op;

/// A block inside an op's region (pd_op.if's branches, pd_op.while's body):
/// its arguments (the while's loop variables as one iteration sees them,
/// given fresh ids here) and its ops, the last a cf.yield.
struct Block {
  std::vector<int64_t> args;
  std::vector<Type> arg_types;
  std::vector<Op> ops;
};

struct Op {
  /// Full name: "pd_op.conv2d", "builtin.parameter", "builtin.combine".
  std::string name;
  int index = 0;  ///< position in its block, for messages
  int depth = 0;  ///< 0: the top block; n: inside n regions
  std::vector<int64_t> operands;  ///< value ids; 0 = an optional operand left out
  std::vector<int64_t> results;
  std::vector<Type> result_types;
  std::vector<std::pair<std::string, Attr>> attrs;
  /// Control flow (pd_op.if, pd_op.while): one block per region.
  std::vector<Block> regions;

  const Attr* attr(const std::string& name) const;
};

struct Program {
  int version = 0;  ///< base_code.version
  std::vector<Op> ops;  ///< the top block's ops in order
};

/// Whether `bytes` look like a PIR JSON program ("magic": "pir").
bool is_pir_json(const std::string& bytes);

/// Parses and checks the JSON structure; errors are UserErrors naming
/// `origin` and the op (index and name) they are in.
Program read_json(const std::string& bytes, const std::string& origin);

/// Location of op `op` for messages: "FILE: block 0, op 12 (pd_op.conv2d)"
/// (the block is PIR's nesting depth).
Location op_location(const std::string& origin, const Op& op);

}  // namespace fluidc::pir
