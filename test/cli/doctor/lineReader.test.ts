import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../../src/cli/doctor/lineReader.js';

describe('readLines (doctor)', () => {
  it('reads the lines of a stream, then undefined at its end', async () => {
    const stream = new PassThrough();
    const lines = readLines(stream, 1024);
    stream.end('{"a":1}\n{"b":2}\n');
    expect(await lines.next()).toBe('{"a":1}');
    expect(await lines.next()).toBe('{"b":2}');
    expect(await lines.next()).toBeUndefined();
  });

  it('gives undefined at once for a stream that ended before, unread (a child that closed its stdout)', async () => {
    const stream = new PassThrough();
    stream.end();
    stream.read(0);
    await new Promise((resolve) => stream.once('end', resolve));
    expect(await readLines(stream, 1024).next()).toBeUndefined();
  });

  it('ends the reading at a line over the limit', async () => {
    const stream = new PassThrough();
    const lines = readLines(stream, 8);
    stream.write('0123456789');
    expect(await lines.next()).toBeUndefined();
    expect(lines.tooLong).toBe(true);
  });
});
