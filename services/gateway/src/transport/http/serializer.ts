import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Json = Record<string, unknown>;
type ZodDef = {
  type: string;
  checks?: Array<{ _zod: { def: { check: string } } }>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
};

/**
 * Whether a response schema is plain data that JSON Schema describes exactly: objects, arrays,
 * strings, numbers, booleans, null, enums, literals, unions and records, with no transforms,
 * pipes, defaults, codecs, dates or custom refinements (their output only zod can produce or check).
 */
export function plainSchema(t: z.ZodType, seen = new Set<z.ZodType>()): boolean {
  if (seen.has(t)) return true;
  seen.add(t);
  const def = (t as unknown as { _zod: { def: ZodDef } })._zod.def;
  if (def.checks?.some((c) => c._zod.def.check === 'custom')) return false;
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'enum':
    case 'literal':
      return true;
    case 'nullable':
    case 'optional':
      return plainSchema(def.innerType!, seen);
    case 'array':
      return plainSchema(def.element!, seen);
    case 'union':
      return def.options!.every((o) => plainSchema(o, seen));
    case 'record':
      return plainSchema(def.keyType!, seen) && plainSchema(def.valueType!, seen);
    case 'object':
      return (
        (def.catchall === undefined || (def.catchall as unknown as { _zod: { def: ZodDef } })._zod.def.type === 'never') &&
        Object.values(def.shape!).every((v) => plainSchema(v, seen))
      );
    default:
      return false;
  }
}

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);

/** `anyOf: [{type: X, ...}, {type: 'null'}]` (zod's nullable) as `type: [X, 'null']`, which fast-json-stringify writes without trying each branch. */
function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = simplify(v);
  const anyOf = out.anyOf as Json[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nul = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    const other = anyOf[1 - nul];
    if (nul >= 0 && other && typeof other.type === 'string' && PRIMITIVE.has(other.type) && !('$ref' in other)) {
      delete out.anyOf;
      const merged: Json = { ...other, ...out, type: [other.type, 'null'] };
      if (Array.isArray(other.enum)) merged.enum = [...(other.enum as unknown[]), null];
      return merged;
    }
  }
  return out;
}

/** The JSON Schema of a plain zod response schema, as fast-json-stringify reads it. */
export function responseJsonSchema(schema: z.ZodType): Json {
  return simplify(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw', target: 'draft-07' })) as Json;
}

/**
 * Responses are serialised from the routes' zod schemas (which stay the OpenAPI document): a plain
 * schema (see plainSchema) is compiled once into a fast-json-stringify function, which writes only
 * the declared properties (anything else is left out, as zod strips it) and refuses a missing
 * required one; any other schema is encoded by zod, as before. zod's per-response walk over the
 * whole object was a tenth of the CPU time of a cached GET such as /auth/me.
 */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = (route) => {
  const schema = route.schema as unknown;
  if (schema instanceof z.ZodType && plainSchema(schema)) {
    try {
      const stringify = fastJson(responseJsonSchema(schema) as never);
      return (data: unknown) => stringify(data);
    } catch {
      // Not something fast-json-stringify compiles: zod does it.
    }
  }
  return (zodSerializerCompiler as unknown as FastifySerializerCompiler<z.ZodType>)(route);
};
