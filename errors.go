package taskrouting

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Sentinel errors for errors.Is. An *APIError matches the sentinel of its
// HTTP status and, where one exists, the sentinel of its error code.
var (
	ErrValidation      = errors.New("taskrouting: validation failed")    // 400
	ErrUnauthorized    = errors.New("taskrouting: unauthorized")         // 401
	ErrPlanLimit       = errors.New("taskrouting: plan limit exceeded")  // 402
	ErrNotFound        = errors.New("taskrouting: not found")            // 404
	ErrConflict        = errors.New("taskrouting: conflict")             // 409
	ErrPayloadTooLarge = errors.New("taskrouting: payload too large")    // 413
	ErrRateLimited     = errors.New("taskrouting: rate limited")         // 429
	ErrServer          = errors.New("taskrouting: server error")         // 5xx
	ErrTaskExists      = errors.New("taskrouting: task exists")          // 409 task_exists
	ErrBacklogFull     = errors.New("taskrouting: worker backlog full")  // 409 worker_backlog_full
	ErrInvalidState    = errors.New("taskrouting: invalid state")        // 409 invalid_state
	ErrIdempotencyKey  = errors.New("taskrouting: idempotency conflict") // 409 idempotency_conflict
	ErrInvalidParams   = errors.New("taskrouting: invalid parameters")   // caller mistake, no request sent
	ErrCursorRepeated  = errors.New("taskrouting: list cursor repeated") // a page pointed back to a cursor already followed
	// ErrResponseTooLarge: a successful answer was longer than the client
	// reads (16 MiB), so it was not decoded.
	ErrResponseTooLarge = errors.New("taskrouting: response too large")
	// Worker plane (WorkerClient).
	ErrInvalidCredentials = errors.New("taskrouting: invalid credentials")     // 401 invalid_credentials
	ErrBreakAlreadyOpen   = errors.New("taskrouting: break already open")      // 409 break_already_open
	ErrNotSignedIn        = errors.New("taskrouting: client is not signed in") // WorkerClient or SupervisorClient without a session token: no request sent
	// Onboarding and the worker's own profile.
	ErrInvalidToken      = errors.New("taskrouting: invalid invite or join token") // 400 invalid_token: unknown, used, expired or revoked (also a supervisor link)
	ErrInvalidCurrentPIN = errors.New("taskrouting: current PIN is wrong")         // 400 invalid_current_pin
	ErrApprovalPending   = errors.New("taskrouting: approval pending")             // 403 approval_pending
	// Supervisor plane (SupervisorClient) and voice.
	ErrForbidden     = errors.New("taskrouting: forbidden")      // 403: outside the supervisor's team
	ErrAssignBlocked = errors.New("taskrouting: assign blocked") // 400 assign_blocked: the matcher refuses
	ErrVoiceDisabled = errors.New("taskrouting: voice disabled") // 404 voice_disabled
)

// Error codes of the wire envelope {"error":{"code":...}}.
const (
	CodeValidationFailed    = "validation_failed"
	CodeInvalidBody         = "invalid_body"
	CodeUnauthorized        = "unauthorized"
	CodePlanLimitExceeded   = "plan_limit_exceeded"
	CodeNotFound            = "not_found"
	CodeTaskExists          = "task_exists"
	CodeWorkerBacklogFull   = "worker_backlog_full"
	CodeInvalidState        = "invalid_state"
	CodeIdempotencyConflict = "idempotency_conflict"
	CodePayloadTooLarge     = "payload_too_large"
	CodeRateLimited         = "rate_limited"
	CodeInternalError       = "internal_error"
	CodeInvalidCredentials  = "invalid_credentials" // worker sign-in with a wrong PIN or unknown worker
	CodeBreakAlreadyOpen    = "break_already_open"
	CodeInvalidToken        = "invalid_token"       // an invite or join token that is unknown, used, expired or revoked
	CodeInvalidCurrentPIN   = "invalid_current_pin" // WorkerClient.ChangePIN with a wrong current PIN
	CodeApprovalPending     = "approval_pending"    // a joined worker an operator has still to admit
	CodeIdentityExists      = "identity_exists"     // the mock server's 409 for an invite to a worker with a sign-in
	CodeForbidden           = "forbidden"           // a supervisor acting outside its team
	CodeAssignBlocked       = "assign_blocked"      // the matcher refuses a supervisor's assignment
	CodeVoiceDisabled       = "voice_disabled"      // a deployment without voice
	// CodeUnknownError is set by the client when a response body is not the envelope.
	CodeUnknownError = "unknown_error"
)

