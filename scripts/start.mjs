// `npm start`: build when the sources are newer than the last build, then run the server.
// Migrations and the demo seed happen inside the server process (see src/lib/platform/boot.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

process.env.ASTRO_TELEMETRY_DISABLED = '1';
const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist', 'server', 'entry.mjs');

function newest(dir) {
  let latest = 0;
  if (!fs.existsSync(dir)) return latest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return latest;
}

const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
const sources = Math.max(
  newest(path.join(root, 'src')),
  newest(path.join(root, 'public')),
  fs.statSync(path.join(root, 'astro.config.mjs')).mtimeMs,
);
if (built < sources) {
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules', 'astro', 'bin', 'astro.mjs'), 'build'], {
    stdio: 'inherit',
    cwd: root,
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
await import('./server.mjs');
