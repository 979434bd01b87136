// compiler/codegen/emit_ctx.h - what an op's emit hook sees: its op, names of its tensors, the output stream.
#pragma once

#include <map>
#include <sstream>
#include <string>

#include "compiler/ir/program.h"
#include "compiler/ops/op_def.h"

namespace fluidc {

/// Handed to OpDef::emit_cpu. Variables are referred to by the C++
/// identifiers the generator chose for them (see var()).
class EmitCtx {
 public:
  EmitCtx(const pb::OpDesc& op, const ops::OpDef& def, const std::map<std::string, std::string>& idents,
          std::string attrs_ident, std::ostringstream& body)
      : op_(op), def_(def), idents_(idents), attrs_ident_(std::move(attrs_ident)), body_(body) {}

  const pb::OpDesc& op() const { return op_; }
  const ops::OpDef& def() const { return def_; }
  /// C++ identifier of a program variable's tensor.
  const std::string& var(const std::string& name) const { return idents_.at(name); }
  bool has_var(const std::string& name) const { return idents_.count(name) != 0; }
  /// Identifier of this op's hoisted kernel-attribute constant ("" if none).
  const std::string& attrs() const { return attrs_ident_; }
  /// Statements of the block function; write whole lines, indented 2.
  std::ostringstream& body() { return body_; }

 private:
  const pb::OpDesc& op_;
  const ops::OpDef& def_;
  const std::map<std::string, std::string>& idents_;
  std::string attrs_ident_;
  std::ostringstream& body_;
};

/// Writes the generic call `k::<type>(inputs..., outputs..., attrs);` for the
/// op in `c`: the calling convention of kernels/*.h. Emit hooks that only
/// special-case some instances of an op fall back to it.
void emit_kernel_call(EmitCtx& c);

}  // namespace fluidc
