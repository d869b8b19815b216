import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DetailedHealth } from '../../domain/detailed-health.js';
import type { HealthReport } from '../../domain/health.js';
import { detailedHealthSchema } from './admin.schemas.js';
import { errors, healthReport } from './schemas.js';

export interface HealthDeps {
  report(): Promise<HealthReport & { instance: string }>;
  /** The admin's view: databases, storage, host resources, services and the render queue. */
  detailed?(): Promise<DetailedHealth>;
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

  const detailed = deps.detailed;
  if (detailed)
    app.get(
      '/health/detailed',
      {
        config: { access: 'admin' },
        schema: { summary: 'Detailed health for the admin dashboard', response: { 200: detailedHealthSchema, ...errors(401, 403) } },
      },
      async (_req, reply) => {
        void reply.header('cache-control', 'no-store');
        return detailed();
      },
    );
};
