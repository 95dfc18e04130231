'use strict';
/*
 * Webhook dispatcher simulation (Node.js, CommonJS, no dependencies).
 *
 * Implements the brief "Webhook Dispatcher: Retries, Ordering and Pausing"
 * (Parts 1-3) and the roadmap's Parts 4 to 11, as settled by
 * spec/dispatcher.md:
 *   - retries: at most 6 attempts, waits 30, 60, 120, 240, 300 seconds;
 *   - ordering: per-endpoint FIFO, an event waits behind earlier pending ones;
 *   - pause: disable / enable (optionally replaying dead-lettered events);
 *   - policy (Part 4): set_policy / policy, a retry policy per endpoint
 *     {attempts, waits}; the brief's schedule is the default policy, so
 *     Parts 1-3 are unchanged without set_policy;
 *   - retry-after (Part 5): outcomes entries may be {status, retry_after};
 *     429/503 with retry_after wait min(max(R, w), 2w); a 410 under
 *     "disable_on_gone": true disables the endpoint ("<id> disabled" record);
 *   - auto-disable (Part 6): every endpoint counts its consecutive failed
 *     attempts; a policy's "disable_after": F disables it (reason "failing")
 *     once a failed attempt brings the count to F or more; `endpoint` reports
 *     {disabled, reason, consecutive_failures};
 *   - dead-letters (Part 7): `dead_letter` reports an event's latest death
 *     {endpoint, attempts, last_status, died_at}; `recover` revives the
 *     endpoint's events that died at or after `since`, as a replay does;
 *   - signatures (Part 8, Standard Webhooks): `set_secret` gives an endpoint
 *     its secret (whsec_ + base64 of 24 to 64 bytes); a new one rotates, the
 *     retired one signing on for 86400 s (at most 10 kept); `enqueue` takes an
 *     optional payload, the body; `signature` shows the headers attempt n
 *     carried (signed by the secrets in force when it was made, newest
 *     first); `verify` is the receiver's check of such headers;
 *   - throttle (Part 9): a policy's "throttle": {burst: B, interval: S} gives
 *     the endpoint a token bucket, full when set, one token every S seconds
 *     counted from the set (at most B); every attempt takes one, and a due
 *     head that finds none is recorded "<id> throttled until <T>" and is due
 *     at T, the next token's time, without being an attempt;
 *   - breaker (Part 10): a policy's "breaker": {failures: F, window: W,
 *     open_for: O, probes: P} gives the endpoint a circuit breaker, closed
 *     when set; a failed attempt opens it until ts + O when the F-th most
 *     recent failure since the set or last close was less than W seconds
 *     before; while open a due head is recorded "<id> held until <T>" and is
 *     due at T, without being an attempt; from T on it is half-open: a failed
 *     probe opens it again, P successful probes in a row close it; a T past
 *     2^53 - 1 is shown as 2^53 - 1 and never reached; `endpoint` shows it as
 *     {state, until};
 *   - expiry (Part 11): a policy's "max_age": A gives each event a deadline,
 *     its age start (its enqueue, or the replay or recover that last revived
 *     it) plus the A then in force; every process call first expires, in
 *     enqueue order, the pending events whose deadline has come ("<id>
 *     expired", dead, dead-lettered with reason "expired"), without an attempt.
 *
 * How it was written: Parts 1-3 by a helper from the brief and the spec alone;
 * Parts 4-5 likewise, independently, from the roadmap (Parts 4 and 5) and
 * spec sections 1, 3, 9, 11 and 12, without reading the reference dispatcher
 * or the other example solutions; Parts 6-7 likewise, from the roadmap
 * (Parts 6 and 7) and spec sections 1, 9, 13 and 14; Part 9 likewise, from
 * the roadmap's Part 9 paragraph and spec section 15 (and the sections it
 * refers to); Part 8 likewise, from the roadmap's Part 8 paragraph and spec
 * section 16 (first drafted in spec/drafts/signatures/); Part 11 likewise,
 * from spec section 17 and the sections it refers to; Part 10 likewise, from
 * spec section 18 and the sections it refers to.
 *
 * run(operations) executes [name, ts, ...args] operations against a fresh
 * dispatcher and returns one result per operation; errors are returned as
 * "error: <code>" strings and never thrown. Arguments are checked in their
 * order, all before any state (unknown endpoint or event).
 *
 * Data structures:
 *   - each endpoint keeps its pending events in a min-heap keyed by enqueue
 *     order (its head is the earliest-enqueued pending event);
 *   - the dispatcher keeps a min-heap of endpoint heads keyed by
 *     (due_at, enqueue order), with lazy invalidation through a per-endpoint
 *     token that changes whenever the head or its due time changes (or the
 *     endpoint is disabled), so process is O(attempts * log endpoints);
 *   - dead letters are kept in death order: globally in an insertion-ordered
 *     Map, per endpoint in a doubly linked list through the events, so that
 *     `recover` walks back from the latest death and touches only the events
 *     it revives (plus one) while deaths are in died_at order, which they
 *     always are when ts never decreases (otherwise it scans the endpoint's
 *     dead letters);
 *   - the consecutive failure count is a per-endpoint counter, O(1) per
 *     attempt;
 *   - a throttle's bucket is brought up to date only when its endpoint's head
 *     is picked: its bucket time (the largest ts of the set and of every
 *     process call since, throttle.time-back) comes from one dispatcher-wide
 *     stack of suffix maxima of the process calls' ts, with their call
 *     numbers, searched by binary search, so process stays
 *     O(attempts * log) and never visits endpoints that have nothing due.
 *     Token counts are computed in BigInt: anchor and ts may be 2^53 apart;
 *   - signing (Part 8): an endpoint holds its current secret and a queue of
 *     at most 10 retired ones; an attempt made while its endpoint has a
 *     secret records its ts and the keys that signed it (in a Map on the
 *     event, created at the first such attempt), and `signature` computes
 *     the HMACs from them when asked: O(signers) per attempt;
 *   - expiry (Part 11): a dispatcher-wide min-heap of deadlines, one entry per
 *     age started with a max_age, stale entries (delivered, dead or revived
 *     events) dropped as they come up; a process call pops the entries due at
 *     its ts and sorts the expiring events by enqueue order, and the endpoint
 *     heaps track each event's position, so an event leaves its endpoint's
 *     queue from any place in O(log n). A call with nothing expiring costs O(1);
 *   - a breaker (Part 10) keeps its open-until time T (null while closed;
 *     open or half-open is read from T and the ts, so no call visits it to
 *     turn it half-open), its successful probes in a row, and a ring of the
 *     times of its last F failures since the set or last close: O(1) per
 *     attempt and per picked head. Events held back by the throttle or the
 *     breaker since their last attempt (its "parked" events) are released
 *     together by set_policy.
 * Due times are plain numbers: every ts is a safe integer (op.ts-range) and a
 * retry that would fall due after 2^53 - 1 kills the event instead
 * (retry.beyond-range), so every stored due time is exact in a double; so is
 * every deadline, as one after 2^53 - 1 is no deadline (expiry.beyond-range).
 */

