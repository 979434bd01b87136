// compiler/ir/attrs.h - typed reads of OpDesc attributes, with located errors on type mismatch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

/// The attribute named `name` of `op`, or nullptr.
const pb::OpDesc::Attr* find_attr(const pb::OpDesc& op, const std::string& name);

/// Whether an attribute stored as `have` can be read as `want`. Integer
/// widths (INT/LONG), float widths (FLOAT/FLOAT64) and their list forms are
/// interchangeable: Paddle releases differ in which one they write.
bool attr_type_compatible(pb::AttrType have, pb::AttrType want);

/// Readers: return `fallback` when the attribute is absent. They assume the
/// verifier has checked types (see attr_type_compatible).
int64_t attr_int(const pb::OpDesc& op, const std::string& name, int64_t fallback);
double attr_float(const pb::OpDesc& op, const std::string& name, double fallback);
bool attr_bool(const pb::OpDesc& op, const std::string& name, bool fallback);
std::string attr_string(const pb::OpDesc& op, const std::string& name, const std::string& fallback);
std::vector<int64_t> attr_ints(const pb::OpDesc& op, const std::string& name);
std::vector<double> attr_floats(const pb::OpDesc& op, const std::string& name);

/// The argument names of slot `slot` in an op's inputs or outputs, with
/// Paddle's "no variable" placeholders dropped.
std::vector<std::string> slot_args(const google::protobuf::RepeatedPtrField<pb::OpDesc::Var>& vars,
                                   const std::string& slot);
std::vector<std::string> op_inputs(const pb::OpDesc& op, const std::string& slot);
std::vector<std::string> op_outputs(const pb::OpDesc& op, const std::string& slot);

/// Attribute value rendered for humans (`fluidc dump`): 3, 0.5, "x", [1, 2].
std::string attr_value_str(const pb::OpDesc::Attr& attr);

}  // namespace fluidc
