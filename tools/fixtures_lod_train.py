#!/usr/bin/env python3
"""Training fixtures on LoD (sequence) input, written by Paddle 2.6.2 in static mode, in the fixturelib layout
(main/startup programs, init/final parameters, 20 losses) plus the offsets of the sequence feed:

  data/words.npy       int64 [rows, 1], every sequence's word ids one after another
  data/words.lod0.npy  int64 offsets of the sequences into those rows (lengths 0..7: empty ones too)
  data/label.npy       int64 [sequences, 1]
Step i feeds sequences [i*batch, (i+1)*batch) (their rows and their offsets, renumbered from 0), no shuffle:
what the compiled trainer does with --lod words=data/words.lod0.npy --no-shuffle.

lod_text_classifier: lookup_table v1 (50, 16) -> sequence_pool AVERAGE and MAX, concatenated [-1, 32] -> fc 16 tanh
                     -> fc 4 -> cross_entropy (softmax_with_cross_entropy) mean; Adam(0.01); batch 8.
lod_textcnn:         lookup_table v1 (50, 16, is_sparse) -> sequence_conv(8 filters, window 3, tanh) -> sequence_pool MAX -> fc 4 ->
                     cross_entropy mean; Momentum(0.1, 0.9); batch 8.
lod_bigru:           lookup_table v1 (50, 16) -> fc 24 -> gru 8 -> sequence_pool LAST, and fc 24 -> gru 8 (is_reverse)
                     -> sequence_pool FIRST, concatenated [-1, 16] -> fc 4 -> cross_entropy mean; Adam(0.01); batch 8.

  python3 tools/fixtures_lod_train.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F
import paddle.static.nn as snn
from paddle.base.layer_helper import LayerHelper

SCRIPT = __file__
BATCH, VOCAB, CLASSES = 8, 50, 4


def embedding_v1(words, dim, is_sparse):
    """Fluid 1.x's embedding: a lookup_table (v1) op, [rows, 1] ids -> [rows, dim] (what the 2.6 API no longer
    writes; snn.embedding writes lookup_table_v2, [rows, 1, dim])."""
    helper = LayerHelper("embedding")
    w = helper.create_parameter(attr=paddle.ParamAttr(name="emb.w"), shape=[VOCAB, dim], dtype="float32")
    out = helper.create_variable_for_type_inference("float32")
    helper.append_op(type="lookup_table", inputs={"Ids": words, "W": w}, outputs={"Out": out},
                     attrs={"is_sparse": is_sparse, "padding_idx": -1})
    return out


def classifier():
    words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
    label = paddle.static.data("label", [-1, 1], "int64")
    emb = embedding_v1(words, 16, is_sparse=False)
    h = paddle.concat([snn.sequence_pool(emb, "average"), snn.sequence_pool(emb, "max")], axis=1)
    logits = snn.fc(snn.fc(h, 16, activation="tanh"), CLASSES)
    loss = paddle.mean(F.cross_entropy(logits, label))
    paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return {"feeds": [words, label], "loss": loss}


def textcnn():
    words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
    label = paddle.static.data("label", [-1, 1], "int64")
    emb = embedding_v1(words, 16, is_sparse=True)
    conv = snn.sequence_conv(emb, num_filters=8, filter_size=3, act="tanh")
    logits = snn.fc(snn.sequence_pool(conv, "max"), CLASSES)
    loss = paddle.mean(F.cross_entropy(logits, label))
    paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
    return {"feeds": [words, label], "loss": loss}


def dynamic_gru(x, size, is_reverse, name):
    """Fluid 1.x's dynamic_gru: a `gru` op on LoD rows already projected to [rows, 3 * size] (the 2.6 API no
    longer writes it); Weight [size, 3 * size] and Bias [1, 3 * size] are parameters."""
    helper = LayerHelper("gru")
    w = helper.create_parameter(attr=paddle.ParamAttr(name=f"{name}.w"), shape=[size, 3 * size], dtype="float32")
    b = helper.create_parameter(attr=paddle.ParamAttr(name=f"{name}.b"), shape=[1, 3 * size], dtype="float32",
                                is_bias=True)
    outs = {k: helper.create_variable_for_type_inference("float32")
            for k in ["Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"]}
    helper.append_op(type="gru", inputs={"Input": x, "Weight": w, "Bias": b}, outputs=outs,
                     attrs={"is_reverse": is_reverse, "gate_activation": "sigmoid", "activation": "tanh",
                            "origin_mode": False})
    return outs["Hidden"]


def bigru():
    words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
    label = paddle.static.data("label", [-1, 1], "int64")
    emb = embedding_v1(words, 16, is_sparse=False)
    fwd = dynamic_gru(snn.fc(emb, 3 * 8), 8, False, "gru_fwd")
    bwd = dynamic_gru(snn.fc(emb, 3 * 8), 8, True, "gru_bwd")
    # Each direction's final state (senta's bi-RNN classifiers: pool, then concat the dense rows).
    h = paddle.concat([snn.sequence_pool(fwd, "last"), snn.sequence_pool(bwd, "first")], axis=1)
    logits = snn.fc(h, CLASSES)
    loss = paddle.mean(F.cross_entropy(logits, label))
    paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return {"feeds": [words, label], "loss": loss}


def make_data(rng, sequences):
    lengths = rng.randint(0, 8, size=sequences)
    lengths[rng.randint(0, sequences, size=3)] = 0  # a few empty sequences for sure
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    words = rng.randint(0, VOCAB, size=(int(offsets[-1]), 1)).astype(np.int64)
    label = rng.randint(0, CLASSES, size=(sequences, 1)).astype(np.int64)
    return words, offsets, label


def make_fixture(name, build, optimizer, words, offsets, label):
    out = fl.fresh_dir(fl.FIXTURES / name)
    with fl.new_programs() as (main, startup):
        built = build()
    loss = built["loss"]
    fl.sanitize_program(main)
    fl.sanitize_program(startup)
    main_bytes, startup_bytes = fl.serialize(main), fl.serialize(startup)
    (out / "main.pdmodel").write_bytes(main_bytes)
    (out / "startup.pdmodel").write_bytes(startup_bytes)
    fl.save_npy(out / "data" / "words.npy", words)
    fl.save_npy(out / "data" / "words.lod0.npy", offsets)
    fl.save_npy(out / "data" / "label.npy", label)

    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    losses = []
    with paddle.static.scope_guard(scope):
        paddle.seed(fl.SEED)
        exe.run(startup)
        init_info = fl.save_persistables(exe, main, out / "init.pdiparams", scope)
        for i in range(fl.STEPS):
            a, b = i * BATCH, (i + 1) * BATCH
            t = paddle.base.core.LoDTensor()
            t.set(words[offsets[a]:offsets[b]], paddle.CPUPlace())
            t.set_recursive_sequence_lengths([list(np.diff(offsets[a:b + 1]))])
            (l,) = exe.run(main, feed={"words": t, "label": label[a:b]}, fetch_list=[loss])
            losses.append(np.float32(l))
        fl.save_persistables(exe, main, out / "final.pdiparams", scope)
    assert fl.serialize(main) == main_bytes, "executor mutated main program"
    losses = np.array(losses, dtype=np.float32)
    fl.save_npy(out / "losses.npy", losses)
    fl.write_json(out / "meta.json", {
        "kind": "training", "name": name, "script": fl.rel(SCRIPT), **fl.versions(), "seed": fl.SEED,
        "batch_size": BATCH, "steps": fl.STEPS,
        "feeding": "step i feeds sequences [i*batch_size, (i+1)*batch_size) of words (rows by data/words.lod0.npy) "
                   "and the same rows of label, no shuffle",
        "loss": loss.name, "losses": [float(x) for x in losses], "optimizer": optimizer,
        "persistables": [n for n, _, _ in init_info], "ops_main": fl.op_types(main_bytes),
        "ops_startup": fl.op_types(startup_bytes),
        "files": ["main.pdmodel", "startup.pdmodel", "init.pdiparams", "final.pdiparams", "losses.npy",
                  "data/words.npy", "data/words.lod0.npy", "data/label.npy"]})
    print(f"{name}: losses {losses[0]:.4f} -> {losses[-1]:.4f}")


def main():
    rng = np.random.RandomState(16)
    words, offsets, label = make_data(rng, BATCH * fl.STEPS)
    make_fixture("lod_text_classifier", classifier, {"type": "adam", "learning_rate": 0.01}, words, offsets, label)
    make_fixture("lod_textcnn", textcnn, {"type": "momentum", "learning_rate": 0.1, "momentum": 0.9}, words,
                 offsets, label)
    make_fixture("lod_bigru", bigru, {"type": "adam", "learning_rate": 0.01}, words, offsets, label)


if __name__ == "__main__":
    main()
