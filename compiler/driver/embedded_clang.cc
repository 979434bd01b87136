// compiler/driver/embedded_clang.cc - the clang++ driver and cc1 of the linked Clang 14 libraries, run in-process.
#include "compiler/driver/embedded_clang.h"

#include "compiler/driver/clang_driver.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/Config/config.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/FrontendTool/Utils.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>

namespace fluidc {
namespace {

// The driver's cc1 jobs (compiling C++, preprocessing params.S) run here
// instead of in a new `clang -cc1` process.
int run_cc1(llvm::SmallVectorImpl<const char*>& argv) {
  // argv: the clang executable, "-cc1", the arguments.
  auto compiler = std::make_unique<clang::CompilerInstance>();
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> opts(new clang::DiagnosticOptions());
  // Problems with the arguments themselves are buffered until the
  // invocation's own diagnostics (with its -W flags) exist to print them.
  auto* buffer = new clang::TextDiagnosticBuffer;
  clang::DiagnosticsEngine arg_diags(ids, &*opts, buffer);
  const bool parsed = clang::CompilerInvocation::CreateFromArgs(
      compiler->getInvocation(), llvm::makeArrayRef(argv.data(), argv.size()).slice(2), arg_diags, argv[0]);
  compiler->createDiagnostics();
  if (!compiler->hasDiagnostics()) return 1;
  buffer->FlushDiagnostics(compiler->getDiagnostics());
  if (!parsed) return 1;
  const bool ok = clang::ExecuteCompilerInvocation(compiler.get());
  // -disable-free, as clang does: this child exits right after the driver.
  compiler.release();
  return ok ? 0 : 1;
}

}  // namespace

std::string clang_resource_dir() { return clang::driver::Driver::GetResourcesPath(kClangExecutable, CLANG_RESOURCE_DIR); }

ClangDriver::ClangDriver()
    : options(new clang::DiagnosticOptions()),
      diagnostics(new clang::DiagnosticIDs(), &*options, new clang::TextDiagnosticPrinter(llvm::errs(), &*options)),
      driver(kClangExecutable, llvm::sys::getDefaultTargetTriple(), diagnostics) {
  driver.setInstalledDir(kClangInstalledDir);
}

std::unique_ptr<clang::driver::Compilation> ClangDriver::compilation(const std::vector<std::string>& args) {
  // C++ mode as `clang++` (the libraries' driver takes the mode from the executable's name, which is "clang").
  std::vector<const char*> argv = {"clang++", "--driver-mode=g++"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return std::unique_ptr<clang::driver::Compilation>(driver.BuildCompilation(argv));
}

bool embedded_clang_built() { return true; }

std::string embedded_clang_unusable() {
  const std::string include = clang_resource_dir() + "/include";
  if (!llvm::sys::fs::exists(include + "/stddef.h"))
    return "its built-in headers " + include + " are missing (Debian package libclang-common-14-dev)";
  return "";
}

std::string embedded_clang_version() { return clang::getClangFullVersion(); }

int run_embedded_clang(const std::vector<std::string>& args, bool verbose) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  ClangDriver clang;
  clang.driver.CC1Main = run_cc1;
  std::unique_ptr<clang::driver::Compilation> c = clang.compilation(args);
  if (!c || c->containsError()) return 1;
  int rc = 0;
  for (const clang::driver::Command& job : c->getJobs()) {
    if (verbose) job.Print(llvm::errs(), "\n", /*Quote=*/true);
    const auto& jargs = job.getArguments();
    if (!jargs.empty() && llvm::StringRef(jargs[0]) == "-cc1as") {
      rc = run_embedded_assembler(std::vector<const char*>(jargs.begin() + 1, jargs.end()));
    } else {
      // cc1 jobs call run_cc1 in this process; the link job runs the system linker.
      const clang::driver::Command* failing = nullptr;
      rc = c->ExecuteCommand(job, failing);
    }
    if (rc != 0) break;
  }
  // A failed build leaves no half-written output; temporary files go with `c`.
  if (rc != 0) c->CleanupFileMap(c->getResultFiles(), nullptr, false);
  llvm::errs().flush();
  llvm::outs().flush();
  return rc;
}

}  // namespace fluidc
