"""Build and store a card abstraction: the library behind ``cli.py build-abstraction``
(and ``compare``/``experiment``, which build what they compare)."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from abstraction import checkpoint, store
from abstraction import games as card_games
from abstraction.games import GAMES, check_opponent_clusters
from abstraction.methods import METHODS, PotentialAware
from abstraction.imperfect_recall import KIND_OF_METHOD
from abstraction.public_board import public_board_buckets
from abstraction.strategy_features import strategy_vectors
from etl.cluster import check_scheduler
from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir


def method_names() -> tuple[str, ...]:
    """The methods of :data:`abstraction.methods.METHODS` (read on each call: a method
    registered there is known everywhere), in the order ``--help`` lists them."""
    return tuple(METHODS)


def parse_buckets(text: str | None, game: str, nested: bool = True) -> tuple[int, ...] | None:
    """Bucket counts per round; ``nested`` (perfect recall): never fewer than the round
    before (every bucket needs a child)."""
    if text is None:
        return None
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise UserError(f"--buckets must be comma-separated integers, got {text!r}") from None
    card = card_games.get(game)
    if len(counts) != card.rounds:
        raise UserError(f"--buckets needs {card.rounds} counts for {game} (one per round), "
                        f"got {len(counts)}")
    for r, k in enumerate(counts):
        if k < 1:
            raise UserError(f"--buckets: round {r} needs at least 1 bucket, got {k}")
        if nested and r and k < counts[r - 1]:
            raise UserError(f"--buckets: round {r} has {k} buckets, fewer than round {r - 1} "
                            f"({counts[r - 1]})")
        if k > card.hand_counts[r]:
            raise UserError(f"--buckets: round {r} has {k} buckets, more than the "
                            f"{card.hand_counts[r]:,} hands of {game} round {r}")
    return counts


def _parse_intermediate(text: str | None):
    if text is None:
        return None
    try:
        return tuple(int(x) if x.strip() else None for x in text.split(","))
    except ValueError:
        raise UserError(f"--intermediate must be comma-separated integers, got {text!r}") \
            from None


def _parse_rounds(text: str | None, game: str) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        rounds = tuple(int(x) - 1 for x in text.split(","))
    except ValueError:
        raise UserError(f"--strategy-rounds must be comma-separated round numbers, got "
                        f"{text!r}") from None
    card = card_games.get(game)
    if any(r not in range(card.rounds) for r in rounds):
        raise UserError(f"--strategy-rounds: {game} has rounds 1..{card.rounds}, got {text!r}")
    if card.strategy_rounds is not None and set(rounds) != set(card.strategy_rounds):
        raise UserError(f"--strategy-rounds: on {game} {card.strategy_rounds_note}; "
                        f"got {text!r}")
    return rounds


def load_game(game: str, data_dir, workers: int, method: str = "pa", progress: bool = False):
    return card_games.get(game).hands(data_dir, workers=workers, progress=progress,
                                      need_histograms=issubclass(METHODS[method], PotentialAware))


@dataclass
class Built:
    """A stored build: its name, the fitted model, the hands it was fitted on, the seconds."""

    name: str
    model: object
    hands: object
    seconds: float


def build(game: str, method: str, buckets: str | None, name: str | None = None, seed: int = 0,
          public_board: bool = False, data_dir=None, workers: int | None = None,
          n_init: int = 4, kmax: int | None = None, kmax_factor: float | None = None,
          intermediate: str | None = None, replace: bool = False,
          progress: bool = False, scheduler: str | None = None,
          opponent_clusters: int | None = None, from_strategy: str | None = None,
          strategy_rounds: str | None = None, recall: str = "perfect") -> Built:
    """Build abstraction ``name`` (default ``GAME-METHOD-B1-B2...``) and store it, as
    ``cli.py build-abstraction`` does (its options, validated up front).

    Raises:
        UserError: a bad option, an existing name without ``replace``, a failed fit.
    """
    args = SimpleNamespace(game=game, method=method, buckets=buckets, name=name, seed=seed,
                           public_board=public_board, data_dir=data_dir, workers=workers,
                           n_init=n_init, kmax=kmax, kmax_factor=kmax_factor,
                           intermediate=intermediate, replace=replace)
    if args.method not in METHODS:
        raise UserError(f"unknown method {args.method!r}; choose from {', '.join(method_names())}")
    if args.game not in GAMES:
        raise UserError(f"unknown game {args.game!r}; choose from {', '.join(GAMES)}")
    card = card_games.get(args.game)
    if args.method == "lossless" and not card.lossless:
        raise UserError(f"lossless is available for "
                        f"{', '.join(card_games.names(lambda g: g.lossless))} only (Texas "
                        "Hold'em's lossless abstraction is far too large to build)")
    if args.game not in METHODS[args.method].games:
        raise UserError(f"{args.method} is available for {', '.join(METHODS[args.method].games)} "
                        f"only")
    if args.public_board and not card.public_board:
        raise UserError(f"--public-board is available for "
                        f"{', '.join(card_games.names(lambda g: g.public_board))} only")
    if recall not in ("perfect", "imperfect"):
        raise UserError(f"--recall must be perfect or imperfect, got {recall!r}")
    if recall == "imperfect":
        if args.method not in KIND_OF_METHOD:
            raise UserError(f"--recall imperfect is built for --method "
                            f"{', '.join(KIND_OF_METHOD)}, not {args.method}")
        if args.public_board or args.intermediate is not None:
            raise UserError("--recall imperfect takes neither --public-board nor --intermediate")
    pa_like = issubclass(METHODS[args.method], PotentialAware)
    if args.intermediate is not None and not pa_like:
        raise UserError(f"--intermediate applies to the potential-aware methods (pa, pa-emd, "
                        f"ochs), not {args.method}")
    buckets = parse_buckets(args.buckets, args.game, nested=recall == "perfect")
    if buckets is None and args.method != "lossless":
        raise UserError(f"--buckets is required for method {args.method}")
    if opponent_clusters is not None and args.method != "ochs":
        raise UserError(f"--opponent-clusters applies to --method ochs, not {args.method}")
    if opponent_clusters is not None:
        try:
            check_opponent_clusters(args.game, opponent_clusters)
        except ValueError as exc:
            raise UserError(f"--opponent-clusters: {exc}") from None
    if (from_strategy is not None or strategy_rounds is not None) and args.method != "strategy":
        raise UserError(f"--from-strategy and --strategy-rounds apply to --method strategy, "
                        f"not {args.method}")
    if args.method == "strategy" and from_strategy is None:
        raise UserError(f"--method strategy needs --from-strategy NAME ({card.strategy_source})")
    rounds = _parse_rounds(strategy_rounds, args.game)
    if args.workers is None:
        args.workers = (os.cpu_count() or 1) if card.equity_tables else 1
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    name = args.name or f"{args.game}-{args.method}-" + ("ir-" if recall == "imperfect" else "") + (
        "-".join(map(str, buckets)) if buckets else "full")
    try:
        store.check_name(name)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not args.replace and store.exists(name, args.data_dir):
        raise UserError(f"abstraction {name!r} exists (use --replace to rebuild it)")

    t0 = time.perf_counter()
    vectors = None
    if args.method == "strategy":  # before the hands: a bad strategy fails before the ETL runs
        try:
            vectors = strategy_vectors(resolve_data_dir(args.data_dir), from_strategy,
                                       game=args.game)
        except (ValueError, FileNotFoundError) as exc:
            raise UserError(f"--from-strategy: {exc}") from None
    hands = load_game(args.game, args.data_dir, args.workers, args.method, progress)
    kmax_factor = args.kmax_factor
    if kmax_factor is None and card.equity_tables:
        kmax_factor = 3.0
    kwargs = dict(random_state=args.seed, n_init=args.n_init, kmax=args.kmax,
                  kmax_factor=kmax_factor,
                  workers=args.workers, progress=progress,
                  public_board=args.public_board,
                  scheduler=None if scheduler is None else check_scheduler(scheduler))
    if pa_like:
        kwargs["intermediate"] = _parse_intermediate(args.intermediate)
    if opponent_clusters is not None:
        kwargs["opponent_clusters"] = opponent_clusters
    if recall == "imperfect":
        kwargs["recall"] = recall
    if args.method == "strategy":
        kwargs.update(vectors=vectors, rounds=rounds, from_strategy=from_strategy)
    if args.method == "lossless":
        kwargs = {"random_state": args.seed}
    model = METHODS[args.method](buckets, **kwargs)
    # a killed or failed build resumes from its finished rounds (same parameters and code)
    with checkpoint.claimed(resolve_data_dir(args.data_dir), name, {
            "game": args.game, "method": args.method, "buckets": buckets, "seed": args.seed,
            "n_init": args.n_init, "kmax": args.kmax, "kmax_factor": kmax_factor,
            "intermediate": kwargs.get("intermediate"), "public_board": args.public_board,
            "opponent_clusters": opponent_clusters, "recall": recall,
            "from_strategy": from_strategy, "strategy_rounds": rounds,
            "vectors": None if vectors is None else _digest(vectors)}) as ckpt:
        try:
            model.fit(hands, checkpoint=ckpt)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        seconds = time.perf_counter() - t0
        store.save(model, hands, name, seed=args.seed, seconds=seconds, replace=args.replace,
                   data_dir=args.data_dir)
        checkpoint.remove(ckpt)
    return Built(name, model, hands, seconds)


def _digest(vectors) -> str:
    """SHA-256 of strategy vectors (a list of arrays), so a build from a re-solved strategy
    of the same name does not resume from the old one's rounds."""
    h = hashlib.sha256()
    for v in vectors:
        a = np.ascontiguousarray(v)
        h.update(str((a.dtype, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def summary_lines(built: Built) -> list[str]:
    """What ``build-abstraction`` prints about a build: buckets per round, sizes, IP error."""
    model, hands, name, seconds = built.model, built.hands, built.name, built.seconds
    out = [f"{name}: {model.method} on {hands.game}, buckets {','.join(map(str, model.buckets_))} "
           f"in {seconds:.1f}s"]
    if model.public_board:
        seen = public_board_buckets([res.bucket for res in model.rounds_])
        out.append("  played with the public board visible: "
                   f"{','.join(str(int(b.max()) + 1) for b in seen)} (board, bucket) classes")
    for rep in model.report_:
        line = (f"  round {rep['round']}: {rep['built']}/{rep['requested']} buckets, "
                f"sizes {rep['sizes']['min']}..{rep['sizes']['max']} "
                f"(median {rep['sizes']['median']:g})")
        if "ip_objective" in rep:
            line += (f", IP error {rep['ip_objective']:.4g} vs equal split "
                     f"{rep['equal_split_error']:.4g}")
        if "reason" in rep:
            line += f" -- {rep['reason']}"
        out.append(line)
    return out
