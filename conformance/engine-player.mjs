// engine-player plays conformance scenarios through the platform's published matching engine,
// assignment-user-matcher (pinned in package.json), on a Redis server the caller started.
//
// Protocol: one JSON object per line on stdin, one JSON answer per line on stdout, in order.
//   {"scenario": {...}}  ->  {"trace": [step, ...]}            (see internal/conformance/scenario.go)
//   {"bench": {...}}     ->  {"bench": {...timings...}}         (see internal/conformance/bench.go)
//   anything that fails  ->  {"error": "message"}
// The process lives until stdin closes, so one runner (or shrinker) can play thousands of
// scenarios without paying Node's start-up each time.
//
// Usage: node engine-player.mjs redis://127.0.0.1:PORT
//
// Time: the engine reads the wall clock through Date.now() only (no clock option exists in
// 1.16.1), so this process replaces Date.now with a clock the scenario moves. Expiries run
// only in the maintenance sweep (runMaintenanceOnce), which the platform runs on a timer
// (startMaintenance, every 5,000 ms by default): an "advance" step runs it at every tick of
// that period (whole multiples of sweepMs of Unix time) the clock passes, each sweep that
// expired something followed by one match pass, as the platform re-matches after it. The
// engine's own timers are never started.
//
// Passes: one after every command the platform receives (a step whose pick finds nothing
// sends none, and a refused command matches nothing), and one after every sweep that expired
// offers; moving the clock alone runs none.
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { AssignmentMatcher } from 'assignment-user-matcher';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: node engine-player.mjs redis://127.0.0.1:PORT\n');
  process.exit(2);
}

// The scenario clock. A scenario starts at a fixed instant so traces never depend on the day.
const scenarioEpoch = Date.UTC(2026, 0, 1);
let clock = scenarioEpoch;
Date.now = () => clock;

const client = createClient({ url });
client.on('error', (err) => process.stderr.write(`redis: ${err.message}\n`));
await client.connect();

// mulberry32 is a small seeded PRNG in [0, 1): the engine's learningRng, so a scenario's
// exploration is reproducible per seed (the engine's default is Math.random).
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// matcherFor builds an engine with the scenario's options. Workflows, geo and decision
// traces stay off; learning is on only when the scenario says so, with the platform's
// rewards (accept 1, complete 2, reject -1; expire and fail keep the engine's defaults), the
// scenario's exploration rate and a random source seeded from the scenario.
function matcherFor(options, observer) {
  const o = options ?? {};
  const cfg = {
    maxUserBacklogSize: o.backlog ?? 9,
    matchExpirationMs: o.offerMs ?? 60000,
    relevantBatchSize: o.batch ?? 50,
    enableDefaultMatching: o.defaultMatching ?? false,
    enableLearning: false,
    onAssignmentLifecycle: observer,
  };
  if (o.learning) {
    cfg.enableLearning = true;
    cfg.learningExplorationRate = o.exploration ?? 0;
    cfg.learningRewards = { accept: 1, complete: 2, reject: -1 };
    // The generator keeps seeds below 2^32, mulberry32's state.
    cfg.learningRng = mulberry32(o.learningSeed ?? 0);
  }
  if (o.fairness && o.fairness !== 'none') cfg.fairness = o.fairness;
  return new AssignmentMatcher(client, cfg);
}

const pair = (task, worker) => `${task}>${worker}`;

