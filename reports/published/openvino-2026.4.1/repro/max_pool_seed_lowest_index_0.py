#!/usr/bin/env python3
"""MaxPool starts each window at the lowest finite value with the plane's first index: a window of
-inf answers -FLT_MAX and index 0, an element outside the window.  Exits 1 while present."""
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

x = np.array([5, -np.inf, -np.inf, -np.inf], np.float32).reshape(1, 1, 1, 4)
y, i = max_pool(x, ov.Type.f32, [1, 2], True, strides=[1, 2])
print("FLOAT32 [5, -inf, -inf, -inf], window 1x2, stride 1x2, with indices")
print("expected values [5, -inf], indices [0, 2]")
print("actual   values", y, "indices", i)
sys.exit(0 if np.isneginf(y[1]) and list(i) == [0, 2] else 1)
