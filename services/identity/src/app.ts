import type { App, Platform } from '@reelsmith/kit';
import type { Config } from './config.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(_p: Platform<Config>): App {
  return { grpc: [grpcBinding()] };
}
