// compiler/analysis/verify.cc - the program verifier: every message names file, block, op and variable.
#include "compiler/analysis/verify.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

bool verify_blocks(const Program& prog, Diagnostics& diags) {
  bool ok = true;
  const int n = prog.num_blocks();
  for (int b = 0; b < n; ++b) {
    const auto& block = prog.block(b);
    Location l = prog.loc(b);
    l.parent = -1;
    if (block.idx() != b) {
      diags.error(l, fmt::format("block at position {} says its index is {}", b, block.idx()));
      ok = false;
    }
    int parent = block.parent_idx();
    if (b == 0 ? parent != -1 && parent != 0 : parent < 0 || parent >= n || parent == b) {
      diags.error(l, fmt::format("invalid parent block index {} (program has {} blocks)", parent, n));
      ok = false;
      continue;
    }
    // Walk up: a chain longer than the number of blocks is a cycle.
    int cur = b, hops = 0;
    while (cur != 0 && hops <= n) {
      cur = prog.block(cur).parent_idx();
      if (cur < 0 || cur >= n) break;
      ++hops;
    }
    if (hops > n) {
      diags.error(l, "parent chain does not reach block 0 (cycle)");
      ok = false;
    }
  }
  return ok;
}

// A program file is untrusted (docs/security.md): names reach messages,
// generated code (escaped there) and file names (runtime/var_file_name.h).
// Names with control characters have no legitimate use and are refused
// here with a location; "." and ".." can never become file names.
void verify_name(const Program& prog, int b, int op, const std::string& name, const char* what,
                 Diagnostics& diags) {
  Location l = prog.loc(b, op, name);
  if (name.empty()) {
    diags.error(l, fmt::format("{} has an empty name", what));
    return;
  }
  for (size_t i = 0; i < name.size(); ++i) {
    const auto ch = static_cast<unsigned char>(name[i]);
    if (ch < 0x20 || ch == 0x7f) {
      diags.error(l, fmt::format("{} name holds control character 0x{:02x} at byte {}; names must be printable",
                                 what, ch, i));
      return;
    }
  }
  if (name == "." || name == "..") diags.error(l, fmt::format("{} name '{}' is reserved for directories", what, name));
}

void verify_names(const Program& prog, Diagnostics& diags) {
  for (int b = 0; b < prog.num_blocks(); ++b) {
    const auto& block = prog.block(b);
    for (const auto& v : block.vars()) verify_name(prog, b, -1, v.name(), "variable", diags);
    for (int i = 0; i < block.ops_size(); ++i)
      for (const auto* vars : {&block.ops(i).inputs(), &block.ops(i).outputs()})
        for (const auto& slot : *vars)
          for (const auto& arg : slot.arguments())
            if (!arg.empty()) verify_name(prog, b, i, arg, "argument", diags);
  }
}

// Unsupported ops are gathered program-wide so one message lists them all.
struct Unsupported {
  int count = 0;
  int first_block = 0, first_op = 0;
};

