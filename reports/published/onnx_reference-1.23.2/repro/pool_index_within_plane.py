#!/usr/bin/env python3
"""pool_index_within_plane: MaxPool's Indices, on its stride-1 path (every stride and dilation 1), are counted within
each N, C plane, not over the whole input.  The ONNX spec (MaxPool, output Indices): "The
indices are computed as flatten 1-D tensor ... So the values in indices are in [0, N x C x D1
x ... x Dn)"; DirectML's MAX_POOLING2 page: indices over the input "as if InputTensor were one
large contiguous 1D array".  Input 1x2x1x1 {1, 2}, kernel 1x1: indices {0, 1}, the evaluator
answers {0, 0}.  With strides (2, 1) its other code path answers {0, 1}.

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


x = np.array([1, 2], dtype=np.float32).reshape(1, 2, 1, 1)
report([([1, 2, 1, 1], [1.0, 2.0]), ([1, 2, 1, 1], [0, 1])],
       max_pool(x, True, kernel_shape=[1, 1]))
