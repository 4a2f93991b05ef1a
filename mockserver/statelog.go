package mockserver

import (
	"bytes"
	"encoding/json"
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
	seed  uint64 // what the workspace's ids and tags are made from, with gen and index
	gen   uint64
	limit int
	// chunks hold the entries in order, every array but the last full. A full array is
	// kept as it is and the next starts empty, so a long log is never copied into a larger
	// array (nor leaves the old one to the collector); the arrays double from 64 entries up
	// to logChunkMax, so a short log stays small.
	chunks [][]stateCommand
	n      int // entries in all chunks
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
// ws.mu and hands the result to end with the answer's status. A read is not logged: it
// changes nothing and fires nothing that is due (exec), so a moment logged for it would
// fire, on restore, work the saved workspace had not done yet.
func (l *commandLog) begin(req *request, now time.Time) int {
	if l.refused != "" {
		return noEntry
	}
	if req.workerPlane {
		l.refuse("worker-plane or supervisor-plane requests, whose sessions a snapshot does not carry")
		return noEntry
	}
	if req.read() {
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
	return l.n - 1
}

// logChunkMax is the most entries one array of the log holds (512 KiB of them).
const logChunkMax = 4096

// push appends c.
func (l *commandLog) push(c stateCommand) {
	k := len(l.chunks) - 1
	if k < 0 || len(l.chunks[k]) == cap(l.chunks[k]) {
		n := 64
		if k >= 0 {
			n = min(2*cap(l.chunks[k]), logChunkMax)
		}
		if l.limit > 0 {
			n = max(min(n, l.limit-l.n), 1)
		}
		l.chunks = append(l.chunks, make([]stateCommand, 0, n))
		k++
	}
	l.chunks[k] = append(l.chunks[k], c)
	l.n++
}

// at is the i-th entry; i < l.n. The entries asked for are the newest, so the search starts
// from the last array.
func (l *commandLog) at(i int) *stateCommand {
	start := l.n
	for k := len(l.chunks) - 1; ; k-- {
		start -= len(l.chunks[k])
		if i >= start {
			return &l.chunks[k][i-start]
		}
	}
}

// all is a copy of every entry, in order.
func (l *commandLog) all() []stateCommand {
	out := make([]stateCommand, 0, l.n)
	for _, c := range l.chunks {
		out = append(out, c...)
	}
	return out
}

// end records the status the command of begin was answered with.
func (l *commandLog) end(i, status int) {
	if i != noEntry && i < l.n {
		l.at(i).Status = status
	}
}

// tick logs that ws's clock fires at now, when anything of ws is due by then; the caller
// holds ws.mu and has not fired it yet.
func (l *commandLog) tick(ws *workspace, now time.Time) {
	if l.refused != "" || !ws.dueBy(now) || !l.room() {
		return
	}
	if l.n > 0 {
		if last := l.at(l.n - 1); last.Tick && last.At.Equal(now) {
			return
		}
	}
	l.push(stateCommand{At: now, Tick: true})
}

func (l *commandLog) room() bool {
	if l.limit > 0 && l.n >= l.limit {
		l.refuse("more commands than the state log keeps (WithStateLog)")
		return false
	}
	return true
}

// refuse stops the log for good: what happened next cannot be replayed from it.
func (l *commandLog) refuse(why string) {
	if l.refused == "" {
		l.refused = why
		l.chunks, l.n = nil, 0
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
