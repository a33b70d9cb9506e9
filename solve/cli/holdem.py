"""The options of ``solve --game holdem`` (:class:`solve.holdem.run.HoldemSolveOptions`; the
game's backend solves and evaluates it, ``solve.games.backends``) and ``evaluate --curve``
(issue 6); ``compare --game holdem`` goes through ``queries/holdem_compare.py``.

    python cli.py solve --game holdem --abstraction holdem-pa-20-800-4800-28800 --time-limit 3600 --name pa-1h
    python cli.py solve --game holdem --abstraction holdem-pa-20-800-4800-28800 --time-limit 7200 --resume --name pa-1h
    python cli.py solve --game holdem --abstraction synthetic:20,800,4800,28800 --iterations 100000
    python cli.py compare --game holdem pa-1h eb-1h
    python cli.py evaluate pa-1h
    python cli.py evaluate pa-1h --curve --with eb-1h

A run writes ``<data_dir>/strategies/<name>/``: ``strategy.parquet`` (one row per information
set and action, ``cards`` = bucket sequence; query it with ``cli.py sql``), ``average.npy``
(the average-strategy weights, read back by ``compare`` / ``evaluate``), ``run.json`` (settings
and the evaluation at every checkpoint) and ``checkpoint/`` (for ``--resume``).
``--abstraction synthetic:K0,K1,...`` uses a hand-strength bucketing built on the fly (no
equity tables needed; its length sets the number of betting rounds), for tests and benchmarks.
"""

from __future__ import annotations

from schema.paths import output_file
from solve.holdem import curve
from solve.holdem.pcs import AVERAGING, DCFR_ALPHA, DCFR_BETA, PCS_HANDS, PCS_REGRET, REGRETS
from solve.holdem.run import CLOCKS, DEFAULT_SAMPLER, SAMPLERS


def add_arguments(p) -> None:
    g = p.add_argument_group("holdem (limit Texas Hold'em on a built abstraction)")
    g.add_argument("--checkpoint-minutes", type=float, default=10.0,
                   help="holdem: minutes of solving between checkpoints + evaluations (default 10)")
    g.add_argument("--threads", type=int, default=1,
                   help="holdem: solver threads sharing the arrays (default 1; >1 is not "
                        "bit-reproducible)")
    g.add_argument("--lbr-deals", type=int, default=2000,
                   help="holdem: deals (x2 seats) of the local-best-response bound at each "
                        "checkpoint (default 2000; 0 = skip)")
    g.add_argument("--lbr-boards", type=int, default=0,
                   help="holdem: LBR bound over this many whole boards instead (each exact over "
                        "every deal of hole cards and the strategy's actions; 0 = use "
                        "--lbr-deals)")
    g.add_argument("--h2h-deals", type=int, default=20000,
                   help="holdem: duplicate deals against always-call/always-raise at each "
                        "checkpoint (default 20000)")
    g.add_argument("--keep-averages", action="store_true",
                   help="holdem: also keep each checkpoint's average weights as "
                        "checkpoint/average-<iterations>.npy (strategies at equal solve times)")
    g.add_argument("--keep-checkpoint", action="store_true",
                   help="holdem: keep the finished run's checkpoint (regrets and averages, "
                        "about twice the table) so that a later --resume can continue it; "
                        "without it the checkpoint is removed once the table is stored")
    g.add_argument("--sampler", choices=list(SAMPLERS), default=None,
                   help="holdem: what an iteration samples: 'chance' one deal (chance-sampled "
                        "CFR+), 'public' one board, all private hands as vectors (public chance "
                        f"sampling, Johanson et al. 2012); default {DEFAULT_SAMPLER}, or the "
                        "checkpoint's with --resume")
    g.add_argument("--regret", choices=list(REGRETS), default=None,
                   help="holdem, --sampler public: regret-matching+ ('plus', regrets floored "
                        "at 0), linear CFR ('linear': iteration t's regrets weighted by t), "
                        "plain regret matching ('vanilla') or discounted CFR ('dcfr': "
                        f"alpha {DCFR_ALPHA:g}, beta {DCFR_BETA:g}; with --averaging quadratic, "
                        f"the paper's gamma 2); default {PCS_REGRET} (chosen by measurement), "
                        "or the checkpoint's with --resume")
    g.add_argument("--averaging", choices=list(AVERAGING), default=None,
                   help="holdem, --sampler public: average-strategy weight per iteration t: "
                        "1, t (linear, default) or t^2 (quadratic)")
    g.add_argument("--hands-per-board", type=int, default=None, metavar="M",
                   help="holdem, --sampler public: keep M of each sampled board's 1,081 private "
                        f"hands, drawn at random (default {PCS_HANDS}, chosen by measurement; "
                        "0: every hand, the paper's public chance sampling; a resumed run keeps "
                        "its checkpoint's); between chance sampling (one hand each) and public "
                        "chance sampling: more boards per CPU second, fewer opponent hands per "
                        "board")
    g.add_argument("--clock", choices=list(CLOCKS), default="wall",
                   help="holdem: what --time-limit and --checkpoint-minutes count: 'wall' "
                        "seconds of solving (default) or the process's 'cpu' seconds (all "
                        "threads), which keeps runs comparable on a shared or loaded machine")
    g.add_argument("--max-bets", type=int, default=4,
                   help="holdem: bets per round cap (default 4, the real game)")


def run_curve(ddir, name: str, with_runs: list[str], reference: str | None,
              h2h_deals: int | None, out: str | None, lbr_boards: int = 0) -> int:
    """``evaluate NAME --curve``: :func:`solve.holdem.curve.convergence` of NAME and the
    ``--with`` runs in data directory ``ddir``, printed as one table per run and drawn as a
    PNG."""
    path = output_file(out or ddir / "reports" / f"{name}-convergence.png", "--out",
                       f"{name}-convergence.png", suffix=".png")
    deals = h2h_deals if h2h_deals is not None else 20_000
    ref, curves = curve.convergence(ddir, [name, *with_runs], reference, deals,
                                    lbr_boards=lbr_boards)
    lbr = (f"LBR over the same {lbr_boards:,} boards for every kept checkpoint" if lbr_boards
           else "LBR as each checkpoint logged it")
    print(f"head-to-head against {ref} ({deals:,} duplicate deals); {lbr}; mbb/g, 95%; "
          "\"~\": CPU seconds estimated for a stretch solved on the wall clock")
    for r, points in curves.items():
        print("\n" + curve.markdown(r, points))
    print(f"\nsaved {curve.plot(curves, ref, path)}")
    return 0
