// DEV ONLY: serves dist/ the way `checkpoint-explorer serve` is specified to
// (token in ?token= → cookie, 401 without it, a bridge script injected into
// index.html), but with dev/fake-bridge.js as the bridge. Lets the E2E script
// be exercised before the Go side exists:
//   npm run build && node dev/serve-fake.mjs   # prints CE_URL=...
import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const bridge = readFileSync(fileURLToPath(new URL('./fake-bridge.js', import.meta.url)));
const token = 'dev-' + Math.random().toString(36).slice(2);
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const cookieOk = (req.headers.cookie ?? '').split(/;\s*/).includes(`ce_token=${token}`);
  const queryOk = url.searchParams.get('token') === token;
  if (!cookieOk && !queryOk) {
    res.writeHead(401, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({ error: 'missing or wrong token' }));
  }
  const headers = queryOk ? { 'Set-Cookie': `ce_token=${token}; Path=/; HttpOnly; SameSite=Strict` } : {};
  if (url.pathname === '/bridge.js') {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript' });
    return res.end('window.__CE_MODE = "browser";\n' + bridge);
  }
  if (url.pathname.startsWith('/api/') || url.pathname === '/upload') {
    res.writeHead(501, { ...headers, 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({ error: 'fake server: the fake bridge answers in the page' }));
  }
  let path = normalize(join(dist, url.pathname === '/' ? 'index.html' : url.pathname));
  if (!path.startsWith(dist) || !existsSync(path) || statSync(path).isDirectory()) path = join(dist, 'index.html');
  let body = readFileSync(path);
  if (path.endsWith('index.html')) {
    body = body.toString().replace('<head>', '<head>\n    <script src="/bridge.js"></script>');
  }
  res.writeHead(200, { ...headers, 'Content-Type': types[extname(path)] ?? 'application/octet-stream' });
  res.end(body);
});

server.listen(0, '127.0.0.1', () => {
  console.log(`CE_URL=http://127.0.0.1:${server.address().port}/?token=${token}`);
});
