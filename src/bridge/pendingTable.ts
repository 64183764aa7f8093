/**
 * The exchanges in flight of one stdio connection, by upstream id (rpcConnection.ts). The ids
 * are a counter, so each id has a slot of its own in an array (its id modulo the size); the
 * array doubles when a slot is still taken, and never shrinks.
 *
 * Why not a Map (issue 13): the requests come and go in bursts, so a Map shrank and grew again
 * every few calls, and each table it left behind still pointed at the entries of its time. Once
 * such a table was in the old generation, those entries (and every request object they reach)
 * survived each young-generation collection until the next full one: most of the garbage of
 * finished requests was copied and promoted, and the garbage collector took twice the time.
 */
export interface PendingTable<E extends { id: number }> {
  get(id: number): E | undefined;
  /** Adds an entry under its `id`, which no other entry in the table has. */
  set(entry: E): void;
  /** Removes and returns the entry with this id. */
  take(id: number): E | undefined;
  /** The ids in the table now, in ascending order (the order they were sent in; a copy). */
  ids(): number[];
}

const FIRST_SIZE = 64;

export function createPendingTable<E extends { id: number }>(): PendingTable<E> {
  let slots: (E | undefined)[] = new Array<E | undefined>(FIRST_SIZE).fill(undefined);
  const slotOf = (id: number): number => id % slots.length;
  // Ids that differ mod the size also differ mod twice the size: one doubling places them all.
  const grow = (): void => {
    const old = slots;
    slots = new Array<E | undefined>(old.length * 2).fill(undefined);
    for (const entry of old) if (entry !== undefined) slots[slotOf(entry.id)] = entry;
  };
  return {
    get(id) {
      const entry = slots[slotOf(id)];
      return entry !== undefined && entry.id === id ? entry : undefined;
    },
    set(entry) {
      while (slots[slotOf(entry.id)] !== undefined) grow();
      slots[slotOf(entry.id)] = entry;
    },
    take(id) {
      const at = slotOf(id);
      const entry = slots[at];
      if (entry === undefined || entry.id !== id) return undefined;
      slots[at] = undefined;
      return entry;
    },
    ids() {
      const out: number[] = [];
      for (const entry of slots) if (entry !== undefined) out.push(entry.id);
      return out.sort((a, b) => a - b);
    },
  };
}
