import { describe, expect, it } from 'vitest';
import { createRecordReader, inputRecords, record } from '../../../src/edges/sharedSocket/records.js';

/** Reads `chunks` and returns each record as [kind letter, payload text]. */
function readAll(chunks: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  let pieces: Buffer[] = [];
  const read = createRecordReader({
    piece: (_kind, piece) => pieces.push(Buffer.from(piece)),
    end: (kind) => {
      out.push([String.fromCharCode(kind), Buffer.concat(pieces).toString('utf8')]);
      pieces = [];
    },
  });
  for (const chunk of chunks) read(Buffer.from(chunk, 'utf8'));
  return out;
}

describe('the records of the shared socket', () => {
  it('writes a record as its kind, its payload and a newline', () => {
    expect(record(0x46, '{"id":1}').toString('utf8')).toBe('F{"id":1}\n');
    expect(record(0x43).toString('utf8')).toBe('C\n');
  });

  it('reads records whatever the chunks, also a record split inside its kind or payload', () => {
    expect(readAll(['Ha', 'bc\nL{"x"', ':1}\nC', '\nX0\n'])).toEqual([
      ['H', 'abc'],
      ['L', '{"x":1}'],
      ['C', ''],
      ['X', '0'],
    ]);
    expect(readAll(['F', 'é', '\n'])).toEqual([['F', 'é']]);
  });

  it('skips an empty record', () => {
    expect(readAll(['\n\nC\n'])).toEqual([['C', '']]);
  });

  it('cuts the client input at its newlines: L records for lines, a P record for the rest', () => {
    const records = inputRecords(Buffer.from('one\ntwo\nthr', 'utf8'));
    expect(records.map((item) => item.toString('utf8'))).toEqual(['Lone\n', 'Ltwo\n', 'Pthr\n']);
    expect(inputRecords(Buffer.from('\n')).map((item) => item.toString('utf8'))).toEqual(['L\n']);
  });
});
