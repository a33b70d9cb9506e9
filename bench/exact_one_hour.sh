#!/usr/bin/env bash
# The exact best responses of the one-hour `pa` and `eb` strategies (issue 51), resumable on
# any machine. In DATA (default ./data) it builds what is missing: the equity tables and the
# 20/800/4800/28800 abstraction, then the strategy solved to the iterations one CPU hour of
# the default solver bought on 2026-11-29 (110,508 for `pa`, 102,814 for `eb`: a Hold'em solve
# is reproducible from its iteration count, so every machine gets the same bytes), then the
# exact best response, started from bench/progress/NAME-exact.npz and kept there as it goes
# (`--progress-file`: the flops summed so far, keyed by the strategy's content; commit it to
# carry the run to the next machine). Stop it any time (Ctrl-C, kill): the same command resumes.
# When a strategy's exact run is done, its LBR bound beside it: `evaluate`'s 400 boards and the
# 2,000 boards of bench/bench_lbr_fulldeck.py (both kept in the run's evaluations/, so a second
# pass reads them back), then the SQL row that puts the two side by side, per seat.
#
#     bash bench/exact_one_hour.sh [DATA] [pa|eb|both] [--no-exact]
#
# --no-exact stops after the solve: on a new machine, run `... DATA eb --no-exact` on one core
# while `... DATA pa` solves on the other (a solve uses one), so both strategies are there
# when the exact runs (two workers each) take both cores. WORKERS=1 (default 2) gives an exact
# run one core, so both strategies' runs can share the two: `WORKERS=1 bash ... DATA pa` and
# `WORKERS=1 bash ... DATA eb` side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${1:-data}
WHICH=${2:-both}
EXACT=1
[[ ${3:-} == --no-exact ]] && EXACT=0
export MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=4294967296
declare -A ITERATIONS=([pa]=110508 [eb]=102814)
for m in pa eb; do
    [[ $WHICH == both || $WHICH == "$m" ]] || continue
    abs="holdem-$m-20-800-4800-28800"
    run="$D/strategies/$m-1h"
    if [[ ! -d $D/abstractions/$abs ]]; then
        python cli.py --data-dir "$D" build-abstraction --buckets 20,800,4800,28800 --method "$m"
    fi
    if [[ ! -f $run/average.npy ]]; then
        resume=()
        [[ -f $run/checkpoint/state.json ]] && resume=(--resume)
        NUMBA_NUM_THREADS=1 python cli.py --data-dir "$D" solve --game holdem --abstraction "$abs" \
            --iterations "${ITERATIONS[$m]}" --checkpoint-minutes 30 --lbr-deals 0 --h2h-deals 1 \
            --name "$m-1h" "${resume[@]}"
    fi
    [[ $EXACT == 1 ]] || continue
    NUMBA_NUM_THREADS=1 python cli.py --data-dir "$D" evaluate "$m-1h" --best-response exact \
        --workers "${WORKERS:-2}" --progress-file "bench/progress/$m-1h-exact.npz"
    NUMBA_NUM_THREADS=1 python cli.py --data-dir "$D" evaluate "$m-1h" --lbr-boards 400 \
        --h2h-deals 2
    NUMBA_NUM_THREADS=1 python -m bench.bench_lbr_fulldeck --data-dir "$D" --strategy "$m-1h" \
        --boards 2000
    python cli.py --data-dir "$D" sql "SELECT spec, exploitability_mbb, lbr_mbb, lbr_half_width_mbb, \
        lbr_boards, exact_minus_lbr_mbb, exact_minus_lbr_small_blind_mbb, \
        exact_minus_lbr_big_blind_mbb FROM holdem_exact_best_response WHERE strategy = '$m-1h'"
done
