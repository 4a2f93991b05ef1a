// Package mockserver is a stateful fake of the task-routing service, for tests that run
// offline: in-process (Start, New) or as the standalone binary mockserver/cmd/mockserver.
//
// It speaks the /v1 wire contract of the hosted API: every operation of both tables (tasks,
// workers, decisions, assign, priority, suggest-workers, learning, stats and history, task
// context and comments, notification channels and sequences, which fire on the server's
// clock, workflows and their runs),
// the error envelope {"error":{"code":..,"message":..}}, quota headers, idempotency keys and
// signed webhooks. A deterministic reference matcher (internal/match) decides every match, so
// the same requests at the same clock times give the same decisions.
//
//	srv := mockserver.Start(t, mockserver.WithWebhookURL(receiver.URL))
//	c, _ := taskrouting.NewClient(srv.URL(), srv.APIKey())
//	// ... drive c; assert on srv.Events(), srv.Deliveries(), srv.Requests()
//
// # The worker plane
//
// A worker acting for itself (docs/contract.md section 8) signs in with POST /worker-auth/login
// {workspaceId, workerId, pin}, using a PIN given by POST /workers/{id}/identity, and gets a
// wt_ token that reaches only that worker of that workspace: /portal/me, its availability,
// its queue, its own tasks (any other task is 404), accept/reject/complete, the comments and
// attachments of its own tasks (the workspace plane's stores; no remove), and breaks (no
// new offers during one; worker.break_started and worker.break_ended events), and its own
// time record and metrics. Its answers
// carry no quota headers and its POSTs no idempotency keys. A wrong PIN, workspace or worker
// is one 401 invalid_credentials; a revoked or unknown token, or a removed worker or sign-in,
// is 401 unauthorized. WorkspaceID names the sandbox workspace ("ws_sandbox"). PINs are kept
// only as hashes.
//
// # Worker time
//
// Every workspace keeps a timeline (docs/contract.md, "Worker time"): a shift is open while a
// worker is available, breaks come from the worker plane, and task events are each worker's
// outcomes, all on the server's clock. Time entries, metrics, presence, break metrics and the
// team report are computed from it; corrections change it and keep a trail.
//
// # Time
//
// The server reads one Clock. With a *ManualClock (NewManualClock, WithClock) nothing
// time-dependent happens until the test calls Advance or Set, and those return only after
// every offer expiry, rematch and webhook retry due on the way has happened, in time order.
// Tests never sleep. With the real clock, expiries and retries run on timers. Under the
// platform rules offers expire on the maintenance sweep (MatcherConfig.MaintenanceInterval,
// every 5 s on whole multiples of Unix time), each sweep that expired something followed by
// one match pass; a command runs the sweeps it finds due first, a read (GET) runs nothing.
//
// Webhooks are signed at the server clock's time. A receiver checking them with
// webhook.Verify compares that time with the wall clock (5 minutes of tolerance), so when a
// ManualClock is far from the wall clock (a fixed date in the past, or after a long Advance),
// verify with webhook.NewVerifier(secret, webhook.WithClock(clk.Now)) instead. A receiver
// that cannot be given the manual clock (one in another language, against the binary) needs
// WithWallClockSignatures (mockserver -sign-with-wall-clock): deliveries are then signed at
// the wall clock's time while the manual clock drives everything else.
//
// # Workspaces and keys
//
// Each API key reaches its own workspace: APIKey (sk_test_...) and any WithExtraAPIKey. One
// workspace never sees another's tasks, workers, decisions or idempotency keys; a foreign id
// is simply not found. The admin endpoints under /_mock/ need the APIKey.
//
// # What the server enforces
//
//   - Authentication: Authorization: Bearer with a configured key, else 401 unauthorized.
//   - Routing: unknown path 404 not_found; known path with another method 405 with Allow;
//     a path id outside [A-Za-z0-9_.-]{1,128} is 400 validation_failed.
//   - Bodies: over 1 MiB 413 payload_too_large; a body with a non-JSON content type 415.
//   - Schema (400 validation_failed, message naming the field in the platform's wording, e.g.
//     "body must have required property 'tags'", "body/tags must NOT have more than 32
//     items"): malformed JSON, a non-object body, unknown members (case-sensitive), wrong
//     types, required members, item counts, string lengths (in characters), numeric ranges,
//     enums, unknown query parameters. Null counts as absent except for meta, escalation
//     and sla, where it is stored and echoed as null.
//   - Semantics (400 invalid_body): releaseBacklog with available true; skillThresholds for
//     a tag not in tags; schedule.notAfter before notBefore.
//   - Validation is complete before the workspace is touched: a refused request changes no
//     state, not even the idempotency store.
//   - State (409): task_exists, invalid_state (accept, reject, complete, cancel, assign,
//     priority, ack, fail, escalate or unpark that does not fit the task's state or worker), worker_backlog_full (assign
//     without force), idempotency_conflict.
//   - Matching as docs/contract.md section 7 says: eligibility, vetoes, rejection, capacity, thresholds, task
//     order, modes, learning, offer expiry (escalation.respondWithinMs and onNoResponse).
//   - Task clocks on the server's clock, as docs/contract.md section 7 says: sla.expireAfterMs
//     (onExpire drop or park), sla.maxRejections (onMaxRejections park, fail or keep),
//     schedule.notBefore (the task waits as scheduled and is never offered before) and
//     notAfter (onMiss drop or park), and the escalation ladder (maxEscalations,
//     priorityBoost, onExhausted). Parked tasks come back with tasks.unpark; GET
//     /tasks/parked and /tasks/scheduled list them. sla.completeWithinMs and escalation
//     tiers are stored, not enforced.
//   - Bookings (tasks.booking.*): a booked task is offered to its booked worker only;
//     overlapping bookings of one worker are 409 booking_clash unless forced.
//   - Recurring templates (a create with recurrence): an occurrence is cut when the template
//     is made and at each everyMs boundary of the server's clock; tasks.recurring.* reads and
//     stops them. tasks.history reads finished tasks; tasks.check runs a create's checks
//     without creating anything.
//   - Idempotency: a POST repeating an Idempotency-Key with the same method, path and bytes
//     within 24 hours of server time gets the first answer back (with Idempotent-Replayed:
//     true) and nothing runs again; the same key with anything else is 409. Only successful
//     answers are stored.
//   - Limits, off by default (WithLimits): task-rate (429 rate_limited, Retry-After to the
//     end of the window), queued-tasks, workers, skills, worker-skills (402
//     plan_limit_exceeded). Quota headers X-Quota-{kind}-Limit/-Remaining are on every
//     answer; a limit that is not enforced is reported as Unlimited.
//
// # What the server only stores
//
// meta, title, description, and the platform members context, references and slot, each
// held to api/openapi.json's schema; sla.completeWithinMs with onCompletionBreach, escalation
// tiers and offerCooldownMs, a slot's times, and a recurrence's windowMs and onMiss are
// stored and echoed but not acted on (the other sla, schedule and escalation members are:
// see the task clocks above). Workers have no meta. A team's
// derived tag is stored, not matched on.
//
// # Memory over a long run
//
// What the server keeps is bounded, so a load test can run against it for hours: finished
// tasks by WithFinishedTasks (DefaultFinishedTasks per workspace; past twice that the oldest
// finished are forgotten and answer 404 not_found, as an unknown task does), events,
// deliveries and the stats ledger by WithRetention, the request log by WithRequestLog and the
// snapshot's command log by WithStateLog. docs/contract.md section 9, "Finished tasks", and
// docs/reliability.md, "Memory".
//
// # Skills, teams, place and network
//
// A task's requiredSkills (skill and minimum level), teamId, preferTeamId, latitude,
// longitude, maxDistanceKm, requireGeo and allowedCidrs route against a worker's skills
// (level, weightOverride, validUntil), teams, latitude, longitude, maxTravelDistanceKm and ip:
// a worker missing a required skill or level, outside the team, too far, without a location
// when one is required, or with an ip outside the ranges is not eligible, and the decision
// names the rule (missingSkill, skillExpired, skillLevelTooLow, notInTeam, tooFar, noGeo,
// ipNotAllowed). Required skills add the worker's weight in them to its score, a preferTeamId
// member gets 100 more. A worker's teamIds and a team's roster are one record, so either call
// changes both reads and routing. A worker's skills must name skills of the workspace's
// catalogue (skills.*), by id or key; a skill a worker holds cannot be removed (409
// skill_in_use). skills.expiring lists held skills with a validUntil on the server's clock.
// docs/contract.md, section 7, has the rules.
//
// # Webhooks
//
// Every event (task.matched, task.accepted, task.rejected, task.completed, task.expired,
// task.cancelled, task.released) is POSTed to every WithWebhookURL as a flat JSON object:
// "event", "id" (evt_..., unique, for de-duplication), "createdAt" (epoch ms) and the event's
// fields beside them. Each attempt is signed afresh with webhook.Sign at the server clock's
// time (the wall clock's with WithWallClockSignatures), in the X-Fivexer-Signature header. A 2xx answer delivers the event; anything else is
// retried with exponential backoff on the server clock (DeliveryPolicy), in order per
// endpoint: an event waits until the one before it is delivered or given up (head-of-line),
// so a receiver sees events in emission order. After the last attempt the event is kept as
// failed (Delivery.Outcome "failed") and the next one proceeds. Events lists what was
// emitted, Deliveries every attempt; Flush and WaitForDeliveries wait without sleeping.
//
// A receiver that calls back into the API (to accept the offer it was told about) needs the
// server before it can be wired: attach it to the running server with AttachWebhookHandler
// (served on a loopback port of its own) or AttachWebhookURL, and detach it when done.
//
// With a ManualClock a failed attempt waits for its retry until the test moves the clock,
// and every later event to that endpoint waits behind it (head-of-line). WithLogger makes
// the server say so, and log each request and delivery attempt. A server made by Start
// also writes each refused attempt to the test's log (WithTestLogger): the status, the first
// line of the receiver's answer and the usual cause of a 400 or 401.
//
// Transport serves requests with the server's handler in-process, for unit tests that put it
// under a client (taskrouting.WithHTTPClient) and open no socket.
//
// # Notification sequences and workflow runs
//
// Both run on the server's clock, and their deadlines are visited by ManualClock.Advance in
// time order with offer expiries and webhook retries. A notification sequence starts when a
// task event (matched, accepted, rejected, completed, expired) happens to a task sharing one
// of its filterTags; each step is POSTed, when its offset has passed, to every enabled webhook
// channel subscribed to the step's eventType, signed with the channel's secret (else the
// server's) at the server clock's time, once, without retry. Notifications lists every one
// sent. A workflow run walks its steps: an assignment step is a task the matcher routes and
// the run moves on when it is completed; an external step waits for runs.completeStep or
// runs.failStep; a machine step completes at once (its handler is stored, not run); a step's
// timeoutMs fails it when the clock reaches it (docs/contract.md section 5).
//
// # Why a task waits
//
// Server.WhyUnmatched (and the admin endpoint GET /_mock/tasks/{id}/unmatched) explains why
// a queued task waits: a one-line summary ("no worker carries tag englsh"), the task's tags
// nobody carries, and the nearest workers with the tags each carries and what each lacks
// (docs/contract.md section 7, "Why a task waits"). No platform answer carries it: the
// platform sends nothing like it, and the server's answers hold to the platform's shapes.
//
// # Ties and learning under the platform rules
//
// Where the platform leaves an outcome to chance the server says so. A decision whose
// worker ranked equal with others (the platform breaks such a tie by its Redis hash order)
// carries a "tie" reason naming them, and is listed by Ties, GET /_mock/ties and the test
// log; WithTieBreak(TieShuffle) breaks ties in an order drawn from the seed (WithSeed), so a
// test that depends on a tie fails here as it can on the platform. MatcherConfig.LearningRanks
// ranks as the platform's engine does with its learning on, exploring from the same seed
// (docs/contract.md section 7, "Tests that hold on the platform" and "Learning under the
// platform rules").
//
// # Stats, history and learning writes
//
// The server keeps a ledger of every offer and task milestone (accept, completion,
// cancellation) from the matcher's events, at its clock's times, and computes stats,
// slaStats, queueAudit and the history series from it, from the tasks and workers as they
// are and from the clock: a scenario driven on a ManualClock gives numbers that can be worked
// out by hand (docs/contract.md section 7, "Stats and history"); slaStats counts what the task
// clocks did and measures sla.completeWithinMs, which is not enforced. Explicit rewards and feedback change the learned means that
// learning.workerStats reports (learning.status too under the every-tag rules, whose
// ranking they change; under the platform rules it reports the engine's learning, off
// unless MatcherConfig.LearningRanks); learning.reset
// clears them; learned weights are written into routingWeights by learning.applyWeights and
// restored by learning.revertWeights (docs/contract.md section 7, "Learning writes").
//
// # Admin endpoints
//
// Under /_mock/ on the server's host (AdminURL; not under BasePath), tests in any language
// steer the server. They need the server's own key (APIKey) as bearer token: they act on every
// workspace, so an extra workspace's key is 401. Faults never apply to them.
//
//	GET    /_mock/clock          {"now": ms, "manual": bool}
//	POST   /_mock/clock/advance  {"ms": n} -> {"now": ms}; manual clock only (else 409
//	                             invalid_state); runs every expiry and retry due on the way
//	POST   /_mock/faults         a Fault as JSON: method, path, status, retryAfterMs, delayMs,
//	                             dropBeforeCommit, dropAfterCommit, times, fraction, seed,
//	                             delayDistribution (Fault.DelayDist, in ms) -> 201
//	DELETE /_mock/faults         clear every fault -> 204
//	GET    /_mock/events         {"events": [payloads as delivered], "nextSince": seq};
//	                             ?since, kind, taskId, limit, count=true (EventFilter)
//	GET    /_mock/deliveries     {"deliveries": [{eventId, kind, url, attempt, at, statusCode,
//	                             error, outcome, reason}]}; reason is Delivery.Reason
//	GET    /_mock/notifications  {"notifications": [{id, sequenceId, channelId, url, event, trigger,
//	                             taskId, dueAt, at, payload, statusCode, error, outcome}]}
//	GET    /_mock/requests       {"requests": [recorded requests, Authorization redacted],
//	                             "nextSince": seq}; ?since, method, path, taskId, limit,
//	                             count=true (RequestFilter)
//	GET    /_mock/tasks/{id}/unmatched  why a queued task waits (WhyUnmatched); 409, 404
//	GET    /_mock/tasks/{id}     {id, queuedAt, offerExpiresAt, vetoedWorkers, rejectedBy}: the
//	                             server's own task bookkeeping (TaskState); 404
//	GET    /_mock/workers/{id}   {id, createdAt, lastMatchedAt, onBreak, breakReason}: the
//	                             server's own worker bookkeeping (WorkerState); 404
//	GET    /_mock/ties           {"ties": [{decisionId, taskId, workerId, workers, matchedAt}]}:
//	                             decisions made on a tie between equally ranked workers (Ties)
//	GET    /_mock/outbox         {"mail": [{kind, to, workerId, token, url, at}]}: invites sent
//	POST   /_mock/flush          204 once no webhook attempt is in flight (504 after 30 s)
//	POST   /_mock/reset          204 once everything is forgotten (see Reset)
//	GET    /_mock/state          the saved state (Snapshot); 409 when it cannot be saved
//	POST   /_mock/state          load a saved state (Restore) -> 204; 400 naming the member
//	POST   /_mock/supervisor-links  {workspaceId?, label?, email?, teamId?} -> 201 a
//	                             single-use supervisor link {token, supervisorId, ...}
//	GET    /_mock/supervisor-links  {"links": [every link made, with redeemedAt once used]}
//	GET    /_mock/push-registrations  {"registrations": [stored push targets, both planes]}
//
// NewProxy (mockserver -proxy URL) is the other way round: a contract-checking proxy in
// front of a real deployment, which checks its requests and answers against api/openapi.json,
// reports every difference, and in shadow mode compares a mock's decisions with the
// deployment's (docs/contract.md, "Contract-checking proxy").
//
// In Go the same are ManualClock.Advance, InjectFault, ClearFaults, Events, Deliveries,
// Notifications, Requests, RequestsWhere, CountRequests, EventsWhere, CountEvents, WhyUnmatched, TaskState, WorkerState,
// Ties, Outbox, Flush, Reset, InviteSupervisor, SupervisorLinks, PushRegistrations, Snapshot and Restore. The standalone
// binary prints AdminURL as "adminUrl" in its start line
// and lists these endpoints in its -h output.
//
// # Supervisor plane
//
// A supervisor session (sv_...) starts only by redeeming a link, which the platform's owner
// makes in its console. Here a test makes it: InviteSupervisor (or POST
// /_mock/supervisor-links) returns the link's token, and the client's
// SupervisorClient.AcceptInvite redeems it. A link is single-use and good for 7 days on the
// server's clock; a session lasts 12 hours and has no refresh. A link that names a team
// scopes the supervisor to that team's members and to tasks carrying the team's tag (or its
// teamId); anything else of the workspace is 403 forbidden, and another workspace's ids are
// 404.
//
// # Faults
//
// InjectFault makes matching requests answer a status (with Retry-After), wait, or drop the
// connection before or after the change is committed (a TCP reset, no answer), for a number
// of requests or a seeded fraction of them. Dropping after commit is how a test proves that a
// client's retries with idempotency keys neither lose nor duplicate work.
//
// The package keeps no global state: many servers run side by side in parallel tests.
package mockserver
