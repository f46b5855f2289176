#!/usr/bin/env python3
"""No INT32/INT64 MaxPool: ONNX's MaxPool type constraint lacks them, so ONNX Runtime rejects the
model (DirectML requires INT32/INT64 max pooling from feature level 5_0).  Exits 1 while refused."""
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

x = np.array([5, 7], np.int32).reshape(1, 1, 1, 2)
print("input INT32 [5, 7], kernel 1x2")
print("expected [7]")
try:
    got = max_pool(x, TensorProto.INT32, False, kernel_shape=[1, 2])[0].ravel()
except Exception as e:  # noqa: BLE001 - the refusal is what is reproduced
    print("actual   refused:", str(e).splitlines()[0][:300])
    sys.exit(1)
print("actual  ", got)
sys.exit(0 if list(got) == [7] else 1)