const crypto = require('node:crypto');

const HOOKCHECK_PARTS = ['retries', 'ordering', 'pause', 'policy', 'retry-after', 'auto-disable', 'dead-letters', 'signatures', 'throttle', 'breaker', 'expiry'];
// Part 8 is offered exactly when declared: without it set_secret, signature
// and verify are unknown operations and enqueue takes no payload (sig.absent).
const SIGNATURES = HOOKCHECK_PARTS.includes('signatures');
// Part 11 likewise: without it max_age is no key of the policy (expiry.parts).
const EXPIRY = HOOKCHECK_PARTS.includes('expiry');
// Part 10 likewise: without it breaker is no key of the policy (breaker.parts).
const BREAKER = HOOKCHECK_PARTS.includes('breaker');

// The brief's schedule, the default policy: 6 attempts; the first wait is 30 s
// and doubles after every further failure, capped at 300 s: 30, 60, 120, 240, 300.
const DEFAULT_ATTEMPTS = 6;
const FIRST_WAIT = 30;
const MAX_WAIT = 300;
const DEFAULT_WAITS = Object.freeze(
  Array.from({ length: DEFAULT_ATTEMPTS - 1 }, (_, k) => Math.min(FIRST_WAIT * 2 ** k, MAX_WAIT)),
);

const MAX_POLICY_ATTEMPTS = 100;
const MAX_WAIT_SECONDS = 2592000; // 30 days, for policy waits and retry_after
const MAX_DISABLE_AFTER = 1000;
const MAX_BURST = 1000000; // throttle.valid; the interval's bound is MAX_WAIT_SECONDS
const MAX_AGE_SECONDS = 31536000; // 365 days (expiry.valid)
const MAX_BREAKER_FAILURES = 1000; // breaker.valid; window and open_for are bounded by MAX_WAIT_SECONDS
const MAX_BREAKER_PROBES = 100;
const POLICY_KEYS = new Set(['attempts', 'waits', 'disable_on_gone', 'disable_after', 'throttle']);
if (EXPIRY) POLICY_KEYS.add('max_age'); // a key only of a policy of Part 11 (expiry.parts)
if (BREAKER) POLICY_KEYS.add('breaker'); // a key only of a policy of Part 10 (breaker.parts)
const THROTTLE_KEYS = new Set(['burst', 'interval']);
const BREAKER_KEYS = new Set(['failures', 'window', 'open_for', 'probes']);
const OUTCOME_KEYS = new Set(['status', 'retry_after']);

// Part 8 (signatures).
const SECRET_PREFIX = 'whsec_';
const SECRET_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/; // length and canonical form checked apart
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const GRACE = 86400; // a retired secret signs while ts - R < GRACE
const MAX_PREVIOUS = 10;
const TOLERANCE = 300; // verify: seconds between the timestamp and the receiver's clock
const HEADER_ID = 'webhook-id';
const HEADER_TIMESTAMP = 'webhook-timestamp';
const HEADER_SIGNATURE = 'webhook-signature';
const SIGNED_HEADERS = [HEADER_ID, HEADER_TIMESTAMP, HEADER_SIGNATURE];
// The decimal text of an integer: 0, or an optional minus then no leading zero.
const TIMESTAMP_TEXT = /^(?:0|-?[1-9][0-9]*)$/;
const TIMESTAMP_MAX_LENGTH = String(-Number.MAX_SAFE_INTEGER).length;

const ERR = {
  unknownOperation: 'error: unknown operation',
  invalidArguments: 'error: invalid arguments',
  invalidOutcomes: 'error: invalid outcomes',
  invalidPolicy: 'error: invalid policy',
  unknownEndpoint: 'error: unknown endpoint',
  duplicateEndpoint: 'error: duplicate endpoint',
  duplicateEvent: 'error: duplicate event',
  unknownEvent: 'error: unknown event',
  alreadyDisabled: 'error: already disabled',
  notDisabled: 'error: not disabled',
  notDead: 'error: not dead',
  invalidSecret: 'error: invalid secret',
  attemptNotMade: 'error: attempt not made',
  noSecret: 'error: no secret',
  missingHeader: 'error: missing header',
  badTimestamp: 'error: bad timestamp',
  timestampTooOld: 'error: timestamp too old',
  timestampTooNew: 'error: timestamp too new',
  noMatchingSignature: 'error: no matching signature',
};

/**
 * A small binary min-heap ordered by a "less than" function. With `indexKey`,
 * every item keeps its position in the heap in that property, so that any
 * item (not only the top) can be removed in O(log n); an item is then in at
 * most one such heap at a time.
 */
class MinHeap {
  constructor(less, indexKey = null) {
    this.less = less;
    this.indexKey = indexKey;
    this.items = [];
  }

  get size() {
    return this.items.length;
  }

  peek() {
    return this.items[0];
  }

  place(i, item) {
    this.items[i] = item;
    if (this.indexKey !== null) item[this.indexKey] = i;
  }

  swap(i, j) {
    const a = this.items[i];
    this.place(i, this.items[j]);
    this.place(j, a);
  }

