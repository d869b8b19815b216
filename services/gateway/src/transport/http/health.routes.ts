import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { HealthReport } from '../../domain/health.js';
import { healthReport } from './schemas.js';

export interface HealthDeps {
  report(): Promise<HealthReport & { instance: string }>;
}

/** GET /health: 200 when all eight services are SERVING, 503 naming the ones that are not. */
export const healthRoutes: FastifyPluginAsyncZod<HealthDeps> = async (app, deps) => {
  app.get(
    '/health',
    { schema: { summary: 'Is every service serving?', response: { 200: healthReport, 503: healthReport } } },
    async (_req, reply) => {
      const r = await deps.report();
      if (r.status === 'healthy') return { status: r.status, services: r.services, instance: r.instance };
      return reply.status(503).send({
        status: r.status,
        services: r.services,
        unavailable: r.unavailable,
        detail: `Not serving: ${r.unavailable.join(', ')}`,
        code: 'unavailable',
        instance: r.instance,
      });
    },
  );
};
