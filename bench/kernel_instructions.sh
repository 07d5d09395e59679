#!/bin/bash
# Instructions executed inside numba's compiled kernels for GAMES five-player games of POLICY,
# played by the tree TREE (a checkout; its wsim/kernels must resolve to its kernels/, e.g. by a
# symlink `wsim/kernels -> ../kernels`), counted by valgrind's callgrind inside numba's
# call_cfunc. The count is exact and repeatable where this machine's wall clock is not; a
# ratio of two trees' counts stands for their speed ratio (docs/architecture.md). Needs valgrind.
#
#   bench/kernel_instructions.sh TREE POLICY GAMES
set -euo pipefail
tree=$(cd "$1" && pwd); policy=$2; games=$3
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-$here/../.venv/bin/python}
# one thread, and a cache built for a generic CPU, which numba also accepts under valgrind
export NUMBA_NUM_THREADS=1 PYTHONHASHSEED=0 NUMBA_CPU_NAME=generic NUMBA_CPU_FEATURES=""
export NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-/tmp/wsim-instructions-$(echo "$tree" | sha1sum | cut -c1-12)}
export PYTHONPATH=$tree
"$python" "$here/kernel_instructions.py" "$policy" 1 > /dev/null  # compile outside valgrind
out=$(mktemp)
valgrind --tool=callgrind --toggle-collect='*call_cfunc*' --callgrind-out-file="$out" \
  "$python" "$here/kernel_instructions.py" "$policy" "$games" 2>&1 | sed -n 's/.*Collected : *//p'
rm -f "$out"
