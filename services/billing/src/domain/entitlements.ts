import { isPaidPlan } from './catalogue.js';

/** Limits by plan (spec sections 5, 6 and 9). */
export interface Entitlements {
  uploadCapBytes: number;
  musicCapSeconds: number;
  librarySelectionCap: number;
  /** The longest reel the plan makes, in seconds (issue 12: the free daily video covers 3 minutes). */
  reelCapSeconds: number;
  /** Never charged, no daily limit (admins and the guest pass). */
  unlimited: boolean;
  /** Paid limits, and credits pay for reels (an active paid plan, or enterprise access). */
  subscribed: boolean;
}

export const FREE: Entitlements = {
  uploadCapBytes: 629_145_600,
  musicCapSeconds: 3 * 60,
  librarySelectionCap: 20,
  reelCapSeconds: 3 * 60,
  unlimited: false,
  subscribed: false,
};
export const PAID: Entitlements = {
  uploadCapBytes: 3_221_225_472,
  musicCapSeconds: 2 * 3600,
  librarySelectionCap: 1000,
  reelCapSeconds: 60 * 60,
  unlimited: false,
  subscribed: true,
};

/** Admins and privileged accounts have paid limits and are never charged. */
export function entitlementsFor(plan: string, subscriptionActive: boolean, unlimited: boolean): Entitlements {
  if (unlimited) return { ...PAID, unlimited: true };
  return isPaidPlan(plan) && subscriptionActive ? PAID : FREE;
}

/** The spec's messages for each limit, worded by plan. */
export const limitMessages = {
  upload: (e: Entitlements) => `Total upload size exceeds ${e.uploadCapBytes > FREE.uploadCapBytes ? '3GB' : '600MB'} limit.`,
  music: (e: Entitlements) =>
    e.musicCapSeconds > FREE.musicCapSeconds
      ? 'Audio file is too long. Maximum duration for paid users is 2 hours.'
      : 'Audio file is too long. Maximum duration for free users is 3 minutes.',
  selection: (e: Entitlements) =>
    e.librarySelectionCap > FREE.librarySelectionCap
      ? `Subscriber plan allows up to ${e.librarySelectionCap} video selections.`
      : `Free plan allows up to ${e.librarySelectionCap} video selections.`,
  reelLength: (e: Entitlements) =>
    e.reelCapSeconds > FREE.reelCapSeconds
      ? `Reels can be up to ${e.reelCapSeconds / 60} minutes long.`
      : `Free videos can be up to ${e.reelCapSeconds / 60} minutes long. Upgrade to make longer reels.`,
};

export const INSUFFICIENT = 'Insufficient credits or daily limit reached';
