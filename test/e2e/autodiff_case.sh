#!/usr/bin/env bash
# test/e2e/autodiff_case.sh - fluidc's own backward pass against Paddle's append_backward, and trainers that
# fluidc built from a forward-only (or exported inference) program against Paddle training the same program.
# usage: autodiff_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR BATCH [training flags for fluidc...]
#   (the flags give the loss: `--loss VAR`, or `--loss OUT --label NAME --loss-fn FN` for an inference model)
set -euo pipefail
fluidc=$1 compare=$2 fixture=$3 work=$4 batch=$5
shift 5
train_flags=("$@")
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
mkdir -p "$work/batch0"
if [ -f "$fixture/forward.pdmodel" ]; then
  program=$fixture/forward.pdmodel params=$fixture/init.pdiparams startup=(--startup "$fixture/startup.pdmodel")
else
  program=$fixture/model.pdmodel params=$fixture/model.pdiparams startup=()
fi
data=() first=()
for f in "$fixture"/data/*.npy; do
  name=$(basename "$f" .npy)
  data+=(--data "$name=$f")
  "$compare" --head "$batch" "$f" "$work/batch0/$name.npy"
  first+=(--feed "$name=$work/batch0/$name.npy")
done

# 1. Gradients of every parameter on the first batch, 1e-5 relative (the issue's bound) plus atol 1e-7
#    for entries that are zero up to float32 rounding.
"$fluidc" opt "$program" --passes=autodiff "${train_flags[@]}" -o "$work/backward.pdmodel"
fetch=()
for g in "$fixture"/grads/*.npy; do fetch+=("$(basename "$g" .npy)@GRAD"); done
"$fluidc" build "$work/backward.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" -o "$work/gradients"
"$work/gradients" --params "$params" "${first[@]}" --fetch-dir "$work/grads" > /dev/null
for g in "$fixture"/grads/*.npy; do
  "$compare" "$work/grads/$(basename "$g" .npy)@GRAD.npy" "$g" --rtol 1e-5 --atol 1e-7
done
# ...and the same gradients bit for bit with the memory plan off.
"$fluidc" build "$work/backward.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" --no-memory-plan -o "$work/unplanned"
"$work/unplanned" --params "$params" "${first[@]}" --fetch-dir "$work/unplanned_grads" > /dev/null
for f in "$work"/grads/*.npy; do cmp "$f" "$work/unplanned_grads/$(basename "$f")"; done

# 2. 20 training steps per optimizer (and with L2 weight decay, Nesterov, global-norm clipping), losses
#    within 1e-4 relative of Paddle's.
for ref in "$fixture"/losses_*.npy; do
  case $(basename "$ref" .npy) in
    *sgd_l2) opt=(--optimizer sgd --lr 0.1 --weight-decay 0.01) ;;
    *momentum_nesterov_l2) opt=(--optimizer momentum --lr 0.05 --momentum 0.9 --nesterov --weight-decay 0.01) ;;
    *adam_l2) opt=(--optimizer adam --lr 0.01 --weight-decay 0.01) ;;
    *sgd_clip) opt=(--optimizer sgd --lr 0.1 --clip-norm 1.0) ;;
    *sgd) opt=(--optimizer sgd --lr 0.1) ;;
    *momentum) opt=(--optimizer momentum --lr 0.05 --momentum 0.9) ;;
    *adam) opt=(--optimizer adam --lr 0.01) ;;
    *) echo "unknown reference $ref"; exit 1 ;;
  esac
  name=$(basename "$ref" .npy)
  "$fluidc" build "$program" "${startup[@]}" --train "${train_flags[@]}" "${opt[@]}" -o "$work/$name"
  "$work/$name" "${data[@]}" --params "$params" --batch-size "$batch" --steps 20 --no-shuffle --log-every 20 \
    --losses-out "$work/$name.npy"
  "$compare" "$work/$name.npy" "$ref" --rtol 1e-4
done

# 3. The round trip: Paddle trained the program `fluidc opt` writes (tools/roundtrip_paddle.py recorded its
#    losses); the binary built from today's `fluidc opt` output must train the same, 1e-4 relative.
for ref in "$fixture"/roundtrip_*.npy; do
  [ -e "$ref" ] || continue
  case $(basename "$ref" .npy) in
    *sgd) opt=(--optimizer sgd --lr 0.1) ;;
    *momentum) opt=(--optimizer momentum --lr 0.05 --momentum 0.9) ;;
    *adam) opt=(--optimizer adam --lr 0.01) ;;
  esac
  name=$(basename "$ref" .npy)
  "$fluidc" opt "$program" "${startup[@]}" --passes=autodiff,optimizer "${train_flags[@]}" "${opt[@]}" \
    --startup-out "$work/$name.startup.pdmodel" -o "$work/$name.pdmodel"
  "$fluidc" build "$work/$name.pdmodel" --startup "$work/$name.startup.pdmodel" -o "$work/$name"
  "$work/$name" "${data[@]}" --params "$params" --batch-size "$batch" --steps 20 --no-shuffle --log-every 20 \
    --losses-out "$work/$name.npy"
  "$compare" "$work/$name.npy" "$ref" --rtol 1e-4
done
