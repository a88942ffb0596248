import fs from 'node:fs';
import express from 'express';

/**
 * The reference of `npm run bench -- http`: bare Express answering the lead list's path with the same JSON body the
 * app answered (read from the file named by argv[3]), serialised per request like the app does. argv[2]: the port.
 */
const [port, file] = process.argv.slice(2);
const body: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
const app = express();
app.get('/api/web/1.0/leads', (_req, res) => {
  res.json(body);
});
app.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
