#!/usr/bin/env python3
"""A whole Fluid 1.x beam-search decoding program (the machine-translation book's `decode`), built with
paddle.static in Paddle 2.6.2 with fixed synthesized weights, saved for inference and run by Paddle:

  encoder   src words (int64, LoD level 1) -> embedding -> sequence_pool(sum) -> fc tanh = one state per source
  decoder   While(counter < MAX_LEN and the last step selected something):
              pre_ids/pre_state/pre_score = read_from_array(step counter)
              state = fc tanh([sequence_expand(pre_state, pre_score), embedding(pre_ids)]), lod_reset to pre_score's
              probs = fc softmax(state); topk; accumulated = log(topk) + pre_score (axis 0)
              selected = beam_search(pre_ids, pre_score, topk ids, accumulated)
              write_to_array(state / selected ids / selected scores, counter + 1)
            beam_search_decode(ids array, scores array) -> sentences
  feeds     src (LoD 1), init_ids / init_scores (LoD 2: one start prefix per source)

beam_decoder_infer/: model.pdmodel/.pdiparams; for each case C: inputs/<feed>_C.npy (+ .lod<l>.npy) and
Paddle's expected/<fetch>_C.npy (+ .lod<l>.npy). `exact` lists the sentence ids (compared exactly); scores
within 1e-5 relative (test/e2e/lod_infer_case.sh), every LoD exactly.

  python3 tools/fixtures_beam_decoder.py   # rewrites test/fixtures/beam_decoder_infer/
"""

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.static.nn as snn

SCRIPT = __file__
VOCAB, EMB, HIDDEN, BEAM, MAX_LEN, START, END, END_BIAS = 12, 6, 8, 3, 8, 0, 1, 1.5
NAME = "beam_decoder_infer"


def weights(name, shape, scale, seed, end_bias=0.0):
    """A fixed parameter: uniform(-scale, scale) from its own seed (no training); `end_bias` is added to
    the output bias's END entry, so that beams end at different steps and every beam of some sources ends
    before MAX_LEN (those are dropped; the loop stops early once nothing is selected)."""
    value = np.random.RandomState(seed).uniform(-scale, scale, size=shape).astype(np.float32)
    if end_bias:
        value[END] += end_bias
    return paddle.ParamAttr(name=name, initializer=paddle.nn.initializer.Assign(value))


def embedding(ids, name, seed):
    return paddle.static.nn.embedding(ids, size=[VOCAB, EMB], param_attr=weights(name, [VOCAB, EMB], 1.0, seed))


def build():
    src = paddle.static.data("src", [-1, 1], "int64", lod_level=1)
    init_ids = paddle.static.data("init_ids", [-1, 1], "int64", lod_level=2)
    init_scores = paddle.static.data("init_scores", [-1, 1], "float32", lod_level=2)
    src_emb = embedding(src, "src_emb", 1)
    context = snn.fc(snn.sequence_pool(src_emb, "sum"), HIDDEN, activation="tanh",
                     weight_attr=weights("enc_w", [EMB, HIDDEN], 0.8, 2), bias_attr=weights("enc_b", [HIDDEN], 0.2, 3))

    array_len = paddle.full([1], MAX_LEN, "int64")
    counter = paddle.zeros([1], "int64")
    state_array = paddle.tensor.create_array("float32")
    ids_array = paddle.tensor.create_array("int64")
    scores_array = paddle.tensor.create_array("float32")
    paddle.tensor.array_write(context, counter, state_array)
    paddle.tensor.array_write(init_ids, counter, ids_array)
    paddle.tensor.array_write(init_scores, counter, scores_array)
    cond = paddle.less_than(counter, array_len)
    loop = snn.control_flow.While(cond)
    with loop.block():
        pre_ids = paddle.tensor.array_read(ids_array, counter)
        pre_state = paddle.tensor.array_read(state_array, counter)
        pre_score = paddle.tensor.array_read(scores_array, counter)
        pre_state_expanded = snn.sequence_expand(pre_state, pre_score)
        pre_ids_emb = embedding(pre_ids, "trg_emb", 4)
        state = snn.fc([pre_state_expanded, pre_ids_emb], HIDDEN, activation="tanh",
                       weight_attr=[weights("dec_ws", [HIDDEN, HIDDEN], 0.8, 5), weights("dec_we", [EMB, HIDDEN], 0.8, 6)],
                       bias_attr=weights("dec_b", [HIDDEN], 0.2, 7))
        state_lod = fl.append_op("lod_reset", {"X": state, "Y": pre_score}, {"Out": "float32"}, {"append": False})["Out"]
        probs = snn.fc(state_lod, VOCAB, activation="softmax", weight_attr=weights("out_w", [HIDDEN, VOCAB], 1.5, 8),
                       bias_attr=weights("out_b", [VOCAB], 0.5, 9, END_BIAS))
        topk_scores, topk_ids = paddle.topk(probs, k=BEAM)
        accumulated = paddle.add(paddle.log(topk_scores), paddle.reshape(pre_score, [-1, 1]))
        sel = fl.append_op("beam_search", {"pre_ids": pre_ids, "pre_scores": pre_score, "ids": topk_ids,
                                     "scores": accumulated},
                     {"selected_ids": "int64", "selected_scores": "float32", "parent_idx": "int32"},
                     {"level": 0, "beam_size": BEAM, "end_id": END, "is_accumulated": True})
        paddle.increment(counter, 1)
        paddle.tensor.array_write(state, counter, state_array)
        paddle.tensor.array_write(sel["selected_ids"], counter, ids_array)
        paddle.tensor.array_write(sel["selected_scores"], counter, scores_array)
        go_on = paddle.logical_and(paddle.less_than(counter, array_len),
                                   paddle.logical_not(paddle.is_empty(sel["selected_ids"])))
        paddle.assign(go_on, cond)
    out = fl.append_op("beam_search_decode", {"Ids": ids_array, "Scores": scores_array},
                 {"SentenceIds": "int64", "SentenceScores": "float32"}, {"beam_size": BEAM, "end_id": END})
    return [src, init_ids, init_scores], [out["SentenceIds"], out["SentenceScores"]]