  siftUp(i) {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i], items[parent])) break;
      this.swap(i, parent);
      i = parent;
    }
    return i;
  }

  siftDown(i) {
    const items = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < items.length && this.less(items[l], items[smallest])) smallest = l;
      if (r < items.length && this.less(items[r], items[smallest])) smallest = r;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  push(item) {
    this.place(this.items.length, item);
    this.siftUp(this.items.length - 1);
  }

  pop() {
    return this.removeAt(0);
  }

  /** Remove an item of a heap built with `indexKey`. */
  remove(item) {
    this.removeAt(item[this.indexKey]);
  }

  removeAt(i) {
    const items = this.items;
    if (i >= items.length) return undefined;
    const removed = items[i];
    const last = items.pop();
    if (i < items.length) {
      this.place(i, last);
      if (this.siftUp(i) === i) this.siftDown(i);
    }
    if (this.indexKey !== null) removed[this.indexKey] = -1;
    return removed;
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

function isIntInRange(value, min, max) {
  return isInt(value) && value >= min && value <= max;
}

/** A JSON object: not null, not a list. */
function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** True when every own key of `obj` is in `allowed` and every key of `required` is present. */
function hasOnlyKeys(obj, allowed, required) {
  return Object.keys(obj).every((key) => allowed.has(key)) && required.every((key) => Object.hasOwn(obj, key));
}

function isValidStatusCode(value) {
  return isInt(value) && (value === 0 || (value >= 100 && value <= 599));
}

/** An outcomes entry: a status, or {"status": S} / {"status": S, "retry_after": R} (Part 5). */
function isValidOutcome(value) {
  if (!isPlainObject(value)) return isValidStatusCode(value);
  if (!hasOnlyKeys(value, OUTCOME_KEYS, ['status'])) return false;
  if (!isValidStatusCode(value.status)) return false;
  return !Object.hasOwn(value, 'retry_after') || isIntInRange(value.retry_after, 0, MAX_WAIT_SECONDS);
}

function isValidOutcomes(value) {
  return Array.isArray(value) && value.length > 0 && value.every(isValidOutcome);
}

/** A throttle (Part 9): exactly {burst, interval}, 1 <= burst <= 1000000, 1 <= interval <= 30 days. */
function isValidThrottle(value) {
  if (!isPlainObject(value) || !hasOnlyKeys(value, THROTTLE_KEYS, ['burst', 'interval'])) return false;
  return isIntInRange(value.burst, 1, MAX_BURST) && isIntInRange(value.interval, 1, MAX_WAIT_SECONDS);
}

/**
 * A breaker (Part 10): exactly {failures, window, open_for, probes}, failures 1 to 1000,
 * window and open_for 1 to 30 days, probes 1 to 100 (breaker.valid).
 */
function isValidBreaker(value) {
  if (!isPlainObject(value) || !hasOnlyKeys(value, BREAKER_KEYS, Array.from(BREAKER_KEYS))) return false;
  return (
    isIntInRange(value.failures, 1, MAX_BREAKER_FAILURES) &&
    isIntInRange(value.window, 1, MAX_WAIT_SECONDS) &&
    isIntInRange(value.open_for, 1, MAX_WAIT_SECONDS) &&
    isIntInRange(value.probes, 1, MAX_BREAKER_PROBES)
  );
}

/** A retry policy (Parts 4 to 6 and 9 to 11), or null for the default policy. */
function isValidPolicy(value) {
  if (value === null) return true;
  if (!isPlainObject(value)) return false;
  if (!hasOnlyKeys(value, POLICY_KEYS, ['attempts', 'waits'])) return false;
  if (!isIntInRange(value.attempts, 1, MAX_POLICY_ATTEMPTS)) return false;
  const waits = value.waits;
  if (!Array.isArray(waits) || waits.length === 0) return false;
  if (!waits.every((w) => isIntInRange(w, 1, MAX_WAIT_SECONDS))) return false;
  if (Object.hasOwn(value, 'disable_on_gone') && typeof value.disable_on_gone !== 'boolean') return false;
  if (Object.hasOwn(value, 'disable_after') && !isIntInRange(value.disable_after, 1, MAX_DISABLE_AFTER)) return false;
  if (Object.hasOwn(value, 'max_age') && !isIntInRange(value.max_age, 1, MAX_AGE_SECONDS)) return false;
  if (Object.hasOwn(value, 'breaker') && !isValidBreaker(value.breaker)) return false;
  return !Object.hasOwn(value, 'throttle') || isValidThrottle(value.throttle);
}

// ---------------------------------------------------------------------------
// Signatures (Part 8)

/**
 * The key of a valid secret (sig.secret-strict), or null: "whsec_" and the
 * canonical padded standard base64 of 24 to 64 bytes, nothing else (no
 * whitespace, no URL-safe alphabet, no missing or extra padding).
 */
function decodeSecret(value) {
  if (typeof value !== 'string' || !value.startsWith(SECRET_PREFIX)) return null;
  const text = value.slice(SECRET_PREFIX.length);
  if (text.length === 0 || text.length % 4 !== 0 || !SECRET_BASE64.test(text)) return null;
  const key = Buffer.from(text, 'base64');
  if (key.toString('base64') !== text) return null; // non-zero unused bits
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : null;
}

/** A header name in ASCII lower case (other characters unchanged, as HTTP compares names). */
function asciiLower(name) {
  return name.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** verify's secrets: a non-empty list of valid secrets. */
function isValidSecretList(value) {
  return Array.isArray(value) && value.length > 0 && value.every((s) => decodeSecret(s) !== null);
}

/**
 * verify's headers: an object of string values naming each of the three
 * signed headers at most once, ignoring ASCII case (sig.verify-headers).
 */
function isValidHeaders(value) {
  if (!isPlainObject(value)) return false;
  const named = new Set();
  for (const [name, header] of Object.entries(value)) {
    if (typeof header !== 'string') return false;
    const lower = asciiLower(name);
    if (SIGNED_HEADERS.includes(lower)) {
      if (named.has(lower)) return false;
      named.add(lower);
    }
  }
  return true;
}

/** The bytes HMAC-SHA256 signs: the UTF-8 of "<id>.<timestamp>.<body>". */
function signedContent(messageId, timestamp, body) {
  return Buffer.from(`${messageId}.${timestamp}.${body}`, 'utf8');
}

/** The padded standard base64 of HMAC-SHA256(key, content): what follows "v1,". */
function sign(key, content) {
  return crypto.createHmac('sha256', key).update(content).digest('base64');
}

/**
 * The receiver's check (sig.verify); its arguments have been checked. Reads
 * no state of the dispatcher.
 */
function verify(ts, secrets, headers, body) {
  const found = new Map();
  for (const [name, value] of Object.entries(headers)) {
    const lower = asciiLower(name);
    if (SIGNED_HEADERS.includes(lower)) found.set(lower, value);
  }
  const messageId = found.get(HEADER_ID) ?? '';
  const timestamp = found.get(HEADER_TIMESTAMP) ?? '';
  const signatures = found.get(HEADER_SIGNATURE) ?? '';
  if (messageId === '' || timestamp === '' || signatures === '') return ERR.missingHeader;
  if (timestamp.length > TIMESTAMP_MAX_LENGTH || !TIMESTAMP_TEXT.test(timestamp)) return ERR.badTimestamp;
  // At most 17 characters: a 16-digit text above 2^53 - 1 parses to 2^53 or more, never below.
  const sentAt = Number(timestamp);
  if (!Number.isSafeInteger(sentAt)) return ERR.badTimestamp;
  if (ts - sentAt > TOLERANCE) return ERR.timestampTooOld;
  if (sentAt - ts > TOLERANCE) return ERR.timestampTooNew;
  const content = signedContent(messageId, timestamp, body);
  const expected = secrets.map((secret) => Buffer.from(sign(decodeSecret(secret), content), 'ascii'));
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue; // other versions, empty entries
    const given = Buffer.from(entry.slice(comma + 1), 'utf8');
    if (expected.some((e) => e.length === given.length && crypto.timingSafeEqual(e, given))) return true;
  }
  return ERR.noMatchingSignature;
}

// ---------------------------------------------------------------------------
// Status classification and retry policy

function isSuccess(code) {
  return code >= 200 && code <= 299;
}

function isRetryable(code) {
  return code === 0 || code === 408 || code === 429 || (code >= 500 && code <= 599);
}

/** Statuses whose retry_after is honoured (Part 5). */
function honoursRetryAfter(code) {
  return code === 429 || code === 503;
}

const GONE = 410;

/**
 * An endpoint's retry policy. `given` is the object as set_policy received it
 * (validated), kept so that the `policy` query returns exactly its keys.
 */
class RetryPolicy {
  constructor(attempts, waits, disableOnGone, disableAfter, given) {
    this.attempts = attempts;
    this.waits = waits;
    this.disableOnGone = disableOnGone;
    this.disableAfter = disableAfter; // null: never disabled automatically (Part 6)
    this.given = given;
  }

  /** Build from a value accepted by isValidPolicy (null: the default policy). */
  static from(value) {
    if (value === null) return DEFAULT_POLICY;
    const given = {};
    for (const key of Object.keys(value)) given[key] = copyValue(value[key]);
    const disableAfter = Object.hasOwn(given, 'disable_after') ? given.disable_after : null;
    return new RetryPolicy(given.attempts, given.waits, given.disable_on_gone === true, disableAfter, given);
  }

  /** Wait in seconds after the n-th failed attempt (n >= 1); the last entry repeats. */
  waitAfter(failedAttempts) {
    return this.waits[Math.min(failedAttempts, this.waits.length) - 1];
  }

  /** A fresh copy of the policy as given, for the `policy` query. */
  toResult() {
    const result = {};
    for (const [key, value] of Object.entries(this.given)) result[key] = copyValue(value);
    return result;
  }

  /** The throttle as given ({burst, interval}), or null without one. */
  get throttle() {
    return Object.hasOwn(this.given, 'throttle') ? this.given.throttle : null;
  }

  /** The breaker as given ({failures, window, open_for, probes}), or null without one (Part 10). */
  get breaker() {
    return Object.hasOwn(this.given, 'breaker') ? this.given.breaker : null;
  }

  /** The maximum event age A in seconds (Part 11), or null: events never expire. */
  get maxAge() {
    return Object.hasOwn(this.given, 'max_age') ? this.given.max_age : null;
  }
}

/** A copy of a policy value: waits (a list), throttle and breaker (objects) are copied, not shared. */
function copyValue(value) {
  if (Array.isArray(value)) return value.slice();
  if (isPlainObject(value)) return { ...value };
  return value;
}

const DEFAULT_POLICY = new RetryPolicy(DEFAULT_ATTEMPTS, DEFAULT_WAITS, false, null, {
  attempts: DEFAULT_ATTEMPTS,
  waits: DEFAULT_WAITS,
});

// ---------------------------------------------------------------------------
// Throttling (Part 9)

/**
 * The ts of the process calls made so far, kept as the suffix maxima: a stack
 * of { call, ts } with call numbers increasing and ts strictly decreasing from
 * bottom to top. The largest ts of the calls numbered after m is the ts of the
 * lowest entry whose call is after m.
 */
class ProcessCalls {
  constructor() {
    this.count = 0;
    this.maxima = [];
  }

  record(ts) {
    this.count += 1;
    while (this.maxima.length > 0 && this.maxima[this.maxima.length - 1].ts <= ts) this.maxima.pop();
    this.maxima.push({ call: this.count, ts });
  }

  /** The largest ts of the calls made after call number `after`, or null if none was. */
  maxTsAfter(after) {
    let lo = 0;
    let hi = this.maxima.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.maxima[mid].call > after) hi = mid;
      else lo = mid + 1;
    }
    return lo < this.maxima.length ? this.maxima[lo].ts : null;
  }
}

