#!/usr/bin/env python3
"""torch_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 mapped onto PyTorch (CPU), served
to dmlcheck over docs/PROTOCOL.md.  It maps each descriptor onto PyTorch as a user of PyTorch
would and reports whatever PyTorch computes; dmlcheck judges it.  Nothing the operator decides
(which element wins, ties, NaN, padding) is computed here: only layouts and index bookkeeping.

    dmlcheck exec --backend "process:/usr/bin/python3 $PWD/adapters/torch/torch_adapter.py" corpus/conformance/*/*.json
    dmlcheck run --backend "process:/usr/bin/python3 $PWD/adapters/torch/torch_adapter.py" --cases 20000

The input is viewed with torch.as_strided over dmlcheck's strided buffer (layout "strided"), so
PyTorch handles the strides (transposed, gapped and broadcast layouts reach its kernels as
non-contiguous tensors, channels-last ones take its channels-last pooling kernel).

The mappings (docs/SEMANTICS.md):
  ARGMIN/ARGMAX  one axis: torch.argmax/argmin(x, dim) on the strided view itself.  Several:
                 permute the reduced axes to the end in ascending order and reshape them into
                 one, so torch.argmax/argmin's index is D2's row-major position.  INCREASING is
                 torch's own tie rule (first occurrence).  DECREASING (D3: the last extreme) flips
                 the flattened axis and maps the index back: n - 1 - i.
                 Input types: every DirectML type PyTorch has (FLOAT32, FLOAT16, INT8, UINT8,
                 INT16, INT32, INT64); PyTorch 1.13 has no UINT16, UINT32 or UINT64.
  MAX_POOLING    F.max_pool2d (4-D input) or F.max_pool3d (5-D), with return_indices True
                 exactly when the case has an OutputIndicesTensor (the library has two paths).
                 StartPadding becomes PyTorch's symmetric padding when it is at most half the
                 window (PyTorch's limit); what EndPadding and a ceil-sized output need beyond
                 that is ceil_mode=True (when OutputTensor has the ceil size) and, if still
                 short, F.pad of -inf at the end.  End -inf padding is exact: the first tap of a
                 window PyTorch scans is a real element whenever the window has one, and a
                 later -inf never beats it (PyTorch replaces only on > or NaN).  A StartPadding beyond half the window is F.pad of
                 -inf at the start: exact for the values; for the indices exact only when the
                 input holds no -inf (a -inf pad scanned first would win a tie with a real
                 -inf), so an indices case with a -inf in its input is UNSUPPORTED.  Extra outputs PyTorch computes past OutputTensor's sizes are
                 dropped.  PyTorch's indices are flat per (N, C) plane of the tensor it pooled;
                 they are mapped to that element's flat index over the whole unpadded input.
                 Input types: PyTorch 1.13 pools FLOAT32 only (of DirectML's types) on the CPU;
                 the others are tried and answer UNSUPPORTED with PyTorch's own error
                 ('"max_pool2d" not implemented for 'Half'').  The pad value is the type's
                 lowest (-inf, or the integer minimum), exact for the same reason.
                 Memory: where the F.padded input would hold more than 16 times the case's
                 elements (at least 2^20), the same call runs on blocks of outputs, each on
                 only the part of the padded input its windows read (pool_in_blocks), along
                 the dimensions PyTorch does not pad itself: a large padding with a large
                 stride no longer costs its whole padded volume (1x1x2x2x2, StartPadding and
                 Strides 800: 2 GB before).  --block-elements N sets that bound; 1 runs every
                 pooling case in blocks (test adapter_torch_blocked).
"""

import argparse
import functools
import itertools
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

TORCH_TYPES = {
    "FLOAT32": torch.float32, "FLOAT16": torch.float16, "INT8": torch.int8, "UINT8": torch.uint8,
    "INT16": torch.int16, "INT32": torch.int32, "INT64": torch.int64,
}


