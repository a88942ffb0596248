import type { Core } from './context.js';

/**
 * Domain events (docs/architecture.md, "Floors"): a domain says what happened, inside the transaction that wrote it,
 * and the domains on the floors above that react subscribe in src/reactions.ts. So a domain never imports the floors
 * above it: accounts does not know the queue, leads do not know orders.
 *
 * A reaction runs in the emitter's transaction, one after the other in the order they were wired: when one throws, the
 * whole write rolls back, as when the emitter called it itself. A reaction may answer a value (an order created for a
 * confirmed lead); the emitter gets every answer. An event emitted with no reaction wired is refused: a process that
 * did not load src/reactions.ts would otherwise confirm a lead and create no order.
 */
export interface DomainEvent<P, R = void> {
  readonly name: string;
  /** Wires a reaction (src/reactions.ts, once per process). */
  subscribe(reaction: (core: Core, payload: P) => Promise<R>): void;
  /** Runs every reaction wired, in order, and answers their answers. */
  emit(core: Core, payload: P): Promise<R[]>;
  /** How many reactions are wired (docs and tests list them). */
  readonly reactions: number;
  /**
   * Runs `body` with `reaction` left out of every emit of this process meanwhile (the benches time a write with and
   * without one reaction, side by side in one process).
   */
  without<T>(reaction: (core: Core, payload: P) => Promise<R>, body: () => Promise<T>): Promise<T>;
}

export function domainEvent<P, R = void>(name: string): DomainEvent<P, R> {
  const reactions: ((core: Core, payload: P) => Promise<R>)[] = [];
  const left = new Set<(core: Core, payload: P) => Promise<R>>();
  return {
    name,
    subscribe: (reaction) => void reactions.push(reaction),
    async emit(core, payload) {
      if (reactions.length === 0) throw new Error(`No reaction is wired for the event ${name} (src/reactions.ts).`);
      const answers: R[] = [];
      for (const reaction of reactions) if (!left.has(reaction)) answers.push(await reaction(core, payload));
      return answers;
    },
    get reactions() {
      return reactions.length;
    },
    async without(reaction, body) {
      left.add(reaction);
      try {
        return await body();
      } finally {
        left.delete(reaction);
      }
    },
  };
}
