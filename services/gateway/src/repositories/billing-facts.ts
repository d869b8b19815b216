import { fromBinary, type DescMessage } from '@bufbuild/protobuf';
import type { Bus } from '@reelsmith/kit';
import { subjects } from '@reelsmith/proto';

/**
 * Billing's facts (events.billing.*) as they are published: the user whose credits or plan
 * changed, or null for a fact this gateway does not know (then every cached account is dropped).
 */
export function followBillingFacts(bus: Bus, changed: (userId: string | null) => void) {
  return bus.subscribeFacts('events.billing.>', (subject, data) => {
    const schema = (subjects as Record<string, DescMessage | undefined>)[subject];
    try {
      const userId = schema ? (fromBinary(schema, data) as { userId?: unknown }).userId : undefined;
      changed(typeof userId === 'string' && userId ? userId : null);
    } catch {
      changed(null);
    }
  });
}
