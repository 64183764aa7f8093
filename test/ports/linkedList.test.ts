/**
 * The intrusive list shared by limitInFlight's running tasks and the bridge's lane scheduler
 * (src/ports/linkedList.ts): order, removal anywhere, and links cleared on removal.
 */
import { describe, expect, it } from 'vitest';
import { append, unlink } from '../../src/ports/linkedList.js';
import type { LinkedList, ListNode } from '../../src/ports/linkedList.js';

interface Node extends ListNode<Node> {
  readonly name: string;
}

const node = (name: string): Node => ({ name, older: undefined, newer: undefined });
const emptyList = (): LinkedList<Node> => ({ head: undefined, tail: undefined });

/** The names from the head along `newer`, and from the tail along `older`. */
function walk(list: LinkedList<Node>): { oldestFirst: string[]; newestFirst: string[] } {
  const oldestFirst: string[] = [];
  for (let n = list.head; n !== undefined; n = n.newer) oldestFirst.push(n.name);
  const newestFirst: string[] = [];
  for (let n = list.tail; n !== undefined; n = n.older) newestFirst.push(n.name);
  return { oldestFirst, newestFirst };
}

describe('linkedList', () => {
  it('keeps the nodes oldest first, linked both ways', () => {
    const list = emptyList();
    const [a, b, c] = [node('a'), node('b'), node('c')];
    append(list, a);
    append(list, b);
    append(list, c);
    expect(walk(list)).toEqual({ oldestFirst: ['a', 'b', 'c'], newestFirst: ['c', 'b', 'a'] });
    expect(list.head?.name).toBe('a');
    expect(list.tail?.name).toBe('c');
  });

  it.each([
    ['the oldest', 'a', ['b', 'c']],
    ['a middle', 'b', ['a', 'c']],
    ['the newest', 'c', ['a', 'b']],
  ])('removes %s node and clears its links', (_where, name, left) => {
    const list = emptyList();
    const nodes = [node('a'), node('b'), node('c')];
    for (const n of nodes) append(list, n);
    const removed = nodes.find((n) => n.name === name)!;
    unlink(list, removed);
    expect(walk(list)).toEqual({ oldestFirst: left, newestFirst: [...left].reverse() });
    expect(removed.older).toBeUndefined();
    expect(removed.newer).toBeUndefined();
  });

  it('is empty again after its only node is removed, and takes that node back as the newest', () => {
    const list = emptyList();
    const [a, b] = [node('a'), node('b')];
    append(list, a);
    unlink(list, a);
    expect(list).toEqual({ head: undefined, tail: undefined });
    append(list, b);
    append(list, a);
    expect(walk(list)).toEqual({ oldestFirst: ['b', 'a'], newestFirst: ['a', 'b'] });
  });
});
