import { OutboxRelay, type App, type Platform } from '@reelsmith/kit';
import { mailDir, type Config } from './config.js';
import { IdentityService } from './domain/identity.service.js';
import { argon2Hasher, secrets } from './repositories/crypto.js';
import { DrizzleIdentityRepository } from './repositories/identity.repository.js';
import { createMailer } from './repositories/mailer.js';
import { DbRateLimiter } from './repositories/rate-limiter.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const { config } = p;
  const relay = new OutboxRelay(p.db.orm, p.bus, p.log);
  const service = new IdentityService(
    new DrizzleIdentityRepository(p.db.orm, () => void relay.flush()),
    argon2Hasher,
    secrets(config.TOKEN_SECRET),
    createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, mailDir: mailDir(config), log: p.log }),
    new DbRateLimiter(p.db.orm),
    {
      privilegedEmails: config.PRIVILEGED_EMAILS,
      publicUrl: config.PUBLIC_URL,
      guestEmail: config.GUEST_EMAIL,
      sessionTtlMs: config.SESSION_TTL_HOURS * 3600_000,
    },
  );
  return {
    grpc: [grpcBinding(service)],
    start: async () => relay.start(),
    close: () => relay.stop(),
  };
}
