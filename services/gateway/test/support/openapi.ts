/**
 * Reading the gateway's served OpenAPI document in tests: its operations, the schemas of their
 * inputs (walked through $refs), and fast-check arbitraries of values those schemas accept.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  default?: unknown;
  additionalProperties?: boolean | Schema;
};

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  url: string;
  parameters: Parameter[];
  /** Media type -> schema of the request body. */
  body?: Record<string, Schema>;
  bodyRequired: boolean;
  /** Status -> media types documented (empty: no body). */
  responses: Record<string, string[]>;
  security: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the served document, read by value
export type Doc = any;

export function operationsOf(doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const [url, item] of Object.entries(doc.paths as Record<string, Record<string, Doc>>))
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const content = op.requestBody?.content as Record<string, { schema?: Schema }> | undefined;
      ops.push({
        method: method.toUpperCase(),
        url,
        parameters: (op.parameters ?? []) as Parameter[],
        body: content ? Object.fromEntries(Object.entries(content).map(([t, m]) => [t, m.schema ?? {}])) : undefined,
        bodyRequired: !!op.requestBody?.required,
        responses: Object.fromEntries(
          Object.entries(op.responses as Record<string, { content?: Record<string, unknown> }>).map(([s, r]) => [
            s,
            Object.keys(r.content ?? {}),
          ]),
        ),
        security: !!op.security,
      });
    }
  return ops;
}

/** A schema with its $ref followed (components/schemas). */
export function deref(s: Schema, doc: Doc): Schema {
  let out = s;
  for (let i = 0; out.$ref && i < 20; i++) out = { ...doc.components.schemas[out.$ref.split('/').pop()!], ...omit(out, '$ref') };
  return out;
}
const omit = (o: Schema, k: string) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== k)) as Schema;

/** Every subschema of `s` (itself included), with its path, through $refs, properties, items and combinators. */
export function walk(s: Schema, doc: Doc, path: string, visit: (s: Schema, path: string) => void, seen = new Set<unknown>()): void {
  const r = deref(s, doc);
  if (seen.has(r)) return;
  seen.add(r);
  visit(r, path);
  for (const [k, p] of Object.entries(r.properties ?? {})) walk(p, doc, `${path}.${k}`, visit, seen);
  if (r.items) walk(r.items, doc, `${path}[]`, visit, seen);
  for (const c of [...(r.anyOf ?? []), ...(r.oneOf ?? []), ...(r.allOf ?? [])]) walk(c, doc, path, visit, seen);
  if (r.additionalProperties && typeof r.additionalProperties === 'object') walk(r.additionalProperties, doc, `${path}{}`, visit, seen);
}

/** Every input schema of an operation: path and query parameters, and its JSON or multipart body. */
export function inputsOf(op: Operation, doc: Doc, visit: (s: Schema, path: string) => void): void {
  for (const p of op.parameters) if (p.in === 'path' || p.in === 'query') walk(p.schema, doc, `${p.in}.${p.name}`, visit);
  for (const [type, s] of Object.entries(op.body ?? {})) walk(s, doc, `body(${type})`, visit);
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** Strings a pattern accepts; the pattern's own flags as the document reads them (u: code points). */
function stringOf(s: Schema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  const fits = (v: string) => [...v].length >= min && [...v].length <= max;
  const patterns = [s.pattern, ...(s.allOf ?? []).map((a) => a.pattern)].filter((p): p is string => !!p).map((p) => new RegExp(p, 'u'));
  const ok = (v: string) => fits(v) && patterns.every((re) => re.test(v));
  if (s.format === 'uuid') return fc.uuid().filter(ok);
  if (s.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  // A pattern of its own (not the text rule, which every generated string below keeps): strings
  // matching it, or the schema's examples where fast-check cannot read the pattern (lookaheads, \p{L}).
  const own = patterns.filter((re) => !/^\^\(\?:\[\^\\u0000/.test(re.source));
  if (own.length) {
    const examples = ((s['examples'] as string[] | undefined) ?? []).filter(ok);
    const matching: Array<fc.Arbitrary<string>> = [];
    for (const re of own)
      try {
        // Short strings mostly, long ones too (a bound such as {0,38} is reached only by them).
        matching.push(
          fc.oneof({ weight: 3, arbitrary: fc.stringMatching(re, { size: 'xsmall' }) }, fc.stringMatching(re, { size: 'large' })),
        );
      } catch {
        // not a pattern fast-check reads
      }
    if (matching.length === own.length) return fc.oneof(...matching).filter(ok);
    if (!examples.length) throw new Error(`no examples for a pattern fast-check cannot read: ${own.map((r) => r.source).join(' ')}`);
    return fc.constantFrom(...examples);
  }
  const text = fc.string({
    unit: fc.oneof(fc.constantFrom('a', 'Z', '0', ' ', 'é', 'Ж', '漢', '🙂', '-', '_', '.'), fc.string({ minLength: 1, maxLength: 1 })),
    minLength: min,
    maxLength: Math.max(min, Math.min(max, 40)),
  });
  return text.filter(ok);
}

/** Values the schema accepts (defaults, optional properties left out or sent, every branch). */
export function arbitraryOf(s0: Schema, doc: Doc, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(s0, doc);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const branches = s.oneOf ?? s.anyOf;
  if (branches?.length) return fc.oneof(...branches.map((b) => arbitraryOf({ ...omit(omit(s, 'oneOf'), 'anyOf'), ...b }, doc, depth + 1)));
  const types = typesOf(s);
  const options: Array<fc.Arbitrary<unknown>> = [];
  for (const t of types.length ? types : ['object']) {
    if (t === 'null') options.push(fc.constant(null));
    else if (t === 'boolean') options.push(fc.boolean());
    else if (t === 'integer') {
      const min = Math.max(s.minimum ?? -(2 ** 31), s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -Infinity);
      const max = Math.min(s.maximum ?? 2 ** 31, s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : Infinity);
      options.push(fc.oneof(fc.constantFrom(min, max), fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) })));
    } else if (t === 'number') {
      const min = s.minimum ?? s.exclusiveMinimum ?? -1e9;
      const max = s.maximum ?? s.exclusiveMaximum ?? 1e9;
      const n = s.multipleOf
        ? fc
            .integer({ min: Math.ceil(min / s.multipleOf), max: Math.floor(max / s.multipleOf) })
            .map((k) => Math.round(k * s.multipleOf! * 1e6) / 1e6)
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      options.push(
        n.filter(
          (v) =>
            (s.exclusiveMinimum === undefined || v > s.exclusiveMinimum) && (s.exclusiveMaximum === undefined || v < s.exclusiveMaximum),
        ),
      );
    } else if (t === 'string') options.push(stringOf(s));
    else if (t === 'array') {
      const item = s.items ? arbitraryOf(s.items, doc, depth + 1) : fc.constant(null);
      options.push(fc.array(item, { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, Math.max(s.minItems ?? 0, 4)) }));
    } else if (t === 'object') {
      // A property whose schema is `not: {}` may not be sent at all.
      const props = Object.entries(s.properties ?? {}).filter(([, p]) => !(p['not'] && Object.keys(p['not'] as object).length === 0));
      const required = new Set(s.required ?? []);
      if (depth > 6) options.push(fc.constant({}));
      else
        options.push(
          fc.record(Object.fromEntries(props.map(([k, p]) => [k, arbitraryOf(p, doc, depth + 1)])), {
            requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)),
          }),
        );
    }
  }
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

/** A value as a query or path parameter carries it. */
export const asParameter = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
