/**
 * An intrusive doubly linked list, oldest first: the nodes are the caller's own objects, which
 * carry their neighbours, so adding and removing allocate nothing and removing any node is O(1).
 * It keeps the running tasks of limitInFlight (operators/internal/inFlightTasks.ts), the entries
 * of each delay of the bridge's lane scheduler (src/bridge/laneScheduler.ts) and the running
 * requests of a session (src/bridge/runningRequests.ts): lists rather than Sets or Maps, because a
 * table that shrinks and grows with every burst of requests keeps finished requests alive through
 * young-generation collections (src/bridge/pendingTable.ts).
 *
 * Not public: no entry exports it. It lives in src/ports, below both of its users, so that
 * neither imports the other's implementation (ARCHITECTURE.md).
 */

/**
 * A node's links. Named `older` and `newer`, not `prev` and `next`: a node may also be an RxJS
 * observer, whose `next` is taken.
 */
export interface ListNode<N> {
  older: N | undefined;
  newer: N | undefined;
}

/** The ends of a list: `head` is the oldest node, `tail` the newest. */
export interface LinkedList<N> {
  head: N | undefined;
  tail: N | undefined;
}

/** Adds `node`, which is in no list, as the newest node of `list`. */
export function append<N extends ListNode<N>>(list: LinkedList<N>, node: N): void {
  const tail = list.tail;
  node.older = tail;
  if (tail === undefined) list.head = node;
  else tail.newer = node;
  list.tail = node;
}

/**
 * Removes `node`, which is in `list` (the caller knows: a flag of its own), and clears its links
 * so that it holds no other node alive.
 */
export function unlink<N extends ListNode<N>>(list: LinkedList<N>, node: N): void {
  const { older, newer } = node;
  if (older === undefined) list.head = newer;
  else older.newer = newer;
  if (newer === undefined) list.tail = older;
  else newer.older = older;
  node.older = undefined;
  node.newer = undefined;
}
