"""Strategy-based abstraction (GS4) on Texas Hold'em: the 169 preflop hands' strategy vectors
read from a stored Hold'em strategy (written by ``solve.holdem.table.write_strategy_table`` on
an abstraction with one preflop bucket per class) against the vectors computed from the
solver's weights on the betting tree by hand, the preflop clustered by L1 k-means, the later
rounds potential-aware, and the refusals. The Hold'em hands are a small stand-in with the real
169 preflop hands (``holdem_hands`` monkeypatched), never the ETL tables."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cli
from abstraction.games import with_leaf_round
from abstraction.hands import GameHands, HandRound
from abstraction.methods import StrategyBased
from abstraction.strategy_features import strategy_vectors, strategy_vectors_with_columns
from schema.strategy import STRATEGY_SCHEMA, with_format
from solve.holdem.buckets import HoldemBuckets
from solve.holdem.game import DECISION, HoldemRules, build_tree
from solve.holdem.table import write_strategy_table

SIZES = (169, 300, 600, 1200)
BUCKETS = "20,40,80,160"


def standin(seed: int = 0) -> GameHands:
    """Texas Hold'em's shape at toy size: 169 preflop hands, then 300 flop and 600 turn hands
    with next-round histograms, the river a ``LeafRound`` as ``holdem_hands`` gives it."""
    rng = np.random.default_rng(seed)
    rounds = []
    for r, n in enumerate(SIZES):
        if r == 0:
            parent, weight = np.full(n, -1), np.full(n, 1.0 / n)
        else:
            prev = rounds[-1]
            parent = np.concatenate([np.arange(SIZES[r - 1]),
                                     rng.integers(0, SIZES[r - 1], n - SIZES[r - 1])])
            weight = prev.weight[parent] / np.bincount(parent, minlength=SIZES[r - 1])[parent]
        hist = None
        if r < len(SIZES) - 1:
            hist = rng.random((n, 8)) ** 3
            hist /= hist.sum(1, keepdims=True)
        rounds.append(HandRound(weight=weight, parent=parent, equity=rng.random(n),
                                histogram=hist))
    return with_leaf_round(GameHands("holdem", tuple(rounds)))


def run(d, *argv) -> int:
    return cli.main(["--data-dir", str(d), *argv])


def solve_on(d, abstraction: str, name: str, seed: int, n_rounds: int = 2, zero=()):
    """A made-up Hold'em strategy on stored abstraction ``abstraction`` (its preflop and flop
    buckets), written as ``solve --game holdem`` writes one: random average weights, with the
    ``zero`` (node, action) pairs never played by every bucket and the first bucket's root
    weights all zero (the writer's uniform default). Returns (tree, buckets, average, offset)."""
    folder = d / "abstractions" / abstraction
    t = pq.read_table(folder / "round0.parquet")
    pre = np.empty(t.num_rows, np.int64)
    pre[t.column("hand").to_numpy()] = t.column("bucket").to_numpy()
    th = pq.read_table(folder / "thresholds.parquet").to_pandas()
    parents = [th[th["round"] == r].sort_values("bucket")["parent_bucket"].to_numpy()
               for r in range(n_rounds)]
    buckets = HoldemBuckets.from_arrays(abstraction, [pre] + [np.zeros(1)] * (n_rounds - 1),
                                        parents)
    tree = build_tree(HoldemRules(n_rounds=n_rounds))
    offset, size = tree.offsets(buckets.n_buckets)
    rng = np.random.default_rng(seed)
    average = rng.random(size).astype(np.float32)
    for node, a in zero:
        kb = buckets.n_buckets[tree.round[node]]
        average[offset[node, 0] + np.arange(kb) * offset[node, 1] + a] = 0
    average[offset[0, 0]:offset[0, 0] + tree.nact[0]] = 0
    out = d / "strategies" / name
    out.mkdir(parents=True, exist_ok=True)
    write_strategy_table(out / "strategy.parquet", name, tree, buckets, average, offset)
    (out / "run.json").write_text(json.dumps({"abstraction": abstraction}))
    return tree, buckets, average, offset


def node_of(tree, history: str) -> int:
    return next(n for n in tree.decision_nodes() if tree.history[n] == history)


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A stored stand-in abstraction with the 169 preflop classes (pa, 169 buckets), one with
    20 preflop buckets, and a made-up strategy on each."""
    d = tmp_path_factory.mktemp("gs4-holdem")
    mp = pytest.MonkeyPatch()
    game = standin()
    mp.setattr("abstraction.games.holdem_hands", lambda *a, **k: game)
    try:
        for name, buckets in (("pre169", "169,200,300,400"), ("pre20", BUCKETS)):
            assert run(d, "build-abstraction", "--game", "holdem", "--method", "pa",
                       "--buckets", buckets, "--name", name, "--n-init", "1",
                       "--workers", "1") == 0
    finally:
        mp.undo()
    tree = build_tree(HoldemRules(n_rounds=2))
    # the big blind never raises after the small blind's call, the small blind never re-raises
    zero = [(node_of(tree, "c"), 1), (node_of(tree, "rr"), 2)]
    solution = solve_on(d, "pre169", "s169", seed=1, zero=zero)
    solve_on(d, "pre20", "s20", seed=2)
    return d, game, solution


def test_preflop_vectors_are_the_hands_realisation_plans(solved):
    """Every entry recomputed from the solver's weights on the betting tree: the hand's own
    probability of every action at its own earlier preflop decisions on the path, times its
    probability of the column's action, with the hand's bucket in the strategy's abstraction."""
    d, _, (tree, buckets, average, offset) = solved
    ((vec, columns),) = strategy_vectors_with_columns(d, "s169")
    pre = buckets.arrays[0]  # the preflop bucket of each of the 169 classes
    assert len(set(pre.tolist())) == 169 and not np.array_equal(pre, np.arange(169))

    def prob(n, b, a):
        w = average[offset[n, 0] + b * offset[n, 1] + np.arange(tree.nact[n])].astype(float)
        return w[a] / w.sum() if w.sum() > 0 else 1.0 / tree.nact[n]

    preflop = [n for n in tree.decision_nodes() if tree.round[n] == 0]
    want_cols = {(tree.history[n], int(tree.player[n]), name)
                 for n in preflop for name in tree.action_names(n)}
    assert set(columns) == want_cols and len(columns) == len(want_cols) == 21
    assert vec.shape == (169, 21)
    for j, (history, seat, action) in enumerate(columns):
        n = node_of(tree, history)
        assert tree.round[n] == 0 and tree.player[n] == seat
        a = tree.action_names(n).index(action)
        for i in range(169):
            b = int(pre[i])
            want = prob(n, b, a)
            child, m = n, int(tree.parent[n])
            while m >= 0:  # the seat's own decisions on the path to n
                if tree.player[m] == seat:
                    want *= prob(m, b, list(tree.child[m]).index(child))
                child, m = m, int(tree.parent[m])
            assert vec[i, j] == pytest.approx(want, abs=1e-6), (i, columns[j])
    # the root is the small blind's whole strategy there (uniform for the all-zero bucket)
    root = [j for j, c in enumerate(columns) if c[0] == ""]
    np.testing.assert_allclose(vec[:, root].sum(1), 1.0, atol=1e-6)
    np.testing.assert_allclose(vec[pre == 0][:, root], 1 / 3, atol=1e-6)
    # a never-played action cuts the seat's reach below it
    cut = [j for j, c in enumerate(columns) if c[0].startswith("cr") and c[1] == 1]
    assert len(cut) == 3 and np.all(vec[:, cut] == 0)  # the big blind's fold/call/raise at crr
    kept = [j for j, c in enumerate(columns) if c[0] == "cr" and c[1] == 0]
    assert len(kept) == 3 and np.all(vec[:, kept].sum(1) > 0)  # the small blind still gets there
    assert np.array_equal(strategy_vectors(d, "s169", game="holdem")[0], vec)


def test_preflop_clusters_are_l1_nearest_centres(solved):
    d, game, _ = solved
    vec = strategy_vectors(d, "s169", game="holdem")[0]
    model = StrategyBased((20, 40, 80, 160), vectors=[vec], n_init=1, random_state=3).fit(game)
    pre = model.rounds_[0]
    assert pre.n_buckets == 20 and model.buckets_ == (20, 40, 80, 160)
    centres = np.array(pre.centroids)
    dist = np.abs(vec[:, None, :] - centres[None, :, :]).sum(-1)
    assert np.array_equal(pre.bucket, dist.argmin(1))  # each class at its L1-nearest centre
    for r in (1, 2):  # later rounds nested under the preflop buckets, as pa builds them
        prev = model.rounds_[r - 1].bucket[game.rounds[r].parent]
        assert np.array_equal(model.rounds_[r].parent[model.rounds_[r].bucket], prev)
    assert model.rounds_[3].parent.min() >= 0


def test_hands_with_equal_vectors_share_a_bucket(solved):
    _, game, _ = solved
    rng = np.random.default_rng(7)
    kind = rng.permutation(np.arange(169) % 12)
    protos = rng.random((12, 21))
    model = StrategyBased((12, 40, 80, 160), vectors=[protos[kind]], n_init=1).fit(game)
    b = model.rounds_[0].bucket
    pairs = np.unique(np.stack([kind, b], 1), axis=0)
    assert len(pairs) == 12 and len(set(b.tolist())) == 12  # one bucket per kind


def test_build_abstraction_from_a_holdem_strategy(solved, monkeypatch, capsys):
    d, game, _ = solved
    monkeypatch.setattr("abstraction.games.holdem_hands", lambda *a, **k: game)
    argv = ["build-abstraction", "--game", "holdem", "--method", "strategy", "--from-strategy",
            "s169", "--buckets", BUCKETS, "--n-init", "1", "--workers", "1", "--seed", "4"]
    assert run(d, *argv, "--name", "gs4") == 0
    assert run(d, *argv, "--strategy-rounds", "1", "--name", "gs4-again") == 0
    capsys.readouterr()
    vec = strategy_vectors(d, "s169", game="holdem")[0]
    direct = StrategyBased((20, 40, 80, 160), vectors=[vec], n_init=1, random_state=4,
                           kmax_factor=3.0).fit(game)
    for r in range(3):
        a = pq.read_table(d / "abstractions" / "gs4" / f"round{r}.parquet").column("bucket")
        b = pq.read_table(d / "abstractions" / "gs4-again" / f"round{r}.parquet").column("bucket")
        assert a.equals(b)
        if r == 0:
            assert np.array_equal(a.to_numpy(), direct.rounds_[0].bucket)
    assert run(d, "abstractions", "--format", "json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert run(d, "abstractions", "--json") == 0  # the same one JSON array
    assert json.loads(capsys.readouterr().out) == rows
    assert {"gs4", "gs4-again"} <= {r["name"] for r in rows}
    assert [r["method"] for r in rows if r["name"] == "gs4"] == ["strategy"]


def _ri_table(d, name):
    """A one-row Rhode Island strategy table on an abstraction."""
    out = d / "strategies" / name
    out.mkdir(parents=True, exist_ok=True)
    cols = {"strategy": [name], "game": ["rhode-island"], "abstraction": ["ab"], "round": [0],
            "player": [0], "cards": ["0"], "history": [""], "action": ["check"],
            "probability": [1.0]}
    t = pa.table({k: pa.array(v, STRATEGY_SCHEMA.field(k).type) for k, v in cols.items()},
                 schema=with_format(STRATEGY_SCHEMA, "compiled"))
    pq.write_table(t, out / "strategy.parquet")


@pytest.mark.parametrize("game, extra, message", [
    ("holdem", ["--from-strategy", "s20"],
     "the strategy's abstraction 'pre20' has 20 preflop buckets; GS4 on holdem reads a "
     "strategy solved with the 169 preflop classes"),
    ("holdem", ["--from-strategy", "s169", "--strategy-rounds", "2"],
     "--strategy-rounds: on holdem only the preflop (1, the default)"),
    ("holdem", ["--from-strategy", "s169", "--strategy-rounds", "1,2"],
     "--strategy-rounds: on holdem only the preflop"),
    ("holdem", ["--from-strategy", "s169", "--strategy-rounds", "5"],
     "--strategy-rounds: holdem has rounds 1..4"),
    ("holdem", ["--from-strategy", "ri"],
     "--from-strategy: strategy 'ri' is a rhode-island strategy; a holdem build reads a "
     "holdem strategy"),
    ("rhode-island", ["--from-strategy", "s169"],
     "--from-strategy: strategy 's169' is a holdem strategy; a rhode-island build reads a "
     "rhode-island strategy"),
    ("holdem", ["--from-strategy", "synth"], "'synthetic-169-338' is not stored"),
    ("holdem", ["--from-strategy", "nope"], "--from-strategy: no strategy 'nope'"),
    ("holdem", [], "needs --from-strategy NAME (a holdem strategy solved on an abstraction "
                   "with the 169 preflop classes)"),
])
def test_refusals_are_one_line_before_any_table_is_read(solved, monkeypatch, capsys, game,
                                                        extra, message):
    d, _, (tree, buckets, average, offset) = solved
    if not (d / "strategies" / "ri").exists():
        _ri_table(d, "ri")
        synth = HoldemBuckets.from_arrays("synthetic-169-338", list(buckets.arrays[:2]),
                                          buckets.parents)
        (d / "strategies" / "synth").mkdir()
        write_strategy_table(d / "strategies" / "synth" / "strategy.parquet", "synth", tree,
                             synth, average, offset)

    def no_hands(*a, **k):
        raise AssertionError("the hands were loaded")

    monkeypatch.setattr("abstraction.games.holdem_hands", no_hands)
    buckets_arg = BUCKETS if game == "holdem" else "13,25,125"
    rc = run(d, "build-abstraction", "--game", game, "--method", "strategy", "--buckets",
             buckets_arg, "--name", "bad", *extra)
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error:") and "\n" not in err, err
    assert message in err, err
    assert not (d / "abstractions" / "bad").exists() and not (d / "tables").exists()


def test_the_method_refuses_later_holdem_rounds(solved):
    _, game, _ = solved
    vec = np.eye(169)
    with pytest.raises(ValueError, match=r"clusters only round\(s\) 0"):
        StrategyBased((20, 40, 80, 160), vectors=[vec, np.eye(300)], rounds=(0, 1)).fit(game)
    with pytest.raises(ValueError, match="rows for the 169 hands of round 0"):
        StrategyBased((20, 40, 80, 160), vectors=[np.eye(13)]).fit(game)
