#!/usr/bin/env python3
"""Pads not smaller than the kernel are refused, even for a dilated window that holds a real
element (DirectML accepts them).  Exits 1 while ONNX Runtime refuses the model."""
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

x = np.array([1, 2, 3], np.float32).reshape(1, 1, 1, 3)
print("input [1, 2, 3], kernel 1x2, dilation 1x2, pads left 2 (window taps at -2 and 0, then -1 and 1, ...)")
print("expected [1, 2, 3] (windows [pad, 1], [pad, 2], [1, 3]: pads never win)")
try:
    got = max_pool(x, TensorProto.FLOAT, False, kernel_shape=[1, 2], dilations=[1, 2],
                   pads=[0, 2, 0, 0])[0].ravel()
except Exception as e:  # noqa: BLE001 - the refusal is what is reproduced
    print("actual   refused:", str(e).splitlines()[0][:300])
    sys.exit(1)
print("actual  ", got)
sys.exit(0 if list(got) == [1, 2, 3] else 1)
