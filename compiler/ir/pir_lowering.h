// compiler/ir/pir_lowering.h - private: the state and steps of lowering a PIR program to a ProgramDesc.
//
// One Translator per program (compiler/ir/pir_translate.h is the interface): pir_translate.cc holds
// values, constants, attributes and straight-line ops; pir_control_flow.cc pd_op.if and pd_op.while.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/pir_json.h"
#include "compiler/ir/pir_ops.h"
#include "compiler/ir/program.h"

namespace fluidc::pir {

class Translator {
 public:
  Translator(const Program& pir, const std::string& origin) : pir_(pir), origin_(origin) {}
  pb::ProgramDesc run();

 private:
  // Every op without a translation, listed at once.
  static void check_supported(const std::vector<Op>& ops, std::map<std::string, int>& missing);
  void report_unsupported(const std::map<std::string, int>& missing) const;
  pb::BlockDesc* top();
  pb::BlockDesc* new_block(int parent);
  void translate_block(const std::vector<Op>& ops);
  static bool is_structural(const std::string& name);
  // Producers, block arguments' types, and what each value's readers are,
  // over every block.
  void index_values(const std::vector<Op>& ops);
  // Names decided before any op is written: parameters and data keep
  // theirs, a fetched value takes its fetch's name.
  void name_values(const std::vector<Op>& ops);
  void name_value(const Op& op, int64_t id, const std::string& name);
  // A value's variable, named on first use ("conv2d.tmp_12").
  const std::string& name_of(int64_t id);
  const Type& type_of(int64_t id) const;
  void declare_holder(const std::string& name, pb::VarType::Type type);
  void declare(const Op& op, int64_t id, bool persistable = false);
  void add_tensor_var(const std::string& name, const Type& t, bool persistable);
  /// `base`, or `base_N` when a variable already has that name.
  std::string unique_name(const std::string& base);
  /// A variable of the given type that no PIR value names.
  std::string fresh_var(const std::string& base, const Type& t);
  [[noreturn]] void fail(const Op& op, const std::string& message) const;
  static std::string string_attr(const Op& op, const std::string& name);
  const Op* producer_op(int64_t id) const;
  // The value of a constant operand (full: a scalar; full_int_array: a
  // list), or nullopt when the operand is computed.
  std::optional<Attr> constant(int64_t id) const;
  // The variables an operand stands for: one tensor, or a combine's list.
  std::vector<std::string> args_of(const Op& op, int64_t id);
  // The variable of a single tensor operand, writing a constant's op the
  // first time one is read as a tensor.
  std::string tensor_var(const Op& op, int64_t id);
  // Into the block the constant was defined in (its end is still before
  // the op that owns the block being translated now), so it is computed
  // whichever branch reads it first.
  void write_constant(const Op& p, int64_t id);
  static void add_slot(pb::OpDesc::Var* v, const std::string& slot, const std::vector<std::string>& args);
  // PIR attribute kinds to ProgramDesc ones; fluidc reads integer and float
  // widths interchangeably (compiler/ir/attrs.h).
  void set_attr(pb::OpDesc& o, const std::string& name, const Attr& a);
  // A list takes the kind of its elements (an empty list: LONGS).
  static void set_list(pb::OpDesc::Attr& out, const Attr& a);
  /// The kind a list attribute is written with: its first element's, when
  /// every element is a scalar of the same group (integer widths together,
  /// float widths together); nullopt otherwise.
  static std::optional<Attr::Kind> list_kind(const Attr& a);
  /// Every list attribute the lowering will write is one list_kind takes:
  /// a located error before any op is written.
  void check_lists(const std::vector<Op>& ops) const;
  void translate(const Op& op);
  // The ops of a region's block but its closing yield, into a new
  // sub-block of the current one; returns the yield's operands.
  std::vector<int64_t> translate_region(const Op& owner, const Block& b, pb::BlockDesc* into);
  void write_assign(pb::BlockDesc* b, const std::string& from, const std::string& to);
  pb::OpDesc* write_conditional_block(const std::string& cond, const std::vector<std::string>& outs, int sub);
  // pd_op.if(cond) {true} {false}: each branch a conditional_block writing
  // its yielded values to variables of its own, then select_input picks
  // per result (Paddle 2's lowering of the same Python `if`).
  void write_if(const Op& op);
  // pd_op.while(cond, inits...) {body(args...) yield(cond', values...)}:
  // the results are the loop variables, set from the inits before the loop
  // and from the yield at the end of each iteration; the body's arguments
  // read them.
  void write_while(const Op& op);
  void write_feed(const Op& op);
  void write_fetch(const Op& op);
  // shape64 gives int64 where the ProgramDesc shape op gives int32: a cast follows.
  void write_shape(const Op& op);
  // full_with_tensor(value, shape): fill_constant with its tensor inputs.
  void write_full_with_tensor(const Op& op);
  void write_ruled(const Op& op, const OpRule& rule);
  /// values (a PIR list) as assign_value's list for dtype: its name
  /// (fp32_values, int64_values, ...) and elements of that type.
  std::pair<std::string, Attr> typed_values(const Op& op, const Attr& values, pb::VarType::Type dtype) const;
  /// "true", "false", "3", "0.5" as an attribute.
  static Attr literal(const std::string& text);
  void write_set_value(const Op& op);
  int64_t bind_fresh(const std::string& var);
  void write_results(const Op& op, const OpRule& rule, pb::OpDesc& o);
  // A vector result's element nobody unpacks: a variable of its own.
  std::string element_var(const Op& op, int64_t id, size_t e, const Type& t);

  struct Producer {
    const Op* op;
    int index;
  };
  const Program& pir_;
  const std::string& origin_;
  pb::ProgramDesc desc_;
  pb::BlockDesc* block_ = nullptr;
  std::map<int64_t, Producer> producer_;
  std::map<int64_t, std::vector<int64_t>> unpacked_;  ///< vector value -> builtin.split's results
  std::map<int64_t, std::string> names_;
  std::set<std::string> used_;
  std::set<int64_t> declared_;
  std::set<int64_t> read_;  ///< values some op reads
  std::map<int64_t, int> fetch_count_;
  std::map<int64_t, Type> arg_types_;     ///< block arguments' types
  std::set<int64_t> bound_;  ///< values named without a producing op: block arguments, synthesized constants
  int64_t next_bound_id_ = int64_t{1} << 61;  ///< above any id a file or the reader uses
  std::map<int64_t, int> constant_block_;  ///< full / full_int_array value -> the block it was defined in
  int64_t feeds_ = 0, fetches_ = 0;
};

}  // namespace fluidc::pir
