import type { FastifyPluginAsync } from 'fastify';
import type { HealthReport } from '../../domain/health.js';

export interface HealthDeps {
  report(): Promise<HealthReport & { instance: string }>;
}

const healthSchema = {
  response: {
    200: {
      type: 'object',
      properties: {
        status: { type: 'string' },
        services: { type: 'object', additionalProperties: { type: 'string' } },
        instance: { type: 'string' },
      },
    },
    503: {
      type: 'object',
      properties: {
        status: { type: 'string' },
        services: { type: 'object', additionalProperties: { type: 'string' } },
        unavailable: { type: 'array', items: { type: 'string' } },
        detail: { type: 'string' },
        code: { type: 'string' },
        instance: { type: 'string' },
      },
    },
  },
};

/** GET /health: 200 when all eight services are SERVING, 503 naming the ones that are not. */
export const healthRoutes: FastifyPluginAsync<HealthDeps> = async (app, deps) => {
  app.get('/health', { schema: healthSchema }, async (_req, reply) => {
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
  });
};
