"""The exact best response in the real game (solve/holdem/best_response.py) against brute force
over every deal of a reduced deck, the always-call closed form, suit isomorphism, resume."""

import json
from itertools import combinations

import numpy as np
import pytest

from etl._eval_kernels import eval7
from etl.isomorphism import HandIndexer
from holdem_small import DECK10, every_board, small_buckets, small_buckets_imperfect
from queries import holdem_compare
from schema.errors import UserError
from schema.progress import force_mode
from solve.holdem import best_response as BR
from solve.holdem.buckets import HoldemBuckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.evaluate import Policy, board_lbr_values
from solve.holdem.game import FOLD_END, SHOWDOWN, HoldemRules, build_tree

#: twelve cards: queen to ace in all four suits (every suit renaming maps it onto itself)
DECK12 = np.array([r * 4 + s for r in range(10, 13) for s in range(4)])


@pytest.fixture(scope="module")
def buckets4():
    return small_buckets()


def random_policy(tree, b, seed, sparse=False):
    off, size = tree.offsets(b.n_buckets)
    w = np.random.default_rng(seed).random(size)
    if sparse:  # some actions never taken, some buckets all zero (uniform)
        w[w < 0.4] = 0.0
    return Policy.table("r", tree, b, w.astype(np.float32))


# --- brute force: every deal listed, the per-information-set maximum on the tree ------------

def all_deals(deck):
    rows = []
    for h0 in combinations(deck, 2):
        r0 = [c for c in deck if c not in h0]
        for h1 in combinations(r0, 2):
            r1 = [c for c in r0 if c not in h1]
            for f in combinations(r1, 3):
                r2 = [c for c in r1 if c not in f]
                for t in r2:
                    for rv in r2:
                        if rv != t:
                            rows.append((*h0, *h1, *f, t, rv))
    return np.array(rows, dtype=np.int64)


def deal_buckets(b, deals, seat):
    hole = deals[:, 2 * seat:2 * seat + 2]
    out = np.zeros((len(deals), 4), np.int64)
    out[:, 0] = b.arrays[0][HandIndexer((2,)).index(hole)]
    out[:, 1] = b.arrays[1][HandIndexer((2, 3)).index(np.hstack([hole, deals[:, 4:7]]))]
    out[:, 2] = b.arrays[2][HandIndexer((2, 3, 1)).index(np.hstack([hole, deals[:, 4:8]]))]
    key = b.river_key[HandIndexer((2, 5)).index(np.hstack([hole, deals[:, 4:9]]))]
    out[:, 3] = b.arrays[3][out[:, 2] * b.river_stride + key]
    return out


class Brute:
    """Per deal: both seats' buckets, the showdown result, and each seat's information set
    per round (its hole cards and the board seen) as an integer key."""

    def __init__(self, deck, b, deals_of: "Brute | None" = None):
        """``deals_of``: a Brute of the same deck whose deals, results and information sets
        are reused (only the buckets differ)."""
        d = all_deals(deck)
        self.n = len(d)
        self.bkt = [deal_buckets(b, d, s) for s in range(2)]
        if deals_of is not None:
            self.sign0, self.keys = deals_of.sign0, deals_of.keys
            return
        v = np.array([[eval7(*x[2 * s:2 * s + 2], *x[4:9]) for s in range(2)] for x in d])
        self.sign0 = np.sign(v[:, 0] - v[:, 1]).astype(float)
        self.keys = []
        for s in range(2):
            hole = np.sort(d[:, 2 * s:2 * s + 2], axis=1)
            cols = [hole, np.hstack([hole, np.sort(d[:, 4:7], axis=1)]),
                    np.hstack([hole, np.sort(d[:, 4:7], axis=1), d[:, 7:8]]),
                    np.hstack([hole, np.sort(d[:, 4:7], axis=1), d[:, 7:9]])]
            self.keys.append([np.unique(c, axis=0, return_inverse=True)[1].ravel() for c in cols])


def probs_of(tree, pol, n, buckets):
    """The policy's action probabilities at node n per deal (its definition, in numpy)."""
    k = tree.nact[n]
    if pol.kind != 0:
        want = 1 if pol.kind == 1 or tree.code[n, k - 1] != 2 else 2
        return np.array([np.full(len(buckets), float(tree.code[n, a] == want)) for a in range(k)])
    base = pol.offset[n, 0] + buckets * pol.offset[n, 1]
    w = np.array([pol.weights[base + a] for a in range(k)], dtype=np.float64)
    s = w.sum(axis=0)
    return np.where(s > 0, w / np.where(s > 0, s, 1), 1.0 / k)