/**
 * A throttle's token bucket (throttle.bucket, throttle.clock): full (burst
 * tokens) when set at `anchor`; tokens come at anchor + k * interval,
 * k = 1, 2, ..., whatever is taken when, and one that comes while the bucket
 * is full is lost. `countedTo` is the bucket time c: tokens whose times are at
 * or before it have been counted. It is the largest of the anchor and the ts
 * of every process call since the set (throttle.time-back), so a ts that goes
 * back adds no token and takes none back.
 */
class TokenBucket {
  constructor(throttle, ts, callsBefore) {
    this.burst = throttle.burst;
    this.interval = BigInt(throttle.interval);
    this.anchor = BigInt(ts);
    this.tokens = throttle.burst;
    this.countedTo = BigInt(ts);
    this.callsBefore = callsBefore; // process calls made before the set: later ones count
  }

  /** Count the tokens that came up to the bucket time the process calls give. */
  refill(calls) {
    const latest = calls.maxTsAfter(this.callsBefore);
    if (latest === null || BigInt(latest) <= this.countedTo) return;
    const to = BigInt(latest);
    const came = (to - this.anchor) / this.interval - (this.countedTo - this.anchor) / this.interval;
    const total = BigInt(this.tokens) + came; // came may be huge: cap before leaving BigInt
    this.tokens = total < BigInt(this.burst) ? Number(total) : this.burst;
    this.countedTo = to;
  }

  /** The next token's time, the first after the bucket time; 2^53 - 1 if later (throttle.beyond-range). */
  nextTokenAt() {
    const next = this.anchor + ((this.countedTo - this.anchor) / this.interval + 1n) * this.interval;
    return next > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(next);
  }
}

// ---------------------------------------------------------------------------
// Circuit breaker (Part 10)

/**
 * An endpoint's circuit breaker, closed when set (breaker.set). `until` is the
 * time T while open or half-open, null while closed: it is open for a ts
 * before T and half-open from T on, whatever probes were made before
 * (breaker.states, breaker.states-time, breaker.report-time), so nothing has
 * to visit it when T comes. When ts + O is past 2^53 - 1 (not exact in a
 * double), `until` shows the limit and `beyond` is set: no ts reaches the real
 * T, so it stays open at every later ts, the limit included
 * (breaker.beyond-range). `failureTimes` is a ring of
 * the times of the last F failures since the set or the last close
 * (breaker.window), in operation order; only those are needed to decide an
 * opening. It grows with the failures, so a breaker costs nothing until its
 * endpoint fails.
 */
