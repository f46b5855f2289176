#!/usr/bin/env python3
"""A +0/-0 tie is not resolved to the first element: ONNX Runtime MaxPool without Indices
(dilation 1) answers -0 for a window that starts with +0.  Exits 1 while the bug is present."""
import sys
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper


def max_pool(x, elem, with_indices, **attrs):
    """One ONNX MaxPool (opset 22) on the CPU execution provider, one thread."""
    outs = ["y"] + (["i"] if with_indices else [])
    node = helper.make_node("MaxPool", ["x"], outs, **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info("y", elem, None)]
        + ([helper.make_tensor_value_info("i", TensorProto.INT64, None)] if with_indices else []))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})


print("onnxruntime", ort.__version__, "onnx", onnx.__version__, "numpy", np.__version__)

x = np.array([0.0, -0.0, 0.0, -0.0], np.float32).reshape(1, 1, 1, 4)
got = max_pool(x, TensorProto.FLOAT, False, kernel_shape=[1, 4])[0].ravel()
print("input [+0, -0, +0, -0], kernel 1x4, no Indices")
print("expected [+0] (the first of equal elements, exact bits: sign bit 0)")
print("actual  ", got, "sign bit", int(np.signbit(got[0])))
sys.exit(1 if np.signbit(got[0]) else 0)
