/**
 * The one rule that makes each route's zod schemas both its validation and its part of the
 * OpenAPI document (`/api/v1/openapi.json`), so the two cannot drift:
 * - a request schema (body, query, path) may only use checks JSON Schema states exactly (types,
 *   bounds, lengths, patterns, enums, formats); a custom refinement is refused when the route is
 *   registered, unless it only words the message of a pattern the schema states anyway
 *   (`wording`); a rule across fields is a union of objects (a tap has taps, a cash offer whole
 *   cents), which JSON Schema states too. What only a service can check (a pack's price, a clip
 *   index against the request's clips) is said in the field's description;
 * - the text rule the validator applies to every request string (input-text.ts) is written into
 *   the document as the `pattern` of every request string that has none stricter of its own;
 * - every status a route can answer is listed: its own, plus those the shell adds (400 when
 *   anything is validated, 401/403 by access, 413 with a body, 414 with path parameters, 429 when
 *   rate limited, 500/503/504 always);
 * - media answers are documented with their real media types (`binary`), redirects without a
 *   body (`redirect`), and bodies that are not parsed as JSON (multipart uploads, webhooks) by
 *   the route's `config.documentedBody`.
 */
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema, RouteOptions } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TEXT_RULE, WORDING } from './input-text.js';
import { errorBody } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The request body in the document when the route reads it itself instead of a validated
     * JSON body (a multipart upload, a webhook verified on its exact bytes).
     */
    documentedBody?: { contentType: string; description: string; schema: Record<string, unknown> };
  }
}

export const API_PREFIX = '/api/v1';

/** `post` + `auth/login` -> `postAuthLogin`; `{id}`-style and `:id` parameters become `ById`. */
export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `by-${seg.slice(1)}` : seg === '*' ? 'any' : seg));
  return [method, ...words]
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1)))
    .join('');
}

/** A binary answer (a file, a stream) of one of `types`. */
export const binary = (description: string, ...types: string[]) => ({
  description,
  content: Object.fromEntries(types.map((t) => [t, { schema: z.any() }])),
});

/** A redirect (Location), without a body. */
export const redirect = (description = 'A redirect (Location) to a signed link') => z.null().describe(description);

