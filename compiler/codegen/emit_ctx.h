// compiler/codegen/emit_ctx.h - what an op's emit hook sees: its op, names of its tensors, the output stream.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "compiler/ir/program.h"
#include "compiler/ops/op_def.h"

namespace fluidc {

/// Handed to OpDef::emit_cpu. Variables are referred to by the C++
/// identifiers the generator chose for them (see var()).
class EmitCtx {
 public:
  using Resolver = std::function<const std::string*(int, const std::string&)>;  ///< (block, name); nullptr: no tensor
  using BlockNamer = std::function<std::string(int)>;

  EmitCtx(const Program& prog, int block, const pb::OpDesc& op, const ops::OpDef& def, Resolver resolve,
          BlockNamer block_fn, std::string attrs_ident, std::ostringstream& body, std::ostringstream& members,
          std::set<std::string>& families)
      : prog_(prog), block_(block), op_(op), def_(def), resolve_(std::move(resolve)), block_fn_(std::move(block_fn)),
        attrs_ident_(std::move(attrs_ident)), body_(body), members_(members), families_(families) {}

  const Program& program() const { return prog_; }
  int block() const { return block_; }

  const pb::OpDesc& op() const { return op_; }
  const ops::OpDef& def() const { return def_; }
  /// C++ identifier of a program variable's tensor, resolved from the op's
  /// block to the block that defines it.
  const std::string& var(const std::string& name) const { return var_in(block_, name); }
  bool has_var(const std::string& name) const { return resolve_(block_, name) != nullptr; }
  /// The identifier of `name` as seen from another block of the program
  /// (a sub-block the op runs); nullptr when it holds no tensor there.
  const std::string* find_in(int block, const std::string& name) const { return resolve_(block, name); }
  const std::string& var_in(int block, const std::string& name) const;
  /// Name of the generated function that runs block `b` of this program.
  std::string block_fn(int b) const { return block_fn_(b); }
  /// Identifier of this op's hoisted kernel-attribute constant ("" if none).
  const std::string& attrs() const { return attrs_ident_; }
  /// Statements of the block function; write whole lines, indented 2.
  std::ostringstream& body() { return body_; }
  /// Data members of the generated class the op's code needs (state kept
  /// from one run to the next, per instance); whole lines, indented 2.
  std::ostringstream& members() { return members_; }
  /// Makes the generated file include kernels/<family>.h, for hooks that
  /// call kernels of another family than their op's.
  void use_kernels(const std::string& family) { families_.insert(family); }

 private:
  const Program& prog_;
  int block_;
  const pb::OpDesc& op_;
  const ops::OpDef& def_;
  Resolver resolve_;
  BlockNamer block_fn_;
  std::string attrs_ident_;
  std::ostringstream& body_;
  std::ostringstream& members_;
  std::set<std::string>& families_;
};

/// Writes the generic call `k::<type>(inputs..., outputs..., attrs);` for the
/// op in `c`: the CPU target's calling convention (kernels/*.h). Emit hooks
/// that only special-case some instances of an op fall back to it.
void emit_kernel_call(EmitCtx& c);

}  // namespace fluidc
