#!/usr/bin/env python3
"""onnx_reference_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 run by the ONNX
reference evaluator (onnx.reference.ReferenceEvaluator, the onnx package's Python
implementation of the operator specification), served to dmlcheck over docs/PROTOCOL.md.  Each
descriptor becomes one ONNX model as a converter author would write it; the adapter only moves
bytes in and out and reports whatever the evaluator computes.  dmlcheck judges it.

    dmlcheck exec --backend "process:$PWD/.venv-adapters/bin/python $PWD/adapters/onnx_reference/onnx_reference_adapter.py" corpus/conformance/*/*.json

Layout "packed": ONNX tensors have no strides, so dmlcheck gathers and scatters (stride handling
is not the evaluator's and is not tested).  One checked model and ReferenceEvaluator per
descriptor, cached (keyed by the descriptor's JSON, LRU) and reused for every case that repeats
it.

The mappings (docs/SEMANTICS.md; reports/published/onnx_reference-1.23.2/README.md):
  ARGMIN/ARGMAX  ArgMin/ArgMax at opset 13, keepdims=1, select_last_index=1 for DECREASING (D3:
                 the last extreme element).  One axis: the node's axis.  Several axes (D2: the
                 index is row-major over the reduced axes in ascending order): Transpose (kept
                 axes, then the reduced axes ascending) and Reshape into one last axis, then
                 ArgMax over it; the int64 result is converted to the output's index type.
  MAX_POOLING    MaxPool (opset 22): kernel_shape = WindowSize, strides = Strides, pads =
                 StartPadding + EndPadding, dilations = Dilations (MAX_POOLING2; all 1 for
                 MAX_POOLING1), storage_order 0, auto_pad NOTSET.  Indices output only when the
                 descriptor has an OutputIndicesTensor.  The ONNX spec's Indices are flat over
                 the whole input (N and C included, "in [0, N x C x D1 x ... x Dn)") with
                 storage_order 0: DirectML's flat logical index.  OutputTensor.Sizes decides
                 the rounding (D8): the floor size is ceil_mode 0, the ceil size ceil_mode 1;
                 where dimensions differ, the ceil-rounded ones get the end padding that makes
                 their floor size the asked-for size (positions past the input's end are
                 padding in both).
Claims: ARGMIN and ARGMAX on every DirectML input type (ONNX ArgMax-13's T holds every integer
width, float16 and float) and every index type; MAX_POOLING1/2 on FLOAT32, FLOAT16, INT8 and
UINT8 (MaxPool-22's T is float16, float, double, bfloat16, int8, uint8: ONNX cannot express an
INT16/UINT16/INT32/UINT32/INT64/UINT64 MaxPool, so those are not claimed and are skipped).
UNSUPPORTED only where onnx.checker (full check, with shape inference) refuses the model, with
its message.  An exception raised by the evaluator on a model the checker accepts, or an answer
of another shape than the ONNX spec's, is the evaluator's failure on that case: answered ERROR
(backend_error) with the evaluator's own message.
"""

import json
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402
from onnx_mapping import pool_attributes  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import checker, helper, TensorProto  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

ARG_OPSET, POOL_OPSET, IR_VERSION = 13, 22, 10
CACHE_SIZE = 256  # evaluators kept (LRU); a generated run repeats a descriptor rarely

# DirectML data type -> ONNX element type (every DirectML input type has one).
ONNX_TYPES = {"FLOAT32": TensorProto.FLOAT, "FLOAT16": TensorProto.FLOAT16,
              "INT8": TensorProto.INT8, "UINT8": TensorProto.UINT8,
              "INT16": TensorProto.INT16, "UINT16": TensorProto.UINT16,
              "INT32": TensorProto.INT32, "UINT32": TensorProto.UINT32,
              "INT64": TensorProto.INT64, "UINT64": TensorProto.UINT64}
ARG_TYPES = list(ONNX_TYPES)                          # ArgMax/ArgMin-13 type constraint T
POOL_TYPES = ["FLOAT32", "FLOAT16", "INT8", "UINT8"]  # MaxPool-22 type constraint T
CLAIMS = {"ARGMIN": ARG_TYPES, "ARGMAX": ARG_TYPES,
          "MAX_POOLING1": POOL_TYPES, "MAX_POOLING2": POOL_TYPES}


class EvaluatorFailed(Exception):
    """The evaluator raised, or answered a shape the ONNX spec does not give, on a model the
    checker accepts: its failure on this case (an ERROR reply, recorded as backend_error)."""


def np_dtype(t):
    return np.dtype("<" + t.format)


