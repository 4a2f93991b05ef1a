package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// DefaultStateLog is how many commands a workspace keeps for its snapshot (WithStateLog).
const DefaultStateLog = 200_000

// commandLog is what brought a workspace to its state: every command it ran and every
// moment its clock fired something, in order. A snapshot carries it, and restoring a
// snapshot runs it again into fresh workspaces (snapshot.go): the matcher, the stores beside
// it and the id generator are rebuilt by the code that built them the first time, so nothing
// of the server's inner structures is written down twice.
type commandLog struct {
	seed    uint64 // what the workspace's ids and tags are made from, with gen and index
	gen     uint64
	limit   int
	entries []stateCommand
	// refused names what the log cannot carry once it happened (a worker-plane request, an
	// upload, more commands than limit); a snapshot of the workspace is then refused with it.
	refused string
}

// stateCommand is one entry of a snapshot's commands: a request of the API plane as the
// workspace ran it, or (Tick) a moment at which its clock fired due work.
type stateCommand struct {
	At             time.Time       `json:"at"`
	Tick           bool            `json:"tick,omitempty"`
	Method         string          `json:"method,omitempty"`
	Path           string          `json:"path,omitempty"`
	Query          string          `json:"query,omitempty"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
	Body           json.RawMessage `json:"body,omitempty"`
	Status         int             `json:"status,omitempty"`
}

// noEntry is what begin returns when it logged nothing for end to complete.
const noEntry = -1

// begin logs a request about to run on ws at now, before any of its work; the caller holds
// ws.mu and hands the result to end with the answer's status. A read changes nothing but
// the firing of what its clock had due, so it is logged as a tick, and only when something
// was due.
func (l *commandLog) begin(ws *workspace, req *request, now time.Time) int {
	if l.refused != "" {
		return noEntry
	}
	if req.workerPlane {
		l.refuse("worker-plane or supervisor-plane requests, whose sessions a snapshot does not carry")
		return noEntry
	}
	if req.method == http.MethodGet || req.method == http.MethodHead {
		l.tick(ws, now)
		return noEntry
	}
	if !l.room() {
		return noEntry
	}
	if secretMembersOf(req.path) != nil && !bytes.Equal(redactBody(req.path, req.body), req.body) {
		// A saved state is a file that gets shared; it holds no credential (a PIN, a
		// channel's signing secret), and without it the command could not be run again.
		l.refuse("a request carrying a credential (a PIN or a signing secret), which a saved state does not write down")
		return noEntry
	}
	c := stateCommand{At: now, Method: req.method, Path: req.path, IdempotencyKey: req.idemKey}
	if len(req.query) > 0 {
		c.Query = req.query.Encode()
	}
	if b := bytes.TrimSpace(req.body); len(b) > 0 {
		// Not a copy: a body is read into an array of its own (readBody) that nothing
		// writes to afterwards; the request log keeps the same array.
		c.Body = b
	}
	l.push(c)
	return len(l.entries) - 1
}

// push appends c, doubling the log's array when it is full: append's own growth slows to
// 1.25x for large slices, which copies a long log (and gives the collector its garbage)
// about four times as often.
func (l *commandLog) push(c stateCommand) {
	if len(l.entries) == cap(l.entries) {
		n := max(2*cap(l.entries), 64)
		if l.limit > 0 {
			n = min(n, l.limit)
		}
		l.entries = slices.Grow(l.entries, n-len(l.entries))
	}
	l.entries = append(l.entries, c)
}

// end records the status the command of begin was answered with.
func (l *commandLog) end(i, status int) {
	if i != noEntry && i < len(l.entries) {
		l.entries[i].Status = status
	}
}

// tick logs that ws's clock fires at now, when anything of ws is due by then; the caller
// holds ws.mu and has not fired it yet.
func (l *commandLog) tick(ws *workspace, now time.Time) {
	if l.refused != "" || !ws.dueBy(now) || !l.room() {
		return
	}
	if n := len(l.entries); n > 0 && l.entries[n-1].Tick && l.entries[n-1].At.Equal(now) {
		return
	}
	l.push(stateCommand{At: now, Tick: true})
}

func (l *commandLog) room() bool {
	if l.limit > 0 && len(l.entries) >= l.limit {
		l.refuse("more commands than the state log keeps (WithStateLog)")
		return false
	}
	return true
}

// refuse stops the log for good: what happened next cannot be replayed from it.
func (l *commandLog) refuse(why string) {
	if l.refused == "" {
		l.refused = why
		l.entries = nil
	}
}

// dueBy reports whether any deadline of ws (offer expiry, task clock, run step, notice,
// recurring occurrence) falls at or before now.
func (ws *workspace) dueBy(now time.Time) bool {
	if t, ok := ws.engine.NextDeadline(); ok && !t.After(now) {
		return true
	}
	if t, ok := ws.timerDeadline(); ok && !t.After(now) {
		return true
	}
	t, ok := ws.recurring.next()
	return ok && !t.After(now)
}
