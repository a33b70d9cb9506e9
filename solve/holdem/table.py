"""A Texas Hold'em strategy as a strategy table: one row per (betting node, bucket sequence,
action), the bucket sequence written "3.17.101" (``write_strategy_table``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from schema.storage import AtomicFile
from schema.strategy import STRATEGY_SCHEMA, with_format

from solve.holdem.buckets import HoldemBuckets
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


def write_strategy_table(path: Path, name: str, tree: BettingTree, buckets: HoldemBuckets,
                         average: np.ndarray, offset: np.ndarray) -> str:
    """Write the average strategy as ``schema.strategy.STRATEGY_SCHEMA`` rows (one per
    information set and action; ``cards`` = bucket sequence) to ``path`` atomically, one row
    group per batch of decision nodes. Returns the file's SHA-256."""
    labels = bucket_labels(buckets)

    def const(value, n):
        return pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([value]))

    with AtomicFile(path) as out, \
            pq.ParquetWriter(out.tmp, with_format(STRATEGY_SCHEMA, "holdem"), compression="zstd") as writer:
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
            prob = np.where(s > 0, w / np.where(s > 0, s, 1), 1.0 / k).ravel()
            prob = prob.astype(np.float32).astype(np.float64)
            m = kb * k
            names = tree.action_names(n)
            t = pa.Table.from_arrays([
                const(name, m), const("holdem", m), const(buckets.name, m),
                pa.array(np.full(m, r, np.int8)), pa.array(np.full(m, tree.player[n], np.int8)),
                labels[r].take(pa.array(np.repeat(np.arange(kb), k))),
                const(tree.history[n], m),
                pa.DictionaryArray.from_arrays(np.tile(np.arange(k, dtype=np.int32), kb),
                                               pa.array(names)),
                pa.array(prob, pa.float64())], schema=STRATEGY_SCHEMA)
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