def lod_tensor(arr, lengths):
    t = paddle.base.core.LoDTensor()
    t.set(arr, paddle.CPUPlace())
    t.set_recursive_sequence_lengths(lengths)
    return t


def offsets(lengths):
    return [np.concatenate([[0], np.cumsum(level)]).astype(np.int64) for level in lengths]


def main():
    out_dir = fl.fresh_dir(fl.FIXTURES / NAME)
    with fl.new_programs() as (main_prog, startup):
        feeds, fetch = build()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        paddle.static.save_inference_model(str(out_dir / "model"), feeds, fetch, exe, program=main_prog)
    fl.sanitize_model_file(out_dir / "model.pdmodel")
    rng = np.random.RandomState(5)
    cases = {}
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, feed_names, targets = paddle.static.load_inference_model(str(out_dir / "model"), exe)
        # The binary's file name for a fetch: '/' as '_' (runtime/var_file_name.h).
        fetch_names = [t.name.replace("/", "_") for t in targets]
        for case, src_lengths in [("b1", [4]), ("b3", [3, 1, 5])]:
            n = len(src_lengths)
            words = rng.randint(2, VOCAB, size=(sum(src_lengths), 1)).astype(np.int64)
            start_lengths = [[1] * n, [1] * n]
            values = {"src": (words, [src_lengths]), "init_ids": (np.full((n, 1), START, np.int64), start_lengths),
                      "init_scores": (np.zeros((n, 1), np.float32), start_lengths)}
            for feed, (arr, lengths) in values.items():
                fl.save_npy(out_dir / "inputs" / f"{feed}_{case}.npy", arr)
                for level, offs in enumerate(offsets(lengths)):
                    fl.save_npy(out_dir / "inputs" / f"{feed}_{case}.lod{level}.npy", offs)
            vals = exe.run(prog, feed={k: lod_tensor(*v) for k, v in values.items()}, fetch_list=targets,
                           return_numpy=False)
            for name, v in zip(fetch_names, vals):
                fl.save_npy(out_dir / "expected" / f"{name}_{case}.npy", np.asarray(v))
                for level, offs in enumerate(v.lod()):
                    fl.save_npy(out_dir / "expected" / f"{name}_{case}.lod{level}.npy", np.asarray(offs, np.int64))
            cases[case] = {"src_lengths": src_lengths, "ids": np.asarray(vals[0]).ravel().tolist(),
                           "lod": [list(map(int, level)) for level in vals[0].lod()]}
    (out_dir / "exact").write_text(fetch_names[0] + "\n")
    model_bytes = (out_dir / "model.pdmodel").read_bytes()
    fl.write_json(out_dir / "meta.json", {
        "kind": "inference", "name": NAME, "script": fl.rel(SCRIPT), **fl.versions(), "feed_names": feed_names,
        "fetch_names": fetch_names, "cases": cases, "beam_size": BEAM, "max_len": MAX_LEN, "end_id": END,
        "tolerance": "sentence ids and every LoD exactly; scores within 1e-5 relative, 1e-7 absolute",
        "ops": fl.op_types(model_bytes)})
    print(f"{NAME}: fetches {fetch_names}: {cases}")


if __name__ == "__main__":
    main()
