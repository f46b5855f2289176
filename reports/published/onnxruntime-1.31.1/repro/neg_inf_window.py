#!/usr/bin/env python3
"""A window of -inf gives -FLT_MAX: ONNX Runtime MaxPool without Indices (FLOAT32, dilation 1)
starts its running maximum at -FLT_MAX.  Exits 1 while the bug is present."""
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

x = np.array([-np.inf, -np.inf], np.float32).reshape(1, 1, 1, 2)
got = max_pool(x, TensorProto.FLOAT, False, kernel_shape=[1, 2])[0].ravel()
with_idx = max_pool(x, TensorProto.FLOAT, True, kernel_shape=[1, 2])[0].ravel()
print("input [-inf, -inf], kernel 1x2, no Indices")
print("expected [-inf] (the window's only value; with Indices ONNX Runtime gives %s)" % with_idx)
print("actual  ", got)
sys.exit(0 if np.isneginf(got[0]) else 1)
