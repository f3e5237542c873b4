import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/** The modification times of the files under a directory (`skip`: a subdirectory left out). */
export function times(dir: string, keep: (name: string) => boolean = () => true, skip?: string): number[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path === skip ? [] : times(path, keep, skip);
    return keep(e.name) ? [statSync(path).mtimeMs] : [];
  });
}

/**
 * Whether dist/ was compiled from the sources as they are now (`npm install` and `npm ci` build it, so .ci/run's
 * fresh clone has a current one): every compiled file (dist/web apart, the web app's own build) is newer than every
 * file under src/ and the compiler's settings. An edit since the last build, or a build cut short, makes it stale.
 */
export function distIsCurrent(): boolean {
  const dist = join(ROOT, 'dist');
  if (!existsSync(join(dist, 'cli.js')) || !existsSync(join(dist, 'mcp/main.js'))) return false;
  const built = Math.min(...times(dist, (n) => n.endsWith('.js'), join(dist, 'web')));
  const sources = Math.max(
    ...times(join(ROOT, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(join(ROOT, f)).mtimeMs),
  );
  return built > sources;
}
