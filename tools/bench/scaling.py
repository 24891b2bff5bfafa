#!/usr/bin/env python3
"""The scaling model of docs/distributed.md, "Scale on paper": per-rank memory, network
volume per solver iteration and per exploration, and the time per iteration on a 10 Gb/s
and a 100 Gb/s network, for Kanban N = 9 and N = 10 on 16, 64 and 256 nodes (one rank
each). Its constants are the measured figures of tools/bench/distributed.

    tools/bench/scaling.py                 # the table of the docs
    tools/bench/scaling.py --partition hash  # the markings owned by hash throughout
    tools/bench/scaling.py --bytes-per-marking 100 --base-mb 45

A rank's memory is its base (Open MPI and PETSc loaded), plus per marking it owns (its
marking, exit rate, column start, the iterate and what exploration leaves), per edge into
its markings (one packed 4-byte word) and per ghost (20 bytes: its value, and at its
owner the index and the packed value; mpi/steady_state.cpp).
"""
import argparse

# Published tangible markings (../shared/spec/benchmarks.md); edges per marking measured
# up to N = 8 (tools/bench/run --large: 8.76, 9.61, 10.27, 10.82, 11.26 for N = 4..8) and
# extrapolated by the last step (+0.4 per N) beyond.
KANBAN = {9: (384_392_800, 11.65), 10: (1_005_927_208, 12.05)}
PLACES = 16  # Kanban's places: a successor is sent as 4 bytes per place, its id comes back in 4
BYTES_PER_MARKING = 58.0  # Kanban N = 6 on 4 ranks: (370 MB - 45 - 4 B x 28.9 M - 20 B x 2.26 M) / 2.81 M
# Ghosts per marking under the partition by places (mpi/partition.hpp), measured on
# Kanban N = 6: 0.37 on 2 ranks (4.15 M ghosts), 0.80 on 4 (9.03 M), fitted by
# 0.37 (P - 1)^0.70.
PLACES_GHOSTS = (0.37, 0.70)


def ghosts_per_state(ranks: int, degree: float) -> float:
    """Ranks other than its owner that need a marking's probability in a matrix-vector
    product: those owning one of its `degree` successors, owners drawn uniformly by the
    hash: (P - 1)(1 - (1 - 1/P)^d)."""
    return (ranks - 1) * (1 - (1 - 1 / ranks) ** degree)


def places_ghosts_per_state(ranks: int, degree: float) -> float:
    """As ghosts_per_state under the partition by places: the fit to the two measured
    points, and never more than the hash's (the partition keeps the hash where no key does
    better)."""
    a, b = PLACES_GHOSTS
    return min(ghosts_per_state(ranks, degree), a * (ranks - 1) ** b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bytes-per-marking", type=float, default=BYTES_PER_MARKING,
                        help="per marking a rank owns (fitted to Kanban N = 6 on 4 ranks)")
    parser.add_argument("--bytes-per-edge", type=float, default=4.0,
                        help="per edge into a rank's markings")
    parser.add_argument("--bytes-per-ghost", type=float, default=20.0,
                        help="per ghost, another rank's marking with an edge into its own")
    parser.add_argument("--base-mb", type=float, default=45.0,
                        help="a rank's resident memory before the model (MPI, PETSc)")
    parser.add_argument("--partition", choices=("places", "hash"), default="places",
                        help="who owns a marking in the solve (mpi/partition.hpp)")
    args = parser.parse_args()
    ghosts_of = places_ghosts_per_state if args.partition == "places" else ghosts_per_state
    record = 4 * PLACES + 4
    delivered = 20  # a kept edge on its way to its target's owner: target, source, rate
    print(f"{'N':>3} {'nodes':>6} {'markings/node':>14} {'edges/node':>12} {'GB/node':>8} "
          f"{'GB/iter (all)':>14} {'MB/iter/node':>13} {'s/iter 10G':>11} {'s/iter 100G':>12} "
          f"{'explore GB/node':>16}")
    for n, (states, degree) in KANBAN.items():
        edges = states * degree
        for nodes in (16, 64, 256):
            per_node_edges = edges / nodes
            ghosts = states / nodes * ghosts_of(nodes, degree)
            memory = (args.base_mb * 1e6 + args.bytes_per_marking * states / nodes +
                      args.bytes_per_edge * per_node_edges + args.bytes_per_ghost * ghosts) / 1e9
            volume = states * ghosts_of(nodes, degree) * 8  # bytes per product
            per_node = volume / nodes
            # The first pass by hash; the move of the markings (4 B a place and 24 of
            # counts); the kept edges to their targets' explorers, then (under the
            # partition by places) on to the targets' owners.
            moved = 0 if args.partition == "hash" else states * (1 - 1 / nodes) * (4 * PLACES + 24)
            hops = 1 if args.partition == "hash" else 2
            explore = (edges * (1 - 1 / nodes) * (record + hops * delivered) + moved) / nodes
            print(f"{n:>3} {nodes:>6} {states / nodes:>14.3g} {per_node_edges:>12.3g} "
                  f"{memory:>8.1f} {volume / 1e9:>14.1f} {per_node / 1e6:>13.0f} "
                  f"{per_node / 1.25e9:>11.3f} {per_node / 12.5e9:>12.4f} "
                  f"{explore / 1e9:>16.1f}")


if __name__ == "__main__":
    main()
