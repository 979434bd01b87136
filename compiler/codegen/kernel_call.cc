// compiler/codegen/kernel_call.cc - the generic kernel call every target writes for an op without its own hook.
#include <fmt/format.h>

#include "compiler/codegen/target.h"
#include "compiler/ir/attrs.h"
#include "compiler/ops/emit_ctx.h"
#include "compiler/support/escape.h"

namespace fluidc {

void emit_generic_kernel_call(EmitCtx& c, const std::string& ns, const std::string& tensor_type) {
  std::vector<std::string> args;
  std::string pre;
  auto add_slots = [&](const std::vector<ops::SlotDef>& slots, bool inputs) {
    for (const auto& s : slots) {
      auto names = inputs ? op_inputs(c.op(), s.name) : op_outputs(c.op(), s.name);
      if (s.duplicable) {
        // Output positions matter (X@GRAD[i] belongs to X[i]): an empty entry is nullptr.
        std::vector<std::string> raw;
        for (const auto& v : inputs ? c.op().inputs() : c.op().outputs())
          if (v.parameter() == s.name) raw.assign(v.arguments().begin(), v.arguments().end());
        std::string arr = fmt::format("{}_{}", inputs ? "in" : "out", cpp_identifier(s.name).substr(2));
        std::vector<std::string> ptrs;
        // Inputs keep only real variables (kernels take what is there).
        if (inputs) raw = names;
        for (const auto& n : raw) ptrs.push_back(is_empty_var_name(n) ? "nullptr" : "&" + c.var(n));
        names = raw;
        pre += fmt::format("    {}{}* const {}[] = {{{}}};\n", inputs ? "const " : "", tensor_type, arr, fmt::join(ptrs, ", "));
        args.push_back(arr);
        args.push_back(std::to_string(names.size()));
      } else if (names.empty()) {
        args.push_back("nullptr");
      } else {
        args.push_back((s.optional ? "&" : "") + c.var(names[0]));
      }
    }
  };
  add_slots(c.def().inputs, true);
  add_slots(c.def().outputs, false);
  if (!c.attrs().empty()) args.push_back(c.attrs());
  std::string call = fmt::format("{}{}({});\n", ns, c.op().type(), fmt::join(args, ", "));
  if (pre.empty()) c.body() << "  " << call;
  else c.body() << "  {\n" << pre << "    " << call << "  }\n";
}

}  // namespace fluidc
