/**
 * Process entry of the `netgraph` command (bin/netgraph.js loads the compiled
 * form): runs the CLI with this process's arguments and streams, and sets the
 * exit code. `serve` resolves only after a graceful shutdown.
 */
import { runCli } from './cli/main.js';
import { createProcessIo } from './cli/io.js';

process.exitCode = await runCli(process.argv.slice(2), createProcessIo());
