#!/usr/bin/env python3
"""onnxref_pool_2d_pads_read_as_top_bottom_left_right: MaxPool on its stride-1 path with a 4-D input reads pads as (top, bottom, left, right)
(`pad_top, pad_bottom, pad_left, pad_right = pads` in onnx/reference/ops/_op_common_pool.py),
while the ONNX spec's pads are [x1_begin, x2_begin, x1_end, x2_end]: pads[1] (W begin) is
taken as H end and pads[2] (H end) as W begin, so the output has the wrong shape, or a window
of padding only makes it raise.  Input 1x1x2x2 {1, 2, 3, 4}, kernel 2x2, pads [0, 1, 0, 0]
(one column of padding on the left): the ONNX output shape is 1x1x1x2 with values {3, 4}; the
evaluator answers shape 1x1x2x1, {4, 4}.

Standalone: onnx and numpy only.  Prints what is required and what onnx.reference answers;
exits 1 while the bug is present, 0 once it is fixed."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator


def max_pool(x, with_indices, **attrs):
    """One MaxPool node (opset 22) run by the reference evaluator: [(shape, values), (shape,
    indices)], or the exception it raised as text."""
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    names = ["y", "i"] if with_indices else ["y"]
    outputs = [helper.make_tensor_value_info(n, elem if n == "y" else TensorProto.INT64, None)
               for n in names]
    graph = helper.make_graph([helper.make_node("MaxPool", ["x"], names, **attrs)], "repro",
                              [helper.make_tensor_value_info("x", elem, list(x.shape))], outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    try:
        got = ReferenceEvaluator(model).run(None, {"x": x})
    except Exception as e:  # the evaluator's failure is the answer being reproduced
        return "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:160])
    return [(list(a.shape), [v if v == v else "nan" for v in a.ravel().tolist()]) for a in got]


def report(expected, got):
    """Prints both; exit 1 while they differ (the bug is present)."""
    print("onnx", onnx.__version__, "numpy", np.__version__)
    print("expected:", expected)
    print("actual:  ", got)
    bug = repr(got) != repr(expected)
    print("BUG PRESENT" if bug else "fixed")
    sys.exit(1 if bug else 0)


x = np.array([1, 2, 3, 4], dtype=np.float32).reshape(1, 1, 2, 2)
report([([1, 1, 1, 2], [3.0, 4.0])],
       max_pool(x, False, kernel_shape=[2, 2], pads=[0, 1, 0, 0]))
