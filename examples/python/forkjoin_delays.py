#!/usr/bin/env python3
"""Fork-join on a processor mesh (MMT §2, example E1): does the exponential assumption
matter? The exact solution (exponential delays) beside simulations with exponential and
with constant delays, for every actor and the application.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/forkjoin_delays.py \
        [--replications 20] [--events 100000] [--plot OUT.png]

With constant delays the branches finish together more often, so A4 waits less for its
last input (its synchronization delay falls): the application's response time drops from
50.07 to about 47.5.
The plot needs matplotlib (apt install python3-matplotlib).
"""

import argparse
import os
import sys

import mmt

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=20)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--plot", help="draw the times into this PNG or SVG file")
    args = parser.parse_args()

    model = mmt.load(os.path.join(HERE, "..", "forkjoin.hdl"))
    c = model.compare(replications=args.replications, events=args.events)
    # Response times, and the time A4's earlier input waits for its later one.
    rows = [("application", c.application.response_time)]
    rows += [(f"actor {name}", actor.response_time) for name, actor in c.actors.items()]
    rows.append(("A4 sync delay", c.actors["A4"].synchronization_delay))

    print(f"{'time (t)':<16} {'exact':>9} {'exponential':>18} {'constant':>18}")
    for name, cell in rows:
        e, k = cell.simulated["exponential"], cell.simulated["constant"]
        flag = "!" if cell.outside else " "
        print(f"{name:<16} {cell.exact:>9.4f} {e.mean:>10.4f} ± {e.half_width:<6.3f}"
              f"{k.mean:>10.4f} ± {k.half_width:<6.3f}{flag}")
    print(f"'!': outside the exponential simulation's interval ({len(c.outside)} of the "
          f"compared numbers; about 5 % by chance)")

    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("no matplotlib: apt install python3-matplotlib to draw the plot", file=sys.stderr)
            return 1
        names = [name for name, _ in rows]
        x = range(len(rows))
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.bar([i - 0.27 for i in x], [cell.exact for _, cell in rows], 0.27, label="exact")
        for offset, kind in ((0, "exponential"), (0.27, "constant")):
            ax.bar([i + offset for i in x], [cell.simulated[kind].mean for _, cell in rows], 0.27,
                   yerr=[cell.simulated[kind].half_width for _, cell in rows],
                   label=f"simulated, {kind}")
        ax.set_xticks(list(x), names)
        ax.set_ylabel("time (t)")
        ax.set_title("Fork-join (MMT §2): exponential against constant delays")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
