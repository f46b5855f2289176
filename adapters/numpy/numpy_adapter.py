#!/usr/bin/env python3
"""numpy_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 written with numpy, served to
dmlcheck over docs/PROTOCOL.md.  It maps each descriptor onto numpy as a user of numpy would,
and reports whatever numpy computes; dmlcheck judges it.

    dmlcheck exec --backend process:'python3 adapters/numpy/numpy_adapter.py' corpus/conformance/*/*.json
    dmlcheck run --backend process:'python3 adapters/numpy/numpy_adapter.py --layout packed' --cases 2000

--layout strided (the default) views dmlcheck's strided buffers directly with numpy strides, so
stride handling is numpy's; --layout packed lets dmlcheck gather and scatter.

The mappings (each checked by hand on the corpus; docs/SEMANTICS.md):
  ARGMIN/ARGMAX  the reduced axes are moved to the end in ascending order and flattened, so
                 np.argmax's flat index is D2's row-major position; DECREASING (last extreme,
                 D3) is n - 1 - argmax of the reversed last axis.  NaN: numpy's argmax/argmin
                 return the first NaN (the last, after the reversal): that is what is reported.
  MAX_POOLING    the window taps are gathered in blocks (stride, dilation, padding; ceil sizes
                 come from OutputTensor.Sizes), each block at most a few times the case's own
                 size, and a running best carries from block to block; taps in padding or past the input's end are masked with
                 the type's lowest value and can never be chosen (D7: a real lowest value
                 wins over padding); np.argmax over the taps picks the first maximum in
                 row-major window order, the smallest flat index (D3); the value is the chosen
                 element's exact bits and the index is flat over the whole input.  A window
                 wholly in padding has no element (numpy's max of nothing raises); DirectML
                 leaves that output open (SEMANTICS D7, class padding_window), and the adapter
                 writes the type's lowest value and an all-ones index there.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402

import numpy as np  # noqa: E402


def dtype_of(t):
    return np.dtype("<" + t.format)


def as_array(t):
    """A read-only numpy view of an input Tensor, honouring its element strides."""
    flat = np.frombuffer(t.data, dtype=dtype_of(t), count=t.nbytes // t.itemsize)
    return np.lib.stride_tricks.as_strided(flat, t.shape, [s * t.itemsize for s in t.strides],
                                           writeable=False)


def to_buffer(t, values):
    """A buffer of t's size and layout holding `values` (shape t.shape) at t's strides."""
    buf = bytearray(t.nbytes)
    flat = np.frombuffer(buf, dtype=dtype_of(t), count=t.nbytes // t.itemsize)
    view = np.lib.stride_tricks.as_strided(flat, t.shape, [s * t.itemsize for s in t.strides])
    view[...] = values
    return buf


def arg_reduce(desc, tensors):
    x = as_array(tensors["input"])
    axes = sorted(desc["Axes"])
    kept = [a for a in range(x.ndim) if a not in axes]
    # SPEC D2: the index counts row-major over the reduced axes taken in ascending order.
    y = np.transpose(x, kept + axes).reshape([x.shape[a] for a in kept] + [-1])
    pick = np.argmin if desc["op"] == "ARGMIN" else np.argmax
    if desc["AxisDirection"] == "DECREASING":  # SPEC D3: the last extreme element
        idx = y.shape[-1] - 1 - pick(y[..., ::-1], axis=-1)
    else:
        idx = pick(y, axis=-1)
    out = tensors["output"]
    return {"output": to_buffer(out, idx.reshape(out.shape))}


def window_taps(x_shape, out_shape, desc, first, last):
    """For every output position and window taps first..last-1 (row-major window order): the
    input coordinates (one array per spatial dimension, shape (positions, taps)) and whether
    the tap lies inside the input."""
    k = len(desc["WindowSize"])
    dil = desc.get("Dilations") or [1] * k
    out_sp, in_sp = out_shape[2:], x_shape[2:]
    o = np.indices(out_sp).reshape(k, -1)                       # (k, positions)
    w = np.unravel_index(np.arange(first, last), desc["WindowSize"])  # k arrays of (taps,)
    coords, valid = [], np.ones((o.shape[1], last - first), dtype=bool)
    for d in range(k):
        c = (o[d][:, None] * desc["Strides"][d] - desc["StartPadding"][d]
             + w[d][None, :] * dil[d])
        valid &= (c >= 0) & (c < in_sp[d])
        coords.append(np.clip(c, 0, in_sp[d] - 1))
    return coords, valid


def lowest(dt):
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def is_nan(values):
    return np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, dtype=bool)


# Elements one block of window taps may gather, as a multiple of the case's own size (input
# or output elements, whichever is larger): a case's memory stays a small multiple of its size
# however large its window (gathering every tap at once took 1.8 GB for one case).
BLOCK_ELEMENTS_PER_CASE_ELEMENT = 4
MIN_BLOCK_ELEMENTS = 1 << 16


def best_in_block(x, desc, out_shape, first, last):
    """Over window taps first..last-1 of every window: whether the window has a real tap there,
    and the first maximum among its real taps (np.argmax: the first NaN, else the first
    largest; D3) as its value and its flat spatial index."""
    n, c = x.shape[:2]
    coords, valid = window_taps(x.shape, out_shape, desc, first, last)
    flat_sp = np.ravel_multi_index(coords, x.shape[2:])          # (positions, taps)
    vals = x.reshape(n, c, -1)[:, :, flat_sp]                    # (n, c, positions, taps)
    masked = np.where(valid, vals, np.array(lowest(x.dtype), dtype=x.dtype))
    tap = np.argmax(masked, axis=-1)
    # SPEC D7: padding never wins.  A masked tap was chosen only when every real tap equals
    # the lowest value, so the first real tap is the answer.
    chosen_valid = np.take_along_axis(np.broadcast_to(valid, vals.shape), tap[..., None], -1)[..., 0]
    tap = np.where(chosen_valid, tap, np.argmax(valid, axis=-1))
    value = np.take_along_axis(vals, tap[..., None], -1)[..., 0]
    spatial = np.take_along_axis(np.broadcast_to(flat_sp, vals.shape), tap[..., None], -1)[..., 0]
    return valid.any(axis=1), value, spatial


def max_pooling(desc, tensors):
    """The window taps are taken in blocks of row-major window order; a later block's best
    replaces the running one only where the running one is no NaN and the block's is a NaN or
    larger, which is np.argmax's first-NaN-else-first-maximum over the whole window."""
    x = as_array(tensors["input"])
    out = tensors["output"]
    n, c = x.shape[:2]
    positions = int(np.prod(out.shape[2:]))
    taps = int(np.prod(desc["WindowSize"]))
    case_elements = max(x.size, int(np.prod(out.shape)), MIN_BLOCK_ELEMENTS)
    block = max(1, BLOCK_ELEMENTS_PER_CASE_ELEMENT * case_elements // max(1, n * c * positions))
    seen = np.zeros(positions, dtype=bool)                      # a real tap so far
    value = np.full((n, c, positions), lowest(x.dtype), dtype=x.dtype)
    spatial = np.zeros((n, c, positions), dtype=np.int64)
    for first in range(0, taps, block):
        real, v, sp = best_in_block(x, desc, out.shape, first, min(taps, first + block))
        with np.errstate(invalid="ignore"):
            better = ~seen | (~is_nan(value) & (is_nan(v) | (v > value)))
        take = real & better
        value = np.where(take, v, value)
        spatial = np.where(take, sp, spatial)
        seen |= real
    # An empty window (wholly in padding) has no answer numpy could give; DirectML leaves it
    # open (D7): the type's lowest value, set above, and an all-ones index.
    result = {"output": to_buffer(out, value.reshape(out.shape))}
    if "indices" in tensors:
        plane = int(np.prod(x.shape[2:]))
        base = (np.arange(n)[:, None, None] * c + np.arange(c)[None, :, None]) * plane
        ind = tensors["indices"]
        index = np.where(seen, (base + spatial).astype(np.uint64), np.iinfo(np.uint64).max)
        result["indices"] = to_buffer(ind, index.reshape(ind.shape))
    return result


OPERATORS = {"ARGMIN": arg_reduce, "ARGMAX": arg_reduce,
             "MAX_POOLING1": max_pooling, "MAX_POOLING2": max_pooling}


def run(desc, tensors):
    fn = OPERATORS.get(desc["op"])
    if fn is None:
        raise dml.Unsupported("numpy_adapter has no mapping for " + desc["op"])
    return fn(desc, tensors)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--layout", choices=["strided", "packed"], default="strided")
    a = p.parse_args()
    dml.serve(run, name="numpy", version=np.__version__, operators=list(OPERATORS),
              layout=a.layout, max_feature_level="6_4", platform="numpy (CPU)",
              driver="python " + sys.version.split()[0])


if __name__ == "__main__":
    main()
