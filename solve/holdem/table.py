"""A Texas Hold'em strategy as a strategy table: one row per (betting node, bucket sequence,
action), the bucket sequence written "3.17.101" (``write_strategy_table``), and how well each
information set was trained (``infoset_weights``, ``round_means``, ``training_counts``: the
average-strategy weight it received, ``schema.strategy``'s ``weight``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from schema.errors import UserError, first_line
from schema.storage import AtomicFile
from schema.strategy import (FORMAT_KEY, HOLDEM_WEIGHT_SCHEMA, PROBABILITY_DTYPE,
                             STRATEGY_WEIGHT_SCHEMA, TRAINING, UNIFORM_START_FIELD, seat_name,
                             training_codes, uniform_default, uniform_entry,
                             with_format)

from solve.holdem.buckets import HoldemBuckets, row_where
from solve.holdem.game import BettingTree


def bucket_labels(buckets: HoldemBuckets) -> list:
    """Per round, a pyarrow string array: the bucket sequence "3.17.101" of every bucket
    ("-.-.101" under imperfect recall: the earlier buckets are forgotten)."""
    out = []
    prev = None
    for r in range(buckets.n_rounds):
        own = pa.array(np.arange(buckets.n_buckets[r]), pa.int64()).cast(pa.string())
        if r and not buckets.perfect_recall:
            lab = pc.binary_join_element_wise(pa.array(["-." * r] * buckets.n_buckets[r]), own,
                                              "")
        else:
            lab = own if r == 0 else pc.binary_join_element_wise(
            prev.take(pa.array(buckets.parents[r])), own, ".")
        out.append(lab)
        prev = lab
    return out


def infoset_weights(n: int, tree: BettingTree, buckets: HoldemBuckets, average: np.ndarray,
                    offset: np.ndarray) -> np.ndarray:
    """(buckets of the round,) the average-strategy weight of each information set at decision
    node ``n``: the sum of ``average`` over its actions (0: the solver never trained it)."""
    k, kb = int(tree.nact[n]), buckets.n_buckets[int(tree.round[n])]
    idx = offset[n, 0] + np.arange(kb)[:, None] * offset[n, 1] + np.arange(k)[None, :]
    return np.asarray(average[idx], dtype=np.float64).sum(axis=1)


#: buckets summed at a time by :func:`round_weights` (bounds its float64 working copy)
_CHUNK_ELEMENTS = 1 << 22


def round_weights(tree: BettingTree, buckets: HoldemBuckets, average: np.ndarray,
                  offset: np.ndarray, rounds=None, uniform: bool = True):
    """Yield ``(round, nodes, weights, uniform)`` for the whole strategy in storage order:
    ``weights`` is (some buckets of the round, len(nodes)), each entry the average-strategy
    weight of the information set (node, bucket), the same sums as :func:`infoset_weights`;
    ``uniform`` (same shape) whether its average strategy is the uniform default at the table's
    precision (``schema.strategy.uniform_default``; also where the weight is 0, as the table
    stores it). One sequential pass: the layout is bucket-major (``BettingTree.offsets``), so a
    block of buckets is one contiguous (buckets, width) slab whose node columns
    ``np.add.reduceat`` sums. ``rounds``: only those (0-based), else all; ``uniform=False``:
    None instead of the uniform test (which costs about 5x the sums)."""
    for r in (range(buckets.n_rounds) if rounds is None else rounds):
        nodes = np.array([n for n in tree.decision_nodes() if int(tree.round[n]) == r],
                         dtype=np.int64)
        if not len(nodes):
            continue
        nodes = nodes[np.argsort(offset[nodes, 0], kind="stable")]
        base, width, kb = int(offset[nodes[0], 0]), int(offset[nodes[0], 1]), buckets.n_buckets[r]
        starts = offset[nodes, 0] - base
        k = tree.nact[nodes].astype(np.int64)
        # per column: its node's index and the float32 1/k a uniform average stores there
        col_node = np.repeat(np.arange(len(nodes)), k)
        col_uniform = uniform_entry(np.repeat(k, k))
        slab = np.asarray(average[base:base + kb * width]).reshape(kb, width)
        step = max(1, _CHUNK_ELEMENTS // max(width, 1))
        for b0 in range(0, kb, step):
            block = slab[b0:b0 + step].astype(np.float64)
            w = np.add.reduceat(block, starts, axis=1)
            if not uniform:
                yield r, nodes, w, None
                continue
            total = w[:, col_node]
            with np.errstate(invalid="ignore", divide="ignore"):
                prob = np.where(total > 0, block / np.where(total > 0, total, 1.0), col_uniform)
            same = prob.astype(PROBABILITY_DTYPE) == col_uniform
            yield r, nodes, w, np.logical_and.reduceat(same, starts, axis=1)


def round_means(tree: BettingTree, buckets: HoldemBuckets, average: np.ndarray,
                offset: np.ndarray, rounds=None) -> np.ndarray:
    """Per round, the mean weight of its information sets with positive weight (the scale of
    ``schema.strategy.training_codes``); one pass over the weights (of ``rounds`` only if
    given: NaN for the others)."""
    total = np.zeros(buckets.n_rounds)
    count = np.zeros(buckets.n_rounds)
    for r, _, w, _ in round_weights(tree, buckets, average, offset, rounds, uniform=False):
        total[r] += w[w > 0].sum()
        count[r] += int((w > 0).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def training_counts(tree: BettingTree, buckets: HoldemBuckets, average: np.ndarray,
                    offset: np.ndarray) -> list[dict]:
    """One row per round (numbered from 1) and seat (named): information sets, how many are
    never trained (weight 0, or an average still the uniform start: ``schema.strategy``; of
    those, ``uniform start`` the ones with positive weight) and barely trained
    (``schema.strategy.BARELY_TRAINED``), and the round's mean weight."""
    mean = round_means(tree, buckets, average, offset)
    rows = {}
    for r, nodes, w, uniform in round_weights(tree, buckets, average, offset):
        code = training_codes(w, mean[r], uniform)
        for p in (0, 1):
            mine = tree.player[nodes] == p
            if not mine.any():
                continue
            row = rows.setdefault((r, p), {"round": r + 1, "seat": seat_name(p, blinds=True),
                                           "infosets": 0, "never trained": 0,
                                           "uniform start": 0, "barely trained": 0,
                                           "mean weight": float(mean[r])})
            row["infosets"] += int(code[:, mine].size)
            for c in (1, 2):
                row[TRAINING[c]] += int((code[:, mine] == c).sum())
            row["uniform start"] += int((uniform[:, mine] & (w[:, mine] > 0)).sum())
    return [rows[k] for k in sorted(rows)]


