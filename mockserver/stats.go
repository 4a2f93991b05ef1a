package mockserver

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// sandboxPlan is the plan the mock server reports: it has no billing.
const sandboxPlan = "sandbox"

type wireWorkspaceStats struct {
	Plan     string         `json:"plan"`
	Tasks    map[string]int `json:"tasks"`
	Workers  int            `json:"workers"`
	Meter    wireMeter      `json:"meter"`
	Queue    wireQueueStats `json:"queue"`
	Matching wireMatching   `json:"matching"`
}

type wireMeter struct {
	Period                string `json:"period"`
	MatchedTasks          int    `json:"matchedTasks"`
	IncludedTasksPerMonth int    `json:"includedTasksPerMonth"`
}

type wireQueueStats struct {
	OldestWaitingMs *int64          `json:"oldestWaitingMs"`
	PerWorker       []wireWorkerLag `json:"perWorker"`
}

type wireWorkerLag struct {
	WorkerID       string `json:"workerId"`
	Backlog        int    `json:"backlog"`
	MaxBacklogSize int    `json:"maxBacklogSize"`
	Available      bool   `json:"available"`
}

type wireMatching struct {
	Fairness          string `json:"fairness"`
	MaxTasksPerWindow *int   `json:"maxTasksPerWindow"`
	WindowMs          *int64 `json:"windowMs"`
}

// prepStats is GET /stats: counts of now, and the month's meter, from the matcher and the
// ledger (docs/contract.md, "Stats").
func prepStats(*request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		census := ws.engine.Census()
		out := wireWorkspaceStats{Plan: sandboxPlan, Tasks: map[string]int{}, Workers: ws.workers}
		for _, s := range []match.Status{match.StatusScheduled, match.StatusQueued, match.StatusPending, match.StatusAccepted,
			match.StatusParked, match.StatusCompleted, match.StatusCancelled, match.StatusFailed, match.StatusExpired} {
			out.Tasks[string(s)] = census.ByStatus[s]
		}
		if !census.OldestQueued.IsZero() {
			ms := max(now.Sub(census.OldestQueued).Milliseconds(), 0)
			out.Queue.OldestWaitingMs = &ms
		}
		utc := now.UTC()
		monthStart := time.Date(utc.Year(), utc.Month(), 1, 0, 0, 0, 0, time.UTC)
		out.Meter = wireMeter{Period: utc.Format("2006-01"), MatchedTasks: ws.ledger.firstOffersSince(monthStart),
			IncludedTasksPerMonth: orUnlimited(ws.limits.IncludedTasksPerMonth)}
		out.Queue.PerWorker = []wireWorkerLag{}
		for _, id := range ws.engine.WorkerIDs() {
			w, err := ws.engine.Worker(id)
			if err != nil {
				continue
			}
			lag := wireWorkerLag{WorkerID: id, Backlog: w.QueueDepth, MaxBacklogSize: ws.engine.DefaultMaxBacklog(), Available: w.Available}
			if w.MaxBacklogSize != nil {
				lag.MaxBacklogSize = *w.MaxBacklogSize
			}
			out.Queue.PerWorker = append(out.Queue.PerWorker, lag)
		}
		out.Matching.Fairness = string(ws.engine.Config().Mode)
		return http.StatusOK, out, nil
	}, nil
}

// firstOffersSince counts the tasks first offered at or after t: the tasks a month's meter
// counts as matched.
func (l *ledger) firstOffersSince(t time.Time) int {
	n := 0
	for _, tr := range l.tasks {
		if tr.offers > 0 && !tr.firstOfferAt.Before(t) {
			n++
		}
	}
	return n
}

