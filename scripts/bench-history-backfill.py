#!/usr/bin/env python3
"""Backfill the benchmark CSVs from the versions of results/BENCH.md in git.

Before `bench-report` wrote CSV, each run lived only in the markdown it
wrote. This script reads those versions back:

  results/bench_history.csv  one line per run and goal, from the goal
                             tables of every committed results/BENCH.md
                             (`git log --format=%H -- results/BENCH.md`).
                             A run that several commits show is taken
                             once, from its oldest version, which has the
                             most columns: later commits re-rendered the
                             same results (same start and end time) and
                             named their own HEAD as the commit, so the
                             oldest version's commit is kept.
  results/bench_rows.csv     one line per measured row, from the per-row
                             tables of one version (by default 8dbae34:
                             the last full generated report, of the run at
                             ea8e487 on 2026-12-05 01:46-02:20 UTC).

The columns are those `bench-report` writes (benches/src/report/csv.rs).
Numbers keep the precision the markdown printed (two decimals for ratios,
three significant figures for times); a column an old format lacked is
left empty (the condensed tables name no subject, reference or setting;
before rows were timed in turns, the one measured ratio is `ratio_apart`).

Versions written since `bench-report` upserts the history itself (goal
tables with a column per operation and setting) are not read.

Run once from the workspace root:

    python3 scripts/bench-history-backfill.py

Options: --history FILE, --rows FILE, --rows-from COMMIT, --no-rows.
Lines of runs already in --history (by start and commit) are kept, so a
later run that `bench-report` wrote is not lost.
"""

import argparse
import csv
import io
import re
import subprocess
import sys

HISTORY_HEADER = [
    "run_start_utc", "run_end_utc", "commit", "issue", "goal", "subject",
    "reference", "setting", "ratio_in_turns", "ratio_apart", "target",
    "target_over_floor", "verdict", "informational",
]
ROWS_HEADER = [
    "run_start_utc", "run_end_utc", "commit", "group", "setting", "subject",
    "unit", "median", "ci_low", "ci_high", "ratio_to_best_peer", "floor",
    "ratio_to_floor", "ratio_to_floor_in_turns",
]
PATH = "results/BENCH.md"
DEFAULT_ROWS_FROM = "8dbae34"


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True,
                          text=True).stdout


def iso(day, time):
    return f"{day}T{time}Z"


def run_identity(text):
    """(start, end, commit) of the run a BENCH.md version reports, or None."""
    m = re.search(r"^- Date: results written from (\S+) (\d\d:\d\d) UTC to "
                  r"(\S+) (\d\d:\d\d) UTC", text, re.M)
    if m:
        start, end = iso(m[1], m[2]), iso(m[3], m[4])
    else:
        m = re.search(r"^- Date: results written (\S+) (\d\d:\d\d) UTC", text, re.M)
        if m:
            start = end = iso(m[1], m[2])
        else:
            # The condensed form: "one run at `ea8e487`, 2026-12-05 01:46–02:20
            # UTC", or "**Run:** commit `ea8e487`, 2026-12-05 01:46–02:20 UTC".
            m = re.search(r"run at `([0-9a-f]+)`, (\d{4}-\d\d-\d\d) "
                          r"(\d\d:\d\d)[–-](\d\d:\d\d) UTC", text) or re.search(
                r"\*\*Run:\*\* commit `([0-9a-f]+)`, (\d{4}-\d\d-\d\d) "
                r"(\d\d:\d\d)[–-](\d\d:\d\d) UTC", text)
            if not m:
                return None
            return iso(m[2], m[3]), iso(m[2], m[4]), m[1]
    c = re.search(r"^- Commit: `([0-9a-f]+)`", text, re.M)
    return start, end, c[1] if c else "unknown"


def cells(line):
    """The cells of a markdown table row (`\\|` is a pipe inside a cell)."""
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def ident(cell):
    """`group` `subject` (or one backticked id) as group/subject."""
    ticks = re.findall(r"`([^`]*)`", cell)
    return "/".join(ticks) if ticks else ("" if cell in ("–", "-") else cell)


def number(cell):
    cell = cell.replace("≤", "").replace("*", "").strip()
    return "" if cell in ("–", "-", "") else cell


def verdict(cell):
    text = cell.replace("*", "").strip()
    informational = "informational" in text
    if text.startswith("met"):
        word = "met"
    elif text.startswith("not met, out of reach"):
        word = "out of reach"
    elif text.startswith("not met"):
        word = "not met"
    elif text.startswith("not measured"):
        word = "not measured"
    elif text.startswith("not judged") or "below" in text.split(",")[0]:
        word = "below floor"
    else:
        word = text
    return word, "true" if informational else "false"


# Header cell -> history column.
COLUMNS = {
    "goal": "goal", "subject": "subject", "reference": "reference",
    "setting": "setting", "ratio in turns": "ratio_in_turns",
    "in turns": "ratio_in_turns", "ratio apart": "ratio_apart",
    "apart": "ratio_apart", "measured ratio": "ratio_apart",
    "target": "target", "target over floor": "target_over_floor",
    "verdict": "verdict",
}


