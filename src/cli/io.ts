import fs from 'node:fs';
import type { CliIo } from './commands.js';

/** The process's own stdout, stderr and stdin. */
export function createProcessIo(): CliIo {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdinIsPiped() {
      try {
        const stat = fs.fstatSync(0);
        // a terminal or /dev/null is a character device: nothing was piped in
        return stat.isFIFO() || stat.isFile() || stat.isSocket();
      } catch {
        return false;
      }
    },
  };
}
