import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';

const MB = 1024 * 1024;

export interface Streamed {
  status: number;
  body: string;
  sentBytes: number;
  /** Growth of the memory held (heap and buffers, collected first) while it ran. */
  peakGrowth: number;
}

// Garbage is collected before each sample, so what is measured is what the process holds, not what it has dropped.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * Streams a multipart body of `fields` text fields of almost 1 MB each (multer's default field size), writing only as
 * fast as the server reads, and stops sending once an answer arrives. Measures this process's memory meanwhile: the
 * server runs in it.
 */
export function streamFields(
  url: string,
  target: string,
  headers: Record<string, string>,
  fields: number,
): Promise<Streamed> {
  const boundary = '----leadflow-test-boundary';
  const value = Buffer.alloc(MB - 1024, 'a');
  const held = () => {
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const before = held();
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, held())), 400);
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let answered = false;
    const req = http.request(`${url}${target}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        clearInterval(sample);
        req.destroy();
        resolve({ status: res.statusCode!, body, sentBytes, peakGrowth: peak - before });
      });
    });
    let i = 0;
    const pump = () => {
      while (!answered && i < fields) {
        const head = `--${boundary}\r\nContent-Disposition: form-data; name="note${i++}"\r\n\r\n`;
        sentBytes += head.length + value.length + 2;
        req.write(head);
        req.write(value);
        if (!req.write('\r\n')) return void req.once('drain', pump);
      }
      if (!answered) req.end(`--${boundary}--\r\n`);
    };
    pump();
  });
}
