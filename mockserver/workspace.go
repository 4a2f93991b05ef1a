package mockserver

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// workspace is what one API key reaches: its own matcher and everything kept beside it.
// Every field is guarded by mu; the matcher itself is not safe for concurrent use.
type workspace struct {
	mu     sync.Mutex
	engine *match.Engine
	rng    *rand.Rand // server-made ids, reproducible from the seed
	limits Limits
	// signals are the feedback signal names credited so far, each weighted 1
	// (signalReward); learning.status reports them as signalWeights.
	signals map[string]bool
	idem    idempotencyStore

	id          string                     // the workspace id worker sign-ins name
	identities  map[string]*identity       // worker sign-ins of the worker plane
	identitySeq int                        // last identity's creation number
	onboard     onboardingStore            // invites sent, join links, locations (onboarding.go)
	attachments attachmentStore            // files on tasks, with the bytes storage received
	notify      notificationStore          // notification channels and sequences
	teams       teamStore                  // teams and who is on them (teams.go)
	time        timeline                   // shifts, breaks, outcomes and corrections (timeline.go)
	links       linkStore                  // connector links (links.go)
	flows       workflowStore              // workflows and their runs (workflows.go, workflowruns.go)
	archive     archiveStore               // finished tasks for tasks.history (archive.go)
	bookings    bookingStore               // tasks.booking.* (bookings.go)
	recurring   recurringStore             // recurring templates and their deadlines (recurring.go)
	skillCat    skillCatalog               // skills.* (skills.go)
	sessions    *sessions                  // the server's token table
	learnSnaps  map[string]*weightSnapshot // learning.applyWeights snapshots by worker (learnwrite.go)
	ledger      ledger                     // what happened, for stats and history (ledger.go)
	cmds        commandLog                 // what brought it here, for snapshots (statelog.go)

	// Usage counted here so quota headers cost O(1) per answer.
	openTasks   int
	workers     int
	skillRefs   map[string]int // tag -> number of workers carrying it
	rateStart   time.Time      // start of the current task-rate window
	rateUsed    int
	unpublished []Event // events of the running command, published before the lock is released

	ties    []Tie      // decisions made on a tie, oldest first (ties.go)
	testLog testing.TB // WithTestLogger: hears of each tie
}

func newWorkspace(index int, gen uint64, cfg *config, sess *sessions) *workspace {
	// The sandbox workspace of a fresh server uses the plain prefixes ("dec_1", "evt_1"), as
	// the wire fixtures do; other workspaces and later generations get a tag so their ids
	// never collide with those.
	evtPrefix, decPrefix := "evt_", "dec_"
	if index != 0 || gen != 0 {
		tag := idTag(cfg.seed, gen, uint64(index))
		evtPrefix, decPrefix = "evt_"+tag+"_", "dec_"+tag+"_"
	}
	anyTag := cfg.matcher.AnyTagEligibility // the deprecated option keeps its meaning
	rules := match.Rules(cfg.matcher.Rules)
	if rules == "" && anyTag {
		rules = match.RulesEveryTag
	}
	mc := match.Config{
		Rules:               rules,
		Mode:                match.Mode(cfg.matcher.Mode),
		DefaultMaxBacklog:   cfg.matcher.DefaultMaxBacklog,
		OfferTimeout:        cfg.matcher.OfferTimeout,
		MaintenanceInterval: cmp.Or(cfg.matcher.MaintenanceInterval, DefaultMaintenanceInterval),
		BalancedLoadPenalty: cfg.matcher.BalancedLoadPenalty,
		Learning: match.LearningConfig{
			Disabled:        cfg.matcher.LearningDisabled,
			ShadowMode:      cfg.matcher.LearningShadowMode,
			LearnedVeto:     cfg.matcher.LearnedVeto,
			Rank:            cfg.matcher.LearningRanks,
			ExplorationRate: cfg.matcher.LearningExplorationRate,
		},
		EventIDPrefix:    evtPrefix,
		DecisionIDPrefix: decPrefix,
		ShuffleTies:      cfg.tieBreak == TieShuffle,
		Seed:             cfg.seed,
	}
	//lint:ignore SA1019 the deprecated any-tag option keeps its meaning
	mc.AnyTagEligibility = anyTag
	return &workspace{
		engine:    match.New(mc),
		rng:       rand.New(rand.NewPCG(cfg.seed, gen<<16|uint64(index))),
		limits:    cfg.limits,
		idem:      idempotencyStore{entries: map[string]*idemEntry{}},
		skillRefs: map[string]int{},
		sessions:  sess,
		ledger:    ledger{retention: cfg.retention},
		archive:   archiveStore{limit: cfg.finishedTasks},
		testLog:   cfg.testLog,
		time:      timeline{retention: cfg.retention},
		cmds:      newCommandLog(cfg, gen),
	}
}