def checked_model(nodes, x, outputs, opset, initializers=()):
    """One ONNX model: input "x" (the descriptor's InputTensor), the given nodes and (name,
    elem_type, shape) outputs, checked by onnx.checker with shape inference; dml.Unsupported
    with the checker's message when ONNX refuses it."""
    graph = helper.make_graph(
        nodes, "dmlcheck", [helper.make_tensor_value_info("x", ONNX_TYPES[x["DataType"]], x["Sizes"])],
        [helper.make_tensor_value_info(name, et, shape) for name, et, shape in outputs],
        initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="dmlcheck")
    model.ir_version = IR_VERSION
    try:
        checker.check_model(model, full_check=True)
    except Exception as e:
        raise dml.Unsupported("onnx %s checker refuses the %s model: %s"
                              % (onnx.__version__, nodes[-1].op_type, " ".join(str(e).split())[:300]))
    return model


def arg_reduce_model(desc):
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
        shape = [sizes[a] for a in kept] + [int(np.prod([sizes[a] for a in axes]))]
        inits = [helper.make_tensor("shape", TensorProto.INT64, [len(shape)], shape)]
        nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=kept + axes),
                 helper.make_node("Reshape", ["t", "shape"], ["r"]),
                 helper.make_node(op, ["r"], ["y"], axis=len(shape) - 1, **attrs)]
        y_shape = shape[:-1] + [1]
    model = checked_model(nodes, x, [("y", TensorProto.INT64, y_shape)], ARG_OPSET, inits)
    return model, [tuple(y_shape)]


def pool_model(desc):
    x = desc["InputTensor"]
    et = ONNX_TYPES[x["DataType"]]
    outputs = [("y", et, desc["OutputTensor"]["Sizes"])]
    if "OutputIndicesTensor" in desc:
        outputs.append(("i", TensorProto.INT64, desc["OutputIndicesTensor"]["Sizes"]))
    node = helper.make_node("MaxPool", ["x"], [o[0] for o in outputs], **pool_attributes(desc))
    model = checked_model([node], x, outputs, POOL_OPSET)
    return model, [tuple(o[2]) for o in outputs]


BUILDERS = {"ARGMIN": arg_reduce_model, "ARGMAX": arg_reduce_model,
            "MAX_POOLING1": pool_model, "MAX_POOLING2": pool_model}

_evaluators = OrderedDict()


def new_evaluator(desc):
    """(ReferenceEvaluator, the ONNX spec's output shapes) for the descriptor, or the
    dml.Unsupported the checker's refusal became."""
    try:
        model, shapes = BUILDERS[desc["op"]](desc)
    except dml.Unsupported as refusal:
        return refusal
    return ReferenceEvaluator(model), shapes


def evaluator_for(desc):
    """The cached evaluator of a descriptor (an UNSUPPORTED verdict is cached too)."""
    key = json.dumps(desc, sort_keys=True)
    e = _evaluators.get(key)
    if e is None:
        e = new_evaluator(desc)
        _evaluators[key] = e
        if len(_evaluators) > CACHE_SIZE:
            _evaluators.popitem(last=False)
    else:
        _evaluators.move_to_end(key)
    if isinstance(e, dml.Unsupported):
        raise e
    return e


def result_buffer(t, values, onnx_shape, what):
    """The packed bytes of `values` as tensor t (indices converted from ONNX's int64 to t's
    index type); EvaluatorFailed when the evaluator's shape is not the ONNX spec's."""
    values = np.asarray(values)
    if values.shape != onnx_shape:
        raise EvaluatorFailed("onnx.reference %s answered %s of shape %s; the ONNX spec's shape "
                              "for this model is %s" % (onnx.__version__, what,
                                                         list(values.shape), list(onnx_shape)))
    return values.reshape(t.shape).astype(np_dtype(t)).tobytes()


def run(desc, tensors):
    if desc["op"] not in BUILDERS:
        raise dml.Unsupported("onnx_reference_adapter has no mapping for " + desc["op"])
    evaluator, shapes = evaluator_for(desc)
    x = tensors["input"]
    feed = {"x": np.frombuffer(x.data, dtype=np_dtype(x)).reshape(x.shape)}
    try:
        got = evaluator.run(None, feed)
    except Exception as e:
        raise EvaluatorFailed("onnx.reference %s ReferenceEvaluator raised %s: %s"
                              % (onnx.__version__, type(e).__name__, " ".join(str(e).split())[:300]))
    result = {"output": result_buffer(tensors["output"], got[0], shapes[0], "the output")}
    if "indices" in tensors:
        result["indices"] = result_buffer(tensors["indices"], got[1], shapes[1], "Indices")
    return result


def main():
    dml.serve(run, name="onnx_reference", version=onnx.__version__, claims=CLAIMS,
              layout="packed", max_feature_level="6_4", flushes_denormals=False,
              platform="onnx.reference.ReferenceEvaluator (Python, numpy %s)" % np.__version__,
              driver="onnx %s; python %s" % (onnx.__version__, sys.version.split()[0]))


if __name__ == "__main__":
    main()
