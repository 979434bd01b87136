// compiler/ops/emit_ctx.h - what an op's emit hook sees: its op, names of its tensors, the output stream.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "compiler/ir/program.h"
#include "compiler/ops/op_def.h"
#include "compiler/support/diagnostics.h"

namespace fluidc {

/// Handed to OpDef::emit_cpu. Variables are referred to by the C++
/// identifiers the generator chose for them (see var()).
class EmitCtx {
 public:
  using Resolver = std::function<const std::string*(int, const std::string&)>;  ///< (block, name); nullptr: no tensor
  using BlockNamer = std::function<std::string(int)>;
  /// The target's generic kernel call for the op in the context (its
  /// calling convention; see codegen/target.h).
  using KernelCall = std::function<void(EmitCtx&)>;

  EmitCtx(const Program& prog, int block, const pb::OpDesc& op, const ops::OpDef& def, Resolver resolve,
          BlockNamer block_fn, std::string attrs_ident, std::ostringstream& body, std::ostringstream& members,
          std::set<std::string>& families, KernelCall kernel_call)
      : prog_(prog), block_(block), op_(op), def_(def), resolve_(std::move(resolve)), block_fn_(std::move(block_fn)),
        attrs_ident_(std::move(attrs_ident)), body_(body), members_(members), families_(families),
        kernel_call_(std::move(kernel_call)) {}

  const Program& program() const { return prog_; }
  /// The other program compiled into the same binary (the startup program
  /// for an op of the main one, and the reverse); nullptr when there is none.
  const Program* companion() const { return companion_; }
  void set_companion(const Program* p) { companion_ = p; }
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
  const std::string& var_in(int block, const std::string& name) const {
    const std::string* id = resolve_(block, name);
    if (!id) internal_error("op " + op_.type() + " uses " + name + ", which holds no tensor in scope");
    return *id;
  }
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
  /// Writes the target's generic call `k::<type>(inputs..., outputs...,
  /// attrs);` for this op. Emit hooks that only special-case some
  /// instances of an op fall back to it.
  void kernel_call() { kernel_call_(*this); }

 private:
  const Program& prog_;
  const Program* companion_ = nullptr;
  int block_;
  const pb::OpDesc& op_;
  const ops::OpDef& def_;
  Resolver resolve_;
  BlockNamer block_fn_;
  std::string attrs_ident_;
  std::ostringstream& body_;
  std::ostringstream& members_;
  std::set<std::string>& families_;
  KernelCall kernel_call_;
};


}  // namespace fluidc
