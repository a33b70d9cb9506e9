"""Rhode Island Hold'em rule variants (issue 14): rankings, LP size witness, value brackets."""

import json
from pathlib import Path

import numpy as np
import pytest

import cli_inprocess
from etl.rhode_island import RANKINGS, all_three_card_sets, category3, hand_rank3
from solve.games.rules import RHODE_ISLAND_VARIANTS, rhode_island
from solve.games.abstract_form import _betting
from solve.games.compile import FOLD
from solve.algorithms.abstract_cfr import AbstractFormSolver
from solve.games.rhode_island_rules import (PUBLISHED, VariantGame, bracket, lossless_classes,
                                      lp_size, per_type_counts, solve_to, unabstracted_lp_rows,
                                      variant_game)

ROOT = Path(__file__).resolve().parents[1]


def card(s: str) -> int:
    return "23456789TJQKA".index(s[0]) * 4 + "shdc".index(s[1])


def rank(cards: str, ranking: str) -> int:
    return int(hand_rank3([[card(c) for c in cards.split()]], ranking)[0])


def test_standard_ranking_is_the_design_one():
    sets = all_three_card_sets()
    cats = np.bincount(category3(sets), minlength=6)
    # docs/design.md section 5: high card, pair, flush, straight, trips, straight flush
    assert cats.tolist() == [16_440, 3_744, 1_096, 720, 52, 48]
    assert np.array_equal(hand_rank3(sets, "standard"), hand_rank3(sets))


def test_wheel_variants():
    wheel, kqj, qka, a32_high = "As 2h 3d", "Ks Qh Jd", "Qs Kh Ad", "As 3h 2s"
    assert rank(wheel, "standard") < rank("2s 3h 4d", "standard") < rank(kqj, "standard")
    assert rank(kqj, "wheel-second") < rank(wheel, "wheel-second") < rank(qka, "wheel-second")
    # no-wheel: A-2-3 is a high card, below any pair and equal to another A-3-2 offsuit
    assert rank(wheel, "no-wheel") < rank("2s 2h 3d", "no-wheel")
    assert rank(wheel, "no-wheel") == rank("Ad 3c 2h", "no-wheel")
    assert rank(a32_high, "no-wheel") < rank("As 4h 2d", "no-wheel")
    sets = all_three_card_sets()
    straights = {v: int(np.sum((hand_rank3(sets, v) >> 12) == 3)) for v in RANKINGS}
    assert straights["standard"] == straights["wheel-second"] == 720
    assert straights["no-wheel"] == 720 - 60  # the 64 A-2-3 hands less the 4 straight flushes


def test_top_card_ties():
    assert rank("Ks 9h 2d", "top-card-ties") == rank("Kd Qh 9c", "top-card-ties")
    assert rank("Ks 9h 2d", "standard") < rank("Kd Qh 9c", "standard")
    assert rank("7s 7h 2d", "top-card-ties") == rank("7d 7c Ah", "top-card-ties")
    assert rank("7s 7h 2d", "top-card-ties") < rank("8s 8h 2d", "top-card-ties")
    # categories are untouched: the order between categories is the standard one
    sets = all_three_card_sets()
    a, b = hand_rank3(sets, "standard") >> 12, hand_rank3(sets, "top-card-ties") >> 12
    assert np.array_equal(a, b)


@pytest.fixture(scope="module")
def hidden_games():
    """The hidden-board lossless game of each variant, compiled once for the module."""
    cache = {}

    def get(variant):
        if variant not in cache:
            cache[variant] = variant_game(variant, "hidden")
        return cache[variant]
    return get


def unsolved(vg: VariantGame) -> VariantGame:
    """A new solver (DCFR, as ``variant_game``'s default) on ``vg``'s compiled game and form:
    the module's compiled game, not yet iterated (compiling is deterministic and the solver
    only reads the game and the form)."""
    return VariantGame(vg.variant, vg.setting, vg.abstraction, vg.form,
                       AbstractFormSolver(vg.form, vg.solver.game, "dcfr"))


@pytest.mark.parametrize("variant,cap,continuations,folds",
                         [("published", 3, 7, 6), ("raise-cap-4", 4, 9, 8)])
def test_betting_round_counts(hidden_games, variant, cap, continuations, folds):
    vg = hidden_games(variant)
    counts = per_type_counts(vg.form)
    # one round: the opener and one node per bet faced, per player
    assert counts[0]["nodes"] == [cap + 1, cap + 1]
    assert counts[0]["actions"][0] == counts[0]["actions"][1]
    for r in (1, 2):  # docs/design.md section 5: 7 ways on to the next round
        assert counts[r]["nodes"][0] == counts[r - 1]["nodes"][0] * continuations
    first_round_folds = [n for n in _betting(vg.solver.game) if n[0] == FOLD and n[2] == 0]
    assert len(first_round_folds) == folds  # docs/design.md section 5: 6 fold endings


