#!/usr/bin/env python3
"""onnxref_pool_signed_zero_tie_to_later: MaxPool on its stride-1 path takes a window's value with np.max, which returns the later of
equal +0 and -0 (np.max([+0, -0]) is -0), while its index is np.argmax's, the first: the
value and the index disagree.  DirectML (D3) requires the exact bits of the first element met
in row-major window order.  Input 1x1x1x2 {+0, -0}, kernel 1x2, with Indices: value +0 at
index 0; the evaluator answers -0 at index 0.  With strides (1, 2) its loop path answers +0.

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


x = np.array([0.0, -0.0], dtype=np.float32).reshape(1, 1, 1, 2)
got = max_pool(x, True, kernel_shape=[1, 2])
sign = lambda r: [(s, ["-0" if isinstance(v, float) and v == 0 and np.signbit(v) else v for v in vals]) for s, vals in r] if isinstance(r, list) else r
report([([1, 1, 1, 1], [0.0]), ([1, 1, 1, 1], [0])], sign(got))
