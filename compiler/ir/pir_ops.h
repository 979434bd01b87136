// compiler/ir/pir_ops.h - how each Paddle 3 PIR op maps onto a ProgramDesc op: operands to slots or attributes.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fluidc::pir {

/// Where one PIR operand goes in the ProgramDesc op.
struct OperandRule {
  std::string slot;       ///< input slot for a tensor; "" = none
  std::string attr;       ///< attribute when the operand is a constant (full, full_int_array); "" = none
  std::string list_slot;  ///< input slot for a builtin.combine of scalar tensors; "" = none
  /// Read by Paddle only for state fluidc keeps elsewhere (rnn's dropout
  /// random state): whatever is passed is dropped.
  bool ignored = false;
  /// The ProgramDesc op requires `attr` even when the tensor form gives the
  /// value (clip's min and max): it is then written as 0, which the tensor
  /// overrides.
  bool attr_placeholder = false;
  /// `attr` is an integer attribute that Paddle 3 passes as a float constant
  /// (eye's num_rows): an integral value is written as an integer.
  bool integer = false;
};

/// One PIR op (pd_op dialect). ProgramDesc attribute types come from the
/// op table (compiler/ops), so the rule names only what differs.
struct OpRule {
  std::string pir;     ///< "conv2d"
  std::string legacy;  ///< "conv2d"
  std::vector<OperandRule> operands;
  std::vector<std::string> results;  ///< output slot per result; "" = no counterpart
  std::vector<std::pair<std::string, std::string>> renamed_attrs;  ///< PIR name -> ProgramDesc name
  /// Attributes the ProgramDesc op takes that PIR folds into the op's name
  /// (tril: lower = true), as "true", "false" or a number.
  std::vector<std::pair<std::string, std::string>> fixed_attrs;
};

/// The rule for pd_op.<name>; an in-place form ("relu_") falls back to the
/// plain op's rule. nullptr: not supported.
const OpRule* find_rule(const std::string& name);

/// Every rule, for the tests that check them against the op table.
const std::vector<OpRule>& all_rules();

}  // namespace fluidc::pir
