# test/e2e/compare_lod.sh - sourced by the e2e scripts: one fetch's LoD files, fluidc's against Paddle's.
#
# compare_lod COMPARE GOT_STEM WANT_STEM NAME: STEM.lod<L>.npy (one per level) must exist on both sides for the
# same levels and be equal (npy_compare COMPARE, exactly); exits 1 naming the first difference.
compare_lod() {
  local compare=$1 got=$2 want=$3 name=$4 f level
  for f in "$got".lod*.npy "$want".lod*.npy; do
    [ -e "$f" ] || continue
    level=${f##*.lod}  # "<L>.npy"
    [ -e "$want.lod$level" ] || { echo "MISMATCH: fluidc gives $name a LoD Paddle does not (lod$level)"; exit 1; }
    [ -e "$got.lod$level" ] || { echo "MISMATCH: Paddle gives $name a LoD fluidc does not (lod$level)"; exit 1; }
    "$compare" "$got.lod$level" "$want.lod$level" --rtol 0 --atol 0 > /dev/null ||
      { echo "MISMATCH: $name.lod$level"; exit 1; }
    [[ $f != "$want".* ]] || echo "$name.lod$level: equal"  # once per level (both sides list it)
  done
}
