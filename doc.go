// Package taskrouting is a typed client for the task-routing API: create
// tasks, upsert and patch workers, and accept, reject or complete the
// matches the service announces. The service matches tasks to workers
// continuously, by tags (skills), priority, vetoes and learning; there are
// no queues to manage.
//
// # Start here
//
// The basic loop takes ten identifiers; the rest of the package is there
// for when a program needs it.
//
//  1. [NewClient]: the client, from the API root and a key.
//  2. [WorkersService.Upsert] (c.Workers.Upsert) with [UpsertWorkerParams]:
//     a worker, its tags and whether it is available. Under the platform's
//     rules one shared tag makes a worker a candidate.
//  3. [TasksService.Create] (c.Tasks.Create) with [CreateTaskParams]: a
//     task; matching starts at once. RequiredSkills is how a task insists
//     on more than one shared tag.
//  4. webhook.NewVerifier and webhook.Handler (package webhook): receive the
//     signed task.matched webhook that announces each offer.
//  5. webhook.Event.TaskMatched: the offer's task and worker.
//  6. [DecisionsService.EnsureAccepted] (c.Decisions.EnsureAccepted): the
//     worker takes the task; a redelivered webhook finds it done.
//  7. [DecisionsService.Reject]: or turns it down, and the task is offered
//     to someone else.
//  8. [DecisionsService.Complete]: the work is done, with a result.
//  9. [APIError] and [ErrInvalidState]: a failed call, and an offer that
//     moved on (expired, cancelled) before the answer.
//  10. mockserver.Start with mockserver.NewManualClock (package mockserver):
//     the whole loop offline, in a test, on a clock the test moves.
//
// In code, with the handler's part marked:
//
//	c, err := taskrouting.NewClient("https://api.example.com/v1", os.Getenv("TASKROUTING_API_KEY"))
//	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english", "billing"}})
//	_, err = c.Decisions.EnsureAccepted(ctx, ref.ID, "agent_1") // in the task.matched handler
//	_, err = c.Decisions.Complete(ctx, ref.ID, "agent_1", map[string]any{"resolved": true})
//
// Every option, at the client and at a call, is a [RequestOption].
//
// # Resource groups
//
// The groups are Client.Tasks (create, bulk create, get, list, update,
// cancel, assign, priority, fail, ack, escalate, unpark, the parked and
// scheduled sets, suggest workers, a dry-run Check, the History of finished
// tasks, a task's context, comments and attachments, bookings of slotted
// tasks in Tasks.Booking and recurring templates in Tasks.Recurring),
// Client.Workers (upsert, patch, get, list, availability, queue, remove,
// sign-in identities and email invites, the working-time record and its
// corrections, metrics, break metrics, connector links, offboarding),
// Client.Skills (the skill catalogue and expiring skills), Client.Teams
// (teams, members, presence, the team time report), Client.Decisions
// (accept, reject, complete, the decision log), Client.Notifications
// (channels: where notifications go; sequences: when), Client.Workflows
// (definitions, starting runs), Client.Runs (a run's state and steps,
// cancel, completing or failing a callback step), Client.Learning (status,
// per-worker statistics, explicit rewards and feedback, reset, and learned
// routing weights to preview, apply and revert), Client.Stats (the
// workspace now, SLA counters, the queue audit and history series) and
// Client.JoinLinks (links workers join by).
//
// A WorkerClient is the worker plane: one worker, signed in with a PIN
// (Login), by accepting an invite (AcceptInvite) or by a join link (Join),
// acting for itself and reading its own time and metrics. Its session
// expires; the client refreshes it on its own before then (Refresh,
// WithClock), and a saved session can be resumed (Session, Resume). A
// SupervisorClient is the supervisor plane: a crew lead, signed in by
// redeeming a single-use link (AcceptInvite), who reads the live board
// (Overview) and unblocks work within a workspace or one team (SetPriority,
// Assign, SetAvailability, Unpark); its actions carry no idempotency key and
// are retried only when an attempt cannot have been applied. Both
// session planes also register push targets and fetch voice ICE servers.
//
// The service announces each match with a signed task.matched webhook:
// verify and parse deliveries with the webhook subpackage. The mockserver
// subpackage is an offline fake of the service for tests and local runs;
// most examples of this package run against it.
//
// Every method takes a context first and options last. Every method's doc
// comment names the HTTP operation it sends.
//
// # Options
//
// One option type, RequestOption, configures both a client (in NewClient,
// NewWorkerClient and NewSupervisorClient) and a single call (as a method's
// last arguments); Option is a deprecated other name for it. At a call it
// overrides the client's setting for that call alone:
//
//	c, err := taskrouting.NewClient(base, key, taskrouting.WithMaxRetries(4))
//	var resp taskrouting.Response
//	task, err := c.Tasks.Get(ctx, id,
//		taskrouting.WithMaxRetries(0),          // this call only: no retries
//		taskrouting.WithTimeout(2*time.Second), // this call only, per attempt
//		taskrouting.WithResponseInto(&resp))    // status, headers, request id, attempts
//
// WithTimeout, WithMaxRetries, WithRetryWait, WithMaxRetryAfter,
// WithHeader, WithMiddleware and WithoutLimitChecks work in both places. WithHTTPClient,
// WithLogger and WithUserAgent shape a client; WithIdempotencyKey,
// WithResponseInto and WithJSONSet belong to one call. An option given in the wrong place is a *ParamError,
// and a call refused that way sends nothing.
//
// # Errors
//
// A response outside 2xx is an *APIError with the status, the envelope's
// code and message, any Retry-After and the quota snapshot. errors.Is
// matches it against ErrNotFound, ErrUnauthorized, ErrValidation,
// ErrConflict, ErrRateLimited, ErrPlanLimit, ErrServer and the code
// sentinels (ErrTaskExists, ErrBacklogFull, ErrInvalidState,
// ErrIdempotencyKey). A caller mistake, such as an empty id, is a
// *ParamError (ErrInvalidParams) returned before any request is sent; so
// is a value over one of the platform's published limits (a length, a
// count, a range, an enumeration), with ParamError.Limit set.
// WithoutLimitChecks, at the client or on a call, sends such values and
// lets the server's answer decide, for a limit the platform has raised
// since this version.
// APIError.RequestID is the answer's X-Request-Id: quote it when reporting
// a failed call (a success's is on Response, via WithResponseInto).
//
// A webhook handler that accepts each task.matched should use
// Decisions.EnsureAccepted rather than Accept: a redelivery after a lost
// answer finds the task already accepted, which EnsureAccepted counts as
// done instead of failing with ErrInvalidState.
//
// # Middleware and tracing
//
// WithMiddleware wraps each call, once however many attempts it makes, at
// the client (outermost, in the order given) and at a call (inside the
// client's). CallInfoFromContext tells a middleware the call's operation
// id ("tasks.create"), path template ("/tasks/{id}") and, after next, its
// attempts. The module github.com/taskrouting/taskrouting-go/otel builds
// OpenTelemetry spans and metrics on it, kept out of this module's
// dependencies:
//
//	tel, err := taskroutingotel.New()
//	c, err := taskrouting.NewClient(base, key, taskrouting.WithMiddleware(tel.Middleware()))
//
// Client.Do sends any operation, modelled here or not, through the same
// path as the typed methods; WithJSONSet adds a body member a params type
// lacks. For unit tests without a socket, put the mock server's in-process
// transport under the client: WithHTTPClient(&http.Client{Transport:
// srv.Transport()}) (see Example_unitTestsWithoutHTTP).
//
// # Retries
//
// Connection errors, 429 and 5xx other than 501 are retried (2 times by
// default, see WithMaxRetries) with jittered exponential backoff, or after
// the server's Retry-After when it sends one. A Retry-After longer than
// WithMaxRetryAfter, or than the time left before the context's deadline,
// is not waited for: the call returns the *APIError with RetryAfter set.
// Cancelling the context stops a call at once, also while it waits. Every
// workspace-plane POST carries an Idempotency-Key, generated once per call
// and reused on each retry, so a retried create never makes two tasks.
//
// A write without a key (a worker- or supervisor-plane POST, any PATCH or
// DELETE) is retried only when the attempt cannot have been applied: no
// connection was made (the dial failed), or the answer says the request
// was not run (429, or 503 with Retry-After). After a lost answer, a
// timeout or another 5xx it is not repeated, since a repeat of an applied
// write answers as a repeat does (a second Complete is ErrInvalidState, a
// second StartBreak ErrBreakAlreadyOpen, a second DELETE 404). A lost
// answer or timeout of any write comes back matching ErrOutcomeUnknown.
// Reads, PUTs (a whole replacement) and keyed POSTs are retried after any
// retryable failure. For the writes whose outcome can be read back, the
// Ensure forms settle it: EnsureAccepted, EnsureCompleted, EnsureRejected
// (on Client.Decisions and WorkerClient), EnsureBreakStarted and
// EnsureBreakEnded (WorkerClient) read the state after an ambiguous failure
// or a repeat's 409 and return success when the state asked for holds.
//
// # Time
//
// The wire carries durations as milliseconds and timestamps in two forms:
// Unix epoch milliseconds for most members (a task's createdAt, a
// decision's matchedAt, schedule bounds) and ISO-8601 strings for others
// (break times, a sign-in's times). This package exposes time.Time and
// time.Duration, reads either timestamp form for every member, and sends
// each in the form the platform uses for it.
//
// # Redirects
//
// A redirect within the API's origin (same scheme, host and port as the
// base URL) is followed as net/http would. A redirect to any other origin,
// even the same host on another port or the same host over http instead of
// https, is refused: the call fails with an error matching
// ErrCrossOriginRedirect, nothing is sent to the other origin and the call
// is not retried. Following it without credentials was not chosen: the
// other origin would answer in the API's place, and a 307 would carry the
// body (a worker's PIN at sign-in) there. The rule also holds for an
// http.Client given with WithHTTPClient; its own CheckRedirect still
// decides within the origin. Point the client at the final origin instead.
//
// # Secrets
//
// The API key, a worker's or a supervisor's session token, a supervisor
// link, a PIN, a join or invite token, a channel's signing secret, a push
// subscription's auth key and a TURN credential never appear in an error,
// a log line, a formatted value or JSON. The clients and WorkerSession keep
// theirs behind a pointer or a function; every parameter and answer type
// keeps its credentials in a Secret (PIN: NewSecret("4921"); Reveal reads
// it), which prints as [redacted] with every fmt verb (%v, %+v, %#v, %s,
// %q, %d, %x, ...), logs through slog and marshals to JSON the same way,
// and shows only a pointer's address where fmt reaches it by reflection:
// in an unexported field of the caller's own struct. Logging is off unless
// WithLogger is given.
package taskrouting
