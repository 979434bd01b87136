# test/e2e/fixture_feeds.sh - sourced: the feeds of one case of an inference fixture (expected_CASE.npy beside NAME_CASE.npy).
# case_feeds FIXTURE CASE sets the array `feeds` to `--feed NAME=FILE` for each FIXTURE/NAME_CASE.npy except the expectation.
case_feeds() {
  local fixture=$1 case=$2 f name
  feeds=()
  for f in "$fixture"/*_"$case".npy; do
    [ "$f" = "$fixture/expected_$case.npy" ] && continue
    name=$(basename "$f" .npy)
    feeds+=(--feed "${name%_"$case"}=$f")
  done
}
