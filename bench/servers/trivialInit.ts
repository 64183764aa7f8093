/**
 * The start-up floor: a node process that answers `initialize` with a prepared 2025-11-25 result
 * and imports nothing else. Spawn to answer is then node's own start plus one round trip.
 */
const RESULT =
  '"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"trivial","version":"0.0.0"}}';

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  let nl = buffered.indexOf('\n');
  while (nl !== -1) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    const id = /"id":("[^"]*"|-?\d+)/.exec(line)?.[1];
    if (id !== undefined && line.includes('"method":"initialize"')) {
      process.stdout.write(`{"jsonrpc":"2.0","id":${id},${RESULT}}\n`);
    }
    nl = buffered.indexOf('\n');
  }
});
process.stdin.once('end', () => process.exit(0));
export {};
