#!/usr/bin/env python3
"""A window wholly in padding answers, with Indices, an index counted within its plane and offset
by the plane: negative in the first planes, an earlier plane's element after them.  Exits 1
while an index names an element outside its own plane (DirectML leaves the all-padding answer
open, but no answer may name another plane's element; ONNX's own index is flat over N, C, H, W)."""
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

x = np.array([5, 6, 7], np.float32).reshape(1, 3, 1, 1)
y, i = max_pool(x, TensorProto.FLOAT, True, kernel_shape=[2, 1], dilations=[2, 1], pads=[1, 0, 1, 0])
print("input [5, 6, 7] as 1x3x1x1, kernel 2x1, dilation 2x1, pads 1 above and below (taps at rows -1 and 1)")
print("expected indices: none naming another channel's element (channel c owns flat index c)")
print("actual   values", y.ravel(), "indices", i.ravel())
foreign = [int(k) for c, k in enumerate(i.ravel()) if 0 <= k < 3 and k != c]
print("indices naming another channel's element:", foreign)
sys.exit(1 if foreign or (i < 0).any() else 0)
