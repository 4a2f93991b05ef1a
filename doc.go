// Package taskrouting is a typed client for the task-routing API: create
// tasks, upsert and patch workers, and accept, reject or complete the
// matches the service announces. The service matches tasks to workers
// continuously, by tags (skills), priority, vetoes and learning; there are
// no queues to manage.
//
// Create a client with the API root and a key, then use its resource groups:
//
//	c, err := taskrouting.NewClient("https://api.example.com/v1", os.Getenv("TASKROUTING_API_KEY"))
//	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english", "billing"}})
//	_, err = c.Decisions.Accept(ctx, ref.ID, "agent_1")
//
// The groups are Client.Tasks (create, get, list, cancel, assign, priority,
// suggest workers), Client.Workers (upsert, patch, get, list, availability,
// queue, remove, sign-in identity), Client.Decisions (accept, reject,
// complete, the decision log) and Client.Learning (status, per-worker
// statistics). A WorkerClient is the worker plane: one worker, signed in
// with a PIN, acting for itself.
//
// The service announces each match with a signed task.matched webhook:
// verify and parse deliveries with the webhook subpackage. The mockserver
// subpackage is an offline fake of the service for tests and local runs;
// most examples of this package run against it.
//
// Every method takes a context first and per-call options last
// (WithIdempotencyKey, WithHeader). Every method's doc comment names the
// HTTP operation it sends.
//
// # Errors
//
// A response outside 2xx is an *APIError with the status, the envelope's
// code and message, any Retry-After and the quota snapshot. errors.Is
// matches it against ErrNotFound, ErrUnauthorized, ErrValidation,
// ErrConflict, ErrRateLimited, ErrPlanLimit, ErrServer and the code
// sentinels (ErrTaskExists, ErrBacklogFull, ErrInvalidState,
// ErrIdempotencyKey). A caller mistake, such as an empty id, is a
// *ParamError (ErrInvalidParams) returned before any request is sent.
//
// # Retries
//
// Connection errors, 429 and 5xx other than 501 are retried (2 times by
// default, see WithMaxRetries) with jittered exponential backoff, or after
// the server's Retry-After when it sends one. A Retry-After longer than
// WithMaxRetryAfter, or than the time left before the context's deadline,
// is not waited for: the call returns the *APIError with RetryAfter set.
// Cancelling the context stops a call at once, also while it waits. Every
// POST carries an Idempotency-Key, generated once per call and reused on
// each retry, so a retried create never makes two tasks.
//
// # Time
//
// The wire carries timestamps as Unix epoch milliseconds and durations as
// milliseconds; this package exposes time.Time and time.Duration.
//
// # Secrets
//
// The API key never appears in an error, a log line or a formatted Client.
// Logging is off unless WithLogger is given.
package taskrouting
