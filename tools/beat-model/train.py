#!/usr/bin/python3
"""Trains the beat and downbeat model on the data make-data.mjs wrote, and exports it to ONNX.

    /usr/bin/python3 tools/beat-model/train.py <data dir> <out.onnx> [--minutes M] [--seed S]

Songs with seed < 500000 train; 500000-999999 validate (the best validation loss is kept); test
seeds (1000000+) and the held-out sound font never come here. One thread (torch.set_num_threads(1))
unless --threads says more.

The model: a temporal convolutional network (after Boeck and Davies 2020). The input (2 x 41
channels at 100 frames/s, beat-features.ts: the log spectrogram's bands, then their rises) is
normalised per channel (means and deviations from the training songs, stored in the model), a
convolution over 4 frames with stride 2 to CH channels (--channels, 32 by default; the network
runs at 50 frames/s; `--front2d F` puts before it two 3x3 convolutions of F filters over bands and
frames, each followed by a max-pool over three bands, Front2d), then 10
residual blocks of a dilated convolution (kernel 5, dilations 1, 2, 4, ..., 512; ELU; dropout 0.1)
and a 1x1 convolution; a 1x1 head gives each 50 fps step the beat and downbeat activations of
its two 100 fps frames, through a sigmoid in the exported model. 72,740 weights at 32 channels,
155,188 at 48.

Training: binary cross-entropy against targets of 1 on the annotated frame and 0.5 on its
neighbours; Adam, the learning rate on a cosine decay; batches of 8 crops of 16 s, 60 % of them
(`--stretched`) time-stretched by 0.75-1.33 (on top of make-data.mjs's tempo augmentation;
`--tempo-range 55,210` keeps them within make-data.mjs's range) and half of them through a random
EQ and level (eq());
`--hard S` draws a share S of the crops in proportion to their song's running loss (class Hard),
the rest uniformly (0 by default: all uniformly); `--lead-in P` gives a share P of the crops 1-6 s
more of their song's own sound before the music, the crop then holding the music's start (lead_in;
0 by default); `--timbre P` gives a share P of the crops another spectral shape (timbre(): the
bands shifted by up to two, one or two spans of bands silenced; 0 by default); `--tempo-head W` trains a
tempo head beside the activations (BeatTCN.tempo: the crop's tempo in 64 log-spaced bins of 40-250
BPM from the last block's mean over time, tempo_target; its cross-entropy weighted by W; after Boeck
and Davies 2020's multi-task network), so the shared layers must carry the metrical level; the head
is not exported, and the validation loss that chooses the checkpoint is the activations' alone (0 by
default: no head). `--steps N` trains N steps
on the songs present at the start, the learning rate on a cosine over the steps, so the same
data, seed and steps give the same weights; without it the decay follows the wall clock
(`--minutes`) and the data folder is rescanned every third epoch (songs still being rendered join).
Songs are held as the spectrogram half in float16; the rises are computed again per crop, as
beat-features.ts computes them. `--init` starts from an exported model of this architecture.
"""
import argparse
import glob
import json
import math
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

FPS = 100
CH = 32
KERNEL = 5
DILATIONS = [2**i for i in range(10)]
CROP = 1600  # frames (16 s)
BATCH = 8
STRETCHED = 0.6
EQUALISED = 0.5  # share of crops given a random EQ and level (eq below)
LEAD_MARGIN = 8  # frames before the first beat not taken as lead-in (a note's timing jitter)
LEAD_MIN = 20  # frames of lead-in a song needs to lend it (lead_in)
# The tempo head (--tempo-head): log-spaced bins of the crop's tempo, a soft target over them.
TEMPO_LO, TEMPO_HI, TEMPO_BINS = 40.0, 250.0, 64
TEMPO_SIGMA = 1.0  # bins


