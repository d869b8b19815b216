#!/usr/bin/python3
"""Exports a checkpoint train.py saved (<out>.pt) to ONNX: /usr/bin/python3 tools/beat-model/export.py <ckpt.pt> <out.onnx>"""
import sys

import torch

from train import BeatTCN, export

state = torch.load(sys.argv[1])
cin = state['mean'].shape[1]
# The width (train.py --channels) is the first convolution's output channels; with a 2-D front end
# (train.py --front2d) that convolution is front.out, and the filters are front.c1's.
# A tempo head (train.py --tempo-head) is in the checkpoint but not in the exported model.
front2d = 'front.c1.weight' in state
model = BeatTCN(
    cin,
    state['mean'].flatten().tolist(),
    state['std'].flatten().tolist(),
    ch=state['front.out.weight' if front2d else 'front.weight'].shape[0],
    tempo_head='tempo.weight' in state,
    front2d=state['front.c1.weight'].shape[0] if front2d else 0,
)
model.load_state_dict(state)
model.eval()
export(model, cin, sys.argv[2])