def test_published_lp_size_is_reproduced_exactly(hidden_games):
    """The LP of the 13/205/1,774 ordered-game classes with the board hidden has exactly the
    published size; the unabstracted game's LP has the published 91,224,226 rows."""
    vg = hidden_games("published")
    lp = lp_size(vg.form)
    assert lp.classes == (13, 205, 1774)
    assert (lp.rows, lp.columns, lp.nonzeros) == (PUBLISHED["lp_rows"], PUBLISHED["lp_rows"],
                                                  PUBLISHED["lp_nonzeros"])
    assert unabstracted_lp_rows(vg.form) == PUBLISHED["lp_rows_unabstracted"]
    assert unabstracted_lp_rows(hidden_games("raise-cap-4").form) == 193_761_362


def test_ranking_variants_change_the_classes():
    counts = {v: tuple(int(c.max()) + 1 for c in lossless_classes(v))
              for v in ("published", "no-wheel", "p2-first-postflop")}
    assert counts["published"] == counts["p2-first-postflop"] == (13, 205, 1774)
    assert counts["no-wheel"] != counts["published"]


def test_bracket_holds_the_profile_value_and_resumes(hidden_games, tmp_path):
    vg = unsolved(hidden_games("published"))
    ck = tmp_path / "ck.npz"
    b = solve_to(vg, target=1e-9, every=10, checkpoint=ck, max_iterations=20)
    assert b.iterations == 20 and ck.exists()
    assert b.lower <= b.value <= b.upper
    assert b.exploitability == pytest.approx(0.5 * (b.upper - b.lower))
    again = unsolved(hidden_games("published"))  # a solver of its own, resumed from the file
    b2 = solve_to(again, target=1e-9, every=10, checkpoint=ck, max_iterations=30)
    assert b2.iterations == 30 and b2.exploitability < b.exploitability
    assert bracket(again.solver, 0.0).iterations == 30


def test_scaled_variant_value_is_the_published_value_over_100(hidden_games):
    a = unsolved(hidden_games("published"))
    b = variant_game("scaled-100", "hidden")
    a.solver.iterate(30)
    b.solver.iterate(30)
    assert b.solver.abstract_value() == pytest.approx(a.solver.abstract_value() / 100, rel=1e-9)


def test_every_variant_differs_from_the_default_in_one_field():
    base = rhode_island()
    for name in RHODE_ISLAND_VARIANTS:
        r = rhode_island(name)
        diff = [f for f in ("bet_sizes", "bet_caps", "contributions", "first_to_act", "ranking")
                if getattr(r, f) != getattr(base, f)]
        assert len(diff) <= 2 and (name == "published") == (not diff)
    with pytest.raises(ValueError, match="unknown Rhode Island variant"):
        rhode_island("nope")


def test_experiment_cli_runs_and_resumes(tmp_path):
    base = ["--data-dir", str(tmp_path / "d"), "experiment", "rhode-island-rules"]
    # few iterations: what is checked (the LP size, the stored count, the resume) does not
    # depend on how many
    cmd = base + ["--variants", "scaled-100", "--check-every", "2", "--no-progress", "--target",
                  "1e-6", "--report", str(tmp_path / "r")]
    out = cli_inprocess.run(cmd + ["--iterations", "4"], cwd=ROOT)
    assert out.returncode == 0, out.stderr
    readme = (tmp_path / "r" / "README.md").read_text()
    assert "| `scaled-100` | 13/205/1774 | 1,237,238 | 50,428,638 | **yes**" in readme
    got = json.loads((tmp_path / "d" / "experiments" / "rhode-island-rules" /
                      "scaled-100-real.json").read_text())
    assert got["iterations"] == 4
    out = cli_inprocess.run(cmd + ["--iterations", "7"], cwd=ROOT)
    assert out.returncode == 0, out.stderr
    got = json.loads((tmp_path / "d" / "experiments" / "rhode-island-rules" /
                      "scaled-100-real.json").read_text())
    assert got["iterations"] == 7  # resumed from the checkpoint (4 + 2 + 1), not restarted
    bad = cli_inprocess.run(base + ["--variants", "nope"], cwd=ROOT)
    assert bad.returncode != 0 and "unknown variant 'nope'" in bad.stderr
    assert "Traceback" not in bad.stderr