// APIError is the error for any response outside 2xx. Use errors.As to read
// it and errors.Is with the sentinels above to branch on it.
type APIError struct {
	StatusCode int    // HTTP status
	Code       string // envelope code, or "unknown_error" when the body is not the envelope
	Message    string // envelope message, or "http <status>"
	Method     string // request method, e.g. "POST"
	Path       string // request path relative to the base URL, e.g. "/tasks"
	// RetryAfter is the server's Retry-After, zero when absent. It is set
	// when a 429 or 503 asked for a longer wait than WithMaxRetryAfter allows.
	RetryAfter time.Duration
	// Quota is the client's quota snapshot including this response's headers.
	Quota Quota
	// RequestID is the answer's X-Request-Id, "" when the server sent none.
	// Quote it when reporting a failed call to the platform; the mock
	// server sends one on every answer (mockserver.RequestIDHeader).
	RequestID string
}

// Error returns "taskrouting: <method> <path>: <status> <code>: <message>".
func (e *APIError) Error() string {
	return fmt.Sprintf("taskrouting: %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, e.Code, e.Message)
}

// Is matches the status sentinel and the code sentinel of e.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrValidation:
		return e.StatusCode == http.StatusBadRequest
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrPlanLimit:
		return e.StatusCode == http.StatusPaymentRequired
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrPayloadTooLarge:
		return e.StatusCode == http.StatusRequestEntityTooLarge
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500
	case ErrTaskExists:
		return e.Code == CodeTaskExists
	case ErrBacklogFull:
		return e.Code == CodeWorkerBacklogFull
	case ErrInvalidState:
		return e.Code == CodeInvalidState
	case ErrIdempotencyKey:
		return e.Code == CodeIdempotencyConflict
	case ErrInvalidCredentials:
		return e.Code == CodeInvalidCredentials
	case ErrBreakAlreadyOpen:
		return e.Code == CodeBreakAlreadyOpen
	case ErrInvalidToken:
		return e.Code == CodeInvalidToken
	case ErrInvalidCurrentPIN:
		return e.Code == CodeInvalidCurrentPIN
	case ErrApprovalPending:
		return e.Code == CodeApprovalPending
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrAssignBlocked:
		return e.Code == CodeAssignBlocked
	case ErrVoiceDisabled:
		return e.Code == CodeVoiceDisabled
	}
	return false
}

// ParamError reports a caller mistake found before any request is sent,
// such as an empty task id. It matches ErrInvalidParams.
type ParamError struct {
	Param   string // Go name of the argument or field, e.g. "taskID"
	Problem string // what is wrong, e.g. "must not be empty"
	// Limit is true when the value breaks a limit of today's platform (a
	// length, count, range or enumeration) rather than being a mistake;
	// WithoutLimitChecks sends such a value to the server instead.
	Limit bool
}

// Error returns "taskrouting: invalid parameter <param>: <problem>".
func (e *ParamError) Error() string {
	return "taskrouting: invalid parameter " + e.Param + ": " + e.Problem
}

// Is makes errors.Is(err, ErrInvalidParams) true.
func (e *ParamError) Is(target error) bool { return target == ErrInvalidParams }

// checkID rejects ids that cannot address a resource. "." and ".." are
// refused because a path segment of dots would be resolved by the server's
// router into a different path.
func checkID(param, id string) error {
	switch id {
	case "":
		return &ParamError{Param: param, Problem: "must not be empty"}
	case ".", "..":
		return &ParamError{Param: param, Problem: "must not be a dot segment"}
	}
	return nil
}
