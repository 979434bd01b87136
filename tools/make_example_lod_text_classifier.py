#!/usr/bin/env python3
"""Program, parameter and data files for examples/lod_text_classifier: a Fluid-style text classifier on LoD input.

The data is synthetic (made here, seeded): 50 word ids; ids 10..29 are four classes' keywords (5 each), the
rest filler. A sentence has 1..12 words, two or three of them keywords of its class (at random places); its
label is that class. 800 training and 200 test sentences, as a word-id column data/<split>_words.npy with its
sequence offsets data/<split>_words.lod0.npy (fluidc's --lod form) and labels data/<split>_label.npy.

The model is tools/fixtures_lod_train.py's lod_text_classifier: lookup_table v1 (50, 16) -> sequence_pool
AVERAGE and MAX -> fc 16 tanh -> fc 4 -> cross_entropy; Adam 0.01; batches of 32 sentences.

examples/lod_text_classifier/: main.pdmodel, startup.pdmodel, init.pdiparams (training), model.pdmodel (the
inference program, softmax probabilities, saved by save_inference_model), paddle_reference.json: Paddle's
per-epoch losses and test accuracy training the same program from the same weights on the same batches.

  python3 tools/make_example_lod_text_classifier.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F
import paddle.static.nn as snn
from fixtures_lod_train import embedding_v1

SCRIPT = __file__
VOCAB, CLASSES, BATCH, EPOCHS = 50, 4, 32, 5


def sentences(rng, n):
    lengths, words, labels = [], [], []
    for _ in range(n):
        c = rng.randint(CLASSES)
        length = rng.randint(1, 13)
        s = list(rng.choice(list(range(0, 10)) + list(range(30, VOCAB)), size=length))
        for _ in range(min(length, rng.randint(2, 4))):
            s[rng.randint(length)] = 10 + 5 * c + rng.randint(5)
        lengths.append(length)
        words += s
        labels.append(c)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return (np.array(words, dtype=np.int64).reshape(-1, 1), offsets,
            np.array(labels, dtype=np.int64).reshape(-1, 1))


def lod_tensor(words, offsets, a, b):
    t = paddle.base.core.LoDTensor()
    t.set(words[offsets[a]:offsets[b]], paddle.CPUPlace())
    t.set_recursive_sequence_lengths([list(np.diff(offsets[a:b + 1]))])
    return t


def main():
    out = fl.EXAMPLES / "lod_text_classifier"
    rng = np.random.RandomState(16)
    train = sentences(rng, 800)
    test = sentences(rng, 200)
    for split, (w, o, y) in [("train", train), ("test", test)]:
        fl.save_npy(out / "data" / f"{split}_words.npy", w)
        fl.save_npy(out / "data" / f"{split}_words.lod0.npy", o)
        fl.save_npy(out / "data" / f"{split}_label.npy", y)

    with fl.new_programs() as (main_prog, startup):
        words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
        label = paddle.static.data("label", [-1, 1], "int64")
        emb = embedding_v1(words, 16, is_sparse=False)
        h = paddle.concat([snn.sequence_pool(emb, "average"), snn.sequence_pool(emb, "max")], axis=1)
        logits = snn.fc(snn.fc(h, 16, activation="tanh"), CLASSES)
        loss = paddle.mean(F.cross_entropy(logits, label))
        test_prog = main_prog.clone(for_test=True)
        with paddle.static.program_guard(test_prog):
            prob = F.softmax(test_prog.global_block().var(logits.name))
        paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    fl.sanitize_program(main_prog)
    fl.sanitize_program(startup)
    (out / "main.pdmodel").write_bytes(fl.serialize(main_prog))
    (out / "startup.pdmodel").write_bytes(fl.serialize(startup))

    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    w, o, y = train
    n = y.shape[0]
    epoch_loss = []
    with paddle.static.scope_guard(scope):
        paddle.seed(fl.SEED)
        exe.run(startup)
        fl.save_persistables(exe, main_prog, out / "init.pdiparams", scope)
        for _ in range(EPOCHS):
            tot = 0.0
            for s in range(0, n, BATCH):
                e = min(n, s + BATCH)
                (l,) = exe.run(main_prog, feed={"words": lod_tensor(w, o, s, e), "label": y[s:e]}, fetch_list=[loss])
                tot += float(l) * (e - s)
            epoch_loss.append(tot / n)
        paddle.static.save_inference_model(str(out / "model"), [test_prog.global_block().var("words")], [prob], exe,
                                           program=test_prog)
        tw, to, ty = test
        (p,) = exe.run(test_prog, feed={"words": lod_tensor(tw, to, 0, ty.shape[0]), "label": ty},
                       fetch_list=[prob])
    (out / "model.pdiparams").unlink()  # the example's classifier reads the weights its own trainer wrote
    fl.sanitize_model_file(out / "model.pdmodel")
    acc = float((np.asarray(p).argmax(1) == ty[:, 0]).mean())
    fl.write_json(out / "paddle_reference.json", {
        "script": fl.rel(SCRIPT), **fl.versions(), "seed": fl.SEED, "batch_size": BATCH, "epochs": EPOCHS,
        "optimizer": {"type": "adam", "learning_rate": 0.01},
        "training_procedure": "Paddle Executor; epochs over the 800 training sentences in file order, no shuffle, "
                              "consecutive batches of 32 sentences",
        "paddle_result": {"train_loss_per_epoch": [round(v, 4) for v in epoch_loss], "test_accuracy": round(acc, 4),
                          "test_correct": int((np.asarray(p).argmax(1) == ty[:, 0]).sum()), "test_rows": 200}})
    print(f"lod_text_classifier: loss {epoch_loss[0]:.3f} -> {epoch_loss[-1]:.3f}, test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