class CircuitBreaker {
  constructor(breaker) {
    this.failures = breaker.failures;
    this.window = breaker.window;
    this.openFor = breaker.open_for;
    this.probes = breaker.probes;
    this.until = null; // T as shown (clamped to 2^53 - 1); null while closed
    this.beyond = false; // the real T is past 2^53 - 1: open for every ts (breaker.beyond-range)
    this.successes = 0; // successful probes in a row in this half-open stretch
    this.failureTimes = []; // at most F; ts are safe integers, exact in a double
    this.nextSlot = 0; // once the ring is full: the slot of the oldest, which the next failure takes
  }

  /**
   * Whether it is open at `ts`: T not reached (breaker.states-time), or never reachable
   * (breaker.beyond-range). A head picked while open is held (breaker.held); an attempt that
   * opens it makes T later than its ts (O >= 1), so it is open for the rest of that call.
   */
  isOpen(ts) {
    return this.until !== null && (this.beyond || ts < this.until);
  }

  /** The `endpoint` report of it at `ts` (breaker.report, breaker.report-time). */
  report(ts) {
    if (this.until === null) return { state: 'closed', until: null };
    if (this.isOpen(ts)) return { state: 'open', until: this.until };
    return { state: 'half-open', until: null };
  }

  /** Open (again) at a failure at `ts`: until ts + O, shown clamped to 2^53 - 1. */
  open(ts) {
    // Compared before adding: ts + O is exact only up to 2^53 - 1 (breaker.beyond-range).
    this.beyond = ts > Number.MAX_SAFE_INTEGER - this.openFor;
    this.until = this.beyond ? Number.MAX_SAFE_INTEGER : ts + this.openFor;
    this.successes = 0;
  }

  /**
   * An attempt was made at `ts` (it is not held, so the breaker is closed or half-open): a failure
   * opens it by the window while closed, and again while half-open; a success while half-open is
   * a probe that closes it after P in a row, forgetting the failures (breaker.close).
   */
  recordAttempt(ts, failed) {
    if (this.until === null) {
      if (!failed) return; // successes change nothing while closed
      const times = this.failureTimes;
      if (times.length < this.failures) {
        times.push(ts);
      } else {
        times[this.nextSlot] = ts;
        this.nextSlot = (this.nextSlot + 1) % this.failures;
      }
      // F failures counted: the oldest of the ring (at nextSlot) is the F-th most recent,
      // this one being the first; it counts while less than W seconds before ts.
      if (times.length === this.failures && ts - times[this.nextSlot] < this.window) this.open(ts);
      return;
    }
    if (failed) {
      this.open(ts);
      return;
    }
    this.successes += 1;
    if (this.successes >= this.probes) {
      this.until = null;
      this.beyond = false;
      this.successes = 0;
      this.failureTimes = []; // the failures counted so far are forgotten (breaker.close)
      this.nextSlot = 0;
    }
  }
}

// ---------------------------------------------------------------------------
// Domain model

const State = Object.freeze({ PENDING: 'pending', DELIVERED: 'delivered', DEAD: 'dead' });

/** Why an endpoint is disabled (Part 6's `endpoint` report); null while enabled. */
const Reason = Object.freeze({ MANUAL: 'manual', GONE: 'gone', FAILING: 'failing' });

/** Normalise an outcomes entry to { status, retryAfter } (retryAfter null when absent). */
function toOutcome(entry) {
  if (isPlainObject(entry)) {
    return { status: entry.status, retryAfter: Object.hasOwn(entry, 'retry_after') ? entry.retry_after : null };
  }
  return { status: entry, retryAfter: null };
}

class WebhookEvent {
  constructor(id, endpoint, outcomes, seq, due, body) {
    this.id = id;
    this.endpoint = endpoint;
    this.outcomes = outcomes.map(toOutcome);
    this.seq = seq; // global enqueue order
    this.due = due;
    this.attempts = 0;
    this.state = State.PENDING;
    // Its latest death (Part 7): the status of its last attempt (null if it
    // made none) and the ts of the process call that killed it, and whether
    // that death was an expiry (Part 11). Kept after a revival, reported while dead.
    this.lastStatus = null;
    this.diedAt = null;
    this.expired = false;
    // Part 11: its entry { at, event } in the dispatcher's deadline heap, for
    // the age started at its enqueue or last revival; null without a deadline.
    this.deadline = null;
    this.pendingIndex = -1; // its place in its endpoint's pending heap while pending
    // Links of its endpoint's DeadList while dead-lettered.
    this.deadPrev = null;
    this.deadNext = null;
    this.body = body; // Part 8: the payload, the body of every attempt
    // Part 8: attempt number -> { at, keys } (the ts it was made at, the keys
    // that signed it, newest first), for the attempts of this life (since the
    // enqueue or the last revival) made while the endpoint had a secret; null
    // until one is.
    this.signed = null;
  }

  /** Outcome scripted for the next attempt (the last entry repeats). */
  nextOutcome() {
    const index = Math.min(this.attempts, this.outcomes.length - 1);
    return this.outcomes[index];
  }

  /** Status of the latest attempt made since the enqueue or last revival, or null if none was. */
  lastAttemptStatus() {
    if (this.attempts === 0) return null;
    return this.outcomes[Math.min(this.attempts, this.outcomes.length) - 1].status;
  }
}

/**
 * An endpoint's dead-lettered events in death order, as a doubly linked list
 * through the events (O(1) append and removal, walks both ways). `descents`
 * counts the adjacent pairs whose died_at decreases: while it is 0 the list is
 * sorted by died_at as well, so the events that died at or after a time are a
 * suffix, found from the tail.
 */
class DeadList {
  constructor() {
    this.first = null;
    this.last = null;
    this.descents = 0;
  }

  static descent(a, b) {
    return a !== null && b !== null && b.diedAt < a.diedAt ? 1 : 0;
  }

  append(event) {
    event.deadPrev = this.last;
    event.deadNext = null;
    this.descents += DeadList.descent(this.last, event);
    if (this.last) this.last.deadNext = event;
    else this.first = event;
    this.last = event;
  }

  remove(event) {
    const prev = event.deadPrev;
    const next = event.deadNext;
    this.descents += DeadList.descent(prev, next) - DeadList.descent(prev, event) - DeadList.descent(event, next);
    if (prev) prev.deadNext = next;
    else this.first = next;
    if (next) next.deadPrev = prev;
    else this.last = prev;
    event.deadPrev = null;
    event.deadNext = null;
  }

