// deploy/haproxy.cfg with a test's (or the bench's) own addresses: its
// frontend port and servers, quick health checks; it logs to its standard
// output as shipped (the test reads it). Each
// substitution must apply, so a change in the shipped file's shape fails
// loudly instead of testing something else. Run as a script it prints the
// configuration: node tests/scale/haproxy_cfg.mjs PORT SERVER_PORT...
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';

const shipped = join(dirname(new URL(import.meta.url).pathname), '..', '..', 'deploy', 'haproxy.cfg');

export function haproxyConfig(port, serverPorts) {
  let cfg = readFileSync(shipped, 'utf8');
  const swap = (re, to) => {
    if (!re.test(cfg)) throw new Error(`deploy/haproxy.cfg no longer has ${re}`);
    cfg = cfg.replace(re, to);
  };
  // As shipped: logging that needs no syslog socket, checks that ask with HEAD.
  swap(/^(\s*)log stdout format raw local0$/m, '$1log stdout format raw local0');
  swap(/^(\s*)option httpchk HEAD \/api\/health$/m, '$1option httpchk HEAD /api/health');
  swap(/^(\s*)bind :80$/m, `$1bind 127.0.0.1:${port}`);
  swap(/inter 2s fall 2 rise 2/, 'inter 200ms fall 2 rise 1');
  swap(/^(\s*server gpulab\d .*\n)+/m,
    serverPorts.map((p, i) => `    server gpulab${i + 1} 127.0.0.1:${p} check cookie gpulab${i + 1}\n`).join(''));
  return cfg;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [port, ...servers] = process.argv.slice(2).map(Number);
  process.stdout.write(haproxyConfig(port, servers));
}
