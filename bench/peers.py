#!/usr/bin/python3
"""peers.py: the scenarios of `dmlcheck bench`, timed on numpy and PyTorch in the same run.

Each scenario has the shape, layout and value distribution of its namesake in
cli/cmd_bench.c (uniform float32 in [-1, 1), float16 rounded from it; ARGMAX with the first
maximum), single thread.  The script measures the read bandwidth itself (the best of five sums
of a 256 MiB array), runs the peers, then runs `dmlcheck bench` (which measures its own
bandwidth) and prints one table: ns per input element (ARGMAX) or per output (MAX_POOLING2),
each with its share of read bandwidth, and the goals of issue 13 that compare the reference
with a peer (float32 contiguous no slower than numpy; NHWC pooling no slower than PyTorch's
channels-last kernel).  Compare figures of one run only: the machine's load moves them all.

Usage (Debian packages python3-numpy and python3-torch; the system python, /usr/bin/python3):
    /usr/bin/python3 bench/peers.py [--dmlcheck build/dmlcheck] [--repeat 5] [--no-torch]
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

REPEAT_DEFAULT = 5


def best_time(fn, repeat):
    """Best of `repeat` timed calls after one warm-up call, in seconds."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def read_bandwidth(repeat):
    """Bytes per second of numpy summing 256 MiB of uint64 (a read-only pass)."""
    words = np.arange(32 << 20, dtype=np.uint64)
    return words.nbytes / best_time(lambda: words.sum(), repeat)


def uniform_f32(rng, shape):
    return (rng.random(shape, dtype=np.float64) * 2.0 - 1.0).astype(np.float32)


def arg_inputs(rng):
    """The ARGMAX scenarios as (name, array, axis): the array's memory layout is the one
    cmd_bench.c gives the case, so the permuted one is a transposed view."""
    outer = uniform_f32(rng, (1024, 16384))
    stored = uniform_f32(rng, (1024, 16384))
    inner = uniform_f32(rng, (256, 65536))
    return [
        ("argmax_f32_inner", inner, 1),
        ("argmax_f32_outer", outer, 0),
        ("argmax_f32_permuted", stored.T, 1),  # logical {16384,1024}, strides {1,16384}
        ("argmax_f16_inner", inner.astype(np.float16), 1),
    ]


def pool_input(rng):
    return uniform_f32(rng, (8, 64, 112, 112))


def time_numpy(rng, repeat):
    out = {}
    for name, x, axis in arg_inputs(rng):
        out[name] = best_time(lambda: np.argmax(x, axis=axis), repeat) * 1e9 / x.size
    return out


def time_torch(rng, repeat):
    import torch
    torch.set_num_threads(1)
    out = {}
    with torch.no_grad():
        for name, x, axis in arg_inputs(rng):
            t = torch.from_numpy(x)  # keeps the strides: the permuted view stays permuted
            out[name] = best_time(lambda: torch.argmax(t, dim=axis), repeat) * 1e9 / x.size
        x = torch.from_numpy(pool_input(rng))
        outputs = 8 * 64 * 56 * 56

        def pool(t):
            return torch.nn.functional.max_pool2d(t, 3, 2, 1, return_indices=True)

        out["max_pooling2_3x3s2p1"] = best_time(lambda: pool(x), repeat) * 1e9 / outputs
        nhwc = x.contiguous(memory_format=torch.channels_last)
        out["max_pooling2_3x3s2p1_nhwc"] = best_time(lambda: pool(nhwc), repeat) * 1e9 / outputs
    return out


LINE = re.compile(r"^(\S+)\s+reference\s+([0-9.]+) ns/(element|output)(.*)$")


