#!/usr/bin/python3
"""Exports a checkpoint train.py saved (<out>.pt) to ONNX: /usr/bin/python3 tools/beat-model/export.py <ckpt.pt> <out.onnx>"""
import sys

import torch

from train import BeatTCN, export

state = torch.load(sys.argv[1])
cin = state['mean'].shape[1]
# The width (train.py --channels) is the first convolution's output channels.
# A tempo head (train.py --tempo-head) is in the checkpoint but not in the exported model.
model = BeatTCN(
    cin,
    state['mean'].flatten().tolist(),
    state['std'].flatten().tolist(),
    ch=state['front.weight'].shape[0],
    tempo_head='tempo.weight' in state,
)
model.load_state_dict(state)
model.eval()
export(model, cin, sys.argv[2])
