#!/usr/bin/env python3
"""No integer max pooling on the CPU (DirectML requires INT8/UINT8 from 3_0, INT16/INT32/INT64
from 5_0).  Exits 1 while F.max_pool2d refuses an integer tensor."""
import sys
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
print("torch", torch.__version__)

bad = False
for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
    x = torch.tensor([1, 2], dtype=dtype).reshape(1, 1, 1, 2)
    try:
        v = F.max_pool2d(x, (1, 2))
        got = v.flatten().tolist()
    except RuntimeError as e:
        got = "refused: %s" % e
    print("%s [1, 2], kernel (1, 2): expected [2], actual %s" % (dtype, got))
    bad |= got != [2]
sys.exit(1 if bad else 0)