class Block(nn.Module):
    def __init__(self, ch, dil, drop):
        super().__init__()
        self.conv = nn.Conv1d(ch, ch, KERNEL, dilation=dil, padding=dil * (KERNEL - 1) // 2)
        self.out = nn.Conv1d(ch, ch, 1)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return x + self.out(self.drop(F.elu(self.conv(x))))


class Front2d(nn.Module):
    """The spectrogram and its rises as a two-channel picture (bands by frames): two 3x3
    convolutions over bands and frames, each followed by a max-pool of three bands, then the
    strided convolution over time of the 1-D front. The same filters slide over every band, so a
    note's onset is read alike wherever its energy sits: another sound font's instruments, a
    little higher or lower, meet filters training shaped (after Boeck and Davies 2020's
    front end)."""

    def __init__(self, cin, ch, filters):
        super().__init__()
        self.bands = cin // 2
        self.c1 = nn.Conv2d(2, filters, 3, padding=(0, 1))
        self.c2 = nn.Conv2d(filters, filters, 3, padding=(0, 1))
        left = ((self.bands - 2) // 3 - 2) // 3
        self.out = nn.Conv1d(filters * left, ch, 4, stride=2)

    def forward(self, x):
        b, _, t = x.shape
        z = F.max_pool2d(F.elu(self.c1(x.view(b, 2, self.bands, t))), (3, 1))
        z = F.max_pool2d(F.elu(self.c2(z)), (3, 1))
        return self.out(z.reshape(b, -1, t))


class BeatTCN(nn.Module):
    def __init__(self, cin, mean, std, drop=0.1, ch=CH, tempo_head=False, front2d=0):
        super().__init__()
        self.register_buffer('mean', torch.tensor(mean, dtype=torch.float32).view(1, -1, 1))
        self.register_buffer('std', torch.tensor(std, dtype=torch.float32).view(1, -1, 1))
        self.front = Front2d(cin, ch, front2d) if front2d else nn.Conv1d(cin, ch, 4, stride=2)
        self.blocks = nn.Sequential(*[Block(ch, d, drop) for d in DILATIONS])
        self.head = nn.Conv1d(ch, 4, 1)
        # Training only (--tempo-head): the crop's tempo from the last block's mean over time, so
        # the shared layers must say which level of the music is the beat. Not exported.
        self.tempo = nn.Linear(ch, TEMPO_BINS) if tempo_head else None

    def forward(self, x, with_tempo=False):
        t = x.shape[2]
        x = F.pad((x - self.mean) / self.std, (1, 2))
        # The network runs at 50 frames/s (a strided first convolution); the head gives each
        # output the activations of its two 100 fps frames, interleaved back to 100 fps.
        z = F.elu(self.blocks(F.elu(self.front(x))))
        h = self.head(z)
        b, _, n = h.shape
        h = h.view(b, 2, 2, n).permute(0, 1, 3, 2).reshape(b, 2, 2 * n)
        if with_tempo:
            return h[:, :, :t], self.tempo(z.mean(dim=2))
        return h[:, :, :t]


class Exported(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, spec):
        return torch.sigmoid(self.m(spec))


def rises(spec):
    """The half-wave rectified rise from the frame before (beat-features.ts's second half)."""
    r = np.zeros_like(spec)
    r[:, 1:] = np.maximum(0, spec[:, 1:] - spec[:, :-1])
    return r


def load(data_dir, lo, hi, skip=()):
    """Songs with lo <= seed < hi: the spectrogram half of the features (float16; the rises are
    computed again per crop, as beat-features.ts computes them) and the annotation."""
    songs = []
    for j in sorted(glob.glob(os.path.join(data_dir, '*.json'))):
        try:
            seed = int(os.path.basename(j)[:-5])
        except ValueError:
            continue
        if not (lo <= seed < hi) or seed in skip:
            continue
        d = json.load(open(j))
        x = np.fromfile(j[:-5] + '.f32', dtype=np.float32)
        if x.size != 2 * d['bands'] * d['frames']:
            continue  # still being written
        x = x.reshape(2 * d['bands'], d['frames'])[: d['bands']]
        songs.append((x.astype(np.float16), None, d))
    return songs


def targets(d, s0, a, n):
    """Targets of a crop: output frame j is source frame s0 + j * a (a: the time stretch)."""
    y = np.zeros((2, n), dtype=np.float32)
    for row, times in ((0, d['beats']), (1, d['downbeats'])):
        for t in times:
            j = int(round((t * FPS - s0) / a))
            for k, w in ((-1, 0.5), (1, 0.5), (0, 1.0)):
                if 0 <= j + k < n:
                    y[row, j + k] = max(y[row, j + k], w)
    return y


def tempo_target(d, s0, a, n):
    """The tempo head's target for a crop (--tempo-head): a Gaussian of TEMPO_SIGMA bins around the
    crop's tempo as heard (the median interval of the annotated beats inside it, over the stretch
    a), and a weight of 1; a weight of 0 where the crop holds fewer than three beats. A tempo beyond
    the bins (over 250 BPM: a fast style stretched) gets the Gaussian's part within them, the top
    bins."""
    none = np.zeros(TEMPO_BINS, dtype=np.float32), 0.0
    lo, hi = s0 / FPS, (s0 + (n - 1) * a) / FPS
    inside = [t for t in d['beats'] if lo <= t <= hi]
    if len(inside) < 3:
        return none
    bpm = 60.0 * a / float(np.median(np.diff(inside)))
    pos = (math.log(bpm) - math.log(TEMPO_LO)) / (math.log(TEMPO_HI) - math.log(TEMPO_LO)) * (TEMPO_BINS - 1)
    k = np.arange(TEMPO_BINS, dtype=np.float32)
    y = np.exp(-0.5 * ((k - pos) / TEMPO_SIGMA) ** 2).astype(np.float32)
    if not y.sum() > 0:
        return none  # far outside the bins (no style comes near)
    return y / y.sum(), 1.0


def eq(seg, rng):
    """The spectrogram half of a crop as if played through another EQ and at another level: the
    magnitudes (beat-features.ts stores log10(1 + 10 * magnitude)) times a smooth gain over the
    bands (a tilt of up to 6 dB either way across the bands, a peak or notch of up to 9 dB two to
    eight bands wide) and a level of -12..+6 dB; another band's timbre, as a sound font that
    training never heard would sound."""
    n = seg.shape[0]
    k = np.arange(n, dtype=np.float32)
    db = rng.uniform(-6, 6) * (k / max(1, n - 1) - 0.5) * 2
    db += rng.uniform(-9, 9) * np.exp(-0.5 * ((k - rng.uniform(0, n - 1)) / rng.uniform(1, 4)) ** 2)
    db += rng.uniform(-12, 6)
    gain = (10 ** (db / 20)).astype(np.float32)[:, None]
    mag = (np.power(10, seg) - 1) / 10
    return np.log10(1 + 10 * mag * gain)


def timbre(seg, rng):
    """The spectrogram half of a crop with another spectral shape (--timbre): the bands moved up or
    down by up to two bands (a fractional shift, linear between neighbours, the edge band held),
    as an instrument whose energy sits a little higher or lower would put it, then one or two
    spans of one to four bands silenced, as a band without that instrument would leave them; the
    rises are computed afterwards from what is left."""
    n = seg.shape[0]
    src = np.clip(np.arange(n, dtype=np.float32) - rng.uniform(-2, 2), 0, n - 1)
    i0 = np.floor(src).astype(int)
    i1 = np.minimum(i0 + 1, n - 1)
    fr = (src - i0)[:, None]
    out = seg[i0] * (1 - fr) + seg[i1] * fr
    for _ in range(rng.randint(1, 2)):
        w = rng.randint(1, 4)
        b = rng.randrange(0, n - w + 1)
        out[b : b + w] = 0
    return out.astype(np.float32)


def stretch(bpm, rng, tempo_range=None):
    """A time stretch of 0.75-1.33 (output tempo bpm * a). With tempo_range (--tempo-range, e.g.
    55-210, make-data.mjs's range) it keeps the tempo within that range, or within the song's own
    tempo where the style itself lies outside it: a beat taught at 36 or 300 BPM is a level no song
    is decoded at (beat-dbn.ts: 47-231 BPM)."""
    lo, hi = 0.75, 1.33
    if tempo_range:
        lo = max(lo, min(1.0, tempo_range[0] / bpm))
        hi = min(hi, max(1.0, tempo_range[1] / bpm))
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class Hard:
    """Hard-example sampling (--hard): a running loss per training song (the mean of its crops' last
    losses), and a share of each batch drawn in proportion to it, the rest uniformly. Songs not yet
    seen count at the mean of those seen. The model meets more often the songs it still gets wrong
    (a compound meter read as simple, a slow song at twice its tempo) whatever their style."""

    def __init__(self, n, share):
        self.loss = np.full(n, np.nan)
        self.share = share
        self.cum = None

    def pick(self, rng, n):
        if self.share > 0 and self.cum is not None and rng.random() < self.share:
            return min(n - 1, int(np.searchsorted(self.cum, rng.random() * self.cum[-1], side='right')))
        return rng.randrange(n)

    def grow(self, n):
        self.loss = np.concatenate([self.loss, np.full(n - len(self.loss), np.nan)])

    def update(self, idx, losses):
        for i, l in zip(idx, losses):
            self.loss[i] = l if np.isnan(self.loss[i]) else 0.5 * (self.loss[i] + l)
        seen = ~np.isnan(self.loss)
        if seen.any():
            self.cum = np.cumsum(np.where(seen, self.loss, self.loss[seen].mean()))


def lead_in(x, d, rng):
    """The song with a longer lead-in: 1-6 s more of its own sound before the music (the frames before
    its first beat, less LEAD_MARGIN, played forwards and backwards in turn so that no joint jumps),
    its beats moved by as much, and the frame where its music now starts (the first beat less
    LEAD_MARGIN); None where that stretch is under LEAD_MIN frames (about 7 % of generated songs,
    whose first beat comes 0.1-2.5 s in). A file's music can start after any length of silence,
    noise or hiss, and the network, whose context reaches far beyond a crop on either side, must
    not carry the beats to come into it."""
    quiet = int(d['beats'][0] * FPS) - LEAD_MARGIN if d['beats'] else 0
    if quiet < LEAD_MIN:
        return None
    n = int(rng.uniform(1, 6) * FPS)
    noise = x[:, :quiet]
    # ... noise, reversed, noise, reversed: the last copy ends on the song's first frame.
    k = n // quiet + 1
    reps = [noise[:, ::-1] if (k - j) % 2 == 1 else noise for j in range(k)]
    pre = np.concatenate(reps, axis=1)[:, -n:]
    shift = n / FPS
    moved = dict(d, beats=[t + shift for t in d['beats']], downbeats=[t + shift for t in d['downbeats']])
    return np.concatenate([pre, x], axis=1), moved, n + quiet


def batch(
    songs, rng, augment=True, hard=None, tempo_range=None, lead=0.0, timbral=0.0, tempo=False, stretched=STRETCHED
):
    """Random crops of CROP frames; a share `stretched` (--stretched, STRETCHED by default) of them
    time-stretched by 0.75-1.33 (stretch, within tempo_range if given; tempo augmentation on top of
    the rendered songs' own, make-data.mjs --excerpts); in training, EQUALISED of them through a
    random EQ and level (eq), and a share `lead` (--lead-in) given a longer lead-in (lead_in), the
    crop then holding the music's start, and a share `timbral` (--timbre) another spectral shape
    (timbre). With `tempo` (--tempo-head) the targets are the activations' targets, the tempo
    head's (tempo_target) and their weights."""
    xs, ys, idx, ts, tw = [], [], [], [], []
    for _ in range(BATCH):
        i = hard.pick(rng, len(songs)) if hard else rng.randrange(len(songs))
        idx.append(i)
        x, _, d = songs[i]
        start = None
        if augment and lead > 0 and rng.random() < lead:
            longer = lead_in(x, d, rng)
            if longer:
                x, d, start = longer
        n = x.shape[1]
        a = stretch(d['bpm'], rng, tempo_range) if augment and rng.random() < stretched else 1.0
        span = CROP * a
        # With a longer lead-in the crop holds the music's start, at least 10 % into it (further in
        # only as far as the lead-in reaches: at most 6 s plus the song's own quiet stretch, under
        # the shortest crop's 12 s, so the crop can always start at the song's first frame).
        hi_s0 = n - span if start is None else min(n - span, start - span * 0.1)
        s0 = rng.uniform(0, hi_s0) if hi_s0 > 0 else 0.0
        src = s0 + np.arange(CROP) * a
        valid = src <= n - 1
        lo = int(math.floor(s0))
        hi = min(n, int(math.ceil(src[-1])) + 2)
        seg = x[:, max(0, lo - 1) : hi].astype(np.float32)
        if augment and rng.random() < EQUALISED:
            seg = eq(seg, rng)
        if augment and timbral > 0 and rng.random() < timbral:
            seg = timbre(seg, rng)
        full = np.concatenate([seg, rises(seg)])
        if lo > 0:
            full = full[:, 1:]  # the rise of the crop's first frame is from the frame before it
        src = src - lo
        i0 = np.clip(np.floor(src).astype(int), 0, full.shape[1] - 1)
        i1 = np.clip(i0 + 1, 0, full.shape[1] - 1)
        fr = (src - np.floor(src)).astype(np.float32)
        out = full[:, i0] * (1 - fr) + full[:, i1] * fr
        out[:, ~valid] = 0
        xs.append(out)
        ys.append(targets(d, s0, a, CROP))
        if tempo:
            yt, wt = tempo_target(d, s0, a, CROP)
            ts.append(yt)
            tw.append(wt)
    x, y = torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys))
    if tempo:
        y = (y, torch.from_numpy(np.stack(ts)), torch.tensor(tw, dtype=torch.float32))
    if hard:
        return x, y, idx
    return x, y


