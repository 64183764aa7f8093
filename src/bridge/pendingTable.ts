/**
 * The exchanges in flight of one stdio connection, by upstream id (rpcConnection.ts). The ids
 * are a counter, so each id has a slot of its own in an array (its id modulo the size).
 *
 * Why not a Map: the requests come and go in bursts, so a Map shrank and grew again
 * every few calls, and each table it left behind still pointed at the entries of its time. Once
 * such a table was in the old generation, those entries (and every request object they reach)
 * survived each young-generation collection until the next full one: most of the garbage of
 * finished requests was copied and promoted, and the garbage collector took twice the time.
 *
 * Bounded by the entries, not by the ids: a long-lived exchange (a listen stream open for the
 * whole session, an hour-long call) would otherwise make the array grow with every call made
 * after it. When a new id lands on the slot of an older entry, the array doubles only while at
 * least half of its slots are taken; otherwise the older entry moves to a Map of its own, which
 * holds only such long-lived entries and so rarely changes.
 */
export interface PendingTable<E extends { id: number }> {
  get(id: number): E | undefined;
  /** Adds an entry under its `id`, which no other entry in the table has. */
  set(entry: E): void;
  /** Removes and returns the entry with this id. */
  take(id: number): E | undefined;
  /** The ids in the table now, in ascending order (the order they were sent in; a copy). */
  ids(): number[];
  /** The number of slots of the array (at most twice the entries, or the first size). */
  slotCount(): number;
}

const FIRST_SIZE = 64;

export function createPendingTable<E extends { id: number }>(): PendingTable<E> {
  let slots: (E | undefined)[] = new Array<E | undefined>(FIRST_SIZE).fill(undefined);
  let inSlots = 0;
  const aside = new Map<number, E>();
  const slotOf = (id: number): number => id % slots.length;
  const grow = (): void => {
    const old = slots;
    slots = new Array<E | undefined>(old.length * 2).fill(undefined);
    for (const entry of old) if (entry !== undefined) place(entry);
  };
  // Places an entry in the array; an older entry in its slot moves aside, or the array grows.
  const place = (entry: E): void => {
    for (;;) {
      const at = slotOf(entry.id);
      const holder = slots[at];
      if (holder === undefined) {
        slots[at] = entry;
        inSlots += 1;
        return;
      }
      if (inSlots * 2 >= slots.length) {
        inSlots = 0;
        grow();
        continue;
      }
      aside.set(holder.id, holder);
      slots[at] = entry;
      return;
    }
  };
  return {
    get(id) {
      const entry = slots[slotOf(id)];
      if (entry !== undefined && entry.id === id) return entry;
      return aside.size === 0 ? undefined : aside.get(id);
    },
    set: place,
    take(id) {
      const at = slotOf(id);
      const entry = slots[at];
      if (entry !== undefined && entry.id === id) {
        slots[at] = undefined;
        inSlots -= 1;
        return entry;
      }
      if (aside.size === 0) return undefined;
      const moved = aside.get(id);
      if (moved !== undefined) aside.delete(id);
      return moved;
    },
    ids() {
      const out: number[] = [...aside.keys()];
      for (const entry of slots) if (entry !== undefined) out.push(entry.id);
      return out.sort((a, b) => a - b);
    },
    slotCount: () => slots.length,
  };
}
