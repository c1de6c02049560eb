#!/usr/bin/env python3
"""Histogram of a task file's work amounts (Filipović & Krstajić 2016, Fig. 4), as CSV and PNG.

usage: nnlb tasks cq:800000 > tasks.txt
       tools/task_histogram.py tasks.txt OUT_PREFIX      # writes OUT_PREFIX.csv and OUT_PREFIX.png

Bins of 1 s (log-scaled counts, as the tail reaches 165 s); prints the statistics the paper
gives: the mean, the share between 12 and 18 s and the longest task. Needs gnuplot for the PNG.
"""
import subprocess
import sys


def main():
    work = [float(line) for line in open(sys.argv[1]) if line.strip() and not line.startswith("#")]
    prefix = sys.argv[2]
    bins = {}
    for w in work:
        bins[int(w)] = bins.get(int(w), 0) + 1
    with open(prefix + ".csv", "w") as f:
        f.write("seconds,tasks\n")
        for b in range(0, int(max(work)) + 1):
            f.write(f"{b},{bins.get(b, 0)}\n")
    inside = sum(1 for w in work if 12 <= w <= 18) / len(work)
    print(f"{len(work)} tasks: mean {sum(work) / len(work):.2f} s, {100 * inside:.1f} % between 12 and 18 s, "
          f"longest {max(work):.1f} s")
    script = f"""set terminal pngcairo size 800,450
set output '{prefix}.png'
set datafile separator ','
set logscale y
set xlabel 'task duration (s, 1 s bins)'
set ylabel 'tasks'
set title 'cq: {len(work)} tasks, mean {sum(work) / len(work):.2f} s, {100 * inside:.1f} % in [12, 18] s, longest {max(work):.0f} s'
set style fill solid 0.6
plot '{prefix}.csv' using 1:2 every ::1 with boxes notitle
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    main()
