#!/usr/bin/env python3
"""onnxref_pool_integer_padding_is_nan: MaxPool on its stride-1 path pads the input with NaN (np.pad(..., constant_values=np.nan))
before taking each window's maximum; for an INT8 input numpy refuses ("ValueError: cannot
convert float NaN to integer"), and for UINT8 the NaN becomes 0, which then competes as a
value (an index can name a padding position).  ONNX MaxPool's T includes int8 and uint8 and
its spec says padding never counts.  Input INT8 1x1x1x1 {7}, kernel 2x2, pads [1, 1, 1, 1]:
output 1x1x2x2 {7, 7, 7, 7}; the evaluator raises ValueError.

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


x = np.array([7], dtype=np.int8).reshape(1, 1, 1, 1)
report([([1, 1, 2, 2], [7, 7, 7, 7])],
       max_pool(x, False, kernel_shape=[2, 2], pads=[1, 1, 1, 1]))
