import type { ServiceImpl } from '@reelsmith/kit';
import type { identity } from '@reelsmith/proto';
import type { ContactService } from '../domain/contact.service.js';

export type ContactHandlers = Pick<ServiceImpl<typeof identity.IdentityService>, 'submitContact' | 'listContactMessages'>;

/** The contact form's gRPC handlers (spread into identity's binding). */
export const contactHandlers = (svc: ContactService): ContactHandlers => ({
  submitContact: async (req) => {
    await svc.submit({
      name: req.name,
      email: req.email,
      topic: req.topic,
      message: req.message,
      clientIp: req.client?.ip || 'unknown',
      honeypot: req.honeypot,
    });
    return {};
  },
  listContactMessages: async (req) => {
    const { messages, total } = await svc.list(req.limit, req.offset);
    return {
      total,
      messages: messages.map((m) => ({
        id: m.id,
        name: m.name,
        email: m.email,
        topic: m.topic,
        message: m.message,
        createdAtUnixMs: BigInt(m.createdAt.getTime()),
      })),
    };
  },
});
