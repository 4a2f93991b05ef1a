package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// WorkspaceStats is the answer of Stats.Get: the workspace now.
type WorkspaceStats struct {
	Plan    string         `json:"plan"`
	Tasks   map[string]int `json:"tasks"` // count by task status
	Workers int            `json:"workers"`
	Meter   StatsMeter     `json:"meter"`
	Queue   QueueStats     `json:"queue"`
	// Matching is how the workspace's matching is configured.
	Matching MatchingSettings `json:"matching"`
}

// StatsMeter is the usage of the current billing period.
type StatsMeter struct {
	Period                string `json:"period"` // such as "2025-11"
	MatchedTasks          int    `json:"matchedTasks"`
	IncludedTasksPerMonth int    `json:"includedTasksPerMonth"` // 0 when not reported
}

// QueueStats is how long the queue is and who holds what.
type QueueStats struct {
	// OldestWaiting is how long the oldest queued task has waited; nil
	// when nothing is queued.
	OldestWaiting *time.Duration  `json:"-"`
	PerWorker     []WorkerBacklog `json:"perWorker"`
}

// UnmarshalJSON reads oldestWaitingMs.
func (q *QueueStats) UnmarshalJSON(b []byte) error {
	type plain QueueStats
	w := struct {
		*plain
		OldestWaitingMs *durationMillis `json:"oldestWaitingMs"`
	}{plain: (*plain)(q)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	q.OldestWaiting = optDuration(w.OldestWaitingMs)
	return nil
}

// WorkerBacklog is one worker's offers held against its cap.
type WorkerBacklog struct {
	WorkerID       string `json:"workerId"`
	Backlog        int    `json:"backlog"`
	MaxBacklogSize int    `json:"maxBacklogSize"`
	Available      bool   `json:"available"`
}

// MatchingSettings is the workspace's matching configuration.
type MatchingSettings struct {
	Fairness          string         `json:"fairness"`
	MaxTasksPerWindow *int           `json:"maxTasksPerWindow"` // nil: no pacing
	Window            *time.Duration `json:"-"`                 // wire windowMs; nil: none
}

// UnmarshalJSON reads windowMs.
func (m *MatchingSettings) UnmarshalJSON(b []byte) error {
	type plain MatchingSettings
	w := struct {
		*plain
		WindowMs *durationMillis `json:"windowMs"`
	}{plain: (*plain)(m)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	m.Window = optDuration(w.WindowMs)
	return nil
}

func optDuration(d *durationMillis) *time.Duration {
	if d == nil {
		return nil
	}
	v := time.Duration(*d)
	return &v
}

// SLAStats counts how offers and tasks kept their service levels.
type SLAStats struct {
	Tag                 string        `json:"tag"` // "" for every tag
	Offers              int           `json:"offers"`
	AcceptedInTime      int           `json:"acceptedInTime"`
	AcceptanceBreaches  int           `json:"acceptanceBreaches"`
	CompletionBreaches  int           `json:"completionBreaches"`
	TTLExpiries         int           `json:"ttlExpiries"`
	RejectionParked     int           `json:"rejectionParked"`
	ScheduleMisses      int           `json:"scheduleMisses"`
	MeanAcceptLatency   time.Duration `json:"-"`
	MeanCompleteLatency time.Duration `json:"-"`
	// AcceptanceRate is nil until an offer is recorded: 0 means every
	// offer was missed, nil that nothing was measured.
	AcceptanceRate *float64 `json:"acceptanceRate"`
}

// UnmarshalJSON reads the latencies and a null tag.
func (s *SLAStats) UnmarshalJSON(b []byte) error {
	type plain SLAStats
	w := struct {
		*plain
		Tag                   *string        `json:"tag"`
		MeanAcceptLatencyMs   durationMillis `json:"meanAcceptLatencyMs"`
		MeanCompleteLatencyMs durationMillis `json:"meanCompleteLatencyMs"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	s.Tag = nullToEmpty(w.Tag)
	s.MeanAcceptLatency, s.MeanCompleteLatency = time.Duration(w.MeanAcceptLatencyMs), time.Duration(w.MeanCompleteLatencyMs)
	return nil
}

// QueueAuditParams narrows a queue audit; the zero value lists the
// server's default number of blocked tasks.
type QueueAuditParams struct {
	Limit          int           // 1-200; 0 for the server's default
	MinWaiting     time.Duration // only tasks that waited at least this long
	IncludeHealthy bool          // also tasks some worker could take now
}

// QueueAudit says why queued tasks are not being offered.
type QueueAudit struct {
	EvaluatedAt  time.Time         `json:"-"`
	Scanned      int               `json:"scanned"`
	Entries      []QueueAuditEntry `json:"entries"`
	SweepBacklog SweepBacklog      `json:"sweepBacklog"`
}

// UnmarshalJSON reads evaluatedAt.
func (a *QueueAudit) UnmarshalJSON(b []byte) error {
	type plain QueueAudit
	w := struct {
		*plain
		EvaluatedAt wireTime `json:"evaluatedAt"`
	}{plain: (*plain)(a)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	a.EvaluatedAt = w.EvaluatedAt.t
	return nil
}

// QueueAuditEntry is one queued task and what keeps it from workers.
type QueueAuditEntry struct {
	TaskID              string         `json:"taskId"`
	Tags                []string       `json:"tags"`
	Waiting             *time.Duration `json:"-"` // wire waitingMs; nil when unknown
	EligibleWorkerCount int            `json:"eligibleWorkerCount"`
	// UncoveredTags are the task's tags no worker carries.
	UncoveredTags []string `json:"uncoveredTags"`
	// Blockers counts workers by the rule that keeps them from the task,
	// such as "unavailable" or "backlogFull".
	Blockers map[string]int `json:"blockers"`
}

// UnmarshalJSON reads waitingMs.
func (e *QueueAuditEntry) UnmarshalJSON(b []byte) error {
	type plain QueueAuditEntry
	w := struct {
		*plain
		WaitingMs *durationMillis `json:"waitingMs"`
	}{plain: (*plain)(e)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.Waiting = optDuration(w.WaitingMs)
	return nil
}

// SweepBacklog counts timed work that is due but not yet done.
type SweepBacklog struct {
	ScheduleActivations int `json:"scheduleActivations"`
	ScheduleMisses      int `json:"scheduleMisses"`
	ResponseDeadlines   int `json:"responseDeadlines"`
	CompletionDeadlines int `json:"completionDeadlines"`
	SLAExpiries         int `json:"slaExpiries"`
}

// StatsService holds the workspace's statistics and history. Use it as
// Client.Stats.
type StatsService struct{ c *Client }

// Get reports the workspace now: tasks by status, workers, the month's
// meter, the queue and the matching settings.
//
// API: stats, GET /stats
func (s *StatsService) Get(ctx context.Context, opts ...RequestOption) (*WorkspaceStats, error) {
	out := new(WorkspaceStats)
	if err := s.c.call(ctx, "GET", "/stats", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SLA reports service-level counters over every task, or over the tasks
// carrying tag when tag is not "".
//
// API: slaStats, GET /stats/sla
func (s *StatsService) SLA(ctx context.Context, tag string, opts ...RequestOption) (*SLAStats, error) {
	var q url.Values
	if tag != "" {
		if err := s.c.admit(checkLen("tag", tag, 1, 128), opts); err != nil {
			return nil, err
		}
		q = url.Values{"tag": {tag}}
	}
	out := new(SLAStats)
	if err := s.c.call(ctx, "GET", "/stats/sla", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// QueueAudit walks the queue against the workers and says why tasks wait.
// It is heavier than Get: poll it as a dashboard would, not per request.
//
// API: queueAudit, GET /stats/queue-audit
func (s *StatsService) QueueAudit(ctx context.Context, p QueueAuditParams, opts ...RequestOption) (*QueueAudit, error) {
	q := url.Values{}
	if p.Limit != 0 {
		if err := s.c.admit(checkRange("QueueAuditParams.Limit", float64(p.Limit), 1, 200), opts); err != nil {
			return nil, err
		}
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.MinWaiting < 0 {
		return nil, &ParamError{Param: "QueueAuditParams.MinWaiting", Problem: "must not be negative"}
	}
	if p.MinWaiting > 0 {
		q.Set("minWaitingMs", strconv.FormatInt(p.MinWaiting.Milliseconds(), 10))
	}
	if p.IncludeHealthy {
		q.Set("includeHealthy", "true")
	}
	out := new(QueueAudit)
	if err := s.c.call(ctx, "GET", "/stats/queue-audit", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
