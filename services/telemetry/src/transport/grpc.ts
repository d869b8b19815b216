import { bind, describeHandler } from '@reelsmith/kit';
import { telemetry } from '@reelsmith/proto';
import type { TelemetryService } from '../domain/telemetry.service.js';

/** gRPC handlers of telemetry: thin, one call into the domain per handler. */
export const grpcBinding = (service: TelemetryService) =>
  bind(telemetry.TelemetryService, {
    describe: describeHandler('telemetry'),
    summary: async (req) => {
      const s = await service.summary(req.hours || 24);
      return {
        totalRequests: BigInt(s.totalRequests),
        serverErrors: BigInt(s.serverErrors),
        p95Ms: s.p95Ms,
        totalUsers: BigInt(s.totalUsers),
        newUsers: BigInt(s.newUsers),
        activeUsers: BigInt(s.activeUsers),
        jobsSubmitted: BigInt(s.jobsSubmitted),
        jobsCompleted: BigInt(s.jobsCompleted),
        jobsFailed: BigInt(s.jobsFailed),
        logins: BigInt(s.logins),
        failedLogins: BigInt(s.failedLogins),
        p50RenderS: s.p50RenderS,
        p95RenderS: s.p95RenderS,
        p95QueueWaitS: s.p95QueueWaitS,
        revenueCents: BigInt(s.revenueCents),
        deadLettered: BigInt(s.deadLettered),
        hourly: s.hourly.map((h) => ({
          hourStartUnixMs: BigInt(h.hourStartMs),
          requests: BigInt(h.requests),
          errors: BigInt(h.errors),
          completedReels: BigInt(h.completedReels),
        })),
      };
    },
    activityFeed: async (req) => {
      const rows = await service.feed(req.limit, Number(req.beforeUnixMs) || undefined);
      return {
        events: rows.map((r) => ({
          type: r.type,
          userEmail: r.email,
          loginType: r.loginType,
          actualDurationSeconds: r.durationSeconds ?? 0,
          atUnixMs: BigInt(Math.round(r.atMs)),
          detail: r.detail,
        })),
      };
    },
  });