def brute_values(tree, pol, bf, p):
    """(best-response chips, the strategy's own chips) of seat p, per-infoset max by brute
    force over every deal."""
    sign = bf.sign0 if p == 0 else -bf.sign0
    o = 1 - p

    def walk(n, reach, own):
        t = tree.ntype[n]
        if t == FOLD_END:
            pay = -tree.spent[n, p] if tree.player[n] == p else tree.spent[n, o]
            return np.full(bf.n, pay), np.full(bf.n, pay)
        if t == SHOWDOWN:
            return tree.spent[n, p] * sign, tree.spent[n, p] * sign
        r, k = tree.round[n], tree.nact[n]
        kids = [tree.child[n, a] for a in range(k)]
        if tree.player[n] == p:
            vals = [walk(c, reach, own) for c in kids]
            key = bf.keys[p][r]
            scores = np.array([np.bincount(key, reach * v[0]) for v in vals])
            choice = np.argmax(scores, axis=0)[key]
            br = np.choose(choice, [v[0] for v in vals])
            pr = probs_of(tree, pol, n, bf.bkt[p][:, r])
            return br, sum(pr[a] * vals[a][1] for a in range(k))
        pr = probs_of(tree, pol, n, bf.bkt[o][:, r])
        vals = [walk(c, reach * pr[a], own) for a, c in enumerate(kids)]
        return (sum(pr[a] * vals[a][0] for a in range(k)),
                sum(pr[a] * vals[a][1] for a in range(k)))

    br, own = walk(0, np.ones(bf.n), None)
    return br.mean(), own.mean()


@pytest.fixture(scope="module")
def brute10(buckets4):
    return Brute(DECK10, buckets4)


@pytest.mark.parametrize("n_rounds,max_bets", [(2, 2), (3, 2), (4, 1)])
def test_exact_best_response_equals_brute_force_on_a_small_deck(buckets4, brute10, n_rounds,
                                                                 max_bets):
    tree = build_tree(HoldemRules(n_rounds=n_rounds, max_bets=max_bets))
    pols = [random_policy(tree, buckets4, 1), random_policy(tree, buckets4, 2, sparse=True)]
    if n_rounds == 2:
        b2 = HoldemBuckets.from_arrays("t2", list(buckets4.arrays[:2]), buckets4.parents[:2])
        s = HoldemCFR(tree, b2, seed=3)
        s.iterate(20_000)
        pols.append(Policy.table("s", tree, buckets4, s.average_))
    for pol in pols:
        got = BR.exact_best_response(tree, pol, deck=DECK10)
        for p in range(2):  # own[1] is -own[0] (the walk values seat 0's own play alone):
            # brute force's seat-1 walk checks that too
            br, own = brute_values(tree, pol, brute10, p)
            assert got.br[p] == pytest.approx(br, abs=1e-9, rel=0)
            assert got.own[p] == pytest.approx(own, abs=1e-9, rel=0)
        assert got.br[0] + got.br[1] >= -1e-12  # a zero-sum game: exploitability >= 0


def test_imperfect_recall_equals_brute_force(brute10):
    """An imperfect-recall abstraction (the river bucket of a river hand whatever the turn
    bucket, ``river_stride`` 0, no parents) looked up as the kernels do agrees with brute force
    too (its deals' buckets by the lookups' definition)."""
    b = small_buckets_imperfect()
    assert not b.perfect_recall and b.river_stride == 0
    bf = Brute(DECK10, b, deals_of=brute10)
    tree = build_tree(HoldemRules(n_rounds=4, max_bets=1))
    for pol in (random_policy(tree, b, 21), random_policy(tree, b, 22, sparse=True)):
        got = BR.exact_best_response(tree, pol, deck=DECK10)
        for p in range(2):
            br, own = brute_values(tree, pol, bf, p)
            assert got.br[p] == pytest.approx(br, abs=1e-9, rel=0)
            assert got.own[p] == pytest.approx(own, abs=1e-9, rel=0)


