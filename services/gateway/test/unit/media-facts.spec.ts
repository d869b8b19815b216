import { create, toBinary } from '@bufbuild/protobuf';
import type { Bus } from '@reelsmith/kit';
import { mediaEvents } from '@reelsmith/proto';
import { followMediaFacts } from '../../src/repositories/media-facts';

/** A bus that hands its facts callback to the test and reports the connection's status events. */
function fakeBus() {
  let onFact: (subject: string, data: Uint8Array) => void = () => undefined;
  const statuses: Array<{ type: string }> = [];
  let wake: () => void = () => undefined;
  const bus = {
    subscribeFacts: (_pattern: string, cb: typeof onFact) => {
      onFact = cb;
      return { unsubscribe: () => undefined };
    },
    nc: {
      status: async function* () {
        for (;;) {
          while (statuses.length) yield statuses.shift()!;
          await new Promise<void>((r) => (wake = r));
        }
      },
    },
  } as unknown as Bus;
  return {
    bus,
    fact: (subject: string, data: Uint8Array) => onFact(subject, data),
    status: (type: string) => {
      statuses.push({ type });
      wake();
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("the gateway's view of media-library's deletions", () => {
  it('drops a deleted reel, a deleted user, and everything on a bad fact or a NATS reconnect', async () => {
    const calls: string[] = [];
    const finished = {
      reelDeleted: (id: string) => void calls.push(`reel ${id}`),
      ownerDeleted: (id: string) => void calls.push(`owner ${id}`),
      clear: () => void calls.push('clear'),
    };
    const b = fakeBus();
    followMediaFacts(b.bus, finished);
    b.fact(
      'events.media.reel_deleted',
      toBinary(mediaEvents.ReelDeletedSchema, create(mediaEvents.ReelDeletedSchema, { reelId: 'r1', ownerId: 'u1' })),
    );
    b.fact(
      'events.media.user_data_deleted',
      toBinary(mediaEvents.UserDataDeletedSchema, create(mediaEvents.UserDataDeletedSchema, { ownerId: 'u2' })),
    );
    b.fact('events.media.reel_deleted', new Uint8Array([0xff, 0xff, 0xff]));
    expect(calls).toEqual(['reel r1', 'owner u2', 'clear']);
    b.status('pingTimer');
    await tick();
    expect(calls).toHaveLength(3);
    b.status('reconnect');
    await tick();
    expect(calls).toEqual(['reel r1', 'owner u2', 'clear', 'clear']);
  });
});
