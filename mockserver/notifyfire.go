package mockserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// Notification is one notification a sequence step sent to one channel, as recorded for
// assertions (Server.Notifications). It is made once, with no retry.
type Notification struct {
	ID         string // ntf_..., also the payload's id
	SequenceID string
	ChannelID  string
	URL        string // the channel's target
	EventType  string // the step's eventType: the payload's "event" member
	Trigger    string // the task event that started the sequence: matched, accepted, ...
	TaskID     string
	DueAt      time.Time       // trigger time plus the step's offset
	At         time.Time       // when it was sent: the signature's timestamp
	Payload    json.RawMessage // the exact bytes POSTed
	StatusCode int             // 0 when no response arrived
	Err        string          // transport error, empty when a response arrived
	Outcome    string          // OutcomeDelivered (2xx) or OutcomeFailed
}

// sequenceTrigger maps the matcher's task events to the triggers a sequence step names.
// "expiring" has no event in the mock (an offer ends without a warning first), so a step
// with that trigger never fires.
func sequenceTrigger(k match.EventKind) (string, bool) {
	switch k {
	case match.EventTaskMatched:
		return "matched", true
	case match.EventTaskAccepted:
		return "accepted", true
	case match.EventTaskRejected:
		return "rejected", true
	case match.EventTaskCompleted:
		return "completed", true
	case match.EventTaskExpired:
		return "expired", true
	}
	return "", false
}

// pendingNotice is one sequence step waiting for its time.
type pendingNotice struct {
	due        time.Time
	seq        uint64 // scheduling order, so steps due at one instant go in that order
	sequenceID string
	step       sequenceStep
	taskID     string
	workerID   string
	triggerAt  time.Time
}

// outgoingNotice is a notification built under the workspace lock and sent after it.
type outgoingNotice struct {
	rec    Notification
	secret string
}

// observeSequences schedules the steps of every enabled sequence that the task event
// triggers: the sequence's filterTags, when it has any, must share a tag with the task.
func (ws *workspace) observeSequences(ev match.Event) {
	trigger, ok := sequenceTrigger(ev.Kind)
	if !ok {
		return
	}
	for _, q := range ws.notify.sequences {
		if !q.enabled || (len(q.filterTags) > 0 && !slices.ContainsFunc(q.filterTags, func(t string) bool { return slices.Contains(ev.Tags, t) })) {
			continue
		}
		for _, st := range q.steps {
			if st.Trigger != trigger {
				continue
			}
			var off time.Duration
			if st.OffsetMs != nil && *st.OffsetMs > 0 {
				off = time.Duration(*st.OffsetMs) * time.Millisecond
			}
			ws.notify.noticeSeq++
			ws.notify.pending = append(ws.notify.pending, pendingNotice{due: ev.At.Add(off), seq: ws.notify.noticeSeq,
				sequenceID: q.id, step: st, taskID: ev.TaskID, workerID: ev.WorkerID, triggerAt: ev.At})
			ws.notify.moved = true
		}
	}
}

func (st *notificationStore) nextNoticeDue() (time.Time, bool) {
	var best time.Time
	for i, p := range st.pending {
		if i == 0 || p.due.Before(best) {
			best = p.due
		}
	}
	return best, len(st.pending) > 0
}

// takeDueNotices removes the steps due at now, earliest first, and builds one notification
// per channel that takes the step's event type. A step whose sequence was disabled or
// removed meanwhile sends nothing.
func (ws *workspace) takeDueNotices(now time.Time) []outgoingNotice {
	var due []pendingNotice
	keep := ws.notify.pending[:0]
	for _, p := range ws.notify.pending {
		if p.due.After(now) {
			keep = append(keep, p)
		} else {
			due = append(due, p)
		}
	}
	ws.notify.pending = keep
	slices.SortFunc(due, func(a, b pendingNotice) int {
		if c := a.due.Compare(b.due); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	var out []outgoingNotice
	for _, p := range due {
		i, err := ws.notify.sequence(p.sequenceID)
		if err != nil || !ws.notify.sequences[i].enabled {
			continue
		}
		for _, ch := range ws.notify.channels {
			if ch.disabled || ch.kind != "webhook" || (len(ch.events) > 0 && !slices.Contains(ch.events, p.step.EventType)) {
				continue
			}
			id := ws.newID("ntf_")
			body := noticePayload{Event: p.step.EventType, ID: id, CreatedAt: p.due.UnixMilli(), SequenceID: p.sequenceID,
				ChannelID: ch.id, Trigger: p.step.Trigger, OffsetMs: p.step.OffsetMs, TaskID: p.taskID,
				WorkerID: p.workerID, TriggeredAt: p.triggerAt.UnixMilli()}
			payload, _ := json.Marshal(body) // plain strings and numbers: cannot fail
			out = append(out, outgoingNotice{secret: ch.secret, rec: Notification{ID: id, SequenceID: p.sequenceID,
				ChannelID: ch.id, URL: ch.target, EventType: p.step.EventType, Trigger: p.step.Trigger,
				TaskID: p.taskID, DueAt: p.due, Payload: payload}})
		}
	}
	return out
}

// noticePayload is the body of a notification: the step's event type in "event" beside the
// flat members, like a webhook event.
type noticePayload struct {
	Event       string `json:"event"`
	ID          string `json:"id"`
	CreatedAt   int64  `json:"createdAt"`
	SequenceID  string `json:"sequenceId"`
	ChannelID   string `json:"channelId"`
	Trigger     string `json:"trigger"`
	OffsetMs    *int64 `json:"offsetMs"`
	TaskID      string `json:"taskId"`
	WorkerID    string `json:"workerId,omitempty"`
	TriggeredAt int64  `json:"triggeredAt"`
}

// notifier sends notifications and keeps the record of every one.
type notifier struct {
	client  *http.Client
	secret  string // the server's signing secret, for a channel created without its own
	timeout time.Duration
	signNow func() time.Time // WithWallClockSignatures; nil signs at the server clock's time

	// flight is held for reading by each send and for writing by pause, which so waits for
	// the sends in progress: nothing of the old state is sent or recorded after Reset.
	flight sync.RWMutex
	mu     sync.Mutex
	log    []Notification
	gen    uint64 // Reset count; a send of notifications taken before a Reset is dropped
	paused bool
}

// generation is read before notifications are taken from a workspace and passed to send.
func (n *notifier) generation() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.gen
}

// pause stops new sends and waits for those in progress; reset resumes.
func (n *notifier) pause() {
	n.flight.Lock() // waits for the sends in progress; a send arriving meanwhile waits too
	defer n.flight.Unlock()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.paused = true
}

// send POSTs each notification once, signed like a webhook delivery with the channel's
// secret (else the server's), and records the outcome. Notifications go out concurrently
// and send returns when all have an answer, so a ManualClock test sees them on return.
func (n *notifier) send(out []outgoingNotice, at time.Time, gen uint64) {
	if len(out) == 0 {
		return
	}
	n.flight.RLock()
	defer n.flight.RUnlock()
	n.mu.Lock()
	stale := n.paused || n.gen != gen
	n.mu.Unlock()
	if stale {
		return
	}
	done := make([]Notification, len(out))
	var wg sync.WaitGroup
	for i, o := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := o.rec
			rec.At = at
			secret := o.secret
			if secret == "" {
				secret = n.secret
			}
			rec.StatusCode, rec.Err = n.post(rec.URL, rec.Payload, webhook.Sign(rec.Payload, secret, signedAt(at, n.signNow)))
			rec.Outcome = OutcomeFailed
			if rec.StatusCode >= 200 && rec.StatusCode < 300 {
				rec.Outcome = OutcomeDelivered
			}
			done[i] = rec
		}()
	}
	wg.Wait()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.gen == gen {
		n.log = append(n.log, done...)
	}
}