  *[Symbol.iterator]() {
    for (let event = this.first; event !== null; event = event.deadNext) yield event;
  }

  /** The events whose died_at >= since (in no particular order). */
  diedSince(since) {
    const found = [];
    if (this.descents === 0) {
      for (let event = this.last; event !== null && event.diedAt >= since; event = event.deadPrev) found.push(event);
    } else {
      for (const event of this) if (event.diedAt >= since) found.push(event);
    }
    return found;
  }
}

class Endpoint {
  constructor(id, url) {
    this.id = id;
    this.url = url;
    this.disabled = false;
    this.reason = null; // a Reason while disabled (Part 6)
    this.failures = 0; // consecutive failed attempts across its events (auto.count)
    this.policy = DEFAULT_POLICY;
    // Per-endpoint FIFO by enqueue order; an event that expires leaves it from any place.
    this.pending = new MinHeap((a, b) => a.seq < b.seq, 'pendingIndex');
    this.dead = new DeadList(); // dead-lettered events, in death order
    this.headToken = 0; // changes whenever the scheduled head entry becomes stale
    this.bucket = null; // a TokenBucket while the policy has a throttle (Part 9)
    this.breaker = null; // a CircuitBreaker while the policy has a breaker (Part 10)
    // Events throttled (Part 9) or held by the breaker (Part 10) since their last attempt,
    // expiry, enable or set_policy: set_policy releases them (throttle.release, breaker.set).
    this.parked = new Set();
    this.secret = null; // Part 8: the current secret, { text, key }, or null before any
    this.previous = []; // Part 8: retired secrets { text, key, retiredAt }, oldest first (at most 10)
  }

  /**
   * The keys that sign an attempt made now at `ts`, newest first: the current
   * secret's, then those of the previous secrets within their grace
   * (ts - R < 86400), most recently retired first (sig.signers-order).
   */
  signingKeys(ts) {
    const keys = [this.secret.key];
    for (let i = this.previous.length - 1; i >= 0; i--) {
      const retired = this.previous[i];
      if (ts - retired.retiredAt < GRACE) keys.push(retired.key);
    }
    return keys;
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
    this.processCalls = new ProcessCalls(); // every process call's ts, for the buckets' time
    // Part 11: deadline entries { at, event } by time; an entry is stale once its event is no
    // longer pending or has a newer age (event.deadline is another entry), and is dropped when popped.
    this.deadlines = new MinHeap((a, b) => a.at < b.at);
  }

  /**
   * Start the event's age at ts (its enqueue or a revival): its deadline is ts plus the max_age
   * of its endpoint's policy now in force, fixed from now on (expiry.deadline); none without one.
   */
  startAge(event, ts) {
    const maxAge = event.endpoint.policy.maxAge;
    // expiry.beyond-range: ts and A are safe integers, so the double sum is exact up to 2^53 - 1
    // and stays above it past it; a deadline after 2^53 - 1 is never reached, no deadline.
    if (maxAge === null || ts + maxAge > Number.MAX_SAFE_INTEGER) {
      event.deadline = null;
      return;
    }
    event.deadline = { at: ts + maxAge, event };
    this.deadlines.push(event.deadline);
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

  enqueue(ts, endpointId, eventId, outcomes, payload = '') {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    if (this.events.has(eventId)) return ERR.duplicateEvent;
    const event = new WebhookEvent(eventId, endpoint, outcomes, this.nextSeq++, ts, payload);
    this.events.set(eventId, event);
    this.startAge(event, ts);
    const wasEmpty = endpoint.pending.size === 0;
    endpoint.pending.push(event);
    if (wasEmpty) this.scheduleHead(endpoint);
    return 'queued';
  }

  process(ts) {
    this.processCalls.record(ts);
    const records = [];
    this.expire(ts, records); // expiry.record: before any attempt
    // Endpoints whose head was throttled or held in this call: their head is scheduled again only
    // after the call, so it is never picked twice in one call (throttle.record,
    // throttle.beyond-range, breaker.record, breaker.beyond-range).
    const parkedNow = [];
    while (this.heads.size > 0) {
      const entry = this.heads.peek();
      if (!this.isLive(entry)) {
        this.heads.pop();
        continue;
      }
      if (entry.due > ts) break;
      this.heads.pop();
      const endpoint = entry.endpoint;
      // The breaker first: a held head takes no token (breaker.with-throttle).
      if (endpoint.breaker !== null && endpoint.breaker.isOpen(ts)) {
        this.hold(endpoint, records);
        parkedNow.push(endpoint);
        continue;
      }
      if (endpoint.bucket !== null) {
        endpoint.bucket.refill(this.processCalls);
        if (endpoint.bucket.tokens === 0) {
          this.throttle(endpoint, records);
          parkedNow.push(endpoint);
          continue;
        }
        endpoint.bucket.tokens -= 1; // every attempt, first or retry, takes one token
      }
      this.attempt(endpoint, ts, records);
      this.scheduleHead(endpoint);
    }
    for (const endpoint of parkedNow) this.scheduleHead(endpoint);
    return records;
  }

  /**
   * Expire every pending event whose deadline is at or before ts, in enqueue order (expiry.record):
   * dead and dead-lettered without an attempt, whatever its place (head, blocked, retrying,
   * throttled, held). An expired head frees its endpoint's next event for this call's attempts.
   */
  expire(ts, records) {
    const expired = [];
    while (this.deadlines.size > 0 && this.deadlines.peek().at <= ts) {
      const entry = this.deadlines.pop();
      const event = entry.event;
      if (event.deadline === entry && event.state === State.PENDING) expired.push(event);
    }
    if (expired.length > 1) expired.sort((a, b) => a.seq - b.seq);
    for (const event of expired) {
      const endpoint = event.endpoint;
      const wasHead = endpoint.head() === event;
      endpoint.pending.remove(event);
      endpoint.parked.delete(event);
      // Not an attempt: attempts, outcomes, the failure count and the tokens stay (expiry.not-attempt).
      this.bury(event, ts, event.lastAttemptStatus(), true);
      records.push(`${event.id} expired`);
      if (wasHead) this.scheduleHead(endpoint);
    }
  }

  /** Make a pending event, already out of its endpoint's pending heap, dead and dead-lettered. */
  bury(event, now, lastStatus, expired) {
    event.state = State.DEAD;
    event.lastStatus = lastStatus;
    event.diedAt = now;
    event.expired = expired;
    event.endpoint.dead.append(event);
    this.deadLetters.set(event.id, event);
  }

  /**
   * The head finds no token: it is not attempted (attempt count, outcomes, retry
   * schedule and failure count untouched) and is due when the next token comes.
   */
  throttle(endpoint, records) {
    const event = endpoint.head();
    event.due = endpoint.bucket.nextTokenAt();
    endpoint.parked.add(event);
    records.push(`${event.id} throttled until ${event.due}`);
  }

  /**
   * The breaker is open: the head is not attempted (attempt count, outcomes, retry schedule,
   * failure count and tokens untouched) and is due when the breaker turns half-open: at 2^53 - 1
   * when that is past it, held again at every later call (breaker.beyond-range).
   */
  hold(endpoint, records) {
    const event = endpoint.head();
    event.due = endpoint.breaker.until;
    endpoint.parked.add(event);
    records.push(`${event.id} held until ${event.due}`);
  }

  /** Attempt the endpoint's head event at time `now`, appending its record(s) to `records`. */
  attempt(endpoint, now, records) {
    const event = endpoint.head();
    const { status: code, retryAfter } = event.nextOutcome();
    const policy = endpoint.policy; // the policy in force when this attempt fails (policy.in-force)
    endpoint.parked.delete(event); // its attempt ends its throttling or holding
    event.attempts += 1;
    if (endpoint.secret !== null) {
      // The signers are fixed as the attempt is made (sig.signers-order).
      if (event.signed === null) event.signed = new Map();
      event.signed.set(event.attempts, { at: now, keys: endpoint.signingKeys(now) });
    }
    const prefix = `${event.id} #${event.attempts} ${code}`;

    const failed = !isSuccess(code);
    // The breaker counts every non-2xx attempt as a failure, as auto.count does; it writes no record.
    if (endpoint.breaker !== null) endpoint.breaker.recordAttempt(now, failed);
    if (!failed) {
      event.state = State.DELIVERED;
      endpoint.pending.pop();
      endpoint.failures = 0;
      records.push(`${prefix} delivered`);
      return;
    }
    endpoint.failures += 1; // any non-2xx attempt (auto.count)
    if (!this.scheduleRetry(event, code, retryAfter, policy, now)) {
      endpoint.pending.pop();
      this.bury(event, now, code, false);
      records.push(`${prefix} dead`);
    } else {
      records.push(`${prefix} retry at ${event.due}`);
    }
    // gone.disable first: a 410 that also reaches disable_after is "gone", one record.
    let reason = null;
    if (code === GONE && policy.disableOnGone) reason = Reason.GONE;
    else if (policy.disableAfter !== null && endpoint.failures >= policy.disableAfter) reason = Reason.FAILING;
    if (reason !== null) {
      this.pause(endpoint, reason);
      records.push(`${endpoint.id} disabled`);
    }
  }

  /** Schedule the retry of a failed attempt; false when the event dies instead. */
  scheduleRetry(event, code, retryAfter, policy, now) {
    if (!isRetryable(code) || event.attempts >= policy.attempts) return false;
    const w = policy.waitAfter(event.attempts);
    const wait = honoursRetryAfter(code) && retryAfter !== null ? Math.min(Math.max(retryAfter, w), 2 * w) : w;
    // retry.beyond-range: a retry due after 2^53 - 1 could never be made; the event dies.
    // ts and wait are safe integers, so the double sum is exact up to the limit and
    // stays above it past the limit.
    if (now + wait > Number.MAX_SAFE_INTEGER) return false;
    event.due = now + wait;
    return true;
  }

  status(ts, eventId) {
    const event = this.events.get(eventId);
    if (!event) return ERR.unknownEvent;
    let state = event.state;
    let next = null;
    if (state === State.PENDING) {
      if (event.endpoint.disabled) state = 'held';
      else next = event.due;
    }
    return { state, attempts: event.attempts, next_attempt_at: next };
  }

  disable(ts, endpointId) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    if (endpoint.disabled) return ERR.alreadyDisabled;
    this.pause(endpoint, Reason.MANUAL);
    return true;
  }

