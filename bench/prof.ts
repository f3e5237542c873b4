/**
 * npm run bench:prof -- --only cards-list [--seconds 10] [--connections 10] [--cpu-prof]
 *
 * One endpoint of bench/endpoints.ts against `bin/crm.js serve` (as bench/run.ts starts it) for a few seconds and
 * the service's CPU per request (/proc), optionally under `node --cpu-prof`: the profile's self time summed by
 * function and by package is printed (the top 30), for finding where a request's Node time goes.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { endpoints, loadEndpoint } from './endpoints.js';
import {
  numberFlag,
  parseFlags,
  processCpuMs,
  readMeta,
  removeCreatedCards,
  rootDir,
  startServiceProcess,
  stopService,
} from './lib.js';

const flags = parseFlags(process.argv.slice(2));
const only = String(flags.only ?? 'cards-list');
const seconds = numberFlag(flags, 'seconds', 10);
const connections = numberFlag(flags, 'connections', 10);
const profDir = '/tmp/crm-prof';
const port = 3991;
const meta = readMeta();
const ep = endpoints(meta, new Set([only])).find((e) => e.name === only);
if (!ep) throw new Error(`no endpoint ${only}`);

rmSync(profDir, { recursive: true, force: true });
mkdirSync(profDir, { recursive: true });
const args = flags['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
const child = await startServiceProcess(port, {}, rootDir, args);
await loadEndpoint(port, meta, ep, connections, 2);
const cpu0 = processCpuMs(child.pid) ?? 0;
const r = await loadEndpoint(port, meta, ep, connections, seconds);
const cpu1 = processCpuMs(child.pid) ?? 0;
const answered = r.requests.total;
console.log(
  `${only}: ${r.requests.average} req/s, non2xx ${r.non2xx}, errors ${r.errors}, service CPU ${((cpu1 - cpu0) / answered).toFixed(2)} ms/req`,
);
await stopService(child);
if (only === 'cards-create') await removeCreatedCards(meta);
if (flags['cpu-prof']) {
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const s of prof.samples) {
    const n = byId.get(s)!;
    const url = n.callFrame.url.replace(`file://${rootDir}/`, '');
    const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
    const p = m
      ? m[1]
      : url.startsWith('dist/')
        ? url.split('/').slice(0, 4).join('/')
        : url || n.callFrame.functionName;
    const f = `${n.callFrame.functionName || '(anon)'} ${url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
    fn.set(f, (fn.get(f) ?? 0) + 1);
    pkg.set(p, (pkg.get(p) ?? 0) + 1);
  }
  const total = prof.samples.length;
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  console.log(`\nby package (${total} samples)\n${top(pkg)}\n\nby function\n${top(fn)}`);
}
