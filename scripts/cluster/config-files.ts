/**
 * The configuration of the cluster's Redis, PgBouncer and HAProxy (scripts/cluster/cluster.ts), written into its
 * temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const isRoot = () => process.getuid?.() === 0;
const postgresIds = () => ({
  uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
  gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
});

/** Redis's command line: its own (never the machine's 6379), on loopback, nothing persisted. */
export function redisArgs(dir: string, port: number): string[] {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
}

/**
 * PgBouncer 1.18 in transaction mode in front of the database at `direct`, with its admin console (SHOW POOLS) for
 * the same user; as root it runs as `postgres`, its files handed over. Answers its command line and the URLs of its
 * pool and of its admin console.
 */
export function writePgBouncerConfig(dir: string, direct: URL, port: number, poolSize: number) {
  const user = decodeURIComponent(direct.username || 'postgres');
  const password = decodeURIComponent(direct.password);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `crm = host=${direct.hostname} port=${direct.port || 5432} dbname=${direct.pathname.slice(1)} pool_size=${poolSize}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'pool_mode = transaction',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `admin_users = ${user}`,
      `logfile = ${join(dir, 'pgbouncer.file.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      'max_client_conn = 500',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'users.txt'), `"${user}" "${password}"\n`);
  writeFileSync(join(dir, 'pgbouncer.file.log'), '');
  const args = [ini];
  if (isRoot()) {
    const { uid, gid } = postgresIds();
    for (const f of [dir, ini, join(dir, 'users.txt'), join(dir, 'pgbouncer.file.log')]) chownSync(f, uid, gid);
    args.unshift('-u', 'postgres');
  }
  const auth = password ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}` : encodeURIComponent(user);
  return {
    args,
    poolerUrl: `postgres://${auth}@127.0.0.1:${port}/crm`,
    poolerAdminUrl: `postgres://${auth}@127.0.0.1:${port}/pgbouncer`,
  };
}

/**
 * HAProxy: round robin over the API processes on `apiPorts`, health check on /api/ready; with `mcp`, a frontend of
 * its own on `mcp.port` in front of the agent servers (crm-mcp, HTTP) on `mcp.ports`, health check on /health, each
 * answer naming its server in `X-Served-By`. Answers the file.
 */
export function writeHaproxyConfig(
  dir: string,
  port: number,
  statsPort: number,
  apiPorts: number[],
  mcp?: { port: number; ports: number[] },
): string {
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4000',
      `  stats socket ${join(dir, 'haproxy.sock')} mode 600 level admin`,
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout http-request 10s',
      '  timeout http-keep-alive 10s',
      // A connection refused (a dead process) is retried on another server: a request never sent is safe.
      '  retries 2',
      '  option redispatch',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend crm',
      'frontend stats',
      `  bind 127.0.0.1:${statsPort}`,
      '  stats enable',
      '  stats uri /stats',
      'backend crm',
      '  balance roundrobin',
      '  option httpchk GET /api/ready',
      '  http-check expect status 200',
      // A dead process is taken out at its first refused connection (observe layer4); the checks themselves are
      // lenient (a busy process answering /api/ready in 2 s is not down: on a loaded machine a strict check
      // timeout takes every server out at once, and HAProxy answers 503). Event streams on a server marked
      // down are cut, so their clients reconnect through HAProxy to a live process.
      '  timeout check 5s',
      '  default-server inter 1s fall 3 rise 2 observe layer4 error-limit 1 on-error mark-down on-marked-down shutdown-sessions',
      ...apiPorts.map((p, i) => `  server api${i + 1} 127.0.0.1:${p} check`),
      ...(mcp && mcp.ports.length > 0
        ? [
            // The agent servers: stateless in the 2026-07-28 era (no affinity), as the API processes.
            'frontend mcp',
            `  bind 127.0.0.1:${mcp.port}`,
            '  default_backend crm-mcp',
            'backend crm-mcp',
            '  balance roundrobin',
            // crm-mcp checks Host on every route, /health included: the check names its loopback address.
            '  option httpchk',
            '  http-check send meth GET uri /health ver HTTP/1.1 hdr Host 127.0.0.1',
            '  http-check expect status 200',
            '  http-response set-header X-Served-By %s',
            '  timeout check 5s',
            '  default-server inter 1s fall 3 rise 2 observe layer4 error-limit 1 on-error mark-down',
            ...mcp.ports.map((p, i) => `  server mcp${i + 1} 127.0.0.1:${p} check`),
          ]
        : []),
      '',
    ].join('\n'),
  );
  return cfg;
}