  /** Disable an endpoint (by `disable`, a 410 under disable_on_gone, or disable_after). */
  pause(endpoint, reason) {
    endpoint.disabled = true;
    endpoint.reason = reason;
    endpoint.headToken += 1; // drop its scheduled head
  }

  enable(ts, endpointId, replayDead) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    if (!endpoint.disabled) return ERR.notDisabled;
    for (const event of endpoint.pending.items) event.due = ts;
    if (replayDead) {
      for (const event of Array.from(endpoint.dead)) this.revive(endpoint, event, ts);
    }
    endpoint.disabled = false;
    endpoint.reason = null;
    endpoint.failures = 0; // auto.count: a successful enable resets the count
    // Every pending event is due at ts; the bucket and the breaker stay as they are
    // (throttle.pause, breaker.with-disable).
    endpoint.parked.clear();
    this.scheduleHead(endpoint);
    return true;
  }

  /** Bring a dead event back: pending, 0 attempts, due at `ts`, in its enqueue place, a fresh age. */
  revive(endpoint, event, ts) {
    event.state = State.PENDING;
    event.attempts = 0;
    event.signed = null; // attempts are numbered from 1 again (sig.attempt-n)
    event.due = ts;
    this.startAge(event, ts); // expiry.revive: the policy in force now gives its deadline
    this.deadLetters.delete(event.id);
    endpoint.dead.remove(event);
    endpoint.pending.push(event);
  }

  deadLettersFor(ts, endpointId) {
    if (endpointId === undefined) return Array.from(this.deadLetters.keys());
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    return Array.from(endpoint.dead, (event) => event.id);
  }

  endpointReport(ts, endpointId) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    const report = { disabled: endpoint.disabled, reason: endpoint.reason, consecutive_failures: endpoint.failures };
    if (endpoint.breaker !== null) report.breaker = endpoint.breaker.report(ts); // breaker.report
    return report;
  }

  deadLetter(ts, eventId) {
    const event = this.events.get(eventId);
    if (!event) return ERR.unknownEvent;
    if (event.state !== State.DEAD) return ERR.notDead;
    const details = { endpoint: event.endpoint.id, attempts: event.attempts, last_status: event.lastStatus, died_at: event.diedAt };
    if (event.expired) details.reason = 'expired'; // only an expiry's details carry a reason (expiry.reason-key)
    return details;
  }

  /**
   * Revive the endpoint's dead letters that died at or after `since`, as a
   * replay does; other events, the disabled state and the failure count stay.
   */
  recover(ts, endpointId, since) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    const revived = endpoint.dead.diedSince(since);
    for (const event of revived) this.revive(endpoint, event, ts);
    // A revived event may be the new head; a disabled endpoint schedules nothing.
    if (revived.length > 0) this.scheduleHead(endpoint);
    return revived.length;
  }

  setPolicy(ts, endpointId, policy) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    endpoint.policy = RetryPolicy.from(policy);
    // A throttle, even the same one again, starts a new full bucket anchored at ts; without one
    // no attempt needs a token (throttle.set, throttle.remove).
    const throttle = endpoint.policy.throttle;
    endpoint.bucket = throttle === null ? null : new TokenBucket(throttle, ts, this.processCalls.count);
    // A breaker, even the same one again, starts closed with no failures counted; without one
    // nothing is held (breaker.set).
    const breaker = endpoint.policy.breaker;
    endpoint.breaker = breaker === null ? null : new CircuitBreaker(breaker);
    // The old bucket's token times and the old breaker's T are gone: an event throttled or held
    // is due at ts, unless its due time has already passed (throttle.release, breaker.set).
    if (endpoint.parked.size > 0) {
      for (const event of endpoint.parked) if (event.due > ts) event.due = ts;
      endpoint.parked.clear();
      this.scheduleHead(endpoint);
    }
    return true;
  }

  policyOf(ts, endpointId) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    return endpoint.policy.toResult();
  }

  /** Set the endpoint's secret: the first, the current one again (no-op), or a rotation. */
  setSecret(ts, endpointId, secret) {
    const endpoint = this.endpoints.get(endpointId);
    if (!endpoint) return ERR.unknownEndpoint;
    const current = endpoint.secret;
    if (current !== null && current.text === secret) return true; // no rotation, no grace restarted
    if (current !== null) {
      // A rotation: the current secret is retired at ts; a previous secret set
      // again leaves the list as it becomes current (it signs once).
      const previous = endpoint.previous;
      const again = previous.findIndex((retired) => retired.text === secret);
      if (again >= 0) previous.splice(again, 1);
      previous.push({ text: current.text, key: current.key, retiredAt: ts });
      if (previous.length > MAX_PREVIOUS) previous.shift(); // the earliest retired goes, even in grace
    }
    endpoint.secret = { text: secret, key: decodeSecret(secret) };
    return true;
  }

  /** The headers attempt n of the event carried, with its own ts and signers. */
  signature(ts, eventId, n) {
    const event = this.events.get(eventId);
    if (!event) return ERR.unknownEvent;
    if (n > event.attempts) return ERR.attemptNotMade;
    const made = event.signed === null ? undefined : event.signed.get(n);
    if (made === undefined) return ERR.noSecret; // made while the endpoint had no secret
    const timestamp = String(made.at);
    const content = signedContent(event.id, timestamp, event.body);
    return {
      [HEADER_ID]: event.id,
      [HEADER_TIMESTAMP]: timestamp,
      [HEADER_SIGNATURE]: made.keys.map((key) => `v1,${sign(key, content)}`).join(' '),
    };
  }
}

