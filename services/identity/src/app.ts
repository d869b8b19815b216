import { OutboxRelay, mailTransportFor, type App, type Platform } from '@reelsmith/kit';
import type { Config } from './config.js';
import { IdentityService } from './domain/identity.service.js';
import { argon2Hasher, secrets } from './repositories/crypto.js';
import { DrizzleIdentityRepository } from './repositories/identity.repository.js';
import { createMailer } from './repositories/mailer.js';
import { DbRateLimiter } from './repositories/rate-limiter.js';
import { grpcBinding } from './transport/grpc.js';
import { ApiKeysService } from './domain/api-keys.service.js';
import { DrizzleApiKeyRepository } from './repositories/api-keys.repository.js';
import { apiKeyHandlers } from './transport/api-keys.grpc.js';
import { ContactService } from './domain/contact.service.js';
import { DrizzleContactRepository, contactMailer } from './repositories/contact.repository.js';
import { contactHandlers } from './transport/contact.grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const { config } = p;
  const relay = new OutboxRelay(p.db.orm, p.bus, p.log);
  const mail = mailTransportFor(config, p.log);
  const repo = new DrizzleIdentityRepository(p.db.orm, () => void relay.flush());
  const keyed = secrets(config.TOKEN_SECRET);
  const service = new IdentityService(repo, argon2Hasher, keyed, createMailer(mail), new DbRateLimiter(p.db.orm), {
    privilegedEmails: config.PRIVILEGED_EMAILS,
    publicUrl: config.PUBLIC_URL,
    guestEmail: config.GUEST_EMAIL,
    sessionTtlMs: config.SESSION_TTL_HOURS * 3600_000,
    onSessionsEnded: (r) =>
      p.bus.publishCore('sessionsRevoked', {
        tokenHashes: r.tokenHashes,
        userId: r.userId ?? '',
        sessionsRemain: r.sessionsRemain ?? false,
        atUnixMs: BigInt(Date.now()),
      }),
  });
  const apiKeys = new ApiKeysService({
    repo: new DrizzleApiKeyRepository(p.db.orm),
    users: service,
    hash: keyed.hash,
    // A revoked key is dropped from every gateway's cache at once, like an ended session.
    onRevoked: (tokenHashes) =>
      p.bus.publishCore('sessionsRevoked', { tokenHashes, userId: '', sessionsRemain: false, atUnixMs: BigInt(Date.now()) }),
  });
  return {
    grpc: [
      grpcBinding(
        service,
        contactHandlers(
          new ContactService(
            new DrizzleContactRepository(p.db.orm),
            contactMailer(mail, config.CONTACT_INBOX),
            new DbRateLimiter(p.db.orm),
            p.log,
          ),
        ),
        apiKeyHandlers(apiKeys),
      ),
    ],
    start: async () => {
      relay.start();
      if (!config.PRIVILEGED_EMAILS.size && !(await repo.adminCount()))
        p.log.warn('No admin yet: sign up, then run `npm run admin:grant -- YOUR_EMAIL` (or set PRIVILEGED_EMAILS)');
    },
    close: () => relay.stop(),
  };
}
