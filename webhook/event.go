package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Kind is the type of a webhook event, the "event" member of its body.
// Kinds other than the constants below are normal: new kinds are added
// without notice, and an Event of an unknown kind still carries its raw JSON.
type Kind string

// Event kinds. The service's specification names the first four (the
// platform's published SDKs name only task.matched); the others are the mock
// server's, which also sends the task-clock kinds of clockkinds.go.
// docs/contract.md, section 6, lists the members of each.
const (
	KindTaskMatched        Kind = "task.matched"         // a task was offered to a worker (a decision was made)
	KindTaskAccepted       Kind = "task.accepted"        // the offered worker accepted the task
	KindTaskRejected       Kind = "task.rejected"        // the offered worker rejected the task; it is queued again
	KindTaskCompleted      Kind = "task.completed"       // the accepting worker completed the task
	KindTaskExpired        Kind = "task.expired"         // an offer ran out without an answer
	KindTaskCancelled      Kind = "task.cancelled"       // the task was cancelled
	KindTaskReleased       Kind = "task.released"        // an offer was withdrawn without the worker acting
	KindWorkerBreakStarted Kind = "worker.break_started" // a worker went on a break: no new offers
	KindWorkerBreakEnded   Kind = "worker.break_ended"   // a worker's break ended: offers resume
)

// ReleaseReason says why an offer was withdrawn, the "reason" of a
// [KindTaskReleased] event. Reasons other than the constants below are kept
// as they come.
type ReleaseReason string

// Release reasons.
const (
	ReleaseBacklog       ReleaseReason = "releaseBacklog" // the worker was paused with its backlog released
	ReleaseWorkerRemoved ReleaseReason = "workerRemoved"  // the worker was removed (the mock's every-tag rules; the platform keeps the offer until it expires)
	ReleaseReassigned    ReleaseReason = "reassigned"     // the task was assigned to another worker
)

// Event is a verified webhook delivery. The fields every kind shares are
// decoded; the rest stays in Raw, and the typed accessors (TaskMatched,
// TaskCompleted, ...) decode the members of their kind. Both envelope shapes
// are read the same way: members flat beside "event", or nested in a "data"
// object (a member in "data" wins over one of the same name beside it).
type Event struct {
	Kind      Kind      // "event"
	ID        string    // "id", unique per event ("evt_..."): the key for de-duplication; read only beside "event"
	CreatedAt time.Time // "createdAt", from Unix milliseconds; zero when absent
	TaskID    string    // "taskId", when the event concerns a task
	WorkerID  string    // "workerId", when the event concerns a worker
	// Raw is the verified body exactly as received. ConstructEvent does not
	// copy it: it shares memory with the payload passed in.
	Raw json.RawMessage
}

// TaskMatched is the payload of a [KindTaskMatched] event: the service chose
// WorkerID for TaskID and offers it until ExpiresAt.
type TaskMatched struct {
	TaskID     string
	WorkerID   string
	DecisionID string    // "decisionId", the Decision that explains the choice
	MatchedAt  time.Time // "matchedAt", from Unix milliseconds
	ExpiresAt  time.Time // "expiresAt", when the offer runs out; zero when it never does
	Priority   float64
	Tags       []string
}

// TaskAccepted is the payload of a [KindTaskAccepted] event.
type TaskAccepted struct{ TaskID, WorkerID string }

// TaskRejected is the payload of a [KindTaskRejected] event; the task is
// queued again and never offered to WorkerID again.
type TaskRejected struct{ TaskID, WorkerID string }

// TaskCompleted is the payload of a [KindTaskCompleted] event.
type TaskCompleted struct {
	TaskID   string
	WorkerID string
	Result   json.RawMessage // "result" as sent; nil when absent
}

// TaskExpired is the payload of a [KindTaskExpired] event: the offer to
// WorkerID ran out and the task is queued again.
type TaskExpired struct{ TaskID, WorkerID string }

// TaskCancelled is the payload of a [KindTaskCancelled] event; WorkerID is
// the worker that held the task, if any.
type TaskCancelled struct{ TaskID, WorkerID string }

// TaskReleased is the payload of a [KindTaskReleased] event: the offer to
// WorkerID was withdrawn and the task is queued again or, for
// [ReleaseReassigned], offered to another worker (a [KindTaskMatched] follows).
type TaskReleased struct {
	TaskID   string
	WorkerID string
	Reason   ReleaseReason
}

