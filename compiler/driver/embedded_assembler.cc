// compiler/driver/embedded_assembler.cc - the driver's `-cc1as` job (params.S) on LLVM's MC assembler, in-process.
//
// Clang's libraries hold the driver and cc1 but not cc1as (that lives in the
// clang executable), so this is the assembler the embedded driver uses: it
// reads the cc1as arguments the driver made and sets up MC the way they ask,
// so the object matches the one `clang++` makes. An argument it does not
// know is an error, never silently dropped.
#include <clang/Driver/Options.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/Triple.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/driver/embedded_clang.h"

namespace fluidc {
namespace {

namespace opt = clang::driver::options;

// What the cc1as arguments ask for.
struct AsmJob {
  std::string triple, cpu, input, output, main_file, compilation_dir, producer;
  std::vector<std::string> features, include_dirs;
  std::vector<std::pair<std::string, std::string>> prefix_map;
  unsigned dwarf_version = 0;
  bool pic = false, relax_relocations = false, relax_all = false, no_exec_stack = false, debug_info = false;
};

int fail(const std::string& message) {
  llvm::errs() << "fluidc (embedded assembler): " << message << "\n";
  return 1;
}

// Reads the arguments; "" when all are understood, else what is not.
std::string parse(const std::vector<const char*>& argv, AsmJob& job) {
  unsigned missing_index = 0, missing_count = 0;
  const llvm::opt::InputArgList args = clang::driver::getDriverOptTable().ParseArgs(
      llvm::makeArrayRef(argv), missing_index, missing_count, opt::CC1AsOption);
  if (missing_count) return std::string("missing value for ") + argv[missing_index];
  for (const llvm::opt::Arg* a : args) {
    const std::string v = a->getNumValues() ? a->getValue() : "";
    switch (a->getOption().getID()) {
      case opt::OPT_triple: job.triple = llvm::Triple::normalize(v); break;
      case opt::OPT_target_cpu: job.cpu = v; break;
      case opt::OPT_target_feature: job.features.push_back(v); break;
      case opt::OPT_filetype:
        if (v != "obj") return "-filetype " + v + " (only obj)";
        break;
      case opt::OPT_main_file_name: job.main_file = v; break;
      case opt::OPT_fdebug_compilation_dir:
      case opt::OPT_fdebug_compilation_dir_EQ: job.compilation_dir = v; break;
      case opt::OPT_fdebug_prefix_map_EQ: {
        const auto [from, to] = llvm::StringRef(v).split('=');
        job.prefix_map.emplace_back(from.str(), to.str());
        break;
      }
      case opt::OPT_dwarf_debug_producer: job.producer = v; break;
      case opt::OPT_dwarf_version_EQ:
        if (llvm::StringRef(v).getAsInteger(10, job.dwarf_version)) return "-dwarf-version=" + v;
        break;
      case opt::OPT_debug_info_kind_EQ: job.debug_info = true; break;
      case opt::OPT_object_file_name_EQ:
      case opt::OPT_object_file_name: break;  // names the object in split DWARF only
      case opt::OPT_mrelocation_model: job.pic = v == "pic"; break;
      case opt::OPT_I: job.include_dirs.push_back(v); break;
      case opt::OPT_mrelax_relocations: job.relax_relocations = true; break;
      case opt::OPT_mrelax_all: job.relax_all = true; break;
      case opt::OPT_mno_exec_stack: job.no_exec_stack = true; break;
      case opt::OPT_o: job.output = v; break;
      case opt::OPT_INPUT:
        if (!job.input.empty()) return "a second input " + v;
        job.input = v;
        break;
      default: return a->getAsString(args);
    }
  }
  if (job.input.empty() || job.output.empty()) return "no input or no -o";
  return "";
}

int assemble(const AsmJob& job) {
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(job.triple, error);
  if (!target) return fail(error);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> source = llvm::MemoryBuffer::getFileOrSTDIN(job.input, true);
  if (!source) return fail(job.input + ": " + source.getError().message());

  llvm::SourceMgr sources;  // reports to stderr; .incbin searches the -I directories
  const unsigned buffer = sources.AddNewSourceBuffer(std::move(*source), llvm::SMLoc());
  sources.setIncludeDirs(job.include_dirs);

  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> regs(target->createMCRegInfo(job.triple));
  std::unique_ptr<llvm::MCAsmInfo> asm_info(target->createMCAsmInfo(*regs, job.triple, options));
  asm_info->setRelaxELFRelocations(job.relax_relocations);
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(job.triple, job.cpu, llvm::join(job.features, ",")));
  std::unique_ptr<llvm::MCInstrInfo> instrs(target->createMCInstrInfo());
  if (!regs || !asm_info || !subtarget || !instrs) return fail("no MC support for " + job.triple);