// idTag is a short tag unique per (seed, reset generation, workspace), so ids of two
// workspaces, or of one workspace before and after Reset, never collide.
func idTag(seed, gen, index uint64) string {
	r := rand.New(rand.NewPCG(seed^0x7461736b, gen<<16|index))
	return strconv.FormatUint(r.Uint64()%(36*36*36*36*36*36), 36)
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// newID makes a server-side id such as "task_k3j9x0q2m7ab".
func (ws *workspace) newID(prefix string) string {
	b := make([]byte, 12)
	for i := range b {
		b[i] = idAlphabet[ws.rng.IntN(len(idAlphabet))]
	}
	return prefix + string(b)
}

// publish turns the matcher's events into webhook events (in the matcher's total order) and
// keeps the usage counters in step with them.
func (ws *workspace) publish(res match.Result) {
	ws.time.observeEvents(res.Events)
	for i, ev := range res.Events {
		ws.ledger.record(&res.Events[i])
		switch ev.Kind {
		case match.EventTaskCompleted, match.EventTaskCancelled, match.EventTaskFailed, match.EventTaskDropped:
			ws.openTasks--
		}
		ws.archive.observe(ev)
		ws.observeTie(ev)
		ws.unpublished = append(ws.unpublished, toEvent(ev))
		ws.observe(ev)
	}
}

// flush hands the command's events to the deliverer while the workspace lock is still held,
// so events of one workspace reach every endpoint in the matcher's order.
func (ws *workspace) flush(d *deliverer) bool {
	if len(ws.unpublished) == 0 {
		return false
	}
	d.enqueue(ws.unpublished)
	ws.unpublished = nil
	return true
}

// nextDeadline is the earliest of the matcher's next deadline, the run and notification
// timers and the next recurring occurrence.
func (ws *workspace) nextDeadline() (time.Time, bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	best, found := ws.engine.NextDeadline()
	if t, ok := ws.timerDeadline(); ok && (!found || t.Before(best)) {
		best, found = t, true
	}
	if t, ok := ws.recurring.next(); ok && (!found || t.Before(best)) {
		best, found = t, true
	}
	return best, found
}

// tick fires the offer expiries due at now (each followed by rematching), cuts the
// recurring occurrences due, then the run step timeouts, and returns the sequence notifications due for the caller to send.
func (ws *workspace) tick(now time.Time, d *deliverer) []outgoingNotice {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.cmds.tick(ws, now)
	ws.publish(ws.engine.Advance(now))
	ws.fireRecurring(now)
	out := ws.runTimers(now)
	ws.timersMoved()
	ws.forgetFinished()
	ws.flush(d)
	return out
}

// matchError maps the matcher's refusals onto the wire's errors.
func matchError(err error) *apiError {
	var nf *match.NotFoundError
	var se *match.StateError
	var ie *match.InputError
	switch {
	case errors.As(err, &nf):
		return notFoundf("%s %s not found", nf.Kind, nf.ID)
	case errors.As(err, &se):
		return conflictf(CodeInvalidState, "%s", stateMessage(se))
	case errors.Is(err, match.ErrTaskExists):
		return conflictf(CodeTaskExists, "a task with this id already exists")
	case errors.Is(err, match.ErrBacklogFull):
		return conflictf(CodeWorkerBacklogFull, "the worker's backlog is full; use force to assign anyway")
	case errors.As(err, &ie):
		return invalidBodyf("%s: %s", ie.Field, ie.Reason)
	case errors.Is(err, match.ErrNotFound):
		return notFoundf("not found")
	case errors.Is(err, match.ErrInvalidState):
		return conflictf(CodeInvalidState, "the task's state does not allow this")
	default:
		return errorf(http.StatusInternalServerError, CodeInternalError, "internal error")
	}
}

func stateMessage(se *match.StateError) string {
	switch se.Reason {
	case match.StateNotOfferedWorker:
		return fmt.Sprintf("cannot %s task %s: it is not offered to worker %s", se.Op, se.TaskID, se.WorkerID)
	case match.StateNotAcceptingWorker:
		return fmt.Sprintf("cannot %s task %s: it was not accepted by worker %s", se.Op, se.TaskID, se.WorkerID)
	case match.StateWorkerNotEligible:
		return fmt.Sprintf("cannot %s task %s: worker %s is not eligible for it (%s)", se.Op, se.TaskID, se.WorkerID, se.Rule)
	default:
		return fmt.Sprintf("cannot %s task %s: its status is %s", se.Op, se.TaskID, se.Status)
	}
}

// quotaNames are the quota headers every /v1 answer carries, limit then remaining per
// kind, in the order docs/contract.md section 1 lists the kinds, as canonical header names
// (X-Quota-{kind}-Limit is written X-Quota-Task-Rate-Limit by net/http).
var quotaNames = [...]string{
	"X-Quota-Task-Rate-Limit", "X-Quota-Task-Rate-Remaining",
	"X-Quota-Queued-Tasks-Limit", "X-Quota-Queued-Tasks-Remaining",
	"X-Quota-Workers-Limit", "X-Quota-Workers-Remaining",
	"X-Quota-Skills-Limit", "X-Quota-Skills-Remaining",
	"X-Quota-Worker-Skills-Limit", "X-Quota-Worker-Skills-Remaining",
}

// quotaValues are the quota headers' values, in quotaNames' order.
type quotaValues [len(quotaNames)]string

// quotaHeaders reports usage against the limits; the caller holds mu (or ws is nil for
// answers given before a workspace is known).
func quotaHeaders(ws *workspace, limits Limits, now time.Time, h http.Header) {
	quotaSnapshot(ws, limits, now).set(h)
}

// quotaSnapshot is quotaHeaders' values, taken now (the caller holds mu) and written into
// the answer's header when it is sent (writeResponse): one array instead of a header map
// filled here and copied there.
func quotaSnapshot(ws *workspace, limits Limits, now time.Time) *quotaValues {
	var used [len(quotaNames) / 2]int
	if ws != nil {
		if !ws.rateStart.IsZero() && now.Before(ws.rateStart.Add(limits.TaskRateWindow)) {
			used[0] = ws.rateUsed
		}
		used[1], used[2], used[3] = ws.openTasks, ws.workers, len(ws.skillRefs)
	}
	lims := [...]int{limits.TaskRate, limits.QueuedTasks, limits.Workers, limits.Skills, limits.WorkerSkills}
	vals := new(quotaValues)
	for i, lim := range lims {
		if lim == 0 {
			lim = Unlimited
		}
		vals[2*i], vals[2*i+1] = formatCount(lim), formatCount(max(lim-used[i], 0))
	}
	return vals
}

// set writes the values into h; the ten one-element slices share the array.
func (v *quotaValues) set(h http.Header) {
	for i, name := range quotaNames {
		h[name] = v[i : i+1 : i+1]
	}
}

// formatCount is strconv.Itoa without an allocation for Unlimited, the value most quota
// headers carry.
func formatCount(n int) string {
	if n == Unlimited {
		return unlimitedText
	}
	return strconv.Itoa(n)
}

const unlimitedText = "1000000" // strconv.Itoa(Unlimited); TestFormatCount holds them together

// taskRateFull moves the task-rate window on and, when the window is used up, answers 429
// with the seconds until it ends. It counts nothing: only a create that succeeds is counted
// (countTaskRate), so a refused create never uses up the rate.
func (ws *workspace) taskRateFull(now time.Time) *apiError {
	lim := ws.limits.TaskRate
	if lim == 0 {
		return nil
	}
	end := ws.rateStart.Add(ws.limits.TaskRateWindow)
	if ws.rateStart.IsZero() || !now.Before(end) {
		ws.rateStart, ws.rateUsed = now, 0
		end = now.Add(ws.limits.TaskRateWindow)
	}
	if ws.rateUsed >= lim {
		e := errorf(http.StatusTooManyRequests, CodeRateLimited, "task rate limit of %d per %s reached", lim, ws.limits.TaskRateWindow)
		e.retryAfter = int(math.Ceil(end.Sub(now).Seconds()))
		e.retryAfter = max(e.retryAfter, 1)
		return e
	}
	return nil
}

// countTaskRate counts one created task in the window taskRateFull opened.
func (ws *workspace) countTaskRate() {
	if ws.limits.TaskRate > 0 {
		ws.rateUsed++
	}
}

func planLimit(kind string, limit int) *apiError {
	return errorf(http.StatusPaymentRequired, CodePlanLimitExceeded, "plan limit of %d %s reached", limit, kind)
}

// skillsAfter is the number of distinct worker tags if one worker's tags went from old to new.
func (ws *workspace) skillsAfter(old, new []string) int {
	n := len(ws.skillRefs)
	gone := map[string]bool{}
	for _, t := range old {
		if ws.skillRefs[t] == 1 {
			gone[t] = true
		}
	}
	seen := map[string]bool{}
	for _, t := range new {
		if seen[t] {
			continue
		}
		seen[t] = true
		if gone[t] {
			delete(gone, t)
		} else if ws.skillRefs[t] == 0 {
			n++
		}
	}
	return n - len(gone)
}

func (ws *workspace) retag(old, new []string) {
	for _, t := range dedupe(old) {
		if ws.skillRefs[t]--; ws.skillRefs[t] <= 0 {
			delete(ws.skillRefs, t)
		}
	}
	for _, t := range dedupe(new) {
		ws.skillRefs[t]++
	}
}

func dedupe(tags []string) []string {
	seen := make(map[string]bool, len(tags))
	out := tags[:0:0]
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// idemBodyKept is the longest body an idempotency entry keeps itself; a longer one is kept as
// its SHA-256.
const idemBodyKept = 512

// idemPrint identifies a request for idempotency: the same key must come with the same
// operation and the same bytes. A body of up to idemBodyKept bytes (nearly every command) is
// kept and compared byte for byte: the request's own buffer, never changed once read and
// shared with the state log, so nothing is hashed or copied per command. A longer body, and
// any body of an operation with secret members (a PIN, a signing secret), is kept only as
// its SHA-256 (fingerprint): a stored answer holds neither a large body nor a credential.
type idemPrint struct {
	method, path string
	body         []byte   // the body, unless hashed
	sum          [32]byte // fingerprint of method, path and body, when hashed
	hashed       bool
}

func printOf(method, path string, body []byte) idemPrint {
	if len(body) <= idemBodyKept && secretMembersOf(path) == nil {
		return idemPrint{method: method, path: path, body: body[:len(body):len(body)]}
	}
	return idemPrint{method: method, path: path, sum: fingerprint(method, path, body), hashed: true}
}

// matches reports whether a request is the one the print was taken of.
func (p *idemPrint) matches(method, path string, body []byte) bool {
	if p.hashed {
		return p.sum == fingerprint(method, path, body)
	}
	return p.method == method && p.path == path && bytes.Equal(p.body, body)
}

// fingerprint is the SHA-256 of method, path and body joined by NUL bytes.
func fingerprint(method, path string, body []byte) [32]byte {
	// A short request fits a buffer on the stack: one sha256.Sum256 over the same bytes,
	// without the hasher sha256.New puts on the heap.
	if n := len(method) + len(path) + len(body) + 2; n <= 512 {
		var buf [512]byte
		b := append(buf[:0], method...)
		b = append(b, 0)
		b = append(b, path...)
		b = append(b, 0)
		b = append(b, body...)
		return sha256.Sum256(b)
	}
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(body)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// idemEntry is a stored answer, replayed for the same key and fingerprint.
type idemEntry struct {
	print  idemPrint
	status int
	body   json.RawMessage
	at     time.Time
	taskID string // the task the request named, when noteIdempotent tied it to one
}

// IdempotencyWindow is how long a stored answer is replayed for a repeated key.
const IdempotencyWindow = 24 * time.Hour

type idempotencyStore struct {
	entries   map[string]*idemEntry
	lastSweep int
}

func (st *idempotencyStore) lookup(key string, now time.Time) *idemEntry {
	e := st.entries[key]
	if e == nil || now.Sub(e.at) >= IdempotencyWindow {
		return nil
	}
	return e
}

func (st *idempotencyStore) store(key string, e *idemEntry) {
	st.entries[key] = e
	// Sweep expired keys when the map has doubled since the last sweep: amortised O(1).
	if len(st.entries) > 2*st.lastSweep+1024 {
		for k, v := range st.entries {
			if e.at.Sub(v.at) >= IdempotencyWindow {
				delete(st.entries, k)
			}
		}
		st.lastSweep = len(st.entries)
	}
}