def stored_round_mean(path: Path, weights_file: Path, size: int, rnd: int) -> float | None:
    """Round ``rnd``'s (0-based) mean weight as :func:`write_strategy_table` stored it in the
    table at ``path`` (``round_mean_weight``, the same on every row of the round; NaN where it
    is NULL), read from one row group -- or None when the table cannot vouch for weights file
    ``weights_file`` of ``size`` entries: missing, older than the weights (a run writes
    ``average.npy`` first, then the table from it), not one row per weight, or written before
    the column existed."""
    try:
        if path.stat().st_mtime_ns < weights_file.stat().st_mtime_ns:
            return None
        f = pq.ParquetFile(path)
    except (OSError, pa.ArrowException):
        return None
    names = f.schema_arrow.names
    if f.metadata.num_rows != size or "round_mean_weight" not in names:
        return None
    row = row_where(path, "round", rnd, ["round_mean_weight"])
    if row is None:
        return None
    v = row["round_mean_weight"]
    return float("nan") if v is None else float(v)


def write_strategy_table(path: Path, name: str, tree: BettingTree, buckets: HoldemBuckets,
                         average: np.ndarray, offset: np.ndarray) -> str:
    """Write the average strategy as ``schema.strategy.HOLDEM_WEIGHT_SCHEMA`` rows (one per
    information set and action, an information set's rows contiguous; ``cards`` = bucket
    sequence; ``weight`` the information set's sum of ``average``, ``reached`` whether it is
    positive, ``uniform_start`` whether it is positive and the stored average still exactly the
    uniform start, ``schema.strategy.uniform_default``) to ``path`` atomically, one row group
    per batch of decision nodes. Returns the file's SHA-256."""
    labels = bucket_labels(buckets)
    mean = round_means(tree, buckets, average, offset)
    schema = HOLDEM_WEIGHT_SCHEMA

    def const(value, n):
        return pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([value]))

    with AtomicFile(path) as out, \
            pq.ParquetWriter(out.tmp, with_format(schema, "holdem"), compression="zstd") as writer:
        batch: list[pa.Table] = []
        rows = 0
        for n in tree.decision_nodes():
            r, k = int(tree.round[n]), int(tree.nact[n])
            kb = buckets.n_buckets[r]
            idx = (offset[n, 0] + np.arange(kb)[:, None] * offset[n, 1]
                   + np.arange(k)[None, :])
            w = average[idx].astype(np.float64)
            s = w.sum(axis=1, keepdims=True)
            # float32 precision, like the weights: compresses to ~6 bytes a row, not 8
            # (schema.strategy.PROBABILITY_DTYPE, which the uniform-default rule reads at)
            prob = np.where(s > 0, w / np.where(s > 0, s, 1), 1.0 / k)
            prob = prob.astype(PROBABILITY_DTYPE).astype(np.float64)
            # the rule read from the stored probabilities, as upgrade_strategy_table does
            uniform_start = np.repeat((s[:, 0] > 0) & uniform_default(prob), k)
            prob = prob.ravel()
            m = kb * k
            weight = np.repeat(s.ravel(), k)
            names = tree.action_names(n)
            t = pa.Table.from_arrays([
                const(name, m), const("holdem", m), const(buckets.name, m),
                pa.array(np.full(m, r, np.int8)), pa.array(np.full(m, tree.player[n], np.int8)),
                labels[r].take(pa.array(np.repeat(np.arange(kb), k))),
                const(tree.history[n], m),
                pa.DictionaryArray.from_arrays(np.tile(np.arange(k, dtype=np.int32), kb),
                                               pa.array(names)),
                pa.array(prob, pa.float64()), pa.array(weight > 0, pa.bool_()),
                pa.array(weight, pa.float64()),
                pa.array(np.full(m, mean[r]), pa.float64(), mask=np.full(m, np.isnan(mean[r]))),
                pa.array(uniform_start, pa.bool_())],
                schema=schema)
            batch.append(t)
            rows += m
            if rows >= 1 << 21:
                writer.write_table(_unify(batch))
                batch, rows = [], 0
        if batch:
            writer.write_table(_unify(batch))
    return out.digest