def run_dmlcheck(binary, repeat):
    """Runs `dmlcheck bench` and returns (its output, {scenario: (ns, unit, rest of line)})."""
    proc = subprocess.run([binary, "bench", "--repeat", str(repeat)], capture_output=True,
                          text=True, check=False)
    if proc.returncode not in (0, 1):
        sys.exit(f"peers.py: {binary} bench failed ({proc.returncode}): {proc.stderr.strip()}")
    rows = {}
    for line in proc.stdout.splitlines():
        m = LINE.match(line)
        if m:
            rows[m.group(1)] = (float(m.group(2)), m.group(3))
    return proc.stdout, rows


ELEMENT_BYTES = {"argmax_f16_inner": 2}


def fmt(ns, name, unit, bandwidth):
    if ns is None:
        return "-"
    if unit != "element":
        return f"{ns:.2f}"
    nbytes = ELEMENT_BYTES.get(name, 4)
    return f"{ns:.2f} ({100.0 * nbytes / (ns * 1e-9) / bandwidth:.0f}%)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dmlcheck", default="build/dmlcheck", help="the dmlcheck binary")
    ap.add_argument("--repeat", type=int, default=REPEAT_DEFAULT, help="timed runs, best kept")
    ap.add_argument("--no-torch", action="store_true", help="numpy only")
    args = ap.parse_args()
    if not os.access(args.dmlcheck, os.X_OK):
        sys.exit(f"peers.py: no dmlcheck binary at '{args.dmlcheck}' (build first, or --dmlcheck PATH)")

    rng = np.random.default_rng(0xBE7C4)
    bandwidth = read_bandwidth(args.repeat)
    numpy_ns = time_numpy(rng, args.repeat)
    torch_ns = {} if args.no_torch else time_torch(rng, args.repeat)
    bench_text, ours = run_dmlcheck(args.dmlcheck, args.repeat)

    print(bench_text, end="")
    print(f"\npeers.py: numpy {np.__version__}"
          + ("" if args.no_torch else f", PyTorch {__import__('torch').__version__}")
          + f", single thread; read bandwidth (numpy sum of 256 MiB) {bandwidth * 1e-9:.2f} GB/s"
          + f" = {4e9 / bandwidth:.3f} ns per float32")
    print("ns per element (ARGMAX; in brackets the share of that bandwidth) or per output"
          " (MAX_POOLING2); last column: the fastest peer's time over the reference's\n")
    print(f"| {'scenario':<26} | {'dmlcheck reference':<18} | {'numpy':<12} | {'PyTorch':<12} "
          f"| {'peer/ref':<8} |")
    print(f"|{'-' * 28}|{'-' * 20}|{'-' * 14}|{'-' * 14}|{'-' * 10}|")
    names = list(dict.fromkeys(list(ours) + list(torch_ns)))
    for name in names:
        ns, unit = ours.get(name, (None, "output" if "pooling" in name else "element"))
        peers = [t for t in (numpy_ns.get(name), torch_ns.get(name)) if t is not None]
        speedup = f"{min(peers) / ns:.2f}x" if ns and peers else "-"
        print(f"| {name:<26} | {fmt(ns, name, unit, bandwidth):<18} "
              f"| {fmt(numpy_ns.get(name), name, unit, bandwidth):<12} "
              f"| {fmt(torch_ns.get(name), name, unit, bandwidth):<12} | {speedup:<8} |")

    print("\ngoals against a peer (issue 13):")
    unmet = 0
    for name, peer, peer_ns in (("argmax_f32_inner", "numpy", numpy_ns.get("argmax_f32_inner")),
                                ("max_pooling2_3x3s2p1_nhwc", "PyTorch channels-last",
                                 torch_ns.get("max_pooling2_3x3s2p1_nhwc"))):
        if name not in ours or peer_ns is None:
            print(f"  {name}: not measured")
            continue
        ratio = ours[name][0] / peer_ns
        met = ratio <= 1.0
        unmet += not met
        print(f"  {name}: reference / {peer} = {ratio:.2f} (goal <= 1): {'met' if met else 'MISSED'}")
    return 1 if unmet else 0


if __name__ == "__main__":
    sys.exit(main())