def test_always_call_closed_form(buckets4, brute10):
    """Against always-call the responder learns nothing: it bets a round exactly when its
    expected showdown result there (against a random hand, card removal included) is
    positive, raises preflop likewise, and folds the small blind only below -1/2 per chip."""
    tree = build_tree(HoldemRules(n_rounds=4, max_bets=2))
    pol = Policy.always_call(tree, buckets4)
    got = BR.exact_best_response(tree, pol, deck=DECK10)
    bets = tree.rules.bets
    for p in range(2):
        s = brute10.sign0 if p == 0 else -brute10.sign0
        e = []
        for r in range(4):
            key = brute10.keys[p][r]
            e.append((np.bincount(key, s) / np.bincount(key))[key])  # E[result | seen]
        later = sum(bets[r] * np.maximum(e[r], 0.0) for r in (1, 2, 3))
        e0 = e[0]
        L = (np.bincount(brute10.keys[p][0], later) / np.bincount(brute10.keys[p][0]))[
            brute10.keys[p][0]]
        best = np.maximum(2 * e0 + L, 4 * e0 + L)
        if p == 0:
            best = np.maximum(best, -1.0)
        assert got.br[p] == pytest.approx(best.mean(), abs=1e-9, rel=0)


@pytest.mark.parametrize("n_rounds,max_bets", [(2, 2), (4, 1)])
def test_exact_best_response_is_at_least_lbr(buckets4, n_rounds, max_bets):
    """LBR is a strategy (its choices see only its cards, the board so far and runouts drawn
    the same on every board), so no seat's LBR value may exceed the exact best response: LBR
    over every board of the ten-card deck, exactly, against the exact value (issue 51)."""
    tree = build_tree(HoldemRules(n_rounds=n_rounds, max_bets=max_bets))
    pols = [random_policy(tree, buckets4, 11), random_policy(tree, buckets4, 12, sparse=True),
            Policy.always_call(tree, buckets4)]
    if n_rounds == 2:
        b2 = HoldemBuckets.from_arrays("t2", list(buckets4.arrays[:2]), buckets4.parents[:2])
        s = HoldemCFR(tree, b2, seed=3)
        s.iterate(20_000)
        pols.append(Policy.table("s", tree, buckets4, s.average_))
    boards = every_board(DECK10, n_rounds)
    runouts = np.argsort(np.random.default_rng(4).random((4, 52)), axis=1)
    perms = np.ascontiguousarray(np.broadcast_to(runouts, (len(boards), 4, 52)), np.int64)
    for pol in pols:
        exact = BR.exact_best_response(tree, pol, deck=DECK10)
        lbr = board_lbr_values(tree, pol, boards, perms, deck=DECK10).mean(axis=0)
        for p in range(2):
            assert lbr[p] <= exact.br[p] + 1e-9, (pol.name, p, lbr[p], exact.br[p])
        assert lbr.max() > 0.0  # LBR does win against each of these


def test_canonical_flops_and_their_weights():
    flops = BR.canonical_flops()
    assert len(flops) == 1755 and sum(f.weight for f in flops) == 22100
    small = BR.canonical_flops(DECK12)
    assert sum(f.weight for f in small) == 220 and len(small) < 220


def test_suit_isomorphism_gives_the_sum_over_every_flop(buckets4):
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    pol = random_policy(tree, buckets4, 4)
    a = BR.exact_best_response(tree, pol, deck=DECK12)
    b = BR.exact_best_response(tree, pol, deck=DECK12, isomorphism=False)
    assert a.flops < b.flops == 220
    for p in range(2):
        assert a.br[p] == pytest.approx(b.br[p], abs=1e-10, rel=0)
        assert a.own[p] == pytest.approx(b.own[p], abs=1e-10, rel=0)


