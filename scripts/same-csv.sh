#!/usr/bin/env bash
# Checks that a change is a pure refactor of the experiments: under the same
# seed, every CSV that `bloomlab reproduce` writes at quick and default scale
# is byte-identical between two commits, apart from columns of timings.
#
#   scripts/same-csv.sh BASE [OTHER]
#
# BASE and OTHER are commits (OTHER defaults to HEAD; `--worktree` means the
# working tree as it is, uncommitted changes included). Each commit is
# checked out in a temporary git worktree and built there in release mode,
# in one target folder for commits and one for the working tree, both under
# SAME_CSV_TARGET (default target/same-csv), so that dependencies are built
# once for each. SCALES (default "quick default") and SEED (default 2024)
# choose the runs.
#
# Timing columns are those whose header names a time: `*seconds*`, `*_ns`,
# `*_ns_*`, `*_ms`, `*_ms_*`. Everything else, every row and the set of files, must match.
# Exit status 0 when every CSV matches, 1 with the differences otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
base=$1
other=${2:-HEAD}
scales=${SCALES:-quick default}
seed=${SEED:-2024}
target=${SAME_CSV_TARGET:-$root/target/same-csv}
work=$(mktemp -d)
cleanup() {
  for wt in "$work"/tree-*; do
    [ -d "$wt" ] && git worktree remove --force "$wt" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Builds the bloomlab binary of $1 (a commit, or --worktree) into $work/$2.
#
# The working tree and the commits build in target folders of their own.
# Cargo decides what to rebuild by comparing file times with its last build
# in that folder; a commit's fresh worktree has new file times, so the build
# after it would take the working tree's older files for built already and
# reuse the commit's binary, comparing a commit with itself.
build() {
  local rev=$1 name=$2 src dir
  if [ "$rev" = "--worktree" ]; then
    src=$root
    dir=$target/worktree
  else
    dir=$target/commits
    local sha
    sha=$(git rev-parse --verify "$rev^{commit}") || { echo "not a commit: $rev" >&2; exit 2; }
    src=$work/tree-$name
    git worktree add --detach --quiet "$src" "$sha"
  fi
  echo "building $rev ($name) in $src" >&2
  (cd "$src" && CARGO_TARGET_DIR=$dir cargo build --release --quiet -p bloomlab-experiments)
  cp "$dir/release/bloomlab" "$work/bloomlab-$name"
}

build "$base" base
build "$other" other

# Drops the timing columns of a CSV (named in its header) and prints the rest.
strip_timings() {
  python3 - "$1" <<'EOF'
import csv, re, sys
timing = re.compile(r"seconds|_ns$|_ns_|_ms$|_ms_")
with open(sys.argv[1], newline="") as f:
    rows = list(csv.reader(f))
keep = [i for i, name in enumerate(rows[0]) if not timing.search(name)] if rows else []
w = csv.writer(sys.stdout, lineterminator="\n")
for row in rows:
    w.writerow([row[i] for i in keep if i < len(row)])
EOF
}

status=0
for scale in $scales; do
  for name in base other; do
    echo "running $name: reproduce --scale $scale --seed $seed" >&2
    "$work/bloomlab-$name" reproduce --scale "$scale" --seed "$seed" --out "$work/out-$name-$scale" 2>/dev/null
  done
  a=$work/out-base-$scale
  b=$work/out-other-$scale
  if ! diff <(cd "$a" && ls ./*.csv) <(cd "$b" && ls ./*.csv) >/dev/null; then
    echo "$scale: the two runs wrote different CSV files:" >&2
    diff <(cd "$a" && ls ./*.csv) <(cd "$b" && ls ./*.csv) >&2 || true
    status=1
  fi
  for csv in "$a"/*.csv; do
    f=$(basename "$csv")
    [ -f "$b/$f" ] || continue
    if diff <(strip_timings "$csv") <(strip_timings "$b/$f") >"$work/diff" 2>&1; then
      echo "$scale $f: same" >&2
    else
      echo "$scale $f: DIFFERENT" >&2
      head -20 "$work/diff" >&2
      status=1
    fi
  done
done
if [ $status -eq 0 ]; then
  echo "every CSV is the same apart from timing columns ($base against $other; scales: $scales; seed $seed)"
fi
exit $status
