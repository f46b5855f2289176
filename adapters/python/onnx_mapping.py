"""onnx_mapping: the DirectML -> ONNX mapping shared by the adapters that build ONNX models
(adapters/onnxruntime/, adapters/onnx_reference/), so that both libraries are asked the same
question: the same model for a descriptor.  The onnx package is imported by the functions that
build a model, not here: pool_attributes needs only the standard library, and the installed copy
imports without onnx."""

import math

ARG_OPSET, POOL_OPSET, IR_VERSION = 13, 22, 10
OPERATORS = ("ARGMIN", "ARGMAX", "MAX_POOLING1", "MAX_POOLING2")
# DirectML data type -> the name of its ONNX element type (onnx.TensorProto.<name>).
ELEMENT_TYPES = {"FLOAT32": "FLOAT", "FLOAT16": "FLOAT16", "INT8": "INT8", "UINT8": "UINT8",
                 "INT16": "INT16", "UINT16": "UINT16", "INT32": "INT32", "UINT32": "UINT32",
                 "INT64": "INT64", "UINT64": "UINT64"}


def element_type(dml_type):
    """onnx.TensorProto's element type of a DirectML data type."""
    from onnx import TensorProto
    return getattr(TensorProto, ELEMENT_TYPES[dml_type])


def pool_attributes(desc):
    """MaxPool's attributes for the descriptor (SPEC D8: the rounding from the output sizes)."""
    k = len(desc["WindowSize"])
    ins, outs = desc["InputTensor"]["Sizes"][2:], desc["OutputTensor"]["Sizes"][2:]
    dil = desc.get("Dilations") or [1] * k
    start, end = list(desc["StartPadding"]), list(desc["EndPadding"])
    floor, ceil = [], []
    for d in range(k):
        dilated = (desc["WindowSize"][d] - 1) * dil[d] + 1
        span = ins[d] + start[d] + end[d] - dilated
        f = span // desc["Strides"][d] + 1
        c = -(-span // desc["Strides"][d]) + 1
        if (c - 1) * desc["Strides"][d] >= ins[d] + start[d]:
            c -= 1  # ONNX (and DirectML) drop a last window that starts in the end padding
        floor.append(f)
        ceil.append(c)
    if outs == floor:
        ceil_mode = 0
    elif outs == ceil:
        ceil_mode = 1
    else:
        # Mixed rounding: ceil_mode is one attribute, so the ceil-rounded dimensions get the
        # end padding under which their floor size is the asked-for size.
        ceil_mode = 0
        for d in range(k):
            if outs[d] != floor[d]:
                dilated = (desc["WindowSize"][d] - 1) * dil[d] + 1
                end[d] = (outs[d] - 1) * desc["Strides"][d] + dilated - ins[d] - start[d]
    return {"kernel_shape": list(desc["WindowSize"]), "strides": list(desc["Strides"]),
            "pads": start + end, "dilations": list(dil), "ceil_mode": ceil_mode,
            "storage_order": 0}


def arg_reduce_graph(desc):
    """(nodes, initializers, outputs) of ArgMin/ArgMax at ARG_OPSET for the descriptor: keepdims
    1, select_last_index 1 for DECREASING (SPEC D3: the last extreme element); the output "y"
    is int64."""
    from onnx import helper, TensorProto
    x = desc["InputTensor"]
    sizes, axes = x["Sizes"], sorted(desc["Axes"])
    attrs = {"keepdims": 1,
             "select_last_index": 1 if desc["AxisDirection"] == "DECREASING" else 0}
    op = "ArgMin" if desc["op"] == "ARGMIN" else "ArgMax"
    if len(axes) == 1:
        nodes, inits = [helper.make_node(op, ["x"], ["y"], axis=axes[0], **attrs)], []
        y_shape = desc["OutputTensor"]["Sizes"]
    else:
        # SPEC D2: reduced axes last, ascending, flattened into one row-major axis.
        kept = [a for a in range(len(sizes)) if a not in axes]
        shape = [sizes[a] for a in kept] + [math.prod(sizes[a] for a in axes)]
        inits = [helper.make_tensor("shape", TensorProto.INT64, [len(shape)], shape)]
        nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=kept + axes),
                 helper.make_node("Reshape", ["t", "shape"], ["r"]),
                 helper.make_node(op, ["r"], ["y"], axis=len(shape) - 1, **attrs)]
        y_shape = shape[:-1] + [1]
    return nodes, inits, [("y", TensorProto.INT64, y_shape)]


def pool_graph(desc):
    """(nodes, initializers, outputs) of MaxPool at POOL_OPSET for the descriptor: the output
    "y", and "i" (int64 Indices) only when the descriptor has an OutputIndicesTensor."""
    from onnx import helper, TensorProto
    outputs = [("y", element_type(desc["InputTensor"]["DataType"]), desc["OutputTensor"]["Sizes"])]
    if "OutputIndicesTensor" in desc:
        outputs.append(("i", TensorProto.INT64, desc["OutputIndicesTensor"]["Sizes"]))
    node = helper.make_node("MaxPool", ["x"], [o[0] for o in outputs], **pool_attributes(desc))
    return [node], [], outputs


def onnx_model(desc):
    """(ModelProto, the ONNX spec's output shapes) of the descriptor's operator: input "x" (the
    InputTensor's type and sizes), the operator's graph, IR_VERSION, producer "dmlcheck".  The
    model is neither checked nor serialized: each adapter does what its library needs."""
    from onnx import helper
    if desc["op"] not in OPERATORS:
        raise ValueError("onnx_mapping has no mapping for %s" % desc["op"])
    arg = desc["op"] in ("ARGMIN", "ARGMAX")
    nodes, inits, outputs = (arg_reduce_graph if arg else pool_graph)(desc)
    x = desc["InputTensor"]
    graph = helper.make_graph(
        nodes, "dmlcheck", [helper.make_tensor_value_info("x", element_type(x["DataType"]), x["Sizes"])],
        [helper.make_tensor_value_info(name, et, shape) for name, et, shape in outputs],
        initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", ARG_OPSET if arg else POOL_OPSET)],
                              producer_name="dmlcheck")
    model.ir_version = IR_VERSION
    return model, [tuple(shape) for _, _, shape in outputs]
