// The footage marketplace's whole loop through the gateway, on the stack of marketplace.stack.ts:
// identity, billing, marketplace and media-library as the services run, the orchestrator's
// repository publishing the consent through its outbox.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ack } from '@reelsmith/kit';
import { waitFor } from '@reelsmith/kit/testing';
import { streams } from '@reelsmith/proto';
import { DrizzleLibraryRepository } from '../../services/media-library/src/repositories/library.repository';
import { makeClip } from '../support/media';
import { marketplaceStack, type Json } from './marketplace.stack';

/** A small real video (the stock library probes and analyses what it imports). */
const realVideo = (file: string) => makeClip(file, { size: '160x120', fps: 15, seconds: 2, hue: Math.floor(Math.random() * 360) });

describe('footage marketplace: opt-in -> offer -> answer, through the gateway', () => {
  const stack = marketplaceStack();
  const { running, data, mails, mediaLog, call, signUp, uniqueEmail } = stack;
  const { submitJob, adminClips, clipNamed, credits, startBilling, startMarketplace } = stack;

  it('only consented clips reach the admin, who alone sees, streams and offers; the owner accepts credits once', async () => {
    const user = await signUp(uniqueEmail('maker'));
    const purchased: Array<Record<string, unknown>> = [];
    const consumer = await stack.bus.consume(
      'events.marketplace.clip_purchased',
      { stream: streams.EVENTS, durable: `test-${crypto.randomUUID()}`, ackWaitMs: 5000, maxDeliver: 1 },
      async ({ data }) => {
        if (data.uploaderUserId === user.id) purchased.push({ ...data });
        return ack();
      },
    );
    const shy = `${crypto.randomUUID()}.mp4`;
    const open = `${crypto.randomUUID()}.mp4`;
    await submitJob(user.id, false, shy);
    const { bytes } = await submitJob(user.id, true, open);

    const clip = await clipNamed(open);
    expect(clip).toMatchObject({ status: 'pending', user_email: expect.stringMatching(/^maker\./), cash_offer: null, credits_offer: null });
    expect(clip.file_size_mb).toBeCloseTo(300_000 / 1048576, 2);
    expect(clip.thumbnail_url).toMatch(/\/api\/v1\/files\/marketplace\/thumbnails\//);
    // The clip without consent never shows, however long we wait for the one with it.
    expect((await adminClips()).clips.some((c) => c.filename === shy)).toBe(false);

    // Admin only, enforced by the server.
    expect((await call('GET', '/admin/footage-marketplace', undefined, user.token)).status).toBe(403);
    expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, user.token)).status).toBe(403);
    expect((await call('GET', `/admin/footage-marketplace/${clip.id}/stream`, undefined, user.token)).status).toBe(403);
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, user.token)).status).toBe(403);
    expect((await call('GET', '/admin/footage-marketplace')).status).toBe(401);

    // The player's range requests.
    const part = await fetch(`${stack.base}/admin/footage-marketplace/${clip.id}/stream`, {
      headers: { authorization: `Bearer ${stack.adminToken}`, range: 'bytes=1000-1999' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    const whole = await fetch(`${stack.base}/admin/footage-marketplace/${clip.id}/stream`, {
      headers: { authorization: `Bearer ${stack.adminToken}` },
    });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('cache-control')).toBe('private, no-store');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const past = await fetch(`${stack.base}/admin/footage-marketplace/${clip.id}/stream`, {
      headers: { authorization: `Bearer ${stack.adminToken}`, range: `bytes=${bytes.length}-` },
    });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(await past.json()).toMatchObject({ code: 'range_not_satisfiable' });

    const offered = await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, stack.adminToken);
    expect(offered.status).toBe(200);
    expect(offered.body).toMatchObject({ status: 'credits_offered', credits_offer: 50, cash_offer: null });
    // Only a pending clip takes an offer.
    const again = await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'cash' }, stack.adminToken);
    expect(again).toEqual({ status: 409, body: { detail: 'Only pending clips can receive offers.', code: 'clip_not_pending' } });

    // The owner hears of it by mail and sees it among their offers; nobody else does.
    const mail = await waitFor(() => mails.find((m) => m.to === user.email && /new offer/.test(m.raw)));
    expect(mail.raw).toContain(open);
    expect(mail.raw).toContain('50 credits');
    const offers = await call('GET', '/user/offers', undefined, user.token);
    expect(offers.body.offers).toEqual([expect.objectContaining({ id: clip.id, status: 'credits_offered', credits_offer: 50 })]);
    const other = await signUp(uniqueEmail('other'));
    expect((await call('GET', '/user/offers', undefined, other.token)).body.offers).toEqual([]);
    expect((await call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, other.token)).status).toBe(404);

    // Ten accepts at once: one outcome, credits granted exactly once.
    const before = await credits(user.token);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, user.token)),
    );
    for (const a of answers)
      expect(a).toEqual({ status: 200, body: { message: 'Offer accepted! 50 credits have been added to your account.' } });
    expect(await credits(user.token)).toBe(before + 50);
    expect((await call('GET', '/user/offers', undefined, user.token)).body.offers).toEqual([]);
    expect((await clipNamed(open)).status).toBe('purchased');
    // A different answer afterwards changes nothing.
    expect((await call('POST', `/user/offers/${clip.id}/decline`, undefined, user.token)).status).toBe(409);
    expect(await credits(user.token)).toBe(before + 50);
    expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, stack.adminToken)).status).toBe(409);

    // The stock library learns of the purchase once, with what it needs to list the clip.
    await waitFor(() => purchased.length > 0);
    await consumer.stop();
    expect(purchased).toHaveLength(1);
    const event = purchased[0]!;
    expect(event).toMatchObject({ clipId: clip.id, filename: open, uploaderEmail: user.email, category: 'community', sizeBytes: 300_000n });
    const copy = await stack.store.get(event.objectKey as string);
    const chunks: Buffer[] = [];
    for await (const c of copy) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('accept and decline of a cash offer at once: one outcome; an accepted cash offer is a payout to mark paid', async () => {
    const user = await signUp(uniqueEmail('racer'));
    for (let round = 0; round < 3; round++) {
      const name = `${crypto.randomUUID()}.mp4`;
      await submitJob(user.id, true, name);
      const clip = await clipNamed(name);
      expect(
        (await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'cash', amount: 0.25 }, stack.adminToken)).status,
      ).toBe(200);
      const [a, d] = await Promise.all([
        call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'cash' }, user.token),
        call('POST', `/user/offers/${clip.id}/decline`, undefined, user.token),
      ]);
      expect([a.status, d.status].sort()).toEqual([200, 409]);
      const after = await clipNamed(name);
      const payouts = (await call('GET', '/admin/footage-marketplace/payouts', undefined, stack.adminToken)).body.payouts as Array<Json>;
      const mine = payouts.filter((p) => p.clip_id === clip.id);
      if (a.status === 200) {
        expect(after.status).toBe('purchased');
        expect(mine).toEqual([expect.objectContaining({ amount: 0.25, state: 'pending', filename: name })]);
        const paid = await call('POST', `/admin/footage-marketplace/payouts/${mine[0]!.id}/paid`, undefined, stack.adminToken);
        expect(paid.body).toMatchObject({ state: 'paid', paid_at: expect.any(String) });
        expect((await call('POST', `/admin/footage-marketplace/payouts/${mine[0]!.id}/paid`, undefined, user.token)).status).toBe(403);
      } else {
        expect(after.status).toBe('rejected');
        expect(mine).toEqual([]);
      }
    }
  });

  it('Delete removes only the marketplace copy; the upload stays', async () => {
    const user = await signUp(uniqueEmail('deleter'));
    const name = `${crypto.randomUUID()}.mp4`;
    const { uploadKey } = await submitJob(user.id, true, name);
    const clip = await clipNamed(name);
    const copies = fs.readdirSync(path.join(data.dir, 'objects', 'marketplace', 'clips')).filter((f) => f.startsWith(clip.id));
    expect(copies).toHaveLength(1);
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, stack.adminToken)).status).toBe(200);
    expect((await adminClips()).clips.some((c) => c.id === clip.id)).toBe(false);
    expect(fs.existsSync(path.join(data.dir, 'objects', 'marketplace', 'clips', copies[0]!))).toBe(false);
    expect(await stack.store.stat(uploadKey)).not.toBeNull();
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, stack.adminToken)).status).toBe(404);
  });

  it('a purchased clip joins the stock library under community, attributed, once; a vanished clip is dropped', async () => {
    const user = await signUp(uniqueEmail('filmer'));
    const file = path.join(data.dir, `${crypto.randomUUID()}.mp4`);
    realVideo(file);
    const name = `Harbour ${crypto.randomUUID().slice(0, 8)}.mp4`;
    await submitJob(user.id, true, name, fs.readFileSync(file));
    const clip = await clipNamed(name);
    expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, stack.adminToken)).status).toBe(200);
    expect((await call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, user.token)).status).toBe(200);

    // Found by its name and by its category, in category 'community'.
    const found = await waitFor(async () => {
      const r = await stack.library.listLibrary({ kind: 'video', q: name.slice(0, 16).toUpperCase(), category: '', limit: 50, offset: 0 });
      return r.items.length ? r : undefined;
    }, 30_000);
    expect(found.items).toEqual([expect.objectContaining({ filename: name, category: 'community', kind: 'video' })]);
    expect(found.categories).toContain('community');
    const community = await stack.library.listLibrary({ kind: 'video', q: 'communi', category: '', limit: 50, offset: 0 });
    expect(community.items.map((i) => i.filename)).toContain(name);
    const item = found.items[0]!;
    expect(item.durationSec).toBeGreaterThan(1);
    const stored = await new DrizzleLibraryRepository(stack.mediaOrm.orm).itemBySourceClip(clip.id);
    expect(stored).toMatchObject({ key: item.key, attribution: user.email, attributionUserId: user.id, sourceClipId: clip.id });

    // The library owns its copy: an admin's Remove of the marketplace clip leaves the item playable.
    expect(item.objectKey).toMatch(/^library\/video\//);
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, stack.adminToken)).status).toBe(200);
    expect(await stack.store.stat(item.objectKey)).toMatchObject({ size: fs.statSync(file).size });

    // The same purchase delivered again (as JetStream may) adds nothing; a clip whose object is
    // already gone is dropped without an item.
    const total = (await stack.library.listLibrary({ kind: 'video', q: '', category: 'community', limit: 50, offset: 0 })).total;
    const event = {
      clipId: clip.id,
      objectKey: `marketplace/clips/${clip.id}.mp4`,
      filename: name,
      sizeBytes: BigInt(fs.statSync(file).size),
      uploaderUserId: user.id,
      uploaderEmail: user.email,
      category: 'community',
      purchasedAtUnixMs: BigInt(Date.now()),
    };
    await stack.bus.publish('events.marketplace.clip_purchased', event, { msgId: `redelivered.${clip.id}` });
    const gone = crypto.randomUUID();
    await stack.bus.publish(
      'events.marketplace.clip_purchased',
      { ...event, clipId: gone, objectKey: `marketplace/clips/${gone}.mp4`, filename: `gone-${gone}.mp4` },
      { msgId: `marketplace.clip_purchased.${gone}` },
    );
    // What media-library reports of each delivery (a dropped message shows nowhere else).
    await waitFor(
      () =>
        mediaLog.some((l) => l.clip_id === clip.id && l.outcome === 'duplicate') &&
        mediaLog.some((l) => l.clip_id === gone && /gone from storage/.test(String(l.msg))),
      30_000,
    );
    const after = await stack.library.listLibrary({ kind: 'video', q: '', category: 'community', limit: 50, offset: 0 });
    expect(after.total).toBe(total);
    expect(after.items.filter((i) => i.filename === name)).toHaveLength(1);
    expect(await new DrizzleLibraryRepository(stack.mediaOrm.orm).itemBySourceClip(gone)).toBeNull();
  }, 60_000);

  it('a restart of the marketplace and a billing outage mid-flow lose nothing', async () => {
    const user = await signUp(uniqueEmail('patient'));
    await running.marketplace!.stop();
    // Consent given while the marketplace is down: the fact waits in JetStream.
    const name = `${crypto.randomUUID()}.mp4`;
    await submitJob(user.id, true, name);
    await startMarketplace();
    const clip = await clipNamed(name);
    expect(
      (await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits', amount: 70 }, stack.adminToken)).status,
    ).toBe(200);
    const before = await credits(user.token);

    // Billing goes away; the acceptance is recorded and the credits are owed, then granted once.
    await running.billing!.stop();
    const accepted = await call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, user.token);
    expect(accepted).toEqual({ status: 200, body: { message: 'Offer accepted! 70 credits have been added to your account.' } });
    await running.marketplace!.stop();
    await startBilling();
    await startMarketplace();
    await waitFor(async () => (await credits(user.token)) === before + 70, 15_000);
    await new Promise((r) => setTimeout(r, 1500)); // another sweep: still once
    expect(await credits(user.token)).toBe(before + 70);
  }, 60_000);
});
