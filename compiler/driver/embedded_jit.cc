// compiler/driver/embedded_jit.cc - `fluidc run`: generated C++ compiled to LLVM IR in memory and run by ORC (JITLink + the ORC runtime).
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Config/config.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/ELFNixPlatform.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>

#include "compiler/driver/clang_driver.h"
#include "compiler/driver/embedded_clang.h"

namespace fluidc {
namespace {

// Keeps every block of a linked object alive. JITLink (LLVM 14) drops the blocks nothing references and
// their unwind entries with them; with that pruning, an exception thrown through runtime/atomic_file.cc's
// read_file found no unwind entry and called terminate() (seen with libgcc's unwinder; the section
// registered looked whole, so the exact fault in the pruned .eh_frame is not pinned down). Keeping
// the blocks costs some unused code in memory and fixes it.
class KeepAllBlocks : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility&, llvm::jitlink::LinkGraph&,
                        llvm::jitlink::PassConfiguration& config) override {
    config.PrePrunePasses.insert(config.PrePrunePasses.begin(), [](llvm::jitlink::LinkGraph& g) {
      for (auto* symbol : g.defined_symbols()) symbol->setLive(true);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override { return llvm::Error::success(); }
  llvm::Error notifyRemovingResources(llvm::orc::ResourceKey) override { return llvm::Error::success(); }
  void notifyTransferringResources(llvm::orc::ResourceKey, llvm::orc::ResourceKey) override {}
};

int fail(const std::string& message) {
  llvm::errs() << "fluidc run: " << message << "\n";
  return 3;
}

int fail(llvm::Error e) {
  std::string text = llvm::toString(std::move(e));
  return fail(text);
}

// The cc1 arguments the clang++ driver makes for `args` (one compile, -c).
bool cc1_arguments(const std::vector<std::string>& args, std::vector<std::string>& out) {
  ClangDriver clang;
  std::unique_ptr<clang::driver::Compilation> c = clang.compilation(args);
  if (!c || c->containsError() || c->getJobs().size() != 1) return false;
  const auto& job = *c->getJobs().begin();
  for (const char* a : job.getArguments()) out.push_back(a);
  return !out.empty() && out[0] == "-cc1";
}

// One generated source to an LLVM module in its own context, with the flags `fluidc build` uses; an empty
// module when the compile fails (clang has printed why).
llvm::orc::ThreadSafeModule compile_to_module(const std::vector<std::string>& compile_args, std::string& error) {
  std::vector<std::string> cc1;
  if (!cc1_arguments(compile_args, cc1)) return error = "cannot make the compile command", llvm::orc::ThreadSafeModule();
  std::vector<const char*> cc1_argv;
  for (size_t i = 1; i < cc1.size(); ++i) cc1_argv.push_back(cc1[i].c_str());
  auto compiler = std::make_unique<clang::CompilerInstance>();
  compiler->createDiagnostics();
  if (!clang::CompilerInvocation::CreateFromArgs(compiler->getInvocation(), cc1_argv, compiler->getDiagnostics(),
                                                 kClangExecutable))
    return error = "bad compile arguments", llvm::orc::ThreadSafeModule();
  auto context = std::make_unique<llvm::LLVMContext>();
  clang::EmitLLVMOnlyAction action(context.get());
  if (!compiler->ExecuteAction(action)) return llvm::orc::ThreadSafeModule();
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!module) return error = "no module", llvm::orc::ThreadSafeModule();
  return llvm::orc::ThreadSafeModule(std::move(module), std::move(context));
}

}  // namespace

int run_embedded_jit(const std::vector<std::vector<std::string>>& compiles, const std::vector<std::string>& archives,
                     const std::vector<std::string>& program_args) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  // 1. The generated C++ (model.cc and the shards of a long program) to LLVM modules.
  std::vector<llvm::orc::ThreadSafeModule> modules;
  for (const auto& args : compiles) {
    std::string error;
    modules.push_back(compile_to_module(args, error));
    if (!modules.back()) return error.empty() ? 3 : fail(error);
  }
  if (modules.empty()) return fail("nothing to compile");
  const llvm::Triple triple(modules.front().getModuleUnlocked()->getTargetTriple());