def _unify(tables):
    return pa.concat_tables(tables).unify_dictionaries().combine_chunks()


def upgrade_strategy_table(path: Path, out: Path | None = None, progress=None) -> dict:
    """Add ``uniform_start`` (``schema.strategy.UNIFORM_START_FIELD``) to a Texas Hold'em
    table at ``path`` written before it existed, computed from the table's own rows by the
    rule :func:`write_strategy_table` applies (weight > 0 and every stored probability of the
    information set ``float32(1 / k)``), and write the result atomically to ``out`` (default:
    over ``path``; a temporary file renamed onto it, so a failure at any point -- a damaged row
    group, a full disk, Ctrl-C -- leaves the original as it was). One streaming pass, a row
    group at a time (memory: one row group, never the table): an information set's rows are
    contiguous (the writer emits them bucket by bucket, a decision node at a time), but a row
    group can end inside one, so its last information set is carried into the next row group;
    every information set found must have at least two rows whose probabilities sum to 1, else
    the rows were not contiguous and the upgrade refuses. ``progress(done_rows, total_rows)``
    is called after each row group. Returns ``{"upgraded": bool, "rows": int, "infosets": int,
    "uniform_start": int, "digest": str}`` (``uniform_start``: information sets flagged;
    ``upgraded`` False, nothing written, when the table already has the column)."""
    path = Path(path)
    try:
        f = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise UserError(f"{path}: cannot be read as a strategy table ({first_line(exc)})"
                        ) from None
    meta = f.schema_arrow.metadata or {}
    got = f.schema_arrow
    if meta.get(FORMAT_KEY) != b"holdem":
        raise UserError(f"{path}: not a Texas Hold'em strategy table (only those have "
                        "uniform_start)")
    if got.equals(HOLDEM_WEIGHT_SCHEMA, check_metadata=False):
        return {"upgraded": False, "rows": f.metadata.num_rows, "infosets": 0,
                "uniform_start": 0, "digest": ""}
    if not got.equals(STRATEGY_WEIGHT_SCHEMA, check_metadata=False):
        raise UserError(f"{path}: a Hold'em table without weights (written before issue 47): "
                        "re-solve it to get weights and uniform_start")
    schema = HOLDEM_WEIGHT_SCHEMA.with_metadata(
        {k: v for k, v in meta.items() if k != b"ARROW:schema"})
    total = f.metadata.num_rows
    done = infosets = flagged = 0
    carry = None
    with AtomicFile(out if out is not None else path) as dst, \
            pq.ParquetWriter(dst.tmp, schema, compression="zstd") as writer:
        last = f.metadata.num_row_groups - 1
        for g in range(f.metadata.num_row_groups):
            try:
                t = f.read_row_group(g)
            except (OSError, pa.ArrowException) as exc:
                raise UserError(f"{path}: row group {g} cannot be read ({first_line(exc)}); "
                                "the table is left as it was") from None
            if carry is not None:
                t = pa.concat_tables([carry, t]).unify_dictionaries()
            t = t.combine_chunks()
            complete, carry, n_sets, n_flagged = _with_uniform_start(t, g == last, done)
            if complete is not None:
                writer.write_table(pa.Table.from_arrays(complete.columns, schema=schema))
                done += complete.num_rows
            infosets += n_sets
            flagged += n_flagged
            if progress is not None:
                progress(done, total)
        if done != total:  # before the rename: the original stays
            raise UserError(f"{path}: the upgrade read {done} of {total} rows")
    return {"upgraded": True, "rows": total, "infosets": infosets, "uniform_start": flagged,
            "digest": dst.digest}


