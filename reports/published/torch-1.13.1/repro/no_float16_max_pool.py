#!/usr/bin/env python3
"""No FLOAT16 max pooling on the CPU (DirectML requires it from feature level 2_0/2_1).  Exits 1
while F.max_pool2d refuses a half tensor."""
import sys
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
print("torch", torch.__version__)

x = torch.tensor([1.0, 2.0], dtype=torch.float16).reshape(1, 1, 1, 2)
print("F.max_pool2d of float16 [1, 2], kernel (1, 2), return_indices=True")
print("expected (2, index 1)")
try:
    v, i = F.max_pool2d(x, (1, 2), return_indices=True)
except RuntimeError as e:
    print("actual   refused:", e)
    sys.exit(1)
print("actual  ", v.flatten().tolist(), i.flatten().tolist())
sys.exit(0 if v.flatten().tolist() == [2.0] and i.flatten().tolist() == [1] else 1)
