#!/usr/bin/python3
"""Trains the tempo prior (packages/engine/src/beat-tempo-prior.ts) on what tempo-data.mjs wrote,
and writes it as the JSON the engine reads.

    /usr/bin/python3 tools/beat-model/train-tempo.py <train base>[,<train base>...] <validation base> <out.json>
        [--hidden H] [--epochs E] [--seed S] [--decay D]

The network: the input standardised (means and deviations of the training rows, stored in the
JSON), one hidden layer of H units (ELU, dropout 0.3), and a softmax over the decoding's beat
periods MIN_TAU..MAX_TAU (13-64 frames at 50 fps). The target is soft: a Gaussian over the log of
the period (sigma 0.04, about one period at 120 BPM) around the song's own. Adam with weight decay;
the epoch with the lowest cross-entropy on the validation rows is kept. One thread.
"""
import argparse
import json
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
MIN_TAU, MAX_TAU = 13, 64
TAUS = np.arange(MIN_TAU, MAX_TAU + 1, dtype=np.float64)
SIGMA = 0.04


def load(base):
    meta = json.load(open(base + '.json'))
    x = np.fromfile(base + '.f32', dtype=np.float32).reshape(len(meta['rows']), meta['inputs'])
    return x, meta['rows']


def soft(tau):
    w = np.exp(-0.5 * ((np.log(TAUS) - math.log(tau)) / SIGMA) ** 2)
    return w / w.sum()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('train')
    ap.add_argument('val')
    ap.add_argument('out')
    ap.add_argument('--hidden', type=int, default=64)
    ap.add_argument('--epochs', type=int, default=200)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--decay', type=float, default=1e-3)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    parts = [load(b) for b in args.train.split(',')]
    x = np.concatenate([p[0] for p in parts])
    rows = [r for p in parts for r in p[1]]
    vx, vrows = load(args.val)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3
    norm = lambda a: torch.from_numpy(((a - mean) / std).astype(np.float32))
    X, VX = norm(x), norm(vx)
    Y = torch.from_numpy(np.stack([soft(r['tau']) for r in rows]).astype(np.float32))
    VY = torch.from_numpy(np.stack([soft(r['tau']) for r in vrows]).astype(np.float32))
    vtau = np.array([r['tau'] for r in vrows])
    print(f'{len(rows)} training rows, {len(vrows)} validation rows, {x.shape[1]} inputs', flush=True)
    model = nn.Sequential(nn.Linear(x.shape[1], args.hidden), nn.ELU(), nn.Dropout(0.3), nn.Linear(args.hidden, len(TAUS)))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=args.decay)
    best, best_state = math.inf, None
    g = torch.Generator().manual_seed(args.seed)
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = torch.randperm(len(X), generator=g)
        for i in range(0, len(X), 64):
            idx = perm[i : i + 64]
            opt.zero_grad()
            loss = -(Y[idx] * F.log_softmax(model(X[idx]), dim=1)).sum(dim=1).mean()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            vl = -(VY * F.log_softmax(model(VX), dim=1)).sum(dim=1).mean().item()
            top = TAUS[model(VX).argmax(dim=1).numpy()]
        # Within 4 % of the song's period, and within 4 % of it at 1/2, 2/3, 3/2 or 2 times.
        acc1 = np.mean(np.abs(top / vtau - 1) < 0.04)
        acc2 = np.mean(np.min(np.abs(top[:, None] / (vtau[:, None] * np.array([0.5, 2 / 3, 1, 1.5, 2])) - 1), axis=1) < 0.04)
        mark = ''
        if vl < best:
            best = vl
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            mark = ' *'
        if epoch % 10 == 0 or mark:
            print(f'epoch {epoch} val {vl:.4f} acc1 {acc1:.3f} acc2 {acc2:.3f}{mark}', flush=True)
    model.load_state_dict(best_state)
    sd = {k: v.numpy().astype(np.float64) for k, v in model.state_dict().items()}
    r = lambda a: [float(f'{v:.6g}') for v in np.asarray(a).ravel()]
    out = {
        'inputs': int(x.shape[1]),
        'hidden': args.hidden,
        'taus': [int(t) for t in TAUS],
        'mean': r(mean),
        'std': r(std),
        'w1': r(sd['0.weight']),
        'b1': r(sd['0.bias']),
        'w2': r(sd['3.weight']),
        'b2': r(sd['3.bias']),
    }
    json.dump(out, open(args.out, 'w'), separators=(',', ':'))
    print(f'wrote {args.out} (best validation cross-entropy {best:.4f})', flush=True)


if __name__ == '__main__':
    main()
