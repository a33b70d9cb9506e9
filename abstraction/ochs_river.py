"""Texas Hold'em's river clustered by opponent cluster hand strength, at full size.

Johanson, Burch, Valenzano & Bowling, "Evaluating state-space abstractions in extensive-form
games" (AAMAS 2013), section 4, cluster the river by k-means on the OCHS vectors
(``abstraction.ochs``): imperfect recall clusters all 123,156,254 canonical river hands at once
(their 9,000-bucket river), perfect recall the river hands each turn bucket's hands reach. Both
are too large for an in-memory k-means: 123 million 8-D points, and per turn bucket about
a billion (turn bucket, river hand) pairs in all.

- ``sample_kmeans`` clusters every row of the table. Identical rows are merged first, exactly
  (``distinct_rows``: a 64-bit hash per row, sorted, equal hashes compared word by word),
  their class sizes summed: with 8 opponent clusters only 17,657,971 of the 123,156,254
  vectors (14.3%) are distinct. Then Lloyd's algorithm runs on a seeded uniform sample of the
  distinct rows (k-means++ seeding up to ``KMEANS_PP_MAX`` centres, seeded distinct rows
  above; empty clusters re-seeded at the points farthest from their centres), nearest
  centres found exactly by a k-d tree (scipy's ``cKDTree``), and every distinct row is
  assigned to its nearest centre, exactly (the centres are not moved again, so a hand's
  bucket is its nearest stored centroid). The error reported is the weighted mean squared
  distance of the hands to their centres.
- Imperfect recall (``OCHSRiver.cluster``): ``sample_kmeans`` with the round's bucket count.
- Perfect recall (``OCHSRiver.points``): the table is first quantised by ``sample_kmeans`` into
  ``RIVER_CODES`` codes (a uint16 per river hand; cached beside the table), and each turn
  bucket's river is its distribution over the codes (``_ochs_kernels.code_histograms``: every
  turn hand's 46 river cards), a code standing at its centre. The tree builder clusters those
  points per turn bucket as it clusters the equity keys of ``pa``'s river (exact integer keys,
  1,981 of them); a code is a finer unit (65,535, against 28,800 river buckets in all), and its
  quantisation error is reported beside the clustering error (``code_error``). Measured at 8
  opponent clusters: codes 0.0019 (mean squared distance), all river hands into 9,000
  clusters 0.0057, a turn bucket's river hands into 6 clusters 0.03-0.09.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abstraction._ochs_kernels import code_histograms
from abstraction._points_kernels import group_rows, row_hashes
from abstraction.clustering import Points, seed_for
from abstraction.hands import GameHands
from abstraction.ochs import (HoldemOCHS, cache_dir, cached_holdem_ochs,
                              holdem_ochs_table, holdem_opponent_clusters)
from etl.isomorphism import HandIndexer, raw_count
from etl.lock import file_lock

#: Codes of the perfect-recall river (uint16), and their (smaller) k-means: the sample per
#: code and the Lloyd steps (the codes are a fine quantisation, refined per turn bucket)
RIVER_CODES = 65_535
CODE_SAMPLE_PER_CENTRE = 40
CODE_MAX_ITER = 15
#: sample of rows for the sample k-means: this many per centre, at least MIN_SAMPLE
SAMPLE_PER_CENTRE = 100
MIN_SAMPLE = 1_000_000
#: k-means++ seeding (on 3 k sampled points) up to this many centres; seeded rows above
KMEANS_PP_MAX = 10_000
MAX_ITER = 30
TOL = 1e-4
#: rows per exact-assignment step
CHUNK = 1 << 21


def _query(tree, x: np.ndarray):
    d, lab = tree.query(x, workers=-1)
    return d, lab.astype(np.int64)


def _lloyd(x: np.ndarray, w: np.ndarray, centres: np.ndarray, max_iter: int):
    """Weighted Lloyd from ``centres`` (exact nearest centres by a k-d tree) until the error
    falls by less than ``TOL`` of itself; empty clusters re-seeded at the farthest points."""
    from scipy.spatial import cKDTree  # lazy: only the Texas Hold'em OCHS build needs it

    k, d = centres.shape
    prev = np.inf
    for _ in range(max_iter):
        dist, lab = _query(cKDTree(centres), x)
        err = float(w @ dist ** 2)
        wk = np.bincount(lab, weights=w, minlength=k)
        sums = np.stack([np.bincount(lab, weights=w * x[:, j], minlength=k) for j in range(d)],
                        axis=1)
        full = wk > 0
        centres = centres.copy()
        centres[full] = sums[full] / wk[full, None]
        empty = np.flatnonzero(~full)
        if len(empty):
            far = np.argsort(-(w * dist ** 2), kind="stable")[:len(empty)]
            centres[empty[:len(far)]] = x[far]
        elif prev - err <= TOL * err:
            break
        prev = err
    return centres


def _seed_centres(x: np.ndarray, w: np.ndarray, k: int, rng) -> np.ndarray:
    if k <= KMEANS_PP_MAX:
        from sklearn.cluster import kmeans_plusplus  # lazy: ~3 s to import

        sub = rng.choice(len(x), min(len(x), 3 * k), replace=False)
        return kmeans_plusplus(x[sub], k, sample_weight=w[sub],
                               random_state=int(rng.integers(2 ** 31)))[0]
    return x[rng.choice(len(x), k, replace=False, p=w / w.sum())]


def distinct_rows(x: np.ndarray, size: np.ndarray, hashes=row_hashes):
    """The distinct rows of the float32 matrix ``x`` (exact: equal bit patterns), with their
    summed weights ``size``: (inverse (rows,) int32, the first row of each distinct one
    (m,) int64, weights (m,)). ``hashes`` maps the (rows, d) uint32 bits to a 64-bit hash."""
    bits = np.ascontiguousarray(x).view(np.uint32)
    h = hashes(bits)
    order = np.argsort(h)
    inverse = np.empty(len(h), np.int32)
    first = np.empty(len(h), np.int32)
    m = group_rows(bits, order, h, inverse, first)
    del h, order
    first = first[:m].astype(np.int64)
    w = np.zeros(m)
    for a in range(0, len(inverse), CHUNK):
        w += np.bincount(inverse[a:a + CHUNK], weights=np.asarray(size[a:a + CHUNK], np.float64),
                         minlength=m)
    return inverse, first, w


def sample_kmeans(x: np.ndarray, size: np.ndarray, k: int, seed: int,
                  sample: int | None = None, max_iter: int = MAX_ITER):
    """Weighted k-means of every row of ``x`` (float32, weights ``size``) into at most ``k``
    clusters (module docstring). ``x`` may be memory-mapped.

    Returns:
        (labels (rows,) int32: every row's nearest centre, the centres (k', d) float64 (the
        sample's k-means centres, those no row is nearest to dropped), the weighted mean
        squared distance of the rows to their centres, the number of distinct rows).
        Every row's bucket is thus its nearest centre: the centres and the table reproduce it.
    """
    from scipy.spatial import cKDTree  # lazy: only the Texas Hold'em OCHS build needs it

    inverse, first, w = distinct_rows(x, size)
    xd = np.asarray(x[first], dtype=np.float32)
    m = len(first)
    rng = np.random.default_rng(seed)
    if m <= k:
        centres = xd.astype(np.float64)
    else:
        s = min(m, sample or max(MIN_SAMPLE, SAMPLE_PER_CENTRE * k))
        rows = np.sort(rng.choice(m, s, replace=False)) if s < m else np.arange(m)
        pts, pw = xd[rows].astype(np.float64), w[rows]
        centres = _lloyd(pts, pw, _seed_centres(pts, pw, k, rng), max_iter)
        del pts, pw
    tree = cKDTree(centres)
    labels = np.empty(m, np.int32)
    sq = 0.0
    for a in range(0, m, CHUNK):
        dist, lab = _query(tree, xd[a:a + CHUNK].astype(np.float64))
        labels[a:a + len(lab)] = lab
        sq += float(w[a:a + CHUNK] @ dist ** 2)
    wk = np.bincount(labels, weights=w, minlength=len(centres))
    used = wk > 0
    if not used.all():
        labels = (np.cumsum(used) - 1)[labels].astype(np.int32)
    out = np.empty(len(inverse), np.int32)
    for a in range(0, len(inverse), CHUNK):
        out[a:a + CHUNK] = labels[inverse[a:a + CHUNK]]
    return out, centres[used], sq / w.sum(), m


@dataclass
class OCHSRiver:
    """The river of a Texas Hold'em ``ochs`` build: the OCHS table, the turn hands'
    probabilities, and (perfect recall) the river codes with their centres."""

    table: HoldemOCHS
    turn_weight: np.ndarray
    codes: np.ndarray | None = None
    codebook: np.ndarray | None = None
    code_error: float | None = None

    def report(self) -> dict:
        """What the river's build report adds: the opponent clusters (preflop classes in
        each) and, for perfect recall, the codes and their error."""
        out = {"opponent_clusters": self.table.n_clusters,
               "opponent_cluster_classes": np.bincount(self.table.clusters).tolist()}
        if self.codebook is not None:
            out.update(river_codes=len(self.codebook), code_error=self.code_error)
        return out

    def points(self, turn_bucket: np.ndarray):
        """``LeafRound.points``: per turn bucket, its river codes as points ``x = (mean equity,
        code)`` with their conditional probabilities, and the turn buckets' probabilities."""
        turn_bucket = np.asarray(turn_bucket, np.int64)
        kt = int(turn_bucket.max()) + 1
        order = np.argsort(turn_bucket, kind="stable")
        starts = np.searchsorted(turn_bucket[order], np.arange(kt + 1))
        m = len(self.codebook)
        batch = max(1, min(kt, (1 << 24) // m))
        w, e = np.empty((batch, m)), np.empty((batch, m))
        tt, rt = HandIndexer((2, 3, 1)).tables, HandIndexer((2, 5)).tables
        out, p = [], np.zeros(kt)
        for lo in range(0, kt, batch):
            hi = min(kt, lo + batch)
            code_histograms(tt, rt, order, starts, lo, hi, self.turn_weight, self.codes,
                            self.table.key, m, w, e)
            for i in range(hi - lo):
                nz = np.flatnonzero(w[i] > 0)
                wi = w[i, nz]
                p[lo + i] = wi.sum()
                x = np.column_stack([e[i, nz] / wi, nz.astype(np.float64)])
                out.append(Points(x, wi / p[lo + i], np.arange(len(nz))))
        return out, p

    def cluster(self, k: int, seed: int):
        """Imperfect recall: every river hand clustered on its OCHS vector
        (``sample_kmeans``): (labels by [2,5] index, centres, error, distinct sampled rows)."""
        return sample_kmeans(self.table.vectors, self.table.size, k, seed)

    def bucket_stats(self, labels: np.ndarray, k: int):
        """Per bucket of river-hand ``labels``: (probability, canonical hands, mean equity,
        least and greatest equity)."""
        w, eq, count = np.zeros(k), np.zeros(k), np.zeros(k, np.int64)
        lo, hi = np.full(k, np.inf), np.full(k, -np.inf)
        size, key = self.table.size, self.table.key
        for a in range(0, len(labels), CHUNK):
            lab = labels[a:a + CHUNK]
            wc = np.asarray(size[a:a + CHUNK], np.float64)
            ec = np.asarray(key[a:a + CHUNK], np.float64) / 1980.0
            w += np.bincount(lab, weights=wc, minlength=k)
            eq += np.bincount(lab, weights=wc * ec, minlength=k)
            count += np.bincount(lab, minlength=k)
            np.minimum.at(lo, lab, ec)
            np.maximum.at(hi, lab, ec)
        return w / raw_count((2, 5)), count, eq / np.maximum(w, 1e-300), lo, hi


def holdem_river(hands: GameHands, clusters: int, random_state: int = 0, n_init: int = 4,
                 perfect_recall: bool = True, progress: bool = False) -> OCHSRiver:
    """The OCHS river of Texas Hold'em ``hands`` (``abstraction.holdem.holdem_hands``: the
    preflop classes' river-equity histograms, the turn hands' probabilities): opponent
    clusters, the table (cached in ``hands.data_dir`` when set) and, for perfect recall, the
    river codes (cached there too)."""
    pre = hands.rounds[0]
    cls = holdem_opponent_clusters(pre.histogram, pre.weight, clusters, random_state, n_init)
    if hands.data_dir is None:
        table = holdem_ochs_table(cls, progress)
    else:
        table = cached_holdem_ochs(hands.data_dir, cls, random_state, progress)
    river = OCHSRiver(table, hands.rounds[2].weight)
    if perfect_recall:
        seed = seed_for(random_state, 7_001, RIVER_CODES)
        if hands.data_dir is None:
            labels, river.codebook, river.code_error = _codes(table, seed)
            river.codes = labels.astype(np.uint16)
        else:
            river.codes, river.codebook, river.code_error = _cached_codes(
                cache_dir(hands.data_dir, table.n_clusters, random_state), table, seed)
    return river


def _codes(table: HoldemOCHS, seed: int):
    """The river codes: (label of every river hand, codebook, error)."""
    labels, codebook, err, _ = sample_kmeans(table.vectors, table.size, RIVER_CODES, seed,
                                             sample=CODE_SAMPLE_PER_CENTRE * RIVER_CODES,
                                             max_iter=CODE_MAX_ITER)
    return labels, codebook, err


def _cached_codes(folder: Path, table: HoldemOCHS, seed: int):
    """The river codes of ``table`` in its cache folder (``codes-<M>.npy``, the centres in
    ``codebook-<M>.npy``, ``codes-<M>.json`` last, each written to a temporary name and
    renamed), computed and stored first when missing; kept only while the folder holds the
    table of the same opponent clusters."""
    names = [folder / f"{stem}-{RIVER_CODES}{ext}" for stem, ext in
             (("codes", ".npy"), ("codebook", ".npy"), ("codes", ".json"))]
    meta = {"codes": RIVER_CODES, "seed": int(seed),
            "clusters": [int(c) for c in table.clusters]}
    with file_lock(folder.parent / f".{folder.name}.lock"):
        try:
            got = json.loads(names[2].read_text())
            if {k: got.get(k) for k in meta} == meta:
                return (np.load(names[0], mmap_mode="r"), np.load(names[1]),
                        float(got["error"]))
        except (OSError, ValueError, KeyError):
            pass
        labels, codebook, err = _codes(table, seed)
        codes = labels.astype(np.uint16)
        del labels
        try:  # the folder's table may have been replaced meanwhile (other clusters)
            same = json.loads((folder / "meta.json").read_text())["clusters"] == meta["clusters"]
        except (OSError, ValueError, KeyError):
            same = not folder.exists()
        if not same:
            return codes, codebook, err
        folder.mkdir(parents=True, exist_ok=True)
        for path, arr in zip(names[:2], (codes, codebook)):
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                np.save(fh, arr)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        tmp = names[2].with_name(f".{names[2].name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({**meta, "error": err, "built": len(codebook)}))
        os.replace(tmp, names[2])
        return codes, codebook, err
