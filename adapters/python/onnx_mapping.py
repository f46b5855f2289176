"""onnx_mapping: the DirectML -> ONNX mapping shared by the adapters that build ONNX models
(adapters/onnxruntime/, adapters/onnx_reference/), so that both libraries are asked the same
question.  Standard library only: callers build the nodes with their own onnx.helper."""


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
