# test/lit/lit.cfg.py - lit configuration: FileCheck tests of fluidc's verifier, emitter and driver.
import os
import lit.formats

config.name = "fluidc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test", ".pbtxt"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fluidc_binary_dir, "test", "lit")

config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%fluidc", os.path.join(config.fluidc_binary_dir, "bin", "fluidc")))
config.substitutions.append(("%fixtures", os.path.join(config.fluidc_source_dir, "test", "fixtures")))
config.substitutions.append(("%inputs", os.path.join(config.fluidc_source_dir, "test", "lit", "Inputs")))

# lit starts tests with a clean environment: pass on what chooses and flags the compiler `fluidc build`
# runs, and the sanitizer settings (tools/run_sanitizers.sh builds sanitized binaries through these).
for var in ["CXX", "FLUIDC_CXXFLAGS", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Test tools built beside fluidc: synthesized weights and inputs, and the .npy judge of the e2e tests.
config.substitutions.append(("%synth_params", os.path.join(config.fluidc_binary_dir, "test", "synth_params")))
config.substitutions.append(("%npy_compare", os.path.join(config.fluidc_binary_dir, "test", "npy_compare")))
