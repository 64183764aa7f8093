import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPendingTable } from '../../src/bridge/pendingTable.js';

interface Entry {
  id: number;
  readonly name: string;
}

describe('the table of the exchanges in flight (pendingTable.ts)', () => {
  it('finds, takes and lists entries by id, also ids that share a slot (64 apart)', () => {
    const table = createPendingTable<Entry>();
    table.set({ id: 1, name: 'a' });
    table.set({ id: 65, name: 'b' });
    table.set({ id: 129, name: 'c' });
    expect(table.get(1)?.name).toBe('a');
    expect(table.get(65)?.name).toBe('b');
    expect(table.get(129)?.name).toBe('c');
    expect(table.get(193)).toBeUndefined();
    expect(table.ids()).toEqual([1, 65, 129]);
    expect(table.take(65)?.name).toBe('b');
    expect(table.take(65)).toBeUndefined();
    expect(table.get(65)).toBeUndefined();
    expect(table.get(1)?.name).toBe('a');
    expect(table.ids()).toEqual([1, 129]);
  });

  it('keeps an older entry whose slot a new id takes', () => {
    const table = createPendingTable<Entry>();
    table.set({ id: 1, name: 'old' });
    table.set({ id: 257, name: 'new' }); // 1 mod 64, 128 and 256
    expect(table.get(1)?.name).toBe('old');
    expect(table.get(257)?.name).toBe('new');
    expect(table.ids()).toEqual([1, 257]);
    expect(table.take(1)?.name).toBe('old');
    expect(table.get(1)).toBeUndefined();
    expect(table.get(257)?.name).toBe('new');
  });

  it('does not grow with the calls made while one long-lived entry stays (a listen stream)', () => {
    const table = createPendingTable<Entry>();
    table.set({ id: 1, name: 'listen' });
    for (let id = 2; id <= 100_000; id++) {
      table.set({ id, name: 'call' });
      expect(table.take(id)?.id).toBe(id);
    }
    expect(table.slotCount()).toBe(64);
    expect(table.get(1)?.name).toBe('listen');
    expect(table.ids()).toEqual([1]);
  });

  it('finds nothing under ids an upstream may answer with that the bridge never sent', () => {
    const table = createPendingTable<Entry>();
    table.set({ id: 1, name: 'a' });
    for (const id of [0, -1, -63, 1.5, 65, 2 ** 53, Number.MAX_VALUE, Infinity]) {
      expect(table.get(id)).toBeUndefined();
      expect(table.take(id)).toBeUndefined();
    }
    expect(table.ids()).toEqual([1]);
    expect(table.get(1)?.name).toBe('a');
  });

  it('grows when more than half of its slots are taken', () => {
    const table = createPendingTable<Entry>();
    for (let id = 1; id <= 200; id++) table.set({ id, name: String(id) });
    expect(table.slotCount()).toBe(256);
    for (let id = 1; id <= 200; id++) expect(table.get(id)?.id).toBe(id);
  });

  it('lists the ids in ascending order, also across the end of the slots', () => {
    const table = createPendingTable<Entry>();
    for (const id of [62, 63, 64, 65]) table.set({ id, name: String(id) });
    expect(table.ids()).toEqual([62, 63, 64, 65]);
  });

  it('an entry whose id changed is found under its new id only after it was set again', () => {
    const table = createPendingTable<Entry>();
    const entry: Entry = { id: 3, name: 'retried' };
    table.set(entry);
    expect(table.take(3)).toBe(entry);
    entry.id = 70;
    table.set(entry);
    expect(table.get(3)).toBeUndefined();
    expect(table.get(70)).toBe(entry);
  });

  it('behaves as a Map for any sequence of adds and removals of counter ids (property)', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(300)), { maxLength: 400 }), (steps) => {
        const table = createPendingTable<Entry>();
        const model = new Map<number, Entry>();
        let next = 1;
        for (const [add, pick] of steps) {
          if (add) {
            const entry = { id: next, name: `e${next}` };
            // Ids 64 apart share a slot of the first size: the table has to grow often.
            next += pick % 2 === 0 ? 64 : 1 + (pick % 5) * 32;
            table.set(entry);
            model.set(entry.id, entry);
          } else {
            const ids = [...model.keys()];
            const id = ids.length === 0 ? pick : (ids[pick % ids.length] as number);
            expect(table.take(id)).toBe(model.get(id));
            model.delete(id);
          }
          for (const [id, entry] of model) expect(table.get(id)).toBe(entry);
          // Ids not in the table, also those of a slot that another id holds.
          for (const id of [pick, next, next + 64, next + 128])
            if (!model.has(id)) expect(table.get(id)).toBeUndefined();
        }
        expect(table.ids()).toEqual([...model.keys()].sort((a, b) => a - b));
        checked += 1;
      }),
      { numRuns: 200 },
    );
    expect(checked).toBeGreaterThanOrEqual(200);
  });
});
