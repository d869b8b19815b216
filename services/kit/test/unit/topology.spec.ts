import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive, runningServicePort } from '../../src/topology';

describe('the running npm start an operator command talks to', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-topology-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // A pid that was alive a moment ago and is not now.
  const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
  const state = (supervisor: number, service: number) => {
    fs.mkdirSync(path.join(dir, 'run'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'run', 'supervisor.json'),
      JSON.stringify({
        pid: supervisor,
        processes: { identity: { pid: service, restarts: 0 } },
        ports: { identity: { grpc: 4321, ops: 0 } },
      }),
    );
  };

  it('tells a live process from one that has ended', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(deadPid)).toBe(false);
    expect(processAlive(null)).toBe(false);
  });

  it("gives a service's port only while the supervisor and the service are both alive", () => {
    expect(runningServicePort(dir, 'identity')).toBeUndefined(); // no state file
    state(process.pid, process.pid);
    expect(runningServicePort(dir, 'identity')).toBe(4321);
    expect(runningServicePort(dir, 'media-library')).toBeUndefined(); // not in the file
    state(deadPid, process.pid);
    expect(runningServicePort(dir, 'identity')).toBeUndefined();
    state(process.pid, deadPid);
    expect(runningServicePort(dir, 'identity')).toBeUndefined();
  });
});
