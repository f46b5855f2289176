#!/usr/bin/env python3
"""A NaN drops the maximum: ONNX Runtime MaxPool without Indices (FLOAT32, dilation 1) answers a
number smaller than the window's maximum, which no NaN rule allows.  Exits 1 while present."""
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

x = np.array([10, np.nan, -1, 5], np.float32).reshape(1, 1, 1, 4)
got = max_pool(x, TensorProto.FLOAT, False, kernel_shape=[1, 3])[0].ravel()
print("input [10, NaN, -1, 5], kernel 1x3, stride 1, no Indices")
print("expected [10 or NaN, 5 or NaN] (window [10, NaN, -1]: its maximum 10, or the NaN)")
print("actual  ", got)
ok = (got[0] == 10 or np.isnan(got[0])) and (got[1] == 5 or np.isnan(got[1]))
sys.exit(0 if ok else 1)
