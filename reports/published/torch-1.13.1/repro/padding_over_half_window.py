#!/usr/bin/env python3
"""Padding over half the window cannot be expressed: F.max_pool2d refuses padding above half the
kernel, which DirectML allows (its StartPadding/EndPadding only must keep each output's window
inside the padded input).  Exits 1 while refused."""
import sys
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
print("torch", torch.__version__)

x = torch.tensor([-float("inf"), 1.0]).reshape(1, 1, 1, 2)
print("F.max_pool2d of [-inf, 1], kernel (1, 3), padding (0, 2), return_indices=True")
print("expected the windows [pad, pad, -inf], [pad, -inf, 1], [-inf, 1, pad], [1, pad, pad]: values [-inf, 1, 1, 1], indices [0, 1, 1, 1]")
try:
    v, i = F.max_pool2d(x, (1, 3), stride=1, padding=(0, 2), return_indices=True)
except RuntimeError as e:
    print("actual   refused:", e)
    sys.exit(1)
print("actual  ", v.flatten().tolist(), i.flatten().tolist())
sys.exit(0 if i.flatten().tolist() == [0, 1, 1, 1] else 1)
