import { Algorithm, hash, verify } from '@node-rs/argon2';
import crypto from 'node:crypto';
import type { PasswordHasher, Secrets } from '../domain/identity.service.js';

/** Argon2id with the OWASP-recommended minimum (19 MiB, 2 iterations, 1 lane). */
export const argon2Hasher: PasswordHasher = {
  hash: (password) => hash(password, { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 }),
  verify: async (h, password) => {
    try {
      return await verify(h, password);
    } catch {
      return false;
    }
  },
};

/** Random tokens (256 bits), codes and passwords; HMAC-SHA256 under a server key for storage. */
export function secrets(key: string): Secrets {
  return {
    token: () => crypto.randomBytes(32).toString('base64url'),
    code: () => String(crypto.randomInt(0, 1_000_000)).padStart(6, '0'),
    hash: (value) => crypto.createHmac('sha256', key).update(value).digest('base64url'),
    password: () => crypto.randomBytes(12).toString('base64url'),
  };
}
