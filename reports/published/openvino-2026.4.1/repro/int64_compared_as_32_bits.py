#!/usr/bin/env python3
"""INT64/UINT64 narrowed to their low 32 bits: the CPU plugin converts i64/u64 inputs to i32 before
TopK and MaxPool, so 2^32 compares as 0.  Exits 1 while present."""
import sys
import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import openvino.opset11 as ops11

CORE = ov.Core()
CONFIG = {"INFERENCE_NUM_THREADS": 1, "EXECUTION_MODE_HINT": "ACCURACY"}


def run(outputs, param, x):
    """Compile the one-node model on the CPU plugin and run it on x."""
    compiled = CORE.compile_model(ov.Model(outputs, [param]), "CPU", CONFIG)
    return [r.ravel() for r in compiled(x).values()]


def topk_index(x, ov_type, mode):
    """TopK-11, k = 1, sort by value, stable: the index of the first max/min of each row."""
    p = ops1.parameter(list(x.shape), ov_type)
    t = ops11.topk(p, ops1.constant(np.int64(1)), x.ndim - 1, mode, "value", "i32", True)
    return run([t.output(1)], p, x)[0]


def max_pool(x, ov_type, kernel, with_indices, strides=None, pads_begin=None, pads_end=None, dilations=None):
    """MaxPool-8, indices flat over the whole input (axis 0)."""
    k = len(kernel)
    p = ops1.parameter(list(x.shape), ov_type)
    m = ops8.max_pool(p, strides or [1] * k, dilations or [1] * k, pads_begin or [0] * k,
                      pads_end or [0] * k, kernel, "floor", None, "i32", 0)
    return run([m.output(0)] + ([m.output(1)] if with_indices else []), p, x)


print("openvino", ov.__version__, "numpy", np.__version__)

x = np.array([[1, 4294967296]], np.int64)
got = topk_index(x, ov.Type.i64, "max")
xu = np.array([[1, 2147483648]], np.uint64)
got_u = topk_index(xu, ov.Type.u64, "max")
print("TopK max (ArgMax) of INT64 [1, 4294967296] and of UINT64 [1, 2147483648]")
print("expected index [1] and [1]")
print("actual   index", got, "and", got_u)
sys.exit(0 if list(got) == [1] and list(got_u) == [1] else 1)
