import { create } from '@bufbuild/protobuf';
import { common } from '@reelsmith/proto';

const startedAt = BigInt(Date.now());

/** The Describe RPC every service answers: its name, version and start time. */
export const describeHandler =
  (name: string, version = '0.1.0') =>
  async () => ({
    info: create(common.ServiceInfoSchema, { name, version, startedAtUnixMs: startedAt }),
  });