  // 2. A JIT linking like the system linker: JITLink, the ORC runtime for initialisers and thread_local.
  const std::string rt_dir = clang_resource_dir() + "/lib/linux/";
  const std::string orc_runtime = rt_dir + "libclang_rt.orc-x86_64.a";
  // What the system linker takes from libgcc.a and the JIT finds in no library of this process: the CPU
  // model the kernels' instruction-set choice reads (kernels/cpu/isa_clones.h). Searched last.
  const std::string builtins = rt_dir + "libclang_rt.builtins-x86_64.a";
  // Code as `fluidc build` makes it: position-independent (JITLink reads its EH frames), the
  // generic x86-64 CPU (the same instructions, so the same floating-point results), -O2's backend.
  llvm::orc::JITTargetMachineBuilder machine{triple};
  machine.setCPU("x86-64");
  machine.setRelocationModel(llvm::Reloc::PIC_);
  machine.setCodeModel(llvm::CodeModel::Small);
  // Emulated thread_local (calls to __emutls_get_address), as the JIT archive of the kernels uses.
  machine.getOptions().EmulatedTLS = true;
  machine.getOptions().ExplicitEmulatedTLS = true;
  // Static initialisers in .init_array, as clang emits them for Linux (the ORC runtime runs that section).
  machine.getOptions().UseInitArray = true;
  machine.setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(machine))
                 .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession& es, const llvm::Triple&) {
                   auto memory = llvm::cantFail(llvm::jitlink::InProcessMemoryManager::Create());
                   auto layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(es, std::move(memory));
                   // (The ELFNixPlatform registers each object's unwind tables with libgcc itself.)
                   layer->addPlugin(std::make_unique<KeepAllBlocks>());
                   return layer;
                 })
                 .setPlatformSetUp([&](llvm::orc::LLJIT& j) -> llvm::Error {
                   // libc and libstdc++ from this process, before the ORC runtime is loaded: it needs them.
                   auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                       j.getDataLayout().getGlobalPrefix());
                   if (!process) return process.takeError();
                   j.getMainJITDylib().addGenerator(std::move(*process));
                   auto& layer = static_cast<llvm::orc::ObjectLinkingLayer&>(j.getObjLinkingLayer());
                   auto platform = llvm::orc::ELFNixPlatform::Create(j.getExecutionSession(), layer,
                                                                     j.getMainJITDylib(), orc_runtime.c_str());
                   if (!platform) return platform.takeError();
                   j.getExecutionSession().setPlatform(std::move(*platform));
                   return llvm::Error::success();
                 })
                 .create();
  if (!jit) return fail(jit.takeError());
  llvm::orc::JITDylib& main_jd = (*jit)->getMainJITDylib();
  std::vector<std::string> search = archives;
  search.push_back(builtins);
  for (const auto& archive : search) {
    auto lib = llvm::orc::StaticLibraryDefinitionGenerator::Load((*jit)->getObjLinkingLayer(), archive.c_str());
    if (!lib) return fail(lib.takeError());
    main_jd.addGenerator(std::move(*lib));
  }
  for (auto& module : modules)
    if (auto e = (*jit)->addIRModule(std::move(module))) return fail(std::move(e));

  // 3. Everything main() reaches linked now, before the ORC runtime's dlopen collects the initialisers:
  // LLVM 14's ELFNixPlatform crashes registering the initialisers of an object linked after that (its
  // table entry for the JITDylib is gone), which the runtime's lookup of "main" would otherwise do.
  if (auto linked = (*jit)->lookup("main"); !linked) return fail(linked.takeError());
  // 4. main(), with the ORC runtime running the initialisers first (as the dynamic loader would).
  auto run = (*jit)->lookup("__orc_rt_elfnix_run_program");
  if (!run) return fail(run.takeError());
  using RunProgram = int64_t (*)(const char*, const char*, int, char**);
  std::vector<char*> argv;
  for (const auto& a : program_args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int64_t rc = reinterpret_cast<RunProgram>(static_cast<uintptr_t>(run->getAddress()))(main_jd.getName().c_str(), "main", static_cast<int>(program_args.size()),
                                              argv.data());
  llvm::outs().flush();
  return static_cast<int>(rc);
}

}  // namespace fluidc
