#!/usr/bin/env python3
"""onnxref_pool_window_position_unravelled_by_output_shape: MaxPool's Indices, on its stride-1 path, turn the winner's position inside the window into
coordinates with the OUTPUT's spatial shape (_get_indices(arg, out_shape) in
onnx/reference/ops/_op_common_pool.py) instead of the kernel's, so the index names another
element, or none.  Input 1x1x2x3 {1, 2, 3, 9, 5, 6}, kernel 1x3 (output 1x1x2x1): values {3, 9},
indices {2, 3} (ONNX spec: the flat index of the selected value); the evaluator answers indices
{6, 3}, and 6 is past the input's 6 elements.

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


x = np.array([1, 2, 3, 9, 5, 6], dtype=np.float32).reshape(1, 1, 2, 3)
report([([1, 1, 2, 1], [3.0, 9.0]), ([1, 1, 2, 1], [2, 3])],
       max_pool(x, True, kernel_shape=[1, 3]))
