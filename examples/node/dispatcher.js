'use strict';
/*
 * Webhook dispatcher simulation (Node.js, CommonJS, no dependencies).
 *
 * Implements the brief "Webhook Dispatcher: Retries, Ordering and Pausing" as
 * settled by spec/dispatcher.md:
 *   - retries: at most 6 attempts, waits 30, 60, 120, 240, 300 seconds;
 *   - ordering: per-endpoint FIFO, an event waits behind earlier pending ones;
 *   - pause: disable / enable (optionally replaying dead-lettered events).
 *
 * run(operations) executes [name, ts, ...args] operations against a fresh
 * dispatcher and returns one result per operation; errors are returned as
 * "error: <code>" strings and never thrown.
 *
 * Data structures:
 *   - each endpoint keeps its pending events in a min-heap keyed by enqueue
 *     order (its head is the earliest-enqueued pending event);
 *   - the dispatcher keeps a min-heap of endpoint heads keyed by
 *     (due_at, enqueue order), with lazy invalidation through a per-endpoint
 *     token that changes whenever the head or its due time changes;
 *   - dead letters are kept in insertion-ordered Maps/Sets (death order).
 * Due times are BigInts so that ts + wait stays exact near 2^53.
 */

const HOOKCHECK_PARTS = ['retries', 'ordering', 'pause'];

const MAX_ATTEMPTS = 6;
const FIRST_WAIT = 30;
const MAX_WAIT = 300;

const ERR = {
  unknownOperation: 'error: unknown operation',
  invalidArguments: 'error: invalid arguments',
  invalidOutcomes: 'error: invalid outcomes',
  unknownEndpoint: 'error: unknown endpoint',
  duplicateEndpoint: 'error: duplicate endpoint',
  duplicateEvent: 'error: duplicate event',
  unknownEvent: 'error: unknown event',
  alreadyDisabled: 'error: already disabled',
  notDisabled: 'error: not disabled',
};

/** A small binary min-heap ordered by a "less than" function. */
class MinHeap {
  constructor(less) {
    this.less = less;
    this.items = [];
  }

  get size() {
    return this.items.length;
  }

  peek() {
    return this.items[0];
  }

  push(item) {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }

  pop() {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < items.length && this.less(items[l], items[smallest])) smallest = l;
        if (r < items.length && this.less(items[r], items[smallest])) smallest = r;
        if (smallest === i) break;
        [items[i], items[smallest]] = [items[smallest], items[i]];
        i = smallest;
      }
    }
    return top;
  }
}

// ---------------------------------------------------------------------------
// Argument validation helpers

function isInt(value) {
  return typeof value === 'number' && Number.isInteger(value);
}