// WorkerBreakStarted is the payload of a [KindWorkerBreakStarted] event: the
// worker gets no new offers until the break ends; its backlog is kept.
type WorkerBreakStarted struct {
	WorkerID string
	Reason   string // as the worker gave it, e.g. "lunch"; empty when none was given
}

// WorkerBreakEnded is the payload of a [KindWorkerBreakEnded] event; Reason is
// the one the break was started with.
type WorkerBreakEnded struct {
	WorkerID string
	Reason   string
}

// ConstructEvent verifies a delivery as [Verify] does and, only when it is
// authentic, parses payload into an [Event]. A body that is not a JSON object
// with a string "event" is [ErrInvalidPayload]; an unknown kind is not an
// error.
func ConstructEvent(payload []byte, header, secret string) (Event, error) {
	if err := Verify(payload, header, secret); err != nil {
		return Event{}, err
	}
	return ParseEvent(payload)
}

// ConstructEvent verifies a delivery with v and, only when it is authentic,
// parses payload into an [Event], as the package function [ConstructEvent].
func (v *Verifier) ConstructEvent(payload []byte, header string) (Event, error) {
	if err := v.Verify(payload, header); err != nil {
		return Event{}, err
	}
	return ParseEvent(payload)
}

// ParseEvent parses a body into an [Event] WITHOUT verifying it. Use it only
// on bytes already verified (for example by [Middleware]) or in tests; a
// receiver that parses unverified bytes acts on forged events.
func ParseEvent(payload []byte) (Event, error) {
	var env struct {
		Event     *string         `json:"event"`
		ID        string          `json:"id"`
		CreatedAt millis          `json:"createdAt"`
		Data      json.RawMessage `json:"data"`
		common
	}
	if err := decodeObject(payload, &env); err != nil {
		return Event{}, err
	}
	if env.Event == nil {
		return Event{}, fmt.Errorf("%w: no string member \"event\"", ErrInvalidPayload)
	}
	ev := Event{Kind: Kind(*env.Event), ID: env.ID, TaskID: env.TaskID, WorkerID: env.WorkerID, Raw: payload}
	created := env.CreatedAt
	if isObject(env.Data) {
		var nested struct {
			CreatedAt millis `json:"createdAt"`
			common
		}
		if err := decodeObject(env.Data, &nested); err != nil {
			return Event{}, err
		}
		ev.TaskID = orElse(nested.TaskID, ev.TaskID)
		ev.WorkerID = orElse(nested.WorkerID, ev.WorkerID)
		if !created.set {
			created = nested.CreatedAt
		}
	}
	ev.CreatedAt = created.time()
	return ev, nil
}

// common holds the members most kinds share.
type common struct {
	TaskID   string `json:"taskId"`
	WorkerID string `json:"workerId"`
}

// TaskMatched decodes the payload of a [KindTaskMatched] event; on another
// kind it returns [ErrWrongKind].
func (e Event) TaskMatched() (TaskMatched, error) {
	var w struct {
		common
		DecisionID string   `json:"decisionId"`
		MatchedAt  millis   `json:"matchedAt"`
		ExpiresAt  millis   `json:"expiresAt"`
		Priority   float64  `json:"priority"`
		Tags       []string `json:"tags"`
	}
	if err := e.decodePayload(KindTaskMatched, &w); err != nil {
		return TaskMatched{}, err
	}
	return TaskMatched{
		TaskID: w.TaskID, WorkerID: w.WorkerID, DecisionID: w.DecisionID,
		MatchedAt: w.MatchedAt.time(), ExpiresAt: w.ExpiresAt.time(),
		Priority: w.Priority, Tags: w.Tags,
	}, nil
}

// TaskAccepted decodes the payload of a [KindTaskAccepted] event.
func (e Event) TaskAccepted() (TaskAccepted, error) {
	var w common
	err := e.decodePayload(KindTaskAccepted, &w)
	return TaskAccepted(w), err
}

// TaskRejected decodes the payload of a [KindTaskRejected] event.
func (e Event) TaskRejected() (TaskRejected, error) {
	var w common
	err := e.decodePayload(KindTaskRejected, &w)
	return TaskRejected(w), err
}

// TaskCompleted decodes the payload of a [KindTaskCompleted] event.
func (e Event) TaskCompleted() (TaskCompleted, error) {
	var w struct {
		common
		Result json.RawMessage `json:"result"`
	}
	if err := e.decodePayload(KindTaskCompleted, &w); err != nil {
		return TaskCompleted{}, err
	}
	return TaskCompleted{TaskID: w.TaskID, WorkerID: w.WorkerID, Result: w.Result}, nil
}

