#!/usr/bin/env python3
"""32- and 64-bit integer MaxPool without the indices output is computed in float32 when the input
has two or more channels, so values above 2^24 come back rounded.  Exits 1 while present."""
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

bad = False
for ov_type, np_type in ((ov.Type.i32, np.int32), (ov.Type.i64, np.int64), (ov.Type.u32, np.uint32)):
    x = np.full((1, 2, 1, 1), 16777217, np_type)
    y = max_pool(x, ov_type, [1, 1], False)[0]
    one = max_pool(np.full((1, 1, 1, 1), 16777217, np_type), ov_type, [1, 1], False)[0]
    print("%s [16777217, 16777217] as 1x2x1x1, window 1x1, no indices: expected [16777217 16777217], "
          "actual %s (one channel: %s)" % (ov_type, y, one))
    bad |= list(y) != [16777217, 16777217]
sys.exit(1 if bad else 0)
