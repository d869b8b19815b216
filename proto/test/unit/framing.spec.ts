import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { JobRequestSchema } from '../../src/gen/reelsmith/assembly/v1/assembly_pb';
import { fromJobRequestMessage, parseJobRequest, resolveFraming, segmentFramingSchema, toJobRequestMessage } from '../../src/index';

const parse = (body: unknown) => {
  const r = parseJobRequest(body);
  if (!r.ok) throw new Error(r.problems);
  return r.value;
};

describe('the job request framing', () => {
  it('is subject by default for 9:16 and 1:1 and letterbox for 16:9', () => {
    expect(parse({ aspect: '9:16' }).framing).toBe('subject');
    expect(parse({ aspect: '1:1' }).framing).toBe('subject');
    expect(parse({ aspect: '16:9' }).framing).toBe('letterbox');
    expect(parse({}).framing).toBe('letterbox');
  });

  it('takes framing when sent, and maps enable_letterbox when framing is absent (older clients)', () => {
    expect(parse({ aspect: '9:16', framing: 'center' }).framing).toBe('center');
    expect(parse({ aspect: '9:16', enable_letterbox: true }).framing).toBe('letterbox');
    expect(parse({ aspect: '9:16', enable_letterbox: false }).framing).toBe('center');
    expect(parse({ aspect: '9:16', enable_letterbox: true, framing: 'subject' }).framing).toBe('subject');
    expect(resolveFraming({ aspect: '16:9', enable_letterbox: false })).toBe('center');
  });

  it('refuses another framing, naming the field', () => {
    const r = parseJobRequest({ framing: 'zoom' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems).toMatch(/^framing: /);
  });

  it('travels over gRPC as the resolved framing; a message from before framing keeps its letterbox choice', () => {
    const sent = parse({ media_files: ['a'], aspect: '9:16', enable_letterbox: false });
    const wire = fromBinary(JobRequestSchema, toBinary(JobRequestSchema, create(JobRequestSchema, toJobRequestMessage(sent))));
    expect(wire.framing).toBe('center');
    expect(parse(fromJobRequestMessage(wire)).framing).toBe('center');
    const old = create(JobRequestSchema, {
      ...toJobRequestMessage(parse({ media_files: ['a'], aspect: '9:16' })),
      framing: '',
      enableLetterbox: true,
    });
    expect(parse(fromJobRequestMessage(old)).framing).toBe('letterbox');
  });

  it("checks a plan segment's framing: a known mode and camera, whole pixels, at least one key", () => {
    const ok = { mode: 'subject', camera: 'pan', width: 606, height: 1080, path: [{ t: 0, x: 0, y: 0 }] };
    expect(segmentFramingSchema.safeParse(ok).success).toBe(true);
    expect(segmentFramingSchema.safeParse({ ...ok, mode: 'zoom' }).success).toBe(false);
    expect(segmentFramingSchema.safeParse({ ...ok, width: 606.5 }).success).toBe(false);
    expect(segmentFramingSchema.safeParse({ ...ok, path: [] }).success).toBe(false);
    expect(segmentFramingSchema.safeParse({ ...ok, path: [{ t: 0, x: -1, y: 0 }] }).success).toBe(false);
  });
});