// TaskExpired decodes the payload of a [KindTaskExpired] event.
func (e Event) TaskExpired() (TaskExpired, error) {
	var w common
	err := e.decodePayload(KindTaskExpired, &w)
	return TaskExpired(w), err
}

// TaskCancelled decodes the payload of a [KindTaskCancelled] event.
func (e Event) TaskCancelled() (TaskCancelled, error) {
	var w common
	err := e.decodePayload(KindTaskCancelled, &w)
	return TaskCancelled(w), err
}

// TaskReleased decodes the payload of a [KindTaskReleased] event.
func (e Event) TaskReleased() (TaskReleased, error) {
	var w struct {
		common
		Reason ReleaseReason `json:"reason"`
	}
	if err := e.decodePayload(KindTaskReleased, &w); err != nil {
		return TaskReleased{}, err
	}
	return TaskReleased{TaskID: w.TaskID, WorkerID: w.WorkerID, Reason: w.Reason}, nil
}

// breakPayload holds the members of both break events.
type breakPayload struct {
	WorkerID string `json:"workerId"`
	Reason   string `json:"reason"`
}

// WorkerBreakStarted decodes the payload of a [KindWorkerBreakStarted] event.
func (e Event) WorkerBreakStarted() (WorkerBreakStarted, error) {
	var w breakPayload
	err := e.decodePayload(KindWorkerBreakStarted, &w)
	return WorkerBreakStarted(w), err
}

// WorkerBreakEnded decodes the payload of a [KindWorkerBreakEnded] event.
func (e Event) WorkerBreakEnded() (WorkerBreakEnded, error) {
	var w breakPayload
	err := e.decodePayload(KindWorkerBreakEnded, &w)
	return WorkerBreakEnded(w), err
}

// decodePayload decodes the top-level members into dst and then, when the
// body nests them in a "data" object, the nested members over them: decoding
// twice into the same value is what makes "data" win member by member.
func (e Event) decodePayload(want Kind, dst any) error {
	if e.Kind != want {
		return fmt.Errorf("%w: want %s, have %q", ErrWrongKind, want, e.Kind)
	}
	if err := decodeObject(e.Raw, dst); err != nil {
		return err
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(e.Raw, &env); err != nil || !isObject(env.Data) {
		return nil
	}
	return decodeObject(env.Data, dst)
}

// decodeObject unmarshals a JSON object into dst. Errors name the member at
// fault, never its value: json's own messages can quote body bytes.
func decodeObject(b []byte, dst any) error {
	if !isObject(b) {
		return fmt.Errorf("%w: not a JSON object", ErrInvalidPayload)
	}
	err := json.Unmarshal(b, dst)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return fmt.Errorf("%w: member %q has the wrong type", ErrInvalidPayload, typeErr.Field)
	}
	var msErr *millisError
	if errors.As(err, &msErr) {
		return fmt.Errorf("%w: %v", ErrInvalidPayload, msErr)
	}
	return fmt.Errorf("%w: not valid JSON", ErrInvalidPayload)
}

func isObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// millis is a wire timestamp: an integer count of Unix milliseconds, or null.
type millis struct {
	ms  int64
	set bool
}

type millisError struct{}

func (*millisError) Error() string { return "a timestamp is not an integer of milliseconds" }

// UnmarshalJSON accepts an integer (also written with a zero fraction or an
// exponent, as some encoders do) or null.
func (m *millis) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*m = millis{}
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err == nil {
		*m = millis{ms: n, set: true}
		return nil
	}
	if errors.Is(err, strconv.ErrRange) {
		// An integer past int64: read as a float it would round into range
		// (-2^63-1 becomes -2^63) and come back as another instant.
		return &millisError{}
	}
	f, err := strconv.ParseFloat(string(b), 64) // mutation:ignore: ParseFloat reads every bit size but 32 as 64
	// The range check comes first: converting an out-of-range float to an
	// int64 gives an unspecified value.
	if err != nil || f < -(1<<63) || f >= 1<<63 || f != float64(int64(f)) {
		return &millisError{}
	}
	*m = millis{ms: int64(f), set: true}
	return nil
}

func (m millis) time() time.Time {
	if !m.set {
		return time.Time{}
	}
	return time.UnixMilli(m.ms).UTC() // UTC, like the client, so one instant prints one way
}
