#!/usr/bin/env python3
"""A BiGRU-CRF sequence tagger on LoD input, the way Fluid 1.x's LAC / NER models build it, written by
Paddle 2.6.2 in static mode: a training fixture (fixturelib layout: main/startup programs, init/final
parameters, 20 losses) and an inference fixture exported from the trained state.

Model (LAC's lex_net with small sizes): lookup_table v1 (50, 16) on LoD word ids -> 2 bi-GRU layers, each
  fc 3*8 -> gru 8, and fc 3*8 -> gru 8 (is_reverse), concatenated along axis 1 -> fc 5 (the emission)
  -> linear_chain_crf (Transition 'crfw' [7, 5], learning rate x0.2) -> mean; crf_decoding on the same
  emission and 'crfw' (LAC computes it in training too, for chunk_eval). fc and gru weights Uniform(-0.1,
  0.1) with L2Decay(1e-4), as LAC's; chunk_eval (IOB) of the decoded path against the tags, as LAC's
  training program has. SGD(0.1), batch 8 sentences.

crf_tagger (training):
  data/words.npy       int64 [rows, 1], every sentence's word ids one after another
  data/words.lod0.npy  int64 offsets of the sentences (lengths 0..7, a few empty)
  data/target.npy      int64 [rows, 1], one tag per word (mostly word % 5: learnable)
  data/target.lod0.npy the same offsets
  Step i feeds sentences [i*8, (i+1)*8) of both, no shuffle (--lod ... --no-shuffle).
crf_tagger_infer (inference, save_inference_model of the for_test clone, Paddle's trained weights):
  model.pdmodel/.pdiparams; for each case C: inputs/words_C.npy + .lod0.npy, and Paddle's
  expected/<fetch>_C.npy (+ .lod0.npy; '/' in a fetch name as '_') for ViterbiPath (int64, with the
  words' LoD) and the emission; `exact` names the fetches compared exactly (the path).

  python3 tools/fixtures_crf_tagger.py
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.static.nn as snn
from paddle.base.layer_helper import LayerHelper

SCRIPT = __file__
BATCH, VOCAB, TAGS, EMB, HIDDEN, LAYERS = 8, 50, 5, 16, 8, 2
INIT = paddle.nn.initializer.Uniform(-0.1, 0.1)
DECAY = paddle.regularizer.L2Decay(1e-4)


def lod_tensor(arr, offsets):
    t = paddle.base.core.LoDTensor()
    t.set(arr, paddle.CPUPlace())
    t.set_recursive_sequence_lengths([list(np.diff(offsets))])
    return t


def embedding_v1(words):
    """Fluid's layers.embedding: a lookup_table (v1) op, [rows, 1] ids -> [rows, EMB]."""
    helper = LayerHelper("embedding")
    w = helper.create_parameter(attr=paddle.ParamAttr(name="word_emb", initializer=INIT), shape=[VOCAB, EMB],
                                dtype="float32")
    out = helper.create_variable_for_type_inference("float32")
    helper.append_op(type="lookup_table", inputs={"Ids": words, "W": w}, outputs={"Out": out},
                     attrs={"is_sparse": False, "padding_idx": -1})
    return out


def dynamic_gru(x, is_reverse, name):
    """Fluid's layers.dynamic_gru: a `gru` op on LoD rows projected to [rows, 3 * HIDDEN]."""
    helper = LayerHelper("gru")
    w = helper.create_parameter(attr=paddle.ParamAttr(name=f"{name}.w", initializer=INIT, regularizer=DECAY),
                                shape=[HIDDEN, 3 * HIDDEN], dtype="float32")
    b = helper.create_parameter(attr=paddle.ParamAttr(name=f"{name}.b"), shape=[1, 3 * HIDDEN], dtype="float32",
                                is_bias=True)
    outs = {k: helper.create_variable_for_type_inference("float32")
            for k in ["Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"]}
    helper.append_op(type="gru", inputs={"Input": x, "Weight": w, "Bias": b}, outputs=outs,
                     attrs={"is_reverse": is_reverse, "gate_activation": "sigmoid", "activation": "tanh",
                            "origin_mode": False})
    return outs["Hidden"]


def fc(x, size, name):
    return snn.fc(x, size, weight_attr=paddle.ParamAttr(name=f"{name}.w", initializer=INIT, regularizer=DECAY),
                  bias_attr=paddle.ParamAttr(name=f"{name}.b"))