func (n *notifier) post(url string, payload []byte, signature string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), n.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return 0, "the channel's target is not a URL"
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "taskrouting-mockserver")
	req.Header.Set(webhook.SignatureHeader, signature)
	resp, err := n.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, ""
}

func (n *notifier) snapshot() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.log)
}

func (n *notifier) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.log, n.paused = nil, false
	n.gen++
}

// Notifications returns every notification sequence steps have sent so far, in the order
// they were sent.
func (s *Server) Notifications() []Notification { return s.notes.snapshot() }

// timerDeadline is the earliest workspace-level deadline beside the matcher's: a run step's
// timeout or a sequence step's time.
func (ws *workspace) timerDeadline() (time.Time, bool) {
	best, found := ws.flows.nextRunDeadline()
	if t, ok := ws.notify.nextNoticeDue(); ok && (!found || t.Before(best)) {
		best, found = t, true
	}
	return best, found
}

// runTimers times out the run steps due at now and takes the notifications due; the caller
// holds mu and sends them after releasing it.
func (ws *workspace) runTimers(now time.Time) []outgoingNotice {
	ws.timeOutRuns(now)
	return ws.takeDueNotices(now)
}

// observe lets runs and sequences react to one of the matcher's events.
func (ws *workspace) observe(ev match.Event) {
	ws.observeSequences(ev)
	ws.observeRunTask(ev)
}

// timersMoved reports (once) that a deadline was added since the last call, so the
// real-clock scheduler recomputes its wait.
func (ws *workspace) timersMoved() bool {
	moved := ws.flows.moved || ws.notify.moved
	ws.flows.moved, ws.notify.moved = false, false
	return moved
}

// sendDueNotices sends the notifications already due after a request (a step with no
// offset fires with its trigger), once the workspace lock is released: a receiver may call
// back into the API.
func (s *Server) sendDueNotices(ws *workspace) {
	gen := s.notes.generation()
	ws.mu.Lock()
	now := s.clock.Now()
	var out []outgoingNotice
	if len(ws.notify.pending) > 0 {
		out = ws.takeDueNotices(now)
	}
	ws.mu.Unlock()
	s.notes.send(out, now, gen)
}

// wireNotification is one entry of GET /_mock/notifications.
type wireNotification struct {
	ID         string          `json:"id"`
	SequenceID string          `json:"sequenceId"`
	ChannelID  string          `json:"channelId"`
	URL        string          `json:"url"`
	Event      string          `json:"event"`
	Trigger    string          `json:"trigger"`
	TaskID     string          `json:"taskId"`
	DueAt      int64           `json:"dueAt"`
	At         int64           `json:"at"`
	Payload    json.RawMessage `json:"payload"`
	StatusCode int             `json:"statusCode"`
	Error      string          `json:"error,omitempty"`
	Outcome    string          `json:"outcome"`
}

func (s *Server) adminNotifications() any {
	ns := s.Notifications()
	out := make([]wireNotification, len(ns))
	for i, n := range ns {
		out[i] = wireNotification{ID: n.ID, SequenceID: n.SequenceID, ChannelID: n.ChannelID, URL: n.URL, Event: n.EventType,
			Trigger: n.Trigger, TaskID: n.TaskID, DueAt: n.DueAt.UnixMilli(), At: n.At.UnixMilli(), Payload: n.Payload,
			StatusCode: n.StatusCode, Error: n.Err, Outcome: n.Outcome}
	}
	return map[string]any{"notifications": out}
}