  llvm::MCContext ctx(llvm::Triple(job.triple), asm_info.get(), regs.get(), subtarget.get(), &sources, &options);
  std::unique_ptr<llvm::MCObjectFileInfo> file_info(target->createMCObjectFileInfo(ctx, job.pic));
  ctx.setObjectFileInfo(file_info.get());
  // Debug information: only what the arguments name (the driver passes these with -g).
  if (!job.compilation_dir.empty()) ctx.setCompilationDir(job.compilation_dir);
  for (const auto& [from, to] : job.prefix_map) ctx.addDebugPrefixMapEntry(from, to);
  if (!job.main_file.empty()) ctx.setMainFileName(job.main_file);
  if (!job.producer.empty()) ctx.setDwarfDebugProducer(job.producer);
  if (job.dwarf_version) ctx.setDwarfVersion(job.dwarf_version);
  if (job.debug_info) {
    ctx.setGenDwarfForAssembly(true);
    ctx.setGenDwarfRootFile(job.input, sources.getMemoryBuffer(buffer)->getBuffer());
  }

  std::error_code ec;
  auto out = std::make_unique<llvm::raw_fd_ostream>(job.output, ec, llvm::sys::fs::OF_None);
  if (ec) return fail(job.output + ": " + ec.message());
  std::unique_ptr<llvm::MCCodeEmitter> emitter(target->createMCCodeEmitter(*instrs, *regs, ctx));
  std::unique_ptr<llvm::MCAsmBackend> backend(target->createMCAsmBackend(*subtarget, *regs, options));
  if (!emitter || !backend) return fail("no object writer for " + job.triple);
  std::unique_ptr<llvm::MCObjectWriter> writer = backend->createObjectWriter(*out);
  std::unique_ptr<llvm::MCStreamer> streamer(target->createMCObjectStreamer(
      llvm::Triple(job.triple), ctx, std::move(backend), std::move(writer), std::move(emitter), *subtarget,
      job.relax_all, /*IncrementalLinkerCompatible=*/false, /*DWARFMustBeAtTheEnd=*/true));
  streamer->initSections(job.no_exec_stack, *subtarget);
  streamer->setUseAssemblerInfoForParsing(true);

  std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sources, ctx, *streamer, *asm_info));
  std::unique_ptr<llvm::MCTargetAsmParser> target_parser(target->createMCAsmParser(*subtarget, *parser, *instrs, options));
  if (!target_parser) return fail("no assembly parser for " + job.triple);
  parser->setTargetParser(*target_parser);
  const bool failed = parser->Run(/*NoInitialTextSection=*/false);
  streamer.reset();  // Run() finished the object; the writer is done with `out`
  out->close();
  if (failed || out->has_error()) {
    llvm::sys::fs::remove(job.output);
    return 1;
  }
  return 0;
}

}  // namespace

int run_embedded_assembler(const std::vector<const char*>& args) {
  AsmJob job;
  if (std::string bad = parse(args, job); !bad.empty())
    return fail("unsupported -cc1as argument: " + bad + " (build with --cxx clang++ instead)");
  return assemble(job);
}

}  // namespace fluidc