def _with_uniform_start(t: pa.Table, final: bool, offset: int):
    """Rows of ``t`` (one or more whole information sets, the last possibly cut off unless
    ``final``) with ``uniform_start`` appended: ``(complete rows or None, carried rows or None,
    information sets, flagged information sets)``. ``offset``: the row number of ``t``'s first
    row in the table (for the error message)."""
    n = t.num_rows
    if n == 0:
        return None, None, 0, 0
    history = t.column("history").chunk(0).indices.to_numpy(zero_copy_only=False)
    rnd = t.column("round").to_numpy()
    player = t.column("player").to_numpy()
    cards = t.column("cards").chunk(0)
    change = np.empty(n, dtype=bool)
    change[0] = True
    change[1:] = ((history[1:] != history[:-1]) | (rnd[1:] != rnd[:-1])
                  | (player[1:] != player[:-1])
                  | pc.not_equal(cards.slice(1), cards.slice(0, n - 1)).to_numpy(
                      zero_copy_only=False))
    starts = np.flatnonzero(change)
    end = n if final else int(starts[-1])
    carry = None if final else t.slice(end)
    starts = starts[starts < end]
    if not len(starts):
        return None, carry, 0, 0
    size = np.diff(np.append(starts, end))
    prob = t.column("probability").chunk(0).slice(0, end).to_numpy(zero_copy_only=False)
    sums = np.add.reduceat(prob, starts)
    bad = np.flatnonzero((size < 2) | (np.abs(sums - 1.0) > 1e-5))
    if len(bad):
        raise UserError(f"row {offset + int(starts[bad[0]])}: the rows of an information set "
                        "are not contiguous (fewer than 2 rows, or probabilities not summing "
                        "to 1): not a table solve wrote")
    k = np.repeat(size, size)
    same = prob.astype(PROBABILITY_DTYPE) == uniform_entry(k)
    weight = t.column("weight").chunk(0).slice(0, end).to_numpy(zero_copy_only=False)
    uniform = np.logical_and.reduceat(same, starts) & (np.nan_to_num(weight[starts]) > 0)
    head = t.slice(0, end).append_column(UNIFORM_START_FIELD,
                                         pa.array(np.repeat(uniform, size), pa.bool_()))
    return head, carry, len(starts), int(uniform.sum())