/** A valid ts: an integer (not a boolean) with |ts| <= 2^53 - 1. */
function isValidTs(value) {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function isString(value) {
  return typeof value === 'string';
}

function isValidStatusCode(value) {
  return isInt(value) && (value === 0 || (value >= 100 && value <= 599));
}

function isValidOutcomes(value) {
  return Array.isArray(value) && value.length > 0 && value.every(isValidStatusCode);
}

// ---------------------------------------------------------------------------
// Status classification and retry policy

function isSuccess(code) {
  return code >= 200 && code <= 299;
}

function isRetryable(code) {
  return code === 0 || code === 408 || code === 429 || (code >= 500 && code <= 599);
}

/** Wait in seconds after the k-th failed attempt (k >= 1). */
function retryWait(failedAttempts) {
  let wait = FIRST_WAIT;
  for (let k = 1; k < failedAttempts && wait < MAX_WAIT; k++) wait *= 2;
  return Math.min(wait, MAX_WAIT);
}

// ---------------------------------------------------------------------------
// Domain model

const State = Object.freeze({ PENDING: 'pending', DELIVERED: 'delivered', DEAD: 'dead' });

class WebhookEvent {
  constructor(id, endpoint, outcomes, seq, due) {
    this.id = id;
    this.endpoint = endpoint;
    this.outcomes = outcomes.slice();
    this.seq = seq; // global enqueue order
    this.due = due; // BigInt
    this.attempts = 0;
    this.state = State.PENDING;
  }

  /** Status code scripted for the next attempt (the last entry repeats). */
  nextOutcome() {
    const index = Math.min(this.attempts, this.outcomes.length - 1);
    return this.outcomes[index];
  }
}

class Endpoint {
  constructor(id, url) {
    this.id = id;
    this.url = url;
    this.disabled = false;
    this.pending = new MinHeap((a, b) => a.seq < b.seq); // per-endpoint FIFO by enqueue order
    this.dead = new Set(); // dead-lettered events, in death order
    this.headToken = 0; // changes whenever the scheduled head entry becomes stale
  }

  head() {
    return this.pending.peek();
  }
}

function headEntryLess(a, b) {
  if (a.due !== b.due) return a.due < b.due;
  return a.seq < b.seq;
}

class Dispatcher {
  constructor() {
    this.endpoints = new Map();
    this.events = new Map();
    this.deadLetters = new Map(); // event id -> event, in death order
    this.nextSeq = 0;
    this.heads = new MinHeap(headEntryLess); // scheduled endpoint heads
  }

  /** (Re)schedule the endpoint's current head, invalidating older entries. */
  scheduleHead(endpoint) {
    endpoint.headToken += 1;
    if (endpoint.disabled) return;
    const head = endpoint.head();
    if (!head) return;
    this.heads.push({ due: head.due, seq: head.seq, endpoint, token: endpoint.headToken });
  }

  isLive(entry) {
    return !entry.endpoint.disabled && entry.token === entry.endpoint.headToken;
  }

  register(ts, endpointId, url) {
    if (this.endpoints.has(endpointId)) return ERR.duplicateEndpoint;
    this.endpoints.set(endpointId, new Endpoint(endpointId, url));
    return true;
  }

  enqueue(ts, endpointId, eventId, outcomes) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    if (this.events.has(eventId)) return ERR.duplicateEvent;
    const event = new WebhookEvent(eventId, endpoint, outcomes, this.nextSeq++, BigInt(ts));
    this.events.set(eventId, event);
    const wasEmpty = endpoint.pending.size === 0;
    endpoint.pending.push(event);
    if (wasEmpty) this.scheduleHead(endpoint);
    return 'queued';
  }

  process(ts) {
    const now = BigInt(ts);
    const records = [];
    while (this.heads.size > 0) {
      const entry = this.heads.peek();
      if (!this.isLive(entry)) {
        this.heads.pop();
        continue;
      }
      if (entry.due > now) break;
      this.heads.pop();
      records.push(this.attempt(entry.endpoint, now));
      this.scheduleHead(entry.endpoint);
    }
    return records;
  }

  /** Attempt the endpoint's head event at time `now`; returns the record. */
  attempt(endpoint, now) {
    const event = endpoint.head();
    const code = event.nextOutcome();
    event.attempts += 1;
    const prefix = `${event.id} #${event.attempts} ${code}`;

    if (isSuccess(code)) {
      event.state = State.DELIVERED;
      endpoint.pending.pop();
      return `${prefix} delivered`;
    }
    if (isRetryable(code) && event.attempts < MAX_ATTEMPTS) {
      event.due = now + BigInt(retryWait(event.attempts));
      return `${prefix} retry at ${event.due}`;
    }
    event.state = State.DEAD;
    endpoint.pending.pop();
    endpoint.dead.add(event);
    this.deadLetters.set(event.id, event);
    return `${prefix} dead`;
  }

  status(ts, eventId) {
    const event = this.events.get(eventId);
    if (!event) return ERR.unknownEvent;
    let state = event.state;
    let next = null;
    if (state === State.PENDING) {
      if (event.endpoint.disabled) state = 'held';
      else next = Number(event.due);
    }
    return { state, attempts: event.attempts, next_attempt_at: next };
  }

  disable(ts, endpointId) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    if (endpoint.disabled) return ERR.alreadyDisabled;
    endpoint.disabled = true;
    endpoint.headToken += 1; // drop its scheduled head
    return true;
  }

  enable(ts, endpointId, replayDead) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    if (!endpoint.disabled) return ERR.notDisabled;
    const now = BigInt(ts);
    for (const event of endpoint.pending.items) event.due = now;
    if (replayDead) {
      for (const event of endpoint.dead) {
        event.state = State.PENDING;
        event.attempts = 0;
        event.due = now;
        this.deadLetters.delete(event.id);
        endpoint.pending.push(event);
      }
      endpoint.dead.clear();
    }
    endpoint.disabled = false;
    this.scheduleHead(endpoint);
    return true;
  }

  deadLettersFor(ts, endpointId) {
    if (endpointId === undefined) return Array.from(this.deadLetters.keys());
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    return Array.from(endpoint.dead, (event) => event.id);
  }
}

// ---------------------------------------------------------------------------
// Operation table: accepted argument counts after ts, per-argument checks
// (in position order) and the dispatcher method to call.

const checkString = (value) => (isString(value) ? null : ERR.invalidArguments);
const checkOutcomes = (value) => (isValidOutcomes(value) ? null : ERR.invalidOutcomes);
const checkBoolean = (value) => (typeof value === 'boolean' ? null : ERR.invalidArguments);

const OPERATIONS = new Map([
  ['register', { arity: [2], checks: [checkString, checkString], call: (d, ts, a) => d.register(ts, a[0], a[1]) }],
  ['enqueue', { arity: [3], checks: [checkString, checkString, checkOutcomes], call: (d, ts, a) => d.enqueue(ts, a[0], a[1], a[2]) }],
  ['process', { arity: [0], checks: [], call: (d, ts) => d.process(ts) }],
  ['status', { arity: [1], checks: [checkString], call: (d, ts, a) => d.status(ts, a[0]) }],
  ['disable', { arity: [1], checks: [checkString], call: (d, ts, a) => d.disable(ts, a[0]) }],
  ['enable', { arity: [2], checks: [checkString, checkBoolean], call: (d, ts, a) => d.enable(ts, a[0], a[1]) }],
  ['dead_letters', { arity: [0, 1], checks: [checkString], call: (d, ts, a) => d.deadLettersFor(ts, a[0]) }],
]);

function execute(dispatcher, op) {
  if (!Array.isArray(op)) return ERR.invalidArguments;
  const name = op[0];
  if (typeof name !== 'string' || !OPERATIONS.has(name)) return ERR.unknownOperation;
  const spec = OPERATIONS.get(name);
  if (op.length < 2 || !spec.arity.includes(op.length - 2)) return ERR.invalidArguments;
  const ts = op[1];
  if (!isValidTs(ts)) return ERR.invalidArguments;
  const args = op.slice(2);
  for (let i = 0; i < args.length; i++) {
    const error = spec.checks[i](args[i]);
    if (error) return error;
  }
  return spec.call(dispatcher, ts, args);
}

function run(operations) {
  const dispatcher = new Dispatcher();
  if (!Array.isArray(operations)) return [];
  return operations.map((op) => {
    try {
      return execute(dispatcher, op);
    } catch (err) {
      return ERR.invalidArguments; // defensive: never throw
    }
  });
}

module.exports = { run, HOOKCHECK_PARTS };