def linear_chain_crf(emission, target, transition):
    """Fluid's layers.linear_chain_crf: the per-sentence negative log-likelihood [sentences, 1]."""
    helper = LayerHelper("linear_chain_crf")
    outs = {k: helper.create_variable_for_type_inference("float32")
            for k in ["Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"]}
    helper.append_op(type="linear_chain_crf", inputs={"Emission": emission, "Transition": transition,
                                                      "Label": target}, outputs=outs)
    return outs["LogLikelihood"]


def crf_decoding(emission, transition):
    helper = LayerHelper("crf_decoding")
    path = helper.create_variable_for_type_inference("int64")
    helper.append_op(type="crf_decoding", inputs={"Emission": emission, "Transition": transition},
                     outputs={"ViterbiPath": path})
    return path


def chunk_eval(path, target):
    """Fluid's layers.chunk_eval as LAC runs it on the decoded path: IOB over (TAGS - 1) / 2 chunk types."""
    helper = LayerHelper("chunk_eval")
    names = ["Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks", "NumCorrectChunks"]
    outs = {k: helper.create_variable_for_type_inference("float32" if i < 3 else "int64") for i, k in enumerate(names)}
    helper.append_op(type="chunk_eval", inputs={"Inference": path, "Label": target}, outputs=outs,
                     attrs={"num_chunk_types": (TAGS - 1) // 2, "chunk_scheme": "IOB", "excluded_chunk_types": []})
    return outs


def tagger():
    words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
    target = paddle.static.data("target", [-1, 1], "int64", lod_level=1)
    feature = embedding_v1(words)
    for i in range(LAYERS):
        fwd = dynamic_gru(fc(feature, 3 * HIDDEN, f"l{i}_pre_fwd"), False, f"l{i}_gru_fwd")
        bwd = dynamic_gru(fc(feature, 3 * HIDDEN, f"l{i}_pre_bwd"), True, f"l{i}_gru_bwd")
        feature = paddle.concat([fwd, bwd], axis=1)
    emission = fc(feature, TAGS, "emission")
    helper = LayerHelper("crf")
    transition = helper.create_parameter(attr=paddle.ParamAttr(name="crfw", learning_rate=0.2),
                                         shape=[TAGS + 2, TAGS], dtype="float32")
    path = crf_decoding(emission, transition)
    test_program = paddle.static.default_main_program().clone(for_test=True)
    loss = paddle.mean(linear_chain_crf(emission, target, transition))
    chunk_eval(path, target)
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return {"feeds": [words, target], "loss": loss, "test_program": test_program, "path": path,
            "emission": emission}


def make_data(rng, sentences):
    lengths = rng.randint(1, 8, size=sentences)
    lengths[rng.randint(0, sentences, size=3)] = 0  # a few empty sentences for sure
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    words = rng.randint(0, VOCAB, size=(int(offsets[-1]), 1)).astype(np.int64)
    noise = rng.rand(*words.shape) < 0.2
    target = np.where(noise, rng.randint(0, TAGS, size=words.shape), words % TAGS).astype(np.int64)
    return words, offsets, target


def make_training(words, offsets, target):
    name = "crf_tagger"
    out = fl.fresh_dir(fl.FIXTURES / name)
    with fl.new_programs() as (main, startup):
        built = tagger()
    loss = built["loss"]
    fl.sanitize_program(main)
    fl.sanitize_program(startup)
    main_bytes, startup_bytes = fl.serialize(main), fl.serialize(startup)
    (out / "main.pdmodel").write_bytes(main_bytes)
    (out / "startup.pdmodel").write_bytes(startup_bytes)
    for feed, arr in [("words", words), ("target", target)]:
        fl.save_npy(out / "data" / f"{feed}.npy", arr)
        fl.save_npy(out / "data" / f"{feed}.lod0.npy", offsets)

    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    losses = []
    with paddle.static.scope_guard(scope):
        paddle.seed(fl.SEED)
        exe.run(startup)
        init_info = fl.save_persistables(exe, main, out / "init.pdiparams", scope)
        for i in range(fl.STEPS):
            a, b = i * BATCH, (i + 1) * BATCH
            rows = slice(offsets[a], offsets[b])
            feed = {"words": lod_tensor(words[rows], offsets[a:b + 1]),
                    "target": lod_tensor(target[rows], offsets[a:b + 1])}
            (l,) = exe.run(main, feed=feed, fetch_list=[loss])
            losses.append(np.float32(l))
        fl.save_persistables(exe, main, out / "final.pdiparams", scope)
    assert fl.serialize(main) == main_bytes, "executor mutated main program"
    losses = np.array(losses, dtype=np.float32)
    fl.save_npy(out / "losses.npy", losses)
    fl.write_json(out / "meta.json", {
        "kind": "training", "name": name, "script": fl.rel(SCRIPT), **fl.versions(), "seed": fl.SEED,
        "batch_size": BATCH, "steps": fl.STEPS,
        "feeding": "step i feeds sentences [i*batch_size, (i+1)*batch_size) of words and target (rows by "
                   "data/<feed>.lod0.npy), no shuffle",
        "loss": loss.name, "losses": [float(x) for x in losses], "optimizer": {"type": "sgd", "learning_rate": 0.1},
        "persistables": [n for n, _, _ in init_info], "ops_main": fl.op_types(main_bytes),
        "ops_startup": fl.op_types(startup_bytes),
        "files": ["main.pdmodel", "startup.pdmodel", "init.pdiparams", "final.pdiparams", "losses.npy",
                  "data/words.npy", "data/words.lod0.npy", "data/target.npy", "data/target.lod0.npy"]})
    print(f"{name}: losses {losses[0]:.4f} -> {losses[-1]:.4f}")
    return built, scope, exe


def make_inference(built, scope, exe, rng):
    name = "crf_tagger_infer"
    out = fl.fresh_dir(fl.FIXTURES / name)
    prog = built["test_program"]
    words = prog.global_block().var("words")
    fetch = [prog.global_block().var(built["path"].name), prog.global_block().var(built["emission"].name)]
    with paddle.static.scope_guard(scope):
        paddle.static.save_inference_model(str(out / "model"), [words], fetch, exe, program=prog)
    fl.sanitize_model_file(out / "model.pdmodel")
    model_bytes = (out / "model.pdmodel").read_bytes()

    # Paddle 2.6.2's save_inference_model prunes gru's intermediate outputs (BatchGate, ...), after which
    # its static Executor cannot run the saved model ("No Output(BatchGate) found for GRU operator"; Paddle
    # Inference's predictor can, and gives the same paths). The expectations are the Executor's run of the
    # for_test clone it saved, in the trained scope, recorded under the saved model's fetch names (Paddle
    # adds a scale by 1 before each fetch).
    with paddle.static.scope_guard(paddle.static.Scope()):
        _, feed_names, targets = paddle.static.load_inference_model(str(out / "model"), exe)
        fetch_names = [t.name for t in targets]
    cases = {}
    with paddle.static.scope_guard(scope):
        for case, lengths in [("b1", [6]), ("b5", [3, 0, 7, 1, 5])]:
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            ids = rng.randint(0, VOCAB, size=(int(offsets[-1]), 1)).astype(np.int64)
            fl.save_npy(out / "inputs" / f"words_{case}.npy", ids)
            fl.save_npy(out / "inputs" / f"words_{case}.lod0.npy", offsets)
            vals = exe.run(prog, feed={"words": lod_tensor(ids, offsets)}, fetch_list=fetch, return_numpy=False)
            for fetch_name, v in zip(fetch_names, vals):
                stem = fetch_name.replace("/", "_")  # the binary's file name for a fetch (runtime/var_file_name.h)
                fl.save_npy(out / "expected" / f"{stem}_{case}.npy", np.asarray(v))
                for level, offs in enumerate(v.lod()):
                    fl.save_npy(out / "expected" / f"{stem}_{case}.lod{level}.npy", np.asarray(offs, np.int64))
            cases[case] = {"lengths": lengths, "paths": np.asarray(vals[0]).ravel().tolist()}
    # The decoded paths are compared exactly (test/e2e/lod_infer_case.sh reads this list).
    (out / "exact").write_text(fetch_names[0].replace("/", "_") + "\n")
    fl.write_json(out / "meta.json", {
        "kind": "inference", "name": name, "script": fl.rel(SCRIPT), **fl.versions(), "source_fixture": "crf_tagger",
        "feed_names": feed_names, "fetch_names": fetch_names, "cases": cases,
        "expected_from": "Paddle's Executor running the for_test clone the model was saved from (its Executor cannot "
                         "run the saved model: save_inference_model drops gru's BatchGate outputs)",
        "tolerance": "ViterbiPath and every LoD exactly; the emission within 1e-5 relative, 1e-7 absolute",
        "ops": fl.op_types(model_bytes)})
    print(f"{name}: {len(cases)} cases, fetches {fetch_names}: {cases}")


def main():
    rng = np.random.RandomState(23)
    words, offsets, target = make_data(rng, BATCH * fl.STEPS)
    built, scope, exe = make_training(words, offsets, target)
    make_inference(built, scope, exe, rng)


if __name__ == "__main__":
    main()