async function playScenario(sc) {
  await client.flushAll();
  clock = scenarioEpoch;
  let step = null;
  // What each worker holds, as the lifecycle hook reports it: offers (pending) and accepted.
  const pending = new Map(); // task -> worker
  const accepted = new Map(); // task -> worker
  const workers = new Set();
  const observer = (ev) => {
    switch (ev.kind) {
      case 'pending':
        pending.set(ev.taskId, ev.workerId);
        step?.offers.push(pair(ev.taskId, ev.workerId));
        break;
      case 'expired':
        pending.delete(ev.taskId);
        step?.expired.push(pair(ev.taskId, ev.workerId ?? ''));
        break;
      case 'accepted':
        pending.delete(ev.taskId);
        accepted.set(ev.taskId, ev.workerId);
        break;
      case 'rejected':
        pending.delete(ev.taskId);
        break;
      case 'completed':
        accepted.delete(ev.taskId);
        break;
      default:
        break;
    }
  };
  const m = matcherFor(sc.options, observer);
  await m.waitUntilReady();
  // pick resolves a step's index into the sorted list of live offers (or accepted tasks), the
  // same way the Go player does, so a command means the same thing on both sides while their
  // states agree.
  const pick = (held, n) => {
    const live = [...held].filter(([, w]) => workers.has(w)).map(([t, w]) => [t, w]);
    live.sort((a, b) => (pair(...a) < pair(...b) ? -1 : pair(...a) > pair(...b) ? 1 : 0));
    if (live.length === 0) return null;
    return live[n % live.length];
  };
  const sweepMs = sc.options?.sweepMs ?? 5000;
  const trace = [];
  for (const s of sc.steps) {
    step = { did: '', offers: [], expired: [], released: [], err: false };
    let pass = true; // a command reached the engine
    try {
      switch (s.op) {
        case 'worker': {
          const user = { id: s.id, tags: s.tags ?? [] };
          if (s.weights) user.routingWeights = s.weights;
          if (s.backlog !== undefined && s.backlog !== null) user.maxBacklogSize = s.backlog;
          await m.addUser(user);
          workers.add(s.id);
          break;
        }
        case 'task': {
          const a = { id: s.id, tags: s.tags, priority: s.priority ?? 0 };
          if (s.vetoed?.length) a.vetoedUsers = s.vetoed;
          if (s.thresholds) a.skillThresholds = s.thresholds;
          await m.addAssignment(a);
          break;
        }
        case 'accept':
        case 'reject': {
          const p = pick(pending, s.pick ?? 0);
          if (!p) {
            step.did = `${s.op} none`;
            pass = false;
            break;
          }
          step.did = `${s.op} ${pair(...p)}`;
          if (s.op === 'accept') await m.acceptAssignment(p[1], p[0]);
          else await m.rejectAssignment(p[1], p[0]);
          break;
        }
        case 'complete': {
          const p = pick(accepted, s.pick ?? 0);
          if (!p) {
            step.did = 'complete none';
            pass = false;
            break;
          }
          step.did = `complete ${pair(...p)}`;
          await m.completeAssignment(p[1], p[0], {});
          break;
        }
        case 'pause':
        case 'resume':
        case 'remove':
          // A step naming a worker that is not present (only a shrunk scenario has one) is
          // skipped on both sides: the suite compares decisions, not command validation.
          if (!workers.has(s.id)) {
            step.did = `${s.op} none`;
            pass = false;
            break;
          }
          if (s.op === 'pause') await m.pauseUser(s.id);
          else if (s.op === 'resume') await m.resumeUser(s.id);
          else {
            await m.removeUser(s.id);
            workers.delete(s.id);
          }
          break;
        case 'advance': {
          const end = clock + s.ms;
          for (let tick = (Math.floor(clock / sweepMs) + 1) * sweepMs; tick <= end; tick += sweepMs) {
            clock = tick;
            const swept = await m.runMaintenanceOnce();
            if (swept.expiredMatches > 0) await m.matchUsersAssignments();
          }
          clock = end;
          pass = false;
          break;
        }
        default:
          throw new Error(`unknown op ${s.op}`);
      }
    } catch (err) {
      step.err = true;
      pass = false;
    }
    // A match pass after every command, as the platform runs one per change. With nothing
    // queued a pass offers nothing and changes nothing, and it reads every user: skipping it
    // keeps registering hundreds of workers linear.
    if (pass && (await client.zCard(m.assignmentsKey)) > 0) await m.matchUsersAssignments();
    step.offers.sort();
    step.expired.sort();
    trace.push(step);
  }
  step = null;
  return trace;
}

// timeEngine loads the BenchmarkScale workload (built by the Go side, so both engines see the
// same workers and tasks), fills every backlog with the offers the reference matcher made
// while loading it (assignToUser: the engine's own passes settle too few per pass at this
// size to fill 10,000 backlogs in reasonable time), then times whole match passes.
async function timeEngine(b) {
  await client.flushAll();
  clock = scenarioEpoch;
  const m = matcherFor(b.options, undefined);
  await m.waitUntilReady();
  const chunk = 200;
  const inChunks = async (list, f) => {
    for (let i = 0; i < list.length; i += chunk) await Promise.all(list.slice(i, i + chunk).map(f));
  };
  let s = performance.now();
  await inChunks(b.workers, (w) => m.addUser({ id: w.id, tags: w.tags }));
  await inChunks(b.tasks, (t) => m.addAssignment(t));
  const loadMs = performance.now() - s;
  s = performance.now();
  const holds = Object.entries(b.holds).flatMap(([w, ids]) => ids.map((id) => [w, id]));
  await inChunks(holds, ([w, id]) => m.assignToUser(id, w, { force: true }));
  const fillMs = performance.now() - s;
  const queued = await client.zCard('assignments');
  const create = [];
  for (const t of b.probes ?? []) {
    clock += 1;
    s = performance.now();
    await m.addAssignment(t);
    await m.matchUsersAssignments();
    create.push(performance.now() - s);
  }
  const free = [];
  for (let i = 0; free.length < (b.freeProbes ?? 0) && i < b.workers.length; i++) {
    const w = b.workers[i].id;
    const held = await m.getCurrentAssignmentsForUser(w);
    if (held.length === 0) continue;
    clock += 1;
    s = performance.now();
    await m.acceptAssignment(w, held[0]);
    await m.matchUsersAssignments();
    free.push(performance.now() - s);
  }
  return { loadMs, fillMs, createAndMatchMs: create, freeCapacityMs: free, queued };
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let answer;
  try {
    const req = JSON.parse(line);
    if (req.scenario) answer = { trace: await playScenario(req.scenario) };
    else if (req.bench) answer = { bench: await timeEngine(req.bench) };
    else answer = { error: 'request has neither scenario nor bench' };
  } catch (err) {
    answer = { error: String(err?.stack ?? err) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
await client.quit();