type wireSLAStats struct {
	Tag                   *string  `json:"tag"`
	Offers                int      `json:"offers"`
	AcceptedInTime        int      `json:"acceptedInTime"`
	AcceptanceBreaches    int      `json:"acceptanceBreaches"`
	CompletionBreaches    int      `json:"completionBreaches"`
	TTLExpiries           int      `json:"ttlExpiries"`
	RejectionParked       int      `json:"rejectionParked"`
	ScheduleMisses        int      `json:"scheduleMisses"`
	MeanAcceptLatencyMs   float64  `json:"meanAcceptLatencyMs"`
	MeanCompleteLatencyMs float64  `json:"meanCompleteLatencyMs"`
	AcceptanceRate        *float64 `json:"acceptanceRate"`
}

// completeWithin is a task's stored sla.completeWithinMs (0 when not set): the one term the
// server measures without enforcing it.
func completeWithin(t match.Task) time.Duration {
	x, ok := t.Extra.(*taskExtra)
	if !ok || len(x.sla) == 0 {
		return 0
	}
	var sla struct {
		CompleteWithinMs float64 `json:"completeWithinMs"`
	}
	if json.Unmarshal(x.sla, &sla) != nil {
		return 0
	}
	return time.Duration(sla.CompleteWithinMs * float64(time.Millisecond))
}

// prepSLAStats is GET /stats/sla, over every task (or those carrying tag), computed from
// the ledger, each task's stored sla and schedule, and the clock (docs/contract.md, "SLA
// stats"): the mock server measures these terms, it does not enforce them.
func prepSLAStats(r *request) (op, *apiError) {
	tag := r.query.Get("tag")
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		out := wireSLAStats{}
		if tag != "" {
			out.Tag = &tag
		}
		has := func(tags []string) bool { return tag == "" || slices.Contains(tags, tag) }
		var acceptSum float64
		accepted := 0
		for _, o := range ws.ledger.offers {
			if !has(o.tags) {
				continue
			}
			out.Offers++
			switch o.outcome {
			case match.EventTaskAccepted:
				accepted++
				acceptSum += float64(o.endedAt.Sub(o.at).Milliseconds())
				if !o.endedAt.After(o.expiresAt) {
					out.AcceptedInTime++
				}
			case match.EventTaskExpired:
				out.AcceptanceBreaches++
			}
		}
		if accepted > 0 {
			out.MeanAcceptLatencyMs = acceptSum / float64(accepted)
		}
		if out.Offers > 0 {
			rate := float64(out.AcceptedInTime) / float64(out.Offers)
			out.AcceptanceRate = &rate
		}
		var completeSum float64
		completed := 0
		ws.eachTask(func(t match.Task, tr *taskRecord) {
			if !has(t.Tags) {
				return
			}
			var rec taskRecord
			if tr != nil {
				rec = *tr
			}
			if !rec.completedAt.IsZero() && !rec.acceptedAt.IsZero() {
				completed++
				completeSum += float64(rec.completedAt.Sub(rec.acceptedAt).Milliseconds())
			}
			if d := completeWithin(t); d > 0 && !rec.acceptedAt.IsZero() {
				// Completion: once accepted, it had to be completed within d.
				deadline := rec.acceptedAt.Add(d)
				cancelledBefore := !rec.cancelledAt.IsZero() && !rec.cancelledAt.After(deadline)
				failedBefore := !rec.failedAt.IsZero() && !rec.failedAt.After(deadline)
				if orNow(rec.completedAt, now).After(deadline) && !cancelledBefore && !failedBefore {
					out.CompletionBreaches++
				}
			}
			// The clocks the matcher runs (docs/contract.md section 7): count what they did.
			if rec.closedBy["sla"] > 0 {
				out.TTLExpiries++
			}
			if rec.closedBy["maxRejections"] > 0 {
				out.RejectionParked++
			}
			if rec.closedBy["schedule"] > 0 {
				out.ScheduleMisses++
			}
		})
		if completed > 0 {
			out.MeanCompleteLatencyMs = completeSum / float64(completed)
		}
		return http.StatusOK, out, nil
	}, nil
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}

