import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '../../src/context.js';
import { domainEvent, type DomainEvent } from '../../src/events.js';
import '../../src/services.js'; // loads src/reactions.ts, as every process does

const core = {} as Core;

/** Every domain event declared in src/ (each `export const name = domainEvent…` of a module), by module path. */
async function declaredEvents(): Promise<{ file: string; name: string; event: DomainEvent<unknown, unknown> }[]> {
  const found: { file: string; name: string; event: DomainEvent<unknown, unknown> }[] = [];
  for (const file of fs.readdirSync('src', { recursive: true }) as string[]) {
    if (!file.endsWith('.ts') || file === 'events.ts') continue;
    const text = fs.readFileSync(path.join('src', file), 'utf8');
    for (const m of text.matchAll(/export const (\w+) = domainEvent</g)) {
      const mod = (await import(path.resolve('src', file))) as Record<string, DomainEvent<unknown, unknown>>;
      found.push({ file, name: m[1], event: mod[m[1]] });
    }
  }
  return found;
}

describe('domain events (src/events.ts, issue 42)', () => {
  it('When an event is emitted, Then its reactions run in the order wired and the emitter gets every answer', async () => {
    const seen: string[] = [];
    const e = domainEvent<{ n: number }, number>('test.ordered');
    e.subscribe(async (_c, { n }) => (seen.push('first'), n + 1));
    e.subscribe(async (_c, { n }) => (seen.push('second'), n * 10));
    expect(await e.emit(core, { n: 2 })).to.deep.equal([3, 20]);
    expect(seen).to.deep.equal(['first', 'second']);
  });

  it('When a reaction throws, Then the emit throws it and the reactions after it do not run', async () => {
    const e = domainEvent<void>('test.throws');
    let after = false;
    e.subscribe(async () => {
      throw new Error('refused');
    });
    e.subscribe(async () => void (after = true));
    let caught: unknown;
    await e.emit(core, undefined).catch((err: unknown) => (caught = err));
    expect((caught as Error).message).to.equal('refused');
    expect(after).to.equal(false);
  });

  it('When an event has no reaction wired, Then emitting it is refused, naming the event', async () => {
    const e = domainEvent<void>('test.unwired');
    let caught: unknown;
    await e.emit(core, undefined).catch((err: unknown) => (caught = err));
    expect((caught as Error).message)
      .to.include('test.unwired')
      .and.include('src/reactions.ts');
  });

  it('When the services are loaded, Then every domain event declared in src/ has a reaction wired (src/reactions.ts)', async () => {
    const events = await declaredEvents();
    expect(events.map((e) => e.event.name)).to.include.members([
      'login.changed',
      'account.zone_changed',
      'leads.confirmed',
    ]);
    for (const { file, name, event } of events) expect(event.reactions, `${file} ${name}`).to.be.above(0);
  });
});
