#!/usr/bin/env python3
"""Image filtering on P workstations sharing one Ethernet bus (MMT §4.1, example E2):
the response time of one image against P, for two image sizes, solved exactly.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/image_filter_sweep.py \
        [--max-p 8] [--csv OUT.csv] [--plot OUT.png]

The description is read and parsed once; each point rebuilds it with its parameters
(Model.at) and is solved on a thread of its own (mmt releases the GIL while it solves).
The plot needs matplotlib (apt install python3-matplotlib); the table and the CSV do not.
"""

import argparse
import concurrent.futures
import csv
import os
import sys

import mmt

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-p", type=int, default=8, help="workstations up to this many")
    parser.add_argument("--sizes", default="512,1024", help="image sizes N (pixels a side)")
    parser.add_argument("--csv", help="write the rows to this CSV file")
    parser.add_argument("--plot", help="draw the curves into this PNG or SVG file")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]

    model = mmt.load(os.path.join(HERE, "..", "image_filter.hdl"), {"P": 1, "N": sizes[0]})
    points = [(p, n) for n in sizes for p in range(1, args.max_p + 1)]

    def solve(point):
        p, n = point
        r = model.at(P=p, N=n).solve()
        return {"P": p, "N": n, "response_time": r.application.response_time,
                "throughput": r.application.throughput,
                "bus_utilization": r.links["Ether"].utilization if "Ether" in r.links else 0.0,
                "states": r.states["tangible"]}

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        rows = list(pool.map(solve, points))

    print(f"{'N':>5} {'P':>2} {'response time (s)':>18} {'images/s':>9} {'bus':>6} {'states':>7}")
    for row in rows:
        print(f"{row['N']:>5} {row['P']:>2} {row['response_time']:>18.4f} "
              f"{row['throughput']:>9.5f} {row['bus_utilization']:>6.3f} {row['states']:>7}")
    best = {n: min((r for r in rows if r["N"] == n), key=lambda r: r["response_time"])
            for n in sizes}
    for n, row in best.items():
        print(f"N = {n}: fastest with P = {row['P']} ({row['response_time']:.4f} s per image)")

    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("no matplotlib: apt install python3-matplotlib to draw the plot", file=sys.stderr)
            return 1
        fig, ax = plt.subplots(figsize=(6, 4))
        for n in sizes:
            mine = [r for r in rows if r["N"] == n]
            ax.plot([r["P"] for r in mine], [r["response_time"] for r in mine], marker="o",
                    label=f"N = {n}")
        ax.set_xlabel("workstations P")
        ax.set_ylabel("response time of one image (s)")
        ax.set_title("Image filtering on a shared Ethernet (MMT §4.1), exact")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
