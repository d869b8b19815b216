import net from 'node:net';

type Reply = string | number | null | Reply[] | Error;
type Callback = (err: Error | null, result?: unknown) => void;

/**
 * A minimal Redis client (RESP2 over one TCP connection, pipelined) with the surface
 * @fastify/rate-limit's Redis store uses: `defineCommand` for its Lua scripts. Enough to share
 * rate-limit counts between gateway replicas without another dependency.
 */
export class MiniRedis {
  private socket?: net.Socket;
  private buffer = Buffer.alloc(0);
  private readonly waiting: Callback[] = [];
  [command: string]: unknown;

  constructor(
    private readonly url: string,
    private readonly timeoutMs = 1000,
  ) {}

  private connection(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const u = new URL(this.url);
    const socket = net.connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) });
    socket.setNoDelay(true);
    socket.on('data', (d) => this.receive(d));
    const fail = (e: Error) => {
      for (const cb of this.waiting.splice(0)) cb(e);
      this.buffer = Buffer.alloc(0);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('redis connection closed')));
    this.socket = socket;
    if (u.password) this.send(['AUTH', ...(u.username ? [decodeURIComponent(u.username)] : []), decodeURIComponent(u.password)], () => {});
    const db = u.pathname.slice(1);
    if (db) this.send(['SELECT', db], () => {});
    return socket;
  }

  send(args: Array<string | number>, cb: Callback): void {
    const parts = [`*${args.length}\r\n`];
    for (const a of args) {
      const s = String(a);
      parts.push(`$${Buffer.byteLength(s)}\r\n${s}\r\n`);
    }
    let done = false;
    const timer = setTimeout(() => finish(new Error('redis timed out')), this.timeoutMs);
    const finish = (err: Error | null, result?: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      cb(err, result);
    };
    this.waiting.push(finish);
    this.connection().write(parts.join(''));
  }

  command(args: Array<string | number>): Promise<unknown> {
    return new Promise((resolve, reject) => this.send(args, (e, r) => (e ? reject(e) : resolve(r))));
  }

  /** As ioredis: `client[name](...keysAndArgs, callback)` runs the script with EVAL. */
  defineCommand(name: string, def: { numberOfKeys: number; lua: string }): void {
    this[name] = (...args: unknown[]) => {
      const cb = args.pop() as Callback;
      this.send(['EVAL', def.lua, def.numberOfKeys, ...(args as Array<string | number>).map(String)], cb);
    };
  }

  close(): void {
    this.socket?.end();
  }

  private receive(data: Buffer) {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      const parsed = parse(this.buffer, 0);
      if (!parsed) return;
      this.buffer = this.buffer.subarray(parsed.end);
      const cb = this.waiting.shift();
      if (parsed.value instanceof Error) cb?.(parsed.value);
      else cb?.(null, parsed.value);
    }
  }
}

function parse(b: Buffer, at: number): { value: Reply; end: number } | null {
  const eol = b.indexOf('\r\n', at);
  if (eol < 0) return null;
  const type = String.fromCharCode(b[at]!);
  const line = b.toString('utf8', at + 1, eol);
  const next = eol + 2;
  switch (type) {
    case '+':
      return { value: line, end: next };
    case '-':
      return { value: new Error(line), end: next };
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      if (b.length < next + n + 2) return null;
      return { value: b.toString('utf8', next, next + n), end: next + n + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      const items: Reply[] = [];
      let pos = next;
      for (let i = 0; i < n; i++) {
        const item = parse(b, pos);
        if (!item) return null;
        items.push(item.value);
        pos = item.end;
      }
      return { value: items, end: pos };
    }
    default:
      return { value: new Error(`unexpected redis reply ${type}`), end: next };
  }
}
