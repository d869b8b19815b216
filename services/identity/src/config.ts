import { baseSchema, env, loadConfig, mailSchema, z } from '@reelsmith/kit';

/** Mail (SMTP_URL, MAIL_FROM): verification, password and account mail, and the contact form. */
export const configSchema = baseSchema.extend(mailSchema.shape).extend({
  /** Comma-separated e-mails that get admin rights (the spec's privileged account). */
  PRIVILEGED_EMAILS: z
    .string()
    .default('')
    .transform(
      (s) =>
        new Set(
          s
            .split(',')
            .map((e) => e.trim().toLowerCase())
            .filter(Boolean),
        ),
    ),
  PUBLIC_URL: z.url().default('http://localhost:8080'),
  /** Key of the HMAC under which session, link and code hashes are stored. */
  TOKEN_SECRET: env.secret,
  GUEST_EMAIL: z.email().default('guest@reelsmith.local'),
  /** Where contact-form messages are mailed (embedded: written to DATA_DIR/mail like all mail). */
  CONTACT_INBOX: z.email().default('support@reelsmith.local'),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(720),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
