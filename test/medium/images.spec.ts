import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { root, CHART, type Obj } from './chart.fixture';

// No Docker daemon in CI: the Dockerfile and skaffold.yaml are checked for what the chart relies on.
describe('images: deploy/Dockerfile and skaffold.yaml', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'deploy', 'Dockerfile'), 'utf8');
  const stages = [...dockerfile.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gm)].map((m) => m[1]);

  it('builds an app and a media target, non-root, starting node on the path the chart passes', () => {
    expect(stages).toEqual(expect.arrayContaining(['build', 'prod', 'app', 'media']));
    const values = parseAllDocuments(fs.readFileSync(path.join(CHART, 'values.yaml'), 'utf8'))[0]!.toJS() as Obj;
    expect(Object.keys(values.images).sort()).toEqual(['app', 'media']);
    for (const target of ['app', 'media']) {
      const body = dockerfile.split(/^FROM /m).find((s) => new RegExp(`AS ${target}\\b`).test(s.split('\n')[0]!))!;
      expect(body).toMatch(/^USER 65532:65532$/m);
      expect(body).toMatch(/^ENTRYPOINT \["\/[\w/]+\/node"\]$/m);
      expect(body).not.toMatch(/npm (ci|install)/);
    }
    const media = dockerfile.split(/^FROM /m).find((s) => /AS media\b/.test(s.split('\n')[0]!))!;
    expect(media).toMatch(/apt-get install[^\n]*\bffmpeg\b/);
    expect(media).toMatch(/fontconfig/);
    // The services that run ffmpeg get the media image.
    for (const svc of ['media-library', 'render-worker']) expect(values.services[svc].image).toBe('media');
  });

  it('installs production dependencies and copies the compiled code and migrations of every service', () => {
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    const workspaces = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
    // The web app is served from the build; scripts and the SDK (a client library for our API's
    // users) are not part of any service.
    for (const ws of workspaces.filter((w) => w !== 'web' && w !== 'scripts' && w !== 'packages/sdk')) {
      expect(dockerfile).toContain(`-w ${ws} `.trimEnd());
      expect(dockerfile).toContain(`COPY ${ws}/package.json ${ws}/`);
      expect(dockerfile).toContain(`COPY --from=build /src/${ws}/dist ${ws}/dist`);
      if (fs.existsSync(path.join(root, ws, 'migrations')))
        expect(dockerfile).toContain(`COPY --from=build /src/${ws}/migrations ${ws}/migrations`);
    }
    expect(dockerfile).toContain('COPY --from=build /src/web/dist web/dist');
    const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    for (const needed of ['services', 'proto', 'packages', 'web', 'scripts', 'package-lock.json']) expect(ignored).not.toContain(needed);
  });

  it('builds both targets in skaffold and deploys them into the chart, with dev and prod profiles', () => {
    const sk = parseAllDocuments(fs.readFileSync(path.join(root, 'skaffold.yaml'), 'utf8'))[0]!.toJS() as Obj;
    expect(sk.build.artifacts.map((a: Obj) => [a.image, a.docker.dockerfile, a.docker.target])).toEqual([
      ['reelsmith', 'deploy/Dockerfile', 'app'],
      ['reelsmith-media', 'deploy/Dockerfile', 'media'],
    ]);
    expect(sk.profiles.map((p: Obj) => p.name)).toEqual(['dev', 'prod']);
    for (const release of [sk.deploy.helm.releases[0], ...sk.profiles.map((p: Obj) => p.deploy.helm.releases[0])]) {
      expect(release.chartPath).toBe('helm/reelsmith');
      for (const f of release.valuesFiles ?? []) expect(fs.existsSync(path.join(root, f))).toBe(true);
      expect(Object.keys(release.setValueTemplates)).toEqual(expect.arrayContaining(['images.app.repository', 'images.media.repository']));
    }
  });
});