type Def = {
  type: string;
  checks?: Array<{ _zod: { def: { check: string } } }>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  getter?: () => z.ZodType;
};
const defOf = (t: z.ZodType) => (t as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The custom refinements of a request schema the document cannot state, as "path: why" (none
 * when the schema is exact).
 */
export function unstatedRefinements(t: z.ZodType, path = '', seen = new Set<z.ZodType>()): string[] {
  if (seen.has(t)) return [];
  seen.add(t);
  const def = defOf(t);
  const out: string[] = [];
  for (const c of def.checks ?? []) {
    if (c._zod.def.check !== 'custom' || WORDING.has(c)) continue;
    out.push(`${path || '(root)'}: a refinement the document cannot state`);
  }
  if (def.type === 'custom') out.push(`${path || '(root)'}: a custom type the document cannot state`);
  const walk = (s: z.ZodType | null | undefined, p: string) => {
    if (s) out.push(...unstatedRefinements(s, p, seen));
  };
  for (const [k, v] of Object.entries(def.shape ?? {})) walk(v, path ? `${path}.${k}` : k);
  walk(def.catchall, `${path}.*`);
  walk(def.innerType, path);
  walk(def.element, `${path}[]`);
  for (const o of def.options ?? []) walk(o, path);
  for (const i of def.items ?? []) walk(i, `${path}[]`);
  walk(def.rest, `${path}[]`);
  walk(def.keyType, `${path}{key}`);
  walk(def.valueType, `${path}{}`);
  walk(def.in, path);
  walk(def.left, path);
  walk(def.right, path);
  // A pipe's output side checks what its input side already produced (its own checks count).
  walk(def.out, path);
  if (def.getter) walk(def.getter(), path);
  return out;
}

const REQUEST_PARTS = ['body', 'querystring', 'params'] as const;

/**
 * The onRoute hook of every API route (before @fastify/swagger reads it): names, tags and
 * secures the operation, lists every status it can answer, and refuses a request schema the
 * document could not state exactly.
 */
export function documentRoute(route: RouteOptions): void {
  if (!route.url.startsWith(API_PREFIX) || !route.schema || (route.schema as { hide?: boolean }).hide) return;
  const schema = route.schema as Record<string, unknown> & { response?: Record<string | number, unknown> };
  const method = [route.method].flat()[0]!.toLowerCase();
  const rest = route.url.slice(API_PREFIX.length).replace(/^\//, '');
  schema['operationId'] ??= operationId(method, rest);
  schema['tags'] ??= [rest.split('/')[0] || 'api'];
  const access = route.config?.access;
  if (access === 'user' || access === 'admin') schema['security'] ??= [{ session: [] }];

  const unstated = REQUEST_PARTS.flatMap((part) =>
    schema[part] instanceof z.ZodType ? unstatedRefinements(schema[part] as z.ZodType).map((p) => `${part} ${p}`) : [],
  );
  if (unstated.length)
    throw new Error(
      `${method.toUpperCase()} ${route.url}: ${unstated.join('; ')} (use a pattern, a bound or a union; wording for messages)`,
    );

  if (!schema.response) return;
  const hasParams = /[:*]/.test(route.url);
  const hasBody = !!schema['body'] || !!route.config?.documentedBody;
  const validates = hasParams || hasBody || !!schema['querystring'] || !!schema['headers'];
  const added: number[] = [500, 503, 504];
  if (validates) added.push(400);
  if (access === 'user' || access === 'admin') added.push(401);
  if (access === 'admin') added.push(403);
  if (hasBody) added.push(413);
  if (hasParams) added.push(414);
  if (route.config?.rateLimit) added.push(429);
  schema.response = { ...Object.fromEntries(added.map((s) => [s, errorBody])), ...schema.response };
}

type Json = Record<string, unknown>;

/** zod's override of the fastify-type-provider-zod default (empty union branches dropped), plus the text rule on request strings. */
function requestOverride(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const json = ctx.jsonSchema;
  if (Array.isArray(json['anyOf'])) json['anyOf'] = (json['anyOf'] as Json[]).filter((s) => Object.keys(s).length > 0);
  const type = defOf(ctx.zodSchema as z.ZodType).type;
  if (
    type === 'string' &&
    json['type'] === 'string' &&
    !('pattern' in json) &&
    !('allOf' in json) &&
    !('enum' in json) &&
    !('const' in json)
  )
    json['pattern'] = TEXT_RULE.source;
}

const requestTransform: (doc: TransformArg) => { schema: FastifySchema; url: string } = createJsonSchemaTransform({
  zodToJsonConfig: { override: requestOverride as never },
}) as never;
const responseTransform: (doc: TransformArg) => { schema: FastifySchema; url: string } = createJsonSchemaTransform({}) as never;
const inputComponents = createJsonSchemaTransformObject({ zodToJsonConfig: { override: requestOverride as never } });

type TransformArg = Parameters<SwaggerTransform>[0];

/** @fastify/swagger's `transform`: request parts with the text rule, responses as they are, documented bodies added. */
export function transform(doc: TransformArg): { schema: FastifySchema; url: string } {
  const { schema, url } = doc;
  if (!schema) return { schema: schema as FastifySchema, url };
  const { body, querystring, params, ...others } = schema as Record<string, unknown>;
  const response = responseTransform({ ...doc, schema: others } as never);
  if ((response.schema as { hide?: boolean } | undefined)?.hide) return response as { schema: FastifySchema; url: string };
  const request = requestTransform({ ...doc, schema: { body, querystring, params } } as never);
  const out: Json = { ...(response.schema as Json), ...(request.schema as Json) };
  const documented = doc.route?.config?.documentedBody;
  if (documented) {
    out['body'] = { ...documented.schema, description: documented.description };
    out['consumes'] = [documented.contentType];
  }
  return { schema: out, url };
}

/** @fastify/swagger's `transformObject`: components, the request forms (`...Input`) with the text rule. */
export function transformObject(doc: Parameters<typeof jsonSchemaTransformObject>[0]): ReturnType<typeof jsonSchemaTransformObject> {
  type Doc = { components?: { schemas?: Record<string, unknown> } };
  const outputs = jsonSchemaTransformObject(doc) as Doc;
  const inputs = inputComponents(doc) as Doc;
  const schemas = { ...outputs.components?.schemas };
  for (const [id, s] of Object.entries(inputs.components?.schemas ?? {})) if (id.endsWith('Input')) schemas[id] = s;
  return { ...outputs, components: { ...outputs.components, schemas } } as ReturnType<typeof jsonSchemaTransformObject>;
}
