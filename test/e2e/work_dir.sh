# test/e2e/work_dir.sh - sourced by the e2e case scripts: a fresh work folder whose built binaries go once the case passes.
# Why: a sanitizer build links about 11 MB into every generated binary and the suite builds more than a
# thousand of them, which filled the CI machine's disk (19 GB under build-asan/test/e2e/work). A case that
# fails keeps everything for debugging; a passing one keeps its small outputs (.npy, logs) and drops the
# executables and archives, which nothing reads after the case ends.

# fresh_work_dir DIR: empties DIR and arranges for its binaries to be deleted when the script exits with 0.
fresh_work_dir() {
  rm -rf "$1" && mkdir -p "$1"
  _fluidc_work_dir=$1
  trap _prune_work_dir_on_success EXIT
}

_prune_work_dir_on_success() {
  local rc=$? file magic
  if [ "$rc" -eq 0 ] && [ -d "$_fluidc_work_dir" ]; then
    while IFS= read -r -d '' file; do
      magic=$(head -c 4 "$file" | od -An -tx1 | tr -d ' \n')
      # 7f454c46 is "\x7fELF" (executables, shared objects); 213c6172 is "!<ar" (static archives).
      case $magic in 7f454c46|213c6172) rm -f "$file" ;; esac
    done < <(find "$_fluidc_work_dir" -type f -size +64k -print0)
  fi
  exit "$rc"
}