// ---------------------------------------------------------------------------
// Operation table: accepted argument counts after ts, per-argument checks
// (in position order) and the dispatcher method to call.

const checkString = (value) => (isString(value) ? null : ERR.invalidArguments);
const checkOutcomes = (value) => (isValidOutcomes(value) ? null : ERR.invalidOutcomes);
const checkBoolean = (value) => (typeof value === 'boolean' ? null : ERR.invalidArguments);
const checkPolicy = (value) => (isValidPolicy(value) ? null : ERR.invalidPolicy);
const checkSince = (value) => (isValidTs(value) ? null : ERR.invalidArguments); // recover.since: read as a ts
const checkPayload = checkString; // sig.payload-type: after outcomes, before the state
const checkSecret = (value) => (decodeSecret(value) !== null ? null : ERR.invalidSecret);
const checkAttemptN = (value) => (isValidTs(value) && value >= 1 ? null : ERR.invalidArguments); // sig.attempt-n
const checkSecrets = (value) => (isValidSecretList(value) ? null : ERR.invalidSecret);
const checkHeaders = (value) => (isValidHeaders(value) ? null : ERR.invalidArguments);

const OPERATIONS = new Map([
  ['register', { arity: [2], checks: [checkString, checkString], call: (d, ts, a) => d.register(ts, a[0], a[1]) }],
  ['enqueue', { arity: [3], checks: [checkString, checkString, checkOutcomes], call: (d, ts, a) => d.enqueue(ts, a[0], a[1], a[2]) }],
  ['process', { arity: [0], checks: [], call: (d, ts) => d.process(ts) }],
  ['status', { arity: [1], checks: [checkString], call: (d, ts, a) => d.status(ts, a[0]) }],
  ['disable', { arity: [1], checks: [checkString], call: (d, ts, a) => d.disable(ts, a[0]) }],
  ['enable', { arity: [2], checks: [checkString, checkBoolean], call: (d, ts, a) => d.enable(ts, a[0], a[1]) }],
  ['dead_letters', { arity: [0, 1], checks: [checkString], call: (d, ts, a) => d.deadLettersFor(ts, a[0]) }],
  ['set_policy', { arity: [2], checks: [checkString, checkPolicy], call: (d, ts, a) => d.setPolicy(ts, a[0], a[1]) }],
  ['policy', { arity: [1], checks: [checkString], call: (d, ts, a) => d.policyOf(ts, a[0]) }],
  ['endpoint', { arity: [1], checks: [checkString], call: (d, ts, a) => d.endpointReport(ts, a[0]) }],
  ['dead_letter', { arity: [1], checks: [checkString], call: (d, ts, a) => d.deadLetter(ts, a[0]) }],
  ['recover', { arity: [2], checks: [checkString, checkSince], call: (d, ts, a) => d.recover(ts, a[0], a[1]) }],
]);
if (SIGNATURES) {
  OPERATIONS.set('enqueue', {
    arity: [3, 4], // the payload is optional
    checks: [checkString, checkString, checkOutcomes, checkPayload],
    call: (d, ts, a) => d.enqueue(ts, a[0], a[1], a[2], a.length > 3 ? a[3] : ''),
  });
  OPERATIONS.set('set_secret', { arity: [2], checks: [checkString, checkSecret], call: (d, ts, a) => d.setSecret(ts, a[0], a[1]) });
  OPERATIONS.set('signature', { arity: [2], checks: [checkString, checkAttemptN], call: (d, ts, a) => d.signature(ts, a[0], a[1]) });
  OPERATIONS.set('verify', { arity: [3], checks: [checkSecrets, checkHeaders, checkString], call: (d, ts, a) => verify(ts, a[0], a[1], a[2]) });
}

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