void verify_slots(const Program& prog, int b, int i, const ops::OpDef& def, bool inputs, Diagnostics& diags) {
  const auto& op = prog.block(b).ops(i);
  const auto& vars = inputs ? op.inputs() : op.outputs();
  const auto& defs = inputs ? def.inputs : def.outputs;
  const char* kind = inputs ? "input" : "output";
  for (const auto& v : vars) {
    const ops::SlotDef* slot = inputs ? def.input(v.parameter()) : def.output(v.parameter());
    std::vector<std::string> args = slot_args(vars, v.parameter());
    if (!slot) {
      if (!args.empty())
        diags.error(prog.loc(b, i, args[0]),
                    fmt::format("{} slot '{}' is not supported by fluidc's {} (its semantics would be ignored)",
                                kind, v.parameter(), def.type));
      continue;
    }
    if (!slot->duplicable && args.size() > 1)
      diags.error(prog.loc(b, i), fmt::format("{} slot '{}' takes one variable but has {}", kind, v.parameter(),
                                              args.size()));
    for (const auto& name : args) {
      const pb::VarDesc* var = prog.find_var(b, name);
      if (!var) {
        diags.error(prog.loc(b, i, name),
                    fmt::format("{} {} refers to an undefined variable (not in block {} or its ancestors)", kind,
                                v.parameter(), b));
        continue;
      }
      if (slot->holds != pb::VarType::RAW && var->type().type() != slot->holds) {
        // A sparse gradient left sparse by densify_selected_rows: another of its ops cannot hold it densely.
        const bool rows = var->type().type() == pb::VarType::SELECTED_ROWS;
        if (rows && slot->rows_as_dense)
          diags.error(prog.loc(b, i, name),
                      fmt::format("{} {} is a SELECTED_ROWS (a sparse gradient), which fluidc holds densely only "
                                  "when every op using it can; another op here cannot (see its error)",
                                  kind, v.parameter()));
        else
          diags.error(prog.loc(b, i, name), fmt::format("{} {} is a {}{}, but {} takes a {} there", kind,
                                                        v.parameter(), pb::VarType::Type_Name(var->type().type()),
                                                        rows ? " (a sparse gradient)" : "", def.type,
                                                        pb::VarType::Type_Name(slot->holds)));
      }
    }
  }
  for (const auto& slot : defs) {
    if (slot.optional) continue;
    if (slot_args(vars, slot.name).empty())
      diags.error(prog.loc(b, i), fmt::format("required {} slot '{}' is missing", kind, slot.name));
  }
}

void verify_attrs(const Program& prog, int b, int i, const ops::OpDef& def, Diagnostics& diags) {
  const auto& op = prog.block(b).ops(i);
  for (const auto& ad : def.attrs) {
    const auto* a = find_attr(op, ad.name);
    if (!a) {
      if (ad.required) diags.error(prog.loc(b, i), fmt::format("required attribute '{}' is missing", ad.name));
      continue;
    }
    if (!attr_type_compatible(a->type(), ad.type))
      diags.error(prog.loc(b, i), fmt::format("attribute '{}' has type {} but {} expects {}", ad.name,
                                              pb::AttrType_Name(a->type()), def.type, pb::AttrType_Name(ad.type)));
  }
  for (const auto& a : op.attrs()) {
    bool bad = (a.type() == pb::BLOCK && (a.block_idx() < 0 || a.block_idx() >= prog.num_blocks()));
    for (int idx : a.blocks_idx()) bad |= idx < 0 || idx >= prog.num_blocks();
    if (bad) diags.error(prog.loc(b, i), fmt::format("attribute '{}' names a block that does not exist", a.name()));
  }
}

}  // namespace

void verify_program(const Program& prog, Diagnostics& diags) {
  if (!verify_blocks(prog, diags)) return;
  verify_names(prog, diags);
  std::map<std::string, Unsupported> unsupported;
  for (int b = 0; b < prog.num_blocks(); ++b) {
    const auto& block = prog.block(b);
    std::set<std::string> seen;
    for (const auto& v : block.vars())
      if (!seen.insert(v.name()).second)
        diags.error(prog.loc(b, -1, v.name()), "variable is declared twice in this block");
    for (int i = 0; i < block.ops_size(); ++i) {
      const auto& op = block.ops(i);
      const ops::OpDef* def = ops::find_op(op.type());
      if (!def) {
        auto [it, fresh] = unsupported.try_emplace(op.type());
        if (fresh) it->second.first_block = b, it->second.first_op = i;
        ++it->second.count;
        continue;
      }
      verify_slots(prog, b, i, *def, true, diags);
      verify_slots(prog, b, i, *def, false, diags);
      verify_attrs(prog, b, i, *def, diags);
    }
  }
  if (!unsupported.empty()) {
    int total = 0;
    std::string list;
    for (const auto& [type, u] : unsupported) {
      total += u.count;
      list += fmt::format("\n    {} ({} op{}, first at block {}, op {})", printable(type), u.count, u.count == 1 ? "" : "s",
                          u.first_block, u.first_op);
    }
    Location l;
    l.file = prog.origin();
    diags.error(l, fmt::format("{} unsupported op type{} ({} op{} in all); `fluidc ops` lists what is supported:{}",
                               unsupported.size(), unsupported.size() == 1 ? "" : "s", total, total == 1 ? "" : "s",
                               list));
  }
}

}  // namespace fluidc
