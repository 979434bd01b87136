# tools/compiler_cache.sh - sourced by the build scripts: routes compiles through ccache when it is installed.
# Sets cache_flags (CMake launcher options, empty without ccache). Why: CI builds the tree twice (plain and
# ASan+UBSan) from a fresh clone, about half of its 80 minutes on a 2-core Intel Xeon VM; with the cache, a
# clone whose sources an earlier run on this machine compiled rebuilds in minutes. A fresh machine builds
# exactly as without it. The cache key must not depend on where the clone lies:
#  - base_dir: paths under the root are hashed (and handed to the compiler) relative to the build directory;
#  - hash_dir=false: -g objects do not hash the build directory (its name in their debug info is mapped
#    to fluidc-build/ by the -ffile-prefix-map of CMakeLists.txt, the same for every clone);
#  - -ffile-prefix-map=ROOT/=fluidc/ is left out of the hash: every clone maps its own root to the same name,
#    so the objects are the same whichever clone compiled them.
cache_flags=()
if command -v ccache > /dev/null; then
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true CCACHE_IGNOREOPTIONS="-ffile-prefix-map=*"
  cache_flags=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