def loss_of(model, x, y, per_crop=False, tempo_weight=0.0):
    """The activations' binary cross-entropy; with tempo_weight (--tempo-head, y then holding the
    tempo targets too) plus that weight times the tempo head's cross-entropy, per crop (a crop
    without a tempo adds none) and, unless per_crop, averaged over all the batch's crops. With
    --hard the running loss that draws the songs then includes the tempo head's."""
    if tempo_weight > 0:
        y, yt, wt = y
        out, logits = model(x, with_tempo=True)
        ce = -(yt * F.log_softmax(logits, dim=1)).sum(dim=1)
        per = F.binary_cross_entropy_with_logits(out, y, reduction='none').mean(dim=(1, 2)) + tempo_weight * ce * wt
        return per if per_crop else per.mean()
    out = model(x)
    if per_crop:
        return F.binary_cross_entropy_with_logits(out, y, reduction='none').mean(dim=(1, 2))
    return F.binary_cross_entropy_with_logits(out, y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('data')
    ap.add_argument('out')
    ap.add_argument('--minutes', type=float, default=45)
    ap.add_argument(
        '--steps',
        type=int,
        help='train for this many steps, the learning rate on a cosine over them, on the songs present at the start '
        '(no rescans): the same data, seed and steps give the same weights; without it, --minutes decides',
    )
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--steps-per-epoch', type=int, default=150)
    ap.add_argument('--lr', type=float, default=2e-3)
    ap.add_argument('--channels', type=int, default=CH, help='the width of the network (CH by default)')
    ap.add_argument(
        '--hard',
        type=float,
        default=0.0,
        help='the share of crops drawn in proportion to their song\'s running loss (class Hard); 0: all uniformly',
    )
    ap.add_argument(
        '--tempo-range',
        help='LO,HI (BPM): no time stretch takes a song outside this range (stretch); none by default',
    )
    ap.add_argument(
        '--lead-in',
        type=float,
        default=0.0,
        help='the share of crops given 1-6 s more lead-in before the music (lead_in); 0 by default',
    )
    ap.add_argument(
        '--timbre',
        type=float,
        default=0.0,
        help='the share of crops given another spectral shape (timbre: bands shifted, spans silenced); 0 by default',
    )
    ap.add_argument(
        '--stretched',
        type=float,
        default=STRETCHED,
        help=f'the share of crops time-stretched by 0.75-1.33 (stretch); {STRETCHED} by default',
    )
    ap.add_argument(
        '--tempo-head',
        type=float,
        default=0.0,
        help='train a tempo head beside the activations (BeatTCN.tempo, not exported) with this weight on its loss; 0 by default',
    )
    ap.add_argument(
        '--front2d',
        type=int,
        default=0,
        help='a front end of 2-D convolutions over bands and frames with this many filters (Front2d); 0 (the default): one 1-D convolution',
    )
    ap.add_argument(
        '--threads',
        type=int,
        default=1,
        help='torch threads (1 by default: the same data, seed and steps then give the same weights)',
    )
    ap.add_argument('--init', help='an exported model (.onnx) of this architecture to start from, normalisation included')
    args = ap.parse_args()
    for name in ('hard', 'lead_in', 'timbre', 'stretched'):
        if not 0.0 <= getattr(args, name) <= 1.0:
            ap.error(f"--{name.replace('_', '-')}: a share of the crops, from 0 to 1")
    if args.tempo_head < 0:
        ap.error('--tempo-head: a weight of 0 or more')
    if args.front2d < 0 or args.threads < 1:
        ap.error('--front2d: 0 or more filters; --threads: 1 or more')
    tempo_range = tuple(float(v) for v in args.tempo_range.split(',')) if args.tempo_range else None
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    t0 = time.time()
    val = load(args.data, 500000, 1000000)
    train = load(args.data, 0, 500000)
    print(f'{len(train)} training songs, {len(val)} validation songs', flush=True)
    allx = np.concatenate([np.concatenate([s[0], rises(s[0])])[:, ::7].astype(np.float32) for s in train[:300]], axis=1)
    mean, std = allx.mean(axis=1), allx.std(axis=1) + 1e-3
    cin = allx.shape[0]
    model = BeatTCN(cin, mean, std, ch=args.channels, tempo_head=args.tempo_head > 0, front2d=args.front2d)
    if args.init:
        # The tempo head, if any, is not in an exported model: it starts from random weights.
        r = model.load_state_dict(onnx_weights(args.init), strict=False)
        head = {'tempo.weight', 'tempo.bias'} if model.tempo is not None else set()
        if r.unexpected_keys or set(r.missing_keys) != head:
            raise SystemExit(f'--init {args.init}: not this architecture ({r})')
        print(f'initialised from {args.init}', flush=True)
    print(f"{sum(p.numel() for p in model.parameters())} parameters", flush=True)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    best = math.inf
    epoch = 0
    budget = args.minutes * 60
    done = 0
    vrng = random.Random(7)
    vbatches = [batch(val, vrng, augment=False) for _ in range(12)] if val else []
    hard = Hard(len(train), args.hard)
    # What every training batch draws besides its songs (the augmentations and the tempo head's targets).
    drawn = dict(
        tempo_range=tempo_range, lead=args.lead_in, timbral=args.timbre, tempo=args.tempo_head > 0, stretched=args.stretched
    )
    by_steps = args.steps is not None
    while (done < args.steps) if by_steps else (time.time() - t0 < budget):
        epoch += 1
        if not by_steps and epoch > 1 and epoch % 3 == 0:
            train += load(args.data, 0, 500000, skip={s[2]['seed'] for s in train})
            hard.grow(len(train))
        frac = done / args.steps if by_steps else min(1.0, (time.time() - t0) / budget)
        for g in opt.param_groups:
            g['lr'] = args.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
        model.train()
        tl = 0.0
        steps = min(args.steps_per_epoch, args.steps - done) if by_steps else args.steps_per_epoch
        for _ in range(steps):
            opt.zero_grad()
            if args.hard > 0:
                x, y, idx = batch(train, rng, hard=hard, **drawn)
                per = loss_of(model, x, y, per_crop=True, tempo_weight=args.tempo_head)
                hard.update(idx, per.detach().numpy().tolist())
                loss = per.mean()
            else:
                x, y = batch(train, rng, **drawn)
                loss = loss_of(model, x, y, tempo_weight=args.tempo_head)
            loss.backward()
            opt.step()
            tl += loss.item()
        done += steps
        model.eval()
        with torch.no_grad():
            vl = sum(loss_of(model, x, y).item() for x, y in vbatches) / max(1, len(vbatches))
        mark = ''
        if vl < best:
            best = vl
            torch.save(model.state_dict(), args.out + '.pt')
            mark = ' *'
        print(
            f'epoch {epoch} songs {len(train)} train {tl / steps:.4f} val {vl:.4f}{mark} '
            f'lr {opt.param_groups[0]["lr"]:.5f} {time.time() - t0:.0f} s',
            flush=True,
        )
    model.load_state_dict(torch.load(args.out + '.pt'))
    model.eval()
    export(model, cin, args.out)


def onnx_weights(path):
    """The weights (and normalisation) of a model exported by export(): its initialisers are the
    state dict's entries, named as in Exported (prefix 'm.')."""
    import onnx
    from onnx import numpy_helper

    g = onnx.load(path).graph
    return {i.name[2:]: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in g.initializer if i.name.startswith('m.')}


def export(model, cin, out):
    dummy = torch.zeros(1, cin, 500)
    torch.onnx.export(
        Exported(model),
        dummy,
        out,
        opset_version=13,
        input_names=['spec'],
        output_names=['act'],
        dynamic_axes={'spec': {2: 't'}, 'act': {2: 't'}},
    )
    print(f'exported {out} ({os.path.getsize(out)} bytes)', flush=True)


if __name__ == '__main__':
    main()
