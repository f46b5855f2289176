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

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402
from onnx_mapping import ELEMENT_TYPES, onnx_model  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import checker  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

CACHE_SIZE = 256  # evaluators kept (LRU); a generated run repeats a descriptor rarely

ARG_TYPES = list(ELEMENT_TYPES)                       # ArgMax/ArgMin-13 type constraint T
POOL_TYPES = ["FLOAT32", "FLOAT16", "INT8", "UINT8"]  # MaxPool-22 type constraint T
CLAIMS = {"ARGMIN": ARG_TYPES, "ARGMAX": ARG_TYPES,
          "MAX_POOLING1": POOL_TYPES, "MAX_POOLING2": POOL_TYPES}


class EvaluatorFailed(Exception):
    """The evaluator raised, or answered a shape the ONNX spec does not give, on a model the
    checker accepts: its failure on this case (an ERROR reply, recorded as backend_error)."""


def np_dtype(t):
    return np.dtype("<" + t.format)


def new_evaluator(desc):
    """(ReferenceEvaluator, the ONNX spec's output shapes) for the descriptor's model
    (onnx_mapping), checked by onnx.checker with shape inference; dml.Unsupported with the
    checker's message when ONNX refuses it."""
    model, shapes = onnx_model(desc)
    try:
        checker.check_model(model, full_check=True)
    except Exception as e:
        raise dml.Unsupported("onnx %s checker refuses the %s model: %s"
                              % (onnx.__version__, model.graph.node[-1].op_type,
                                 " ".join(str(e).split())[:300]))
    return ReferenceEvaluator(model), shapes


# One evaluator per descriptor (its JSON); an UNSUPPORTED verdict is kept too.
evaluators = dml.DescriptorCache(new_evaluator, CACHE_SIZE)


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
    if desc["op"] not in CLAIMS:
        raise dml.Unsupported("onnx_reference_adapter has no mapping for " + desc["op"])
    evaluator, shapes = evaluators.get(desc)
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