def goal_lines(text, run):
    """The history lines of the `## Goals` section of one version."""
    m = re.search(r"^## Goals\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return []
    out, issue, header = [], None, None
    for line in m[1].splitlines():
        h = re.match(r"^### Issue (\d+)", line)
        if h:
            issue, header = h[1], None
            continue
        i = re.search(r"\(issue (\d+)", line)
        if i and not line.startswith("|"):
            issue = i[1]
        if not line.startswith("|"):
            continue
        row = cells(line)
        if row and row[0] == "goal":
            # A table with a verdict column per goal; the tables bench-report
            # writes since it writes the history (a column per setting) are
            # not read: their runs are in the CSV already.
            header = [COLUMNS.get(c) for c in row] if "verdict" in row else None
            continue
        if header is None or set("".join(row)) <= set("-:") or issue is None:
            continue
        got = dict(zip(header, row))
        word, informational = verdict(got.get("verdict", ""))
        out.append([
            run[0], run[1], run[2], issue, got.get("goal", ""),
            ident(got.get("subject", "")), ident(got.get("reference", "")),
            number(got.get("setting", "")), number(got.get("ratio_in_turns", "")),
            number(got.get("ratio_apart", "")), number(got.get("target", "")),
            number(got.get("target_over_floor", "")), word, informational,
        ])
    return out


def row_lines(text, run):
    """The rows of the `## Results` tables of one version."""
    m = re.search(r"^## Results\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return []
    out, group, setting, turns = [], None, "", False
    for line in m[1].splitlines():
        h = re.match(r"^### `([^`]+)`(?: \((.*)\))?$", line)
        if h:
            group, setting = h[1], (h[2] or "")
            turns = group.split("/", 1)[-1].startswith("turns_")
            continue
        if group is None or not line.startswith("| `"):
            continue
        row = cells(line)
        subject = re.match(r"`([^`]*)`", row[0])[1]
        unit = "ratio" if turns else "ns/op"
        per = re.search(r"\(per (\w+)\)", row[0])
        if per and not turns:
            unit = f"ns/{per[1]}"
        low, high = (number(x) for x in row[2].split("–"))
        best = number(row[3]) if len(row) > 3 else ""
        floor = ratio_floor = in_turns = ""
        if len(row) > 4 and number(row[4]):
            f = re.match(r"([\d.]+) \(`([^`]*)`(?:; in turns ([\d.]+))?\)", row[4])
            if f:
                ratio_floor, floor, in_turns = f[1], f[2], f[3] or ""
        out.append([run[0], run[1], run[2], group, setting, subject, unit,
                    number(row[1]), low, high, best, floor, ratio_floor,
                    in_turns])
    return out


def write(path, header, lines):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(lines)
    with open(path, "w", encoding="utf-8") as f:
        f.write(buf.getvalue())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--history", default="results/bench_history.csv")
    ap.add_argument("--rows", default="results/bench_rows.csv")
    ap.add_argument("--rows-from", default=DEFAULT_ROWS_FROM)
    ap.add_argument("--no-rows", action="store_true")
    args = ap.parse_args()

    commits = git("log", "--format=%H", "--", PATH).split()
    runs = {}
    for commit in reversed(commits):  # oldest first: the fullest version of a run
        try:
            text = git("show", f"{commit}:{PATH}")
        except subprocess.CalledProcessError:
            continue  # the file was deleted in this commit
        run = run_identity(text)
        if run is None or any(k[:2] == run[:2] for k in runs):
            continue
        lines = goal_lines(text, run)
        if lines:
            runs[run] = lines

    try:
        with open(args.history, encoding="utf-8") as f:
            old = list(csv.reader(f))
    except FileNotFoundError:
        old = [HISTORY_HEADER]
    if old and old[0] != HISTORY_HEADER:
        sys.exit(f"{args.history}: unexpected header {old[0]}")
    kept = [r for r in old[1:] if not any(k[:2] == (r[0], r[1]) for k in runs)]
    lines = kept + [line for key in sorted(runs) for line in runs[key]]
    lines.sort(key=lambda r: r[0])  # stable: each run's goals stay in order
    write(args.history, HISTORY_HEADER, lines)
    print(f"{args.history}: {len(runs)} runs from {len(commits)} commits, "
          f"{len(lines)} lines")

    if not args.no_rows:
        text = git("show", f"{args.rows_from}:{PATH}")
        run = run_identity(text)
        rows = row_lines(text, run)
        write(args.rows, ROWS_HEADER, rows)
        print(f"{args.rows}: {len(rows)} rows of the run at {run[2]}, "
              f"{run[0]} to {run[1]} (from {args.rows_from}:{PATH})")


if __name__ == "__main__":
    main()
