import { isLoopback } from '../../src/service';
import { ConfigError, baseSchema, parseConfig, storageSchema, z } from '../../src/config';

describe('config', () => {
  it('applies defaults when variables are unset or empty', () => {
    const c = parseConfig(baseSchema, { GRPC_PORT: '', LOG_LEVEL: undefined });
    expect(c.DATA_DIR).toBe('./data');
    expect(c.GRPC_PORT).toBe(0);
    expect(c.NATS_URL).toBe('nats://127.0.0.1:4222');
  });

  it('names every bad variable in one error', () => {
    const schema = baseSchema.extend({ PORT: z.coerce.number().int().max(65535) });
    let err: unknown;
    try {
      parseConfig(schema, { GRPC_PORT: 'abc', DATABASE_URL: 'mysql://x', PORT: '99999' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('GRPC_PORT');
    expect(msg).toContain('DATABASE_URL');
    expect(msg).toContain('PORT');
  });

  it('reports a required variable that is missing as not set', () => {
    const schema = z.object({ SMTP_URL: z.string() });
    expect(() => parseConfig(schema, {})).toThrow(/SMTP_URL: .*\(not set\)/);
  });

  it('parses booleans and S3 settings', () => {
    const c = parseConfig(storageSchema, { STORAGE_DRIVER: 's3', S3_FORCE_PATH_STYLE: 'false', S3_ENDPOINT: 'http://127.0.0.1:9000' });
    expect(c.STORAGE_DRIVER).toBe('s3');
    expect(c.S3_FORCE_PATH_STYLE).toBe(false);
    expect(() => parseConfig(storageSchema, { STORAGE_DRIVER: 'ftp' })).toThrow(/STORAGE_DRIVER/);
  });
});

describe('loopback addresses (where a service may listen without INTERNAL_TOKEN)', () => {
  it('are 127.0.0.0/8, ::1 and localhost, and nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '10.0.0.7', '::', 'reelsmith-billing', '127.0.0.1.nip.io']) expect(isLoopback(h)).toBe(false);
  });
});
