#!/usr/bin/env python3
"""jax_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 run by JAX on XLA's CPU backend,
served to dmlcheck over docs/PROTOCOL.md.  Each descriptor becomes one jax.jit function,
compiled ahead of time for the descriptor's shapes and types and cached, as a user of JAX
would write it; the adapter only moves bytes in and out and reports whatever XLA computes.
dmlcheck judges it.

    dmlcheck exec --backend "process:$PWD/.venv-adapters/bin/python $PWD/adapters/jax/jax_adapter.py" corpus/conformance/*/*.json

64-bit types: jax.config.update("jax_enable_x64", True) is set at start-up, so INT64/UINT64
inputs and INT64/UINT64 indices are JAX's own 64-bit types (without it JAX silently makes
them 32-bit).  Platform: jax_platforms "cpu" (XLA:CPU), whatever else is installed.

Layout "packed": a JAX array has no strides, so dmlcheck gathers and scatters (stride handling
is not JAX's and is not tested).  XLA compiles per shape (about 0.1 s per descriptor on the
project's machine), so the compiled executable is cached per descriptor (LRU, keyed by the
descriptor's JSON: sizes, types and parameters); with --inputs-per-desc K, K - 1 of every K
cases reuse it.

The mappings (docs/SEMANTICS.md):
  ARGMIN/ARGMAX  lax.argmin/lax.argmax(x, axis, index_dtype) with index_dtype the output's type
                 (int32, int64, uint32, uint64: JAX computes the index in that type).  One
                 axis: that axis.  Several (D2: row-major over the reduced axes in ascending
                 order): lax.transpose (kept axes, then the reduced ones ascending) and reshape
                 into one last axis.  INCREASING is JAX's documented rule (the first
                 occurrence).  DECREASING (D3: the last extreme) is lax.rev of that axis, the
                 same argmax, and n - 1 - i: a reversal of the data, not a comparison of ours.
  MAX_POOLING    lax.reduce_window(x, init, lax.max, window (1, 1, *WindowSize), strides
                 (1, 1, *Strides), padding ((0, 0), (0, 0), *zip(StartPadding, EndPadding)),
                 window_dilation (1, 1, *Dilations)), init the identity of max that
                 lax.reduce_max itself uses (-inf; the integer minimum), which is also the
                 padding value.  A ceil-sized output (D8: OutputTensor.Sizes decides) gets the
                 extra end padding under which reduce_window's floor size is that size
                 (positions past the input's end are padding, D8).
                 No indices: reduce_window returns values only, and JAX has no argmax pooling
                 (no max_pool_with_argmax in jax.lax, jax.nn or jax.numpy in 0.10.2); a
                 variadic reduce_window with a comparator of ours would be our computation,
                 not JAX's.  MAX_POOLING with an OutputIndicesTensor is not claimed ("indices":
                 false in the claims) and answers UNSUPPORTED if it is sent anyway.
Claims: the four operators on every input and index type DirectML allows (x64 on); no pooling
indices; every feature level (6_4); flushes_denormals true: XLA:CPU runs with FTZ and DAZ, so
FLOAT32 denormals compare as zero and a pooled denormal comes back as zero (checked by hand:
lax.argmin of [1e-45, 3e-45, 0, -1e-45] is 0; reduce_window max of [1e-45, 3e-45] is 0).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402

import numpy as np  # noqa: E402
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
import jaxlib  # noqa: E402

CACHE_SIZE = 256  # compiled executables kept (LRU)
INDEX_TYPES = {"INT32": jnp.int32, "INT64": jnp.int64, "UINT32": jnp.uint32, "UINT64": jnp.uint64}
POOL_OPS = ("MAX_POOLING1", "MAX_POOLING2")


def np_dtype(t):
    return np.dtype("<" + t.format)


def arg_reduce_fn(desc):
    """The function of one ARGMIN/ARGMAX descriptor (x -> indices of the output's type and
    sizes)."""
    sizes, axes = desc["InputTensor"]["Sizes"], sorted(desc["Axes"])
    index_dtype = INDEX_TYPES[desc["OutputTensor"]["DataType"]]
    out_sizes = tuple(desc["OutputTensor"]["Sizes"])
    reduce = lax.argmin if desc["op"] == "ARGMIN" else lax.argmax
    kept = [a for a in range(len(sizes)) if a not in axes]
    count = int(np.prod([sizes[a] for a in axes]))
    decreasing = desc["AxisDirection"] == "DECREASING"

    def fn(x):
        if len(axes) == 1 and not decreasing:
            return reduce(x, axes[0], index_dtype).reshape(out_sizes)
        # SPEC D2: the reduced axes last, ascending, as one row-major axis.
        y = lax.transpose(x, kept + axes).reshape([sizes[a] for a in kept] + [count])
        last = len(kept)
        if decreasing:  # SPEC D3: the last extreme is the first of the reversed axis
            i = reduce(lax.rev(y, (last,)), last, index_dtype)
            return (jnp.asarray(count - 1, index_dtype) - i).reshape(out_sizes)
        return reduce(y, last, index_dtype).reshape(out_sizes)
    return fn


def pool_padding(desc):
    """reduce_window's (low, high) padding per spatial axis: StartPadding, and EndPadding grown
    where OutputTensor.Sizes is the ceil size (SPEC D8), so that the floor size is the size
    the descriptor asks for."""
    k = len(desc["WindowSize"])
    ins, outs = desc["InputTensor"]["Sizes"][2:], desc["OutputTensor"]["Sizes"][2:]
    dil = desc.get("Dilations") or [1] * k
    pads = []
    for d in range(k):
        stride, start, end = desc["Strides"][d], desc["StartPadding"][d], desc["EndPadding"][d]
        dilated = (desc["WindowSize"][d] - 1) * dil[d] + 1
        floor = (ins[d] + start + end - dilated) // stride + 1
        if outs[d] != floor:
            grown = (outs[d] - 1) * stride + dilated - ins[d] - start
            if not (outs[d] == floor + 1 and end < grown < end + stride):
                raise ValueError("output size %d on spatial axis %d is neither the floor (%d) nor "
                                 "the ceil size" % (outs[d], d, floor))
            end = grown
        pads.append((start, end))
    return pads


def max_identity(dtype):
    """What lax.reduce_max starts from: -inf for floats, the minimum for integers."""
    return np.array(-np.inf if dtype.kind == "f" else np.iinfo(dtype).min, dtype=dtype)


def pool_fn(desc):
    """The function of one MAX_POOLING descriptor (x -> the pooled values)."""
    if "OutputIndicesTensor" in desc:
        raise dml.Unsupported("JAX %s has no max pooling with indices: lax.reduce_window returns "
                              "values only and jax.lax, jax.nn and jax.numpy offer no argmax "
                              "pooling (the adapter claims %s without indices)"
                              % (jax.__version__, desc["op"]))
    k = len(desc["WindowSize"])
    dtype = np.dtype(TYPE_FORMATS[desc["InputTensor"]["DataType"]])
    init = max_identity(dtype)
    window = (1, 1) + tuple(desc["WindowSize"])
    strides = (1, 1) + tuple(desc["Strides"])
    dilation = (1, 1) + tuple(desc.get("Dilations") or [1] * k)
    padding = ((0, 0), (0, 0)) + tuple(pool_padding(desc))

    def fn(x):
        return lax.reduce_window(x, init, lax.max, window, strides, padding,
                                 window_dilation=dilation)
    return fn


TYPE_FORMATS = {name: "<" + fmt for name, (fmt, _) in dml.TYPES.items()}
BUILDERS = {"ARGMIN": arg_reduce_fn, "ARGMAX": arg_reduce_fn,
            "MAX_POOLING1": pool_fn, "MAX_POOLING2": pool_fn}

def compile_case(desc):
    """The descriptor's function, jitted and compiled for its input's shape and type."""
    x = desc["InputTensor"]
    arg = jax.ShapeDtypeStruct(tuple(x["Sizes"]), np.dtype(TYPE_FORMATS[x["DataType"]]))
    return jax.jit(BUILDERS[desc["op"]](desc)).lower(arg).compile()


# One executable per descriptor (its JSON); an UNSUPPORTED verdict is kept too.
compiled = dml.DescriptorCache(compile_case, CACHE_SIZE)


def result_buffer(t, values):
    """The packed bytes of `values` as tensor t, which must already have t's type and sizes
    (nothing is converted: a different answer from JAX is an error, not a cast)."""
    values = np.asarray(values)
    if values.dtype != np_dtype(t) or values.shape != t.shape:
        raise ValueError("JAX returned %s %s; the descriptor asks for %s %s"
                         % (values.dtype, list(values.shape), np_dtype(t), list(t.shape)))
    return values.tobytes()


def run(desc, tensors):
    if desc["op"] not in BUILDERS:
        raise dml.Unsupported("jax_adapter has no mapping for " + desc["op"])
    executable = compiled.get(desc)
    x = tensors["input"]
    got = executable(np.frombuffer(x.data, dtype=np_dtype(x)).reshape(x.shape))
    return {"output": result_buffer(tensors["output"], got)}


# Every operator on every type DirectML allows it (x64 on); pooling without indices only.
CLAIMS = {"ARGMIN": {}, "ARGMAX": {}, "MAX_POOLING1": {"indices": False},
          "MAX_POOLING2": {"indices": False}}


def main():
    dml.serve(run, name="jax", version=jax.__version__, layout="packed", max_feature_level="6_4",
              flushes_denormals=True, claims=CLAIMS,
              platform="JAX (XLA:CPU, jax_enable_x64)",
              driver="jaxlib %s; numpy %s; python %s"
                     % (jaxlib.__version__, np.__version__, sys.version.split()[0]))


if __name__ == "__main__":
    main()