// eachTask walks every task in creation order with its ledger record (nil when nothing has
// happened to it yet).
func (ws *workspace) eachTask(fn func(match.Task, *taskRecord)) {
	var after uint64
	for {
		page, err := ws.engine.Tasks(match.TaskQuery{Status: match.FilterAll, After: after, Limit: 500})
		if err != nil {
			return
		}
		for _, t := range page.Tasks {
			fn(t, ws.ledger.tasks[t.ID])
			after = t.Seq
		}
		if !page.HasMore {
			return
		}
	}
}

type wireQueueAudit struct {
	EvaluatedAt  int64            `json:"evaluatedAt"`
	Scanned      int              `json:"scanned"`
	Entries      []wireAuditEntry `json:"entries"`
	SweepBacklog wireSweepBacklog `json:"sweepBacklog"`
}

type wireAuditEntry struct {
	TaskID              string         `json:"taskId"`
	Tags                []string       `json:"tags"`
	WaitingMs           *int64         `json:"waitingMs"`
	EligibleWorkerCount int            `json:"eligibleWorkerCount"`
	UncoveredTags       []string       `json:"uncoveredTags"`
	Blockers            map[string]int `json:"blockers"`
}

type wireSweepBacklog struct {
	ScheduleActivations int `json:"scheduleActivations"`
	ScheduleMisses      int `json:"scheduleMisses"`
	ResponseDeadlines   int `json:"responseDeadlines"`
	CompletionDeadlines int `json:"completionDeadlines"`
	SLAExpiries         int `json:"slaExpiries"`
}

// queueAuditLimit is the default number of entries of GET /stats/queue-audit.
const queueAuditLimit = 50

// prepQueueAudit is GET /stats/queue-audit: every queued task, longest waiting first,
// checked against the workers carrying its tags (docs/contract.md, "Queue audit").
func prepQueueAudit(r *request) (op, *apiError) {
	limit := queueAuditLimit
	if v := r.query.Get("limit"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n < 1 || n > 200 {
			return nil, validationf("querystring/limit must be >= 1 and <= 200")
		}
		limit = int(n)
	}
	var minWaiting time.Duration
	if v := r.query.Get("minWaitingMs"); v != "" {
		n, err := strconv.ParseFloat(v, 64) // the schema has checked it is a number >= 0
		if err != nil || n < 0 {
			return nil, validationf("querystring/minWaitingMs must be >= 0")
		}
		minWaiting = time.Duration(math.MaxInt64) // longer than any wait
		if n < float64(math.MaxInt64/int64(time.Millisecond)) {
			minWaiting = time.Duration(n * float64(time.Millisecond))
		}
	}
	healthy, aerr := queryBool(r, "includeHealthy")
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		queued := ws.engine.AuditQueue()
		out := wireQueueAudit{EvaluatedAt: now.UnixMilli(), Scanned: len(queued), Entries: []wireAuditEntry{}}
		for _, q := range queued {
			wait := max(now.Sub(q.CreatedAt), 0)
			if wait < minWaiting || (q.Eligible > 0 && !healthy) || len(out.Entries) == limit {
				continue
			}
			ms := wait.Milliseconds()
			en := wireAuditEntry{TaskID: q.TaskID, Tags: q.Tags, WaitingMs: &ms, EligibleWorkerCount: q.Eligible,
				UncoveredTags: q.Uncovered, Blockers: map[string]int{}}
			if en.UncoveredTags == nil {
				en.UncoveredTags = []string{}
			}
			for k, n := range q.Blockers {
				en.Blockers[string(k)] = n
			}
			out.Entries = append(out.Entries, en)
		}
		out.SweepBacklog.ResponseDeadlines = ws.engine.DueDeadlines(now)
		return http.StatusOK, out, nil
	}, nil
}

// orUnlimited is a limit as reported: Unlimited when it is not set.
func orUnlimited(limit int) int {
	if limit <= 0 {
		return Unlimited
	}
	return limit
}