def as_tensor(t):
    """A torch view of an input Tensor at its element strides (the buffer is copied once, so
    the view is writable and owns its memory)."""
    flat = torch.frombuffer(bytearray(t.data), dtype=TORCH_TYPES[t.dtype],
                            count=t.nbytes // t.itemsize)
    return torch.as_strided(flat, t.shape, t.strides)


def to_buffer(t, values):
    """A buffer of t's size and layout holding `values` (shape t.shape) at t's strides."""
    dt = np.dtype("<" + t.format)
    buf = bytearray(t.nbytes)
    flat = np.frombuffer(buf, dtype=dt, count=t.nbytes // t.itemsize)
    view = np.lib.stride_tricks.as_strided(flat, t.shape, [s * t.itemsize for s in t.strides])
    view[...] = values
    return buf


def arg_reduce(desc, tensors):
    x = as_tensor(tensors["input"])
    axes = sorted(desc["Axes"])
    pick = torch.argmin if desc["op"] == "ARGMIN" else torch.argmax
    if len(axes) == 1:
        # One axis: reduced in place on the strided view (PyTorch's own stride handling).
        y, dim = x, axes[0]
    else:
        # SPEC D2: the index counts row-major over the reduced axes taken in ascending order.
        kept = [a for a in range(x.dim()) if a not in axes]
        y, dim = x.permute(kept + axes).reshape([x.shape[a] for a in kept] + [-1]), -1
    if desc["AxisDirection"] == "DECREASING":  # SPEC D3: the last extreme element
        idx = (y.shape[dim] - 1) - pick(y.flip(dim), dim=dim)
    else:
        idx = pick(y, dim=dim)
    out = tensors["output"]
    return {"output": to_buffer(out, idx.numpy().reshape(out.shape))}


def lowest(dtype):
    """The pad value: -inf, or the integer type's minimum."""
    return float("-inf") if dtype.is_floating_point else torch.iinfo(dtype).min


def torch_pool_size(size, window, stride, pad, dilation, ceil_mode):
    """PyTorch's output size (aten pooling_output_shape), to choose ceil_mode and end padding."""
    n = size + 2 * pad - dilation * (window - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = n // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


# Elements one padded block may hold, as a multiple of the case's own size (input or output
# elements, whichever is larger): F.pad of a large StartPadding or EndPadding made a copy as
# large as the padded input, which a large stride leaves mostly unread (a 1x1x2x2x2 input with
# StartPadding and Strides 600 padded to 602^3 elements, 0.9 GB).
BLOCK_ELEMENTS_PER_CASE_ELEMENT = 16
MIN_BLOCK_ELEMENTS = 1 << 20


def call_pool(pool, xp):
    """pool(xp): (values, indices or None); a type PyTorch cannot pool is UNSUPPORTED."""
    try:
        r = pool(xp)
    except (RuntimeError, NotImplementedError) as e:
        if "not implemented for" in str(e):   # e.g. '"max_pool2d" not implemented for 'Half''
            raise dml.Unsupported("PyTorch %s CPU: %s" % (VERSION, e)) from e
        raise
    return r if isinstance(r, tuple) else (r, None)


def padded_coords(index, plane_shape, offsets):
    """PyTorch's flat indices over one (n, c) plane of the tensor it pooled, as coordinates of
    the whole padded input (offsets: where that tensor starts in it), one array per spatial
    dimension; -1 everywhere for an index past the plane (computed from clipped bounds)."""
    idx = index.numpy().astype(np.int64)
    inside = idx < int(np.prod(plane_shape))
    coords = np.unravel_index(np.where(inside, idx, 0), plane_shape)
    return np.stack([np.where(inside, c + o, -1) for c, o in zip(coords, offsets)])


def pool_padded(x, pool, pad_start, pad_end, want_indices, out_sp):
    """One call on x padded with the type's lowest value by F.pad."""
    xp = x
    if any(pad_start) or any(pad_end):
        pads = []
        for d in reversed(range(len(pad_start))):  # F.pad lists the last dimension first
            pads += [pad_start[d], pad_end[d]]
        xp = F.pad(x, pads, mode="constant", value=lowest(x.dtype))
    value, index = call_pool(pool, xp)
    crop = (slice(None), slice(None)) + tuple(slice(0, o) for o in out_sp)
    coords = padded_coords(index[crop], xp.shape[2:], [0] * len(out_sp)) if want_indices else None
    return value[crop].numpy(), coords


def block_lengths(out_sp, extent, splittable, budget, planes):
    """Outputs per block along each spatial dimension: halved along the splittable dimension
    of the largest padded extent until a block's padded input fits the budget."""
    lengths = list(out_sp)
    while planes * int(np.prod([extent(d, lengths[d]) for d in range(len(lengths))])) > budget:
        d = max((d for d in splittable if lengths[d] > 1), default=None,
                key=lambda d: extent(d, lengths[d]))
        if d is None:
            break
        lengths[d] = -(-lengths[d] // 2)
    return lengths


def pool_in_blocks(x, pool, pad_start, padded_sp, torch_pad, strides, dilated, out_sp,
                   want_indices, budget):
    """The same pooling call on blocks of the outputs, each on only the part of the padded input
    its windows read, so memory stays within the budget whatever the padding.  Only dimensions
    PyTorch does not pad itself (its padding 0) are split: there a block's windows read
    exactly the padded input from its first window's start (the last window clipped at the
    padded end as before), so each window and its result are those of pool_padded."""
    k = len(out_sp)
    n, c = x.shape[:2]

    def extent(d, length):
        return min((length - 1) * strides[d] + dilated[d], padded_sp[d])

    splittable = [d for d in range(k) if torch_pad[d] == 0]
    lengths = block_lengths(out_sp, lambda d, m: extent(d, m) if d in splittable else padded_sp[d],
                            splittable, budget, n * c)
    value = None
    coords = np.empty((k, n, c) + tuple(out_sp), dtype=np.int64) if want_indices else None
    for first in itertools.product(*[range(0, o, m) for o, m in zip(out_sp, lengths)]):
        outs = [min(m, o - f) for f, m, o in zip(first, lengths, out_sp)]
        start = [f * strides[d] if d in splittable else 0 for d, f in enumerate(first)]
        size = [extent(d, outs[d]) if d in splittable else padded_sp[d] for d in range(k)]
        block = torch.full((n, c) + tuple(size), lowest(x.dtype), dtype=x.dtype)
        src, dst = [slice(None)] * 2, [slice(None)] * 2
        for d in range(k):  # the input elements inside the block, in padded coordinates
            lo = max(start[d], pad_start[d])
            hi = min(start[d] + size[d], pad_start[d] + x.shape[2 + d])
            src.append(slice(lo - pad_start[d], max(hi, lo) - pad_start[d]))
            dst.append(slice(lo - start[d], max(hi, lo) - start[d]))
        block[tuple(dst)] = x[tuple(src)]
        v, i = call_pool(pool, block)
        crop = (slice(None), slice(None)) + tuple(slice(0, o) for o in outs)
        at = (slice(None), slice(None)) + tuple(slice(f, f + o) for f, o in zip(first, outs))
        if value is None:
            value = np.empty((n, c) + tuple(out_sp), dtype=v.numpy().dtype)
        value[at] = v[crop].numpy()
        if want_indices:
            coords[(slice(None),) + at] = padded_coords(i[crop], size, start)
    return value, coords


def max_pooling(desc, tensors, block_elements=None):
    x = as_tensor(tensors["input"])
    out = tensors["output"]
    want_indices = "indices" in tensors
    k = len(desc["WindowSize"])
    window, strides = list(desc["WindowSize"]), list(desc["Strides"])
    start, end = list(desc["StartPadding"]), list(desc["EndPadding"])
    dil = list(desc.get("Dilations") or [1] * k)
    in_sp, out_sp = list(x.shape[2:]), list(out.shape[2:])
    dilated = [(w - 1) * d + 1 for w, d in zip(window, dil)]
    # DirectML infers ceil mode from the output sizes (SEMANTICS D8).
    floor_out = [(i + s + e - dk) // st + 1 for i, s, e, dk, st in zip(in_sp, start, end, dilated, strides)]
    ceil_mode = any(o > f for o, f in zip(out_sp, floor_out))

    torch_pad, pad_start, pad_end, inexact = [], [], [], None
    for d in range(k):
        if start[d] <= window[d] // 2:       # PyTorch: "pad should be at most half of kernel size"
            p, fs = start[d], 0
        else:
            if want_indices and bool((x == lowest(x.dtype)).any()):
                inexact = (
                    "StartPadding %d exceeds half the window (%d) in spatial dimension %d, which "
                    "PyTorch's max_pool padding cannot express; padding with %s by F.pad would "
                    "let a pad win a tie with a real %s in the input, so its indices would not "
                    "be exact" % (start[d], window[d], d, lowest(x.dtype), lowest(x.dtype)))
            p, fs = 0, start[d]
        size = in_sp[d] + fs
        extra = 0
        while torch_pool_size(size + extra, window[d], strides[d], p, dil[d], ceil_mode) < out_sp[d]:
            extra += 1
        torch_pad.append(p)
        pad_start.append(fs)
        pad_end.append(extra)

    pool = functools.partial(F.max_pool2d if k == 2 else F.max_pool3d, kernel_size=window,
                             stride=strides, padding=torch_pad, dilation=dil,
                             ceil_mode=ceil_mode, return_indices=want_indices)
    padded_sp = [i + s + e for i, s, e in zip(in_sp, pad_start, pad_end)]
    n, c = x.shape[:2]
    budget = block_elements or max(MIN_BLOCK_ELEMENTS, BLOCK_ELEMENTS_PER_CASE_ELEMENT
                                   * max(x.numel(), n * c * int(np.prod(out_sp))))
    if n * c * int(np.prod(padded_sp)) <= budget:
        value, index = pool_padded(x, pool, pad_start, pad_end, want_indices, out_sp)
    else:
        value, index = pool_in_blocks(x, pool, pad_start, padded_sp, torch_pad, strides, dilated,
                                      out_sp, want_indices, budget)
    if inexact:   # after the call, so that a type PyTorch cannot pool says so first
        raise dml.Unsupported(inexact)
    result = {"output": to_buffer(out, value)}
    if want_indices:
        # index: the element's padded coordinates (see pool_padded), or -1 for an index
        # PyTorch computed from a window's clipped bounds past its plane.
        # A window with no element inside the input (SEMANTICS D7, class padding_window) gets
        # an index PyTorch computed from its clipped bounds, which may lie past its plane
        # (checked by hand: a 1x3 plane, a window of two padding rows, gives index 3).  Or it
        # picks a -inf that F.pad added: a position outside the input.  Either would wrap into
        # a real element of the next plane or row if mapped, so both are written as D7's "no
        # element" (all ones).
        inside = index[0] >= 0
        spatial = np.zeros(value.shape, dtype=np.int64)
        in_input = inside.copy()
        for d in range(k):
            along = index[d] - pad_start[d]
            in_input &= (along >= 0) & (along < in_sp[d])
            spatial = spatial * in_sp[d] + along
        plane = int(np.prod(in_sp))
        base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * plane
        flat = base.reshape((n, c) + (1,) * k) + spatial
        # A window with no real element keeps D7's "no element" even when PyTorch's index from
        # its clipped bounds lies inside the padded plane: a start clipped past a dimension's
        # end (hstart == H) is flattened row-major into the next outer row, a real element
        # (checked by hand: a 13x2x3 plane, a window whose two dilated rows are both padding,
        # gives index 6 = (0, 2, 0), which unravels to (1, 0, 0)).
        has_real = np.ones(out_sp, dtype=bool)
        for d in range(k):
            o = np.arange(out_sp[d])[:, None] * strides[d] - start[d] + np.arange(window[d])[None, :] * dil[d]
            real = ((o >= 0) & (o < in_sp[d])).any(axis=1)
            has_real &= real.reshape([-1 if e == d else 1 for e in range(k)])
        flat = np.where(in_input & has_real, flat, -1)
        ind = tensors["indices"]
        result["indices"] = to_buffer(ind, flat.astype(np.uint64))
    return result


def library_version():
    """Debian's python3-torch 1.13.1 says torch.__version__ 1.13.0a0; name the package."""
    try:
        v = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-torch"],
                           capture_output=True, text=True, check=True).stdout.strip()
        return v.split("+")[0] if v else torch.__version__
    except (OSError, subprocess.CalledProcessError):
        return torch.__version__


VERSION = library_version()
OPERATORS = {"ARGMIN": arg_reduce, "ARGMAX": arg_reduce,
             "MAX_POOLING1": max_pooling, "MAX_POOLING2": max_pooling}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--block-elements", type=int, default=None,
                   help="pool in blocks when the padded input exceeds this many elements "
                        "(default: %d times the case's size, at least %d); 1 pools every output "
                        "position of a dimension PyTorch does not pad on its own, to check the "
                        "blocked path" % (BLOCK_ELEMENTS_PER_CASE_ELEMENT, MIN_BLOCK_ELEMENTS))
    a = p.parse_args()
    if a.block_elements is not None and a.block_elements < 1:
        p.error("--block-elements must be at least 1")
    pooling = functools.partial(max_pooling, block_elements=a.block_elements)
    operators = dict(OPERATORS, MAX_POOLING1=pooling, MAX_POOLING2=pooling)

    def run(desc, tensors):
        return operators[desc["op"]](desc, tensors)

    dml.serve(run, name="torch", version=VERSION, operators=list(OPERATORS),
              layout="strided", max_feature_level="6_4", input_types=list(TORCH_TYPES),
              platform="PyTorch (CPU)",
              driver="torch.__version__ %s, %d threads; python %s"
                     % (torch.__version__, torch.get_num_threads(), sys.version.split()[0]))


if __name__ == "__main__":
    main()
