"""Build and store a card abstraction: the library behind ``cli.py build-abstraction``
(and ``compare``/``experiment``, which build what they compare)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from dataclasses import dataclass

import numpy as np

from abstraction import checkpoint, store
from abstraction import games as card_games
from abstraction.games import GAMES
from abstraction.methods import METHODS, PotentialAware
from abstraction.options import MethodOptions, OptionError, option
from abstraction.public_board import public_board_buckets
from abstraction.strategy_features import strategy_vectors
from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir


def method_names() -> tuple[str, ...]:
    """The methods of :data:`abstraction.methods.METHODS` (read on each call: a method
    registered there is known everywhere), in the order ``--help`` lists them."""
    return tuple(METHODS)


@dataclass(frozen=True)
class Target:
    """What :func:`build` builds besides the method's options: its own parameters (the
    command line asks for them with the options, ``abstraction.commands``)."""

    game: str = option("holdem", "holdem (default) or rhode-island")
    method: str = option("pa", lambda: (
        f"one of {', '.join(method_names())} (default pa); pa-emd: potential-aware with the "
        "earth mover's distance; ochs: opponent cluster hand strength; strategy: clustered by "
        "a solved strategy (GS4, {from_strategy})"))
    name: str | None = option(None, "default: GAME-METHOD-BUCKETS")
    replace: bool = option(False, "rebuild an existing name")


def option_fields() -> list[dataclasses.Field]:
    """Every parameter of a build, once, in the order ``--help`` lists them: :class:`Target`'s,
    the options every method takes, then each registered method's own."""
    out = {f.name: f for f in dataclasses.fields(Target)}
    out.update((f.name, f) for f in dataclasses.fields(MethodOptions))
    for cls in METHODS.values():
        out.update((f.name, f) for f in dataclasses.fields(cls.Options) if f.name not in out)
    return list(out.values())


def method_options(method: str, **values) -> MethodOptions:
    """The options of ``method`` (``METHODS[method].Options``) with ``values``. A value for
    an option another method takes is refused unless it is that option's default.

    Raises:
        UserError: an unknown method. OptionError: an option the method does not take, a value
            that does not parse.
    """
    if method not in METHODS:
        raise UserError(f"unknown method {method!r}; choose from {', '.join(method_names())}")
    own = {f.name for f in dataclasses.fields(METHODS[method].Options)}
    for key, value in values.items():
        if key in own:
            continue
        takers = [m for m, cls in METHODS.items()
                  if key in {f.name for f in dataclasses.fields(cls.Options)}]
        if not takers:
            raise TypeError(f"no method takes an option {key!r}")
        field = next(f for f in dataclasses.fields(METHODS[takers[0]].Options) if f.name == key)
        if value != field.default:
            applies = field.metadata.get("applies")
            where = applies if applies else f"{{method}} {', '.join(takers)}"
            raise OptionError(f"{{{key}}} applies to {where}, not {method}", key, "method")
    return METHODS[method].Options(**{k: v for k, v in values.items() if k in own})


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


def build(game: str, method: str, options: MethodOptions | None = None, *, data_dir,
          name: str | None = None, replace: bool = False, progress: bool = False) -> Built:
    """Build abstraction ``name`` (default ``GAME-METHOD-B1-B2...``) of ``game`` by ``method``
    with ``options`` (``METHODS[method].Options``, validated before anything is read) and
    store it in ``data_dir``, as ``cli.py build-abstraction`` does.

    Example::

        build("rhode-island", "pa", PotentialAware.Options(buckets=(5, 25, 125), n_init=1),
              data_dir="/tmp/data")

    Raises:
        OptionError: a bad option, naming its parameter. UserError: an unknown game or method,
            an existing name without ``replace``, a failed fit.
    """
    card, options = checked(game, method, options)
    workers = options.workers or ((os.cpu_count() or 1) if card.equity_tables else 1)
    name = name or default_name(game, method, options)
    try:
        store.check_name(name)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not replace and store.exists(name, data_dir):
        raise _exists(name)
    t0 = time.perf_counter()
    vectors = _strategy_vectors(game, options, data_dir)  # a bad strategy fails before the ETL
    hands = load_game(game, data_dir, workers, method, progress)
    kmax_factor = options.kmax_factor
    if kmax_factor is None and card.equity_tables:
        kmax_factor = 3.0
    kwargs = options.model_kwargs(workers, kmax_factor, progress)
    if vectors is not None:
        kwargs["vectors"] = vectors
    model = METHODS[method](options.buckets, **kwargs)
    # a killed or failed build resumes from its finished rounds (same parameters and code)
    with checkpoint.claimed(resolve_data_dir(data_dir), name, {
            **options.fingerprint(), "game": game, "method": method, "kmax_factor": kmax_factor,
            "vectors": None if vectors is None else _digest(vectors)}) as ckpt:
        try:
            model.fit(hands, checkpoint=ckpt)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        seconds = time.perf_counter() - t0
        try:
            store.save(model, hands, name, seed=options.seed, seconds=seconds, replace=replace,
                       data_dir=data_dir)
        except FileExistsError:
            raise _exists(name) from None
        checkpoint.remove(ckpt)
    return Built(name, model, hands, seconds)


def checked(game: str, method: str, options: MethodOptions | None):
    """(the card game, ``options`` as ``method``'s options) once both are valid for ``game``:
    what :func:`build` checks before it reads anything."""
    if method not in METHODS:
        raise UserError(f"unknown method {method!r}; choose from {', '.join(method_names())}")
    if game not in GAMES:
        raise UserError(f"unknown game {game!r}; choose from {', '.join(GAMES)}")
    card, cls = card_games.get(game), METHODS[method]
    if game not in cls.games:
        note = f" ({cls.games_note})" if cls.games_note else ""
        raise UserError(f"{method} is available for {', '.join(cls.games)} only{note}")
    if options is None:
        options = cls.Options()
    elif type(options) is not cls.Options:
        options = method_options(method, **{f.name: getattr(options, f.name)
                                            for f in dataclasses.fields(options)})
    options.check(card, method)
    return card, options


def default_name(game: str, method: str, options: MethodOptions) -> str:
    """``GAME-METHOD-B1-B2...`` (``-ir`` before the counts for imperfect recall; ``full``
    for no counts)."""
    return f"{game}-{method}-" + ("ir-" if options.recall == "imperfect" else "") + (
        "-".join(map(str, options.buckets)) if options.buckets else "full")


def _exists(name: str) -> OptionError:
    return OptionError(f"abstraction {name!r} exists (use {{replace}} to rebuild it)", "replace")


def _strategy_vectors(game: str, options: MethodOptions, data_dir):
    """The strategy vectors a ``strategy`` build clusters by (None for other methods)."""
    from_strategy = getattr(options, "from_strategy", None)
    if from_strategy is None:
        return None
    try:
        return strategy_vectors(resolve_data_dir(data_dir), from_strategy, game=game)
    except (ValueError, FileNotFoundError) as exc:
        raise OptionError(f"{{from_strategy}}: {exc}", "from_strategy") from None


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
