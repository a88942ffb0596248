import type http from 'node:http';
import { ConfigError } from '../src/config.js';

/**
 * Listens on host:port; a port that is taken or needs privileges is said in one line naming the variable that set it
 * (main prints a ConfigError as its one start-up line), anything else is thrown as it is.
 */
export function listen(server: http.Server, port: number, host: string, variable: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const why = { EADDRINUSE: 'is already in use', EACCES: 'needs privileges this user lacks' }[err.code ?? ''];
      reject(
        why
          ? new ConfigError(`Invalid environment variable ${variable}: ${host}:${port} ${why}; choose another port`)
          : err,
      );
    });
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });
}