def test_turn_and_river_isomorphism_gives_every_card(buckets4):
    """One turn and river card per orbit of the flop's remaining suit symmetry, renamed onto
    the orbit, gives the values of dealing every card (4 rounds, a deck of all four suits)."""
    tree = build_tree(HoldemRules(n_rounds=4, max_bets=2))
    pol = random_policy(tree, buckets4, 7, sparse=True)
    reach = BR.preflop_reach(tree, pol, DECK12)
    flops = BR.canonical_flops(DECK12)
    suits = [len({c % 4 for c in f.cards}) for f in flops]
    ranks = [len({c // 4 for c in f.cards}) for f in flops]
    picks = {("trips", 1), ("paired", 2), ("monotone", 1), ("two-tone", 2), ("rainbow", 3)}
    chosen = {}
    for f, s, r in zip(flops, suits, ranks):
        kind = ("trips" if r == 1 else "paired" if r == 2 else
                {1: "monotone", 2: "two-tone", 3: "rainbow"}[s])
        if (kind, 1 if r == 1 else s) in picks or kind not in chosen:
            chosen.setdefault(kind, f)
    assert set(chosen) == {k for k, _ in picks}
    fewer = 0
    for f in chosen.values():
        orb = BR.board_orbits(f.cards, DECK12)
        plain = BR.board_orbits(f.cards, DECK12, isomorphism=False)
        assert len(plain[1]) == 9 and len(plain[5]) == 72
        assert len(orb[3]) == 9 and len(orb[7]) == 8 * len(orb[1])  # every card once
        fewer += len(orb[5]) < 72
        a = BR.flop_values(tree, pol, f.cards, reach, DECK12)
        b = BR.flop_values(tree, pol, f.cards, reach, DECK12, isomorphism=False)
        assert np.abs(b).max() > 1.0
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
    assert fewer == 4  # all but the rainbow flop have a symmetry left


# --- flops kept on disk, resume, lock, workers, Dask, the command line ----------------------

@pytest.fixture(scope="module")
def small12(buckets4):
    """A 2-round strategy on a 2-round bucketing (small enough to send to workers)."""
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    b2 = HoldemBuckets.from_arrays("t2", list(buckets4.arrays[:2]), buckets4.parents[:2])
    pol = random_policy(tree, b2, 6, sparse=True)
    return tree, pol, BR.exact_best_response(tree, pol, deck=DECK12)


def test_a_killed_run_resumes_bit_identical(small12, tmp_path):
    tree, pol, full = small12
    store = BR.FlopStore(tmp_path / "br", {"kind": "test"})
    computed = []

    def dying(items, reach):  # this process, killed after three flops
        for j, (i, f) in enumerate(items):
            if j == 3:
                raise KeyboardInterrupt
            computed.append(i)
            yield i, BR.flop_values(tree, pol, f.cards, reach, DECK12), None

    with store.locked(), pytest.raises(KeyboardInterrupt):
        BR.exact_best_response(tree, pol, DECK12, store=store, mapper=dying)
    assert len(list((tmp_path / "br").glob("flop*.npy"))) == 3
    assert not list((tmp_path / "br").glob(".*.tmp"))
    first = list(computed)

    def counting(items, reach):
        for i, f in items:
            computed.append(i)
            yield i, BR.flop_values(tree, pol, f.cards, reach, DECK12), None

    with store.locked():
        res = BR.exact_best_response(tree, pol, DECK12, store=store, mapper=counting)
    n = len(BR.canonical_flops(DECK12))
    assert sorted(computed) == list(range(n)) and computed[:3] == first  # none twice
    assert res == full  # bit for bit
    with store.locked():  # everything kept: nothing computed again
        assert BR.exact_best_response(tree, pol, DECK12, store=store, mapper=dying) == full


def test_progress_counts_river_boards_and_flops(small12, tmp_path, capsys):
    """A run's progress (and so its ETA) is counted in river boards, each flop's work
    (``river_boards_per_flop``: its turn and river orbits), with the flops beside; a resumed
    run starts from the boards of the flops it kept."""
    tree, pol, full = small12
    flops = BR.canonical_flops(DECK12)
    work = BR.river_boards_per_flop(flops, DECK12)
    assert len(work) == len(flops) and work.min() >= 1
    assert list(work[:3]) == [len(BR.board_orbits(f.cards, DECK12)[5]) for f in flops[:3]]
    every = BR.canonical_flops()
    on_full = BR.river_boards_per_flop(every)  # by pattern: as walked one by one
    assert on_full.sum() == 2_554_656 and (on_full.min(), on_full.max()) == (675, 2352)
    for i in (0, 1, 500, 1754):
        assert on_full[i] == len(BR.board_orbits(every[i].cards)[5])
    store = BR.FlopStore(tmp_path / "br", {"kind": "test"})

    def two(items, reach):  # stopped after two flops
        for j, (i, f) in enumerate(items):
            if j == 2:
                raise KeyboardInterrupt
            yield i, BR.flop_values(tree, pol, f.cards, reach, DECK12), None

    force_mode("log")
    try:
        with store.locked(), pytest.raises(KeyboardInterrupt):
            BR.exact_best_response(tree, pol, DECK12, store=store, mapper=two, progress=True)
        stopped = [x for x in capsys.readouterr().err.splitlines() if "exact best response" in x]
        assert stopped[-1].endswith("[stopped]") and f"flops=2/{len(flops)}" in stopped[-1]
        with store.locked():
            assert BR.exact_best_response(tree, pol, DECK12, store=store,
                                          progress=True) == full
    finally:
        force_mode(None)
    lines = [x for x in capsys.readouterr().err.splitlines() if "exact best response" in x]
    total, n = int(work.sum()), len(flops)
    assert lines[-1].endswith("[done]")
    assert f"exact best response: {int(work[:2].sum()):,}/{total:,} river board" in lines[0]
    assert f"flops=2/{n}" in lines[0]
    assert f"{total:,}/{total:,} river board (100.0%)" in lines[-1]
    assert f"flops={n}/{n}" in lines[-1]


def test_a_prefix_carries_a_killed_run_to_another_store_bit_identical(small12, tmp_path):
    """The prefix (the flops summed in order so far) is kept as the run goes, also when it is
    killed; copied to an empty store of the same content, the run resumes from it alone and
    gives the uninterrupted run's bits; a file of other content or no prefix is refused."""
    tree, pol, full = small12
    monkey = pytest.MonkeyPatch()
    monkey.setattr(BR, "PREFIX_SECONDS", 0.0)  # keep every prefix: the test kills mid-way
    n = len(BR.canonical_flops(DECK12))
    shape = BR.values_shape(tree)
    a = BR.FlopStore(tmp_path / "a", {"kind": "test"}, content="c1",
                     mirror=tmp_path / "carry.npz")

    def dying(items, reach):  # out of order, killed after four flops: 1, 0, 3, 4
        items = list(items)
        for j in (1, 0, 3, 4):
            i, f = items[j]
            yield i, BR.flop_values(tree, pol, f.cards, reach, DECK12), 0.5
        raise KeyboardInterrupt

    try:
        with a.locked(), pytest.raises(KeyboardInterrupt):
            BR.exact_best_response(tree, pol, DECK12, store=a, mapper=dying)
    finally:
        monkey.undo()
    k, total, secs = a.prefix(shape)
    assert k == 2  # flops 0 and 1; 3 and 4 wait for 2
    assert np.isnan(secs[2]) and list(secs[:2]) == [0.5, 0.5]
    b = BR.FlopStore(tmp_path / "b", {"kind": "test"}, content="c1")
    walked = []

    def counting(items, reach):
        for i, f in items:
            walked.append(i)
            yield i, BR.flop_values(tree, pol, f.cards, reach, DECK12), None

    with b.locked():
        assert b.adopt(tmp_path / "carry.npz", shape) == 2
        assert BR.exact_best_response(tree, pol, DECK12, store=b, mapper=counting) == full
    assert walked == list(range(2, n))  # only what the prefix did not cover
    assert sorted(b.seconds()) == [0, 1]  # the prefix's measured seconds came along
    c = BR.FlopStore(tmp_path / "c", {"kind": "test"}, content="c2")
    with pytest.raises(UserError, match="progress of another strategy"):
        c.adopt(tmp_path / "carry.npz", shape)
    with pytest.raises(UserError, match="shape"):
        BR.FlopStore(tmp_path / "d", {"kind": "test"}, content="c1").adopt(
            tmp_path / "carry.npz", (2, 2, 1, 1326))
    (tmp_path / "junk.npz").write_bytes(b"not a prefix")
    with pytest.raises(UserError, match="not an exact best response's progress"):
        c.adopt(tmp_path / "junk.npz", shape)
    # forged files of the right content: counts out of range or of the wrong type, seconds of
    # another length, an object array; each refused, the store's own prefix left as it was
    with np.load(tmp_path / "carry.npz") as z:
        good = {"meta": json.loads(str(z["meta"])), "total": z["total"], "seconds": z["seconds"]}
    forged = [({"flops": -1}, {}), ({"flops": n + 1, "of": n}, {}), ({"flops": "2"}, {}),
              ({"flops": True}, {}), ({}, {"seconds": np.zeros(n + 3)}),
              ({}, {"total": good["total"].astype(np.float32)})]
    for j, (meta, arrays) in enumerate(forged):
        f = tmp_path / f"forged{j}.npz"
        np.savez(f, meta=np.array(json.dumps({**good["meta"], **meta})),
                 **{**{k: good[k] for k in ("total", "seconds")}, **arrays})
        with pytest.raises(UserError, match="not an exact best response's progress"):
            b.adopt(f, shape)
    with open(tmp_path / "pickled.npz", "wb") as fh:
        np.savez(fh, meta=np.array([{"flops": 1}], dtype=object), total=good["total"],
                 seconds=good["seconds"])
    with pytest.raises(UserError, match="not an exact best response's progress"):
        b.adopt(tmp_path / "pickled.npz", shape)
    assert b.prefix(shape)[0] == n  # the finished run's, untouched


def test_content_digest_follows_the_bytes(small12):
    tree, pol, _ = small12
    d = BR.content_digest(pol.weights, pol.buckets.lookup, tree.rules, DECK12)
    assert d == BR.content_digest(pol.weights.copy(), pol.buckets.lookup, tree.rules, DECK12)
    w = pol.weights.copy()
    w[len(w) // 2] = np.nextafter(w[len(w) // 2], np.float32(2))
    assert d != BR.content_digest(w, pol.buckets.lookup, tree.rules, DECK12)
    assert d != BR.content_digest(pol.weights, pol.buckets.lookup, tree.rules, DECK10)


def test_a_second_run_on_the_same_store_is_refused(tmp_path):
    store = BR.FlopStore(tmp_path / "br", {"kind": "test"})
    with store.locked():
        with pytest.raises(UserError, match="another exact best response"):
            with BR.FlopStore(tmp_path / "br", {"kind": "test"}).locked():
                pass
    with pytest.raises(UserError, match="another best response"):
        with BR.FlopStore(tmp_path / "br", {"kind": "other"}).locked():
            pass


@pytest.mark.parametrize("workers,scheduler", [(2, None), (0, "local:2")])
def test_worker_processes_and_a_dask_cluster_give_the_same_numbers(small12, workers,
                                                                   scheduler, tmp_path):
    tree, pol, full = small12
    store = BR.FlopStore(tmp_path / "br", {"kind": "test"})
    with store.locked(), BR.flop_mapper((tree, pol), DECK12, workers, scheduler) as mapper:
        assert mapper is not None
        assert BR.exact_best_response(tree, pol, DECK12, store=store, mapper=mapper) == full
    # every flop's CPU seconds, measured in the worker that ran it (the Dask tasks' times)
    secs = store.seconds()
    assert sorted(secs) == list(range(len(BR.canonical_flops(DECK12))))
    assert all(t > 0 for t in secs.values())


def test_flop_seconds_are_kept_and_a_torn_line_is_skipped(small12, tmp_path):
    tree, pol, full = small12
    store = BR.FlopStore(tmp_path / "br", {"kind": "test"})
    with store.locked():
        assert BR.exact_best_response(tree, pol, DECK12, store=store) == full
    n = len(BR.canonical_flops(DECK12))
    assert sorted(store.seconds()) == list(range(n))
    for f in ("prefix.npz", "prefix.json"):  # the finished run's prefix carries them too
        (tmp_path / "br" / f).unlink()
    assert sorted(store.seconds()) == list(range(n))  # and so does the log
    with open(tmp_path / "br" / "seconds.jsonl", "a") as fh:
        fh.write('{"flop": 0, "cpu')  # a run killed while appending
    store.path(1).unlink()  # a flop whose file is gone is not done, whatever its line says
    assert sorted(store.seconds()) == [0] + list(range(2, n))


def test_cli_evaluate_best_response_exact(tmp_path, capsys, monkeypatch):
    """The command on a stored strategy (the deck reduced to ten cards: the full deck's 1,755
    flops of a 2-round game take minutes), resumed from its kept flops, stored as a figure."""
    import cli

    monkeypatch.setattr(BR, "FULL_DECK", DECK10)
    # `compare`'s own samples, smaller: what is checked here is which figure it shows (the LBR
    # bound, then the exact one), not the bound's size (4,000 LBR deals took 19 of the test's
    # 37 CPU s)
    for name, deals in (("LBR_DEALS", 200), ("VALUE_DEALS", 5_000), ("H2H_DEALS", 5_000)):
        monkeypatch.setattr(holdem_compare, name, deals)
    run = lambda *a: cli.main(["--data-dir", str(tmp_path), *a])  # noqa: E731

    def solve(runner, name, iterations):
        assert runner("solve", "--game", "holdem", "--abstraction", "synthetic:3,6",
                      "--max-bets", "2", "--name", name, "--iterations", str(iterations),
                      "--sampler", "chance", "--lbr-deals", "20", "--h2h-deals", "100") == 0

    solve(run, "h", 2000)
    capsys.readouterr()
    # compare before the exact figure: LBR's bound, marked not exact and headed so
    assert run("compare", "--game", "holdem", "h", "--no-progress") == 0
    assert "exploitability (LBR lower bound)" in capsys.readouterr().out
    assert run("sql", "SELECT exploitability, exact FROM exploitability WHERE strategy = 'h'",
               "--format", "json") == 0
    (lbr,) = json.loads(capsys.readouterr().out)
    assert lbr["exact"] is False
    assert run("evaluate", "h", "--best-response", "exact") == 0
    first, out = capsys.readouterr().out.splitlines()  # where it starts from, the result
    assert first.startswith("h: content sha256 ") and "0 flops summed" in first
    assert "exact best response" in out and "exploitability" in out
    digest = first.split()[3]
    ev = tmp_path / "strategies" / "h" / "evaluations"
    (folder,) = ev.glob("exact-br-*")
    flops = sorted(folder.glob("flop*.npy"))
    assert len(flops) == len(BR.canonical_flops(DECK10))
    stored = list(ev.glob("exact-best-response-*.json"))
    assert len(stored) == 1 and '"method": "exact"' in stored[0].read_text()
    progress = ("SELECT strategy, spec, iterations, flops_stored, flops_total, finished, "
                "current, full_deck FROM holdem_exact_progress")
    assert run("sql", progress, "--format", "json") == 0
    assert json.loads(capsys.readouterr().out) == [{
        "strategy": "h", "spec": "h", "iterations": 2000, "flops_stored": len(flops),
        "flops_total": None, "finished": True, "current": True, "full_deck": False}]
    flops[-1].unlink()
    for f in ("prefix.npz", "prefix.json"):
        (folder / f).unlink()
    stored[0].unlink()  # as if killed before its last flop: begun, not finished
    assert run("sql", progress, "--format", "json") == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["flops_stored"], row["finished"]) == (len(flops) - 1, False)
    carry = tmp_path / "carry.npz"
    assert run("evaluate", "h", "--best-response", "exact", "--workers", "1",
               "--progress-file", str(carry)) == 0
    first, again = capsys.readouterr().out.splitlines()
    assert f"{len(flops) - 1} flop files kept" in first and again == out
    # another machine: the same solve again, resumed from the progress file alone
    other = tmp_path / "other"
    run2 = lambda *a: cli.main(["--data-dir", str(other), *a])  # noqa: E731
    solve(run2, "h", 2000)
    capsys.readouterr()
    assert run2("evaluate", "h", "--best-response", "exact", "--progress-file",
                str(carry)) == 0
    first, again = capsys.readouterr().out.splitlines()
    assert first.split()[3] == digest  # the same strategy, solved again
    assert f"{len(flops)} flops summed in the prefix, 0 flop files" in first
    assert again == out  # the same bits
    assert not list((other / "strategies" / "h" / "evaluations").glob("exact-br-*/flop*"))
    assert run2("sql", progress, "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)[0]["flops_stored"] == len(flops)
    # another strategy's progress is refused before any flop is walked
    solve(run2, "h2", 1000)
    capsys.readouterr()
    assert run2("evaluate", "h2", "--best-response", "exact", "--progress-file",
                str(carry)) == 2
    assert "progress of another strategy" in capsys.readouterr().err
    assert not list((other / "strategies" / "h2" / "evaluations").glob("exact-br-*/flop*"))
    assert run("evaluate", "h", "--workers", "2") == 2
    assert "only with --best-response" in capsys.readouterr().err
    # queryable in SQL: the stored figure, next to the solve's own LBR log
    value = json.loads(stored[0].read_text())["value"]
    assert run("sql", "SELECT strategy, iterations, exploitability_mbb, "
               "responder_small_blind_mbb, responder_big_blind_mbb, game_value_mbb, "
               "canonical_flops, full_deck, current, lbr_mbb FROM holdem_exact_best_response",
               "--format", "json") == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["strategy"] == "h" and row["iterations"] == 2000 and row["current"] is True
    assert row["exploitability_mbb"] == pytest.approx(value["exploitability_mbb"], abs=1e-9)
    assert row["responder_small_blind_mbb"] == pytest.approx(value["br_seat0_mbb"], abs=1e-9)
    assert row["responder_big_blind_mbb"] == pytest.approx(value["br_seat1_mbb"], abs=1e-9)
    assert row["game_value_mbb"] == pytest.approx(value["value_mbb"], abs=1e-9)
    assert row["canonical_flops"] == len(flops) and row["full_deck"] is False
    assert row["lbr_mbb"] is None  # the solve's LBR is of the full deck: not beside a reduced one
    # compare after it: the exact figure supersedes LBR's rows, the headers drop the bound
    assert run("compare", "--game", "holdem", "h", "--no-progress") == 0
    assert "LBR lower bound" not in capsys.readouterr().out
    assert run("sql", "SELECT exploitability, exploitability_seat1, exploitability_seat2, exact "
               "FROM exploitability WHERE strategy = 'h'", "--format", "json") == 0
    (ex,) = json.loads(capsys.readouterr().out)
    assert ex["exact"] is True
    assert ex["exploitability"] == pytest.approx(
        0.5 * (value["br_seat0_chips"] + value["br_seat1_chips"]), abs=1e-9)
    assert run("sql", "SELECT strategy, iterations, last FROM holdem_checkpoints",
               "--format", "json") == 0
    assert {"strategy": "h", "iterations": 2000, "last": True} in json.loads(
        capsys.readouterr().out)


def test_cli_evaluate_exact_on_every_kind_of_strategy_name(tmp_path, capsys, monkeypatch):
    """``NAME@ITERATIONS`` (a kept checkpoint), ``NAME~TAU`` and ``NAME~pure`` (thresholded,
    purified): each stored under its own name and equal to the exact best response to the
    policy ``load_policy`` gives for it (the ten-card deck, as above)."""
    import cli
    from solve.holdem.run import load_policy

    monkeypatch.setattr(BR, "FULL_DECK", DECK10)
    run = lambda *a: cli.main(["--data-dir", str(tmp_path), *a])  # noqa: E731
    assert run("solve", "--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets",
               "2", "--name", "h", "--iterations", "300", "--lbr-deals", "20", "--h2h-deals",
               "50", "--keep-averages", "--checkpoint-minutes", "0.00001") == 0
    kept = sorted(int(f.stem.split("-")[1])
                  for f in (tmp_path / "strategies" / "h" / "checkpoint").glob("average-*.npy"))
    specs = [f"h@{kept[0]}", "h~0.2", "h~pure", f"h@{kept[0]}~pure"]
    for spec in specs:
        assert run("evaluate", spec, "--best-response", "exact") == 0
    capsys.readouterr()
    assert run("sql", "SELECT spec, exploitability_mbb, responder_small_blind_mbb, "
               "responder_big_blind_mbb, current FROM holdem_exact_best_response",
               "--format", "json") == 0
    rows = {r["spec"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == set(specs)
    for spec in specs:
        pol, tree = load_policy(spec, tmp_path, {})
        want = BR.exact_best_response(tree, pol, deck=DECK10)
        r = rows[spec]
        assert r["exploitability_mbb"] == pytest.approx(want.exploitability_mbb, abs=1e-9)
        assert r["responder_small_blind_mbb"] == pytest.approx(
            want.br[0] * 1000 / want.big_blind, abs=1e-9)
        assert r["responder_big_blind_mbb"] == pytest.approx(
            want.br[1] * 1000 / want.big_blind, abs=1e-9)
        assert r["current"] is False  # a checkpoint or a threshold: not the stored strategy
    assert len({round(r["exploitability_mbb"], 6) for r in rows.values()}) == len(specs)
