package mockserver

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// maxHistoryBuckets bounds one history answer: 31 days of hours fit, a year of days does.
const maxHistoryBuckets = 1000

// historyWindow is the range and bucket of a history query: [from, to], closed at both
// ends so that what happened at the instant of a read is in it, with buckets aligned on UTC
// hours or days. Something at exactly to counts in the last bucket.
type historyWindow struct {
	from, to time.Time
	bucket   string
	size     time.Duration
}

// starts lists the buckets that meet [from, to]: at least one.
func (h historyWindow) starts() []time.Time {
	out := []time.Time{h.from.UTC().Truncate(h.size)}
	for b := out[0].Add(h.size); b.Before(h.to); b = b.Add(h.size) {
		out = append(out, b)
	}
	return out
}

// within reports whether t happened in [from, to].
func (h historyWindow) within(t time.Time) bool {
	return !t.IsZero() && !t.Before(h.from) && !t.After(h.to)
}

// index is the bucket of t, or -1 when t is outside [from, to].
func (h historyWindow) index(t time.Time) int {
	if !h.within(t) {
		return -1
	}
	i := int(t.Sub(h.from.UTC().Truncate(h.size)) / h.size)
	return min(i, h.count()-1)
}

// count is len(starts()) without listing them.
func (h historyWindow) count() int {
	d := h.to.Sub(h.from.UTC().Truncate(h.size))
	if d <= 0 {
		return 1
	}
	return int((d + h.size - 1) / h.size)
}

// parseStatsTime reads a point in time as ISO-8601 or epoch milliseconds.
func parseStatsTime(name, v string) (time.Time, *apiError) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, validationf("querystring/%s must be an ISO-8601 time or epoch milliseconds", name)
	}
	return t.UTC(), nil
}

// statsWindowQuery reads from, to and bucket. The window is decided at run time: its defaults
// are relative to the server's clock (to = now, from = to minus a day of hours or a week of
// days).
func statsWindowQuery(r *request) (func(now time.Time) (historyWindow, *apiError), *apiError) {
	h := historyWindow{bucket: "hour", size: time.Hour}
	if r.query.Get("bucket") == "day" { // api/openapi.json allows hour and day only
		h.bucket, h.size = "day", 24*time.Hour
	}
	var from, to time.Time
	var err *apiError
	if v := r.query.Get("from"); v != "" {
		if from, err = parseStatsTime("from", v); err != nil {
			return nil, err
		}
	}
	if v := r.query.Get("to"); v != "" {
		if to, err = parseStatsTime("to", v); err != nil {
			return nil, err
		}
	}
	return func(now time.Time) (historyWindow, *apiError) {
		w := h
		w.to, w.from = to, from
		if w.to.IsZero() {
			w.to = now.UTC()
		}
		if w.from.IsZero() {
			w.from = w.to.Add(-24 * time.Hour)
			if w.bucket == "day" {
				w.from = w.to.Add(-7 * 24 * time.Hour)
			}
		}
		if w.to.Before(w.from) {
			return w, invalidBodyf("from must not be after to")
		}
		if w.count() > maxHistoryBuckets {
			return w, invalidBodyf("the range holds more than %d %s buckets", maxHistoryBuckets, w.bucket)
		}
		return w, nil
	}, nil
}

// flow sums what finished in one bucket: completions with their waits (created to
// accepted) and handling times (accepted to completed), and cancellations.
type flow struct {
	completed, cancelled int
	waits, handles       []time.Duration
}

func (f *flow) complete(created, accepted, completed time.Time) {
	f.completed++
	if !accepted.IsZero() {
		f.waits = append(f.waits, accepted.Sub(created))
		f.handles = append(f.handles, completed.Sub(accepted))
	}
}

// mean is the average in ms of ds, nil when there is none; sorted first so the sum is
// the same whatever order the tasks were visited in.
func mean(ds []time.Duration) *float64 {
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	var sum float64
	for _, d := range ds {
		sum += float64(d.Milliseconds())
	}
	v := sum / float64(len(ds))
	return &v
}

// percentile is the nearest-rank percentile in ms of ds, nil when there is none.
func percentile(ds []time.Duration, p float64) *float64 {
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	rank := int(math.Ceil(p / 100 * float64(len(ds))))
	v := float64(ds[max(rank, 1)-1].Milliseconds())
	return &v
}

type wireFlowBucket struct {
	BucketStart string   `json:"bucketStart"`
	Completed   int      `json:"completed"`
	Cancelled   int      `json:"cancelled"`
	AvgWaitMs   *float64 `json:"avgWaitMs"`
	P50WaitMs   *float64 `json:"p50WaitMs"`
	P95WaitMs   *float64 `json:"p95WaitMs"`
	AvgHandleMs *float64 `json:"avgHandleMs"`
}

func (f *flow) bucket(start time.Time) wireFlowBucket {
	return wireFlowBucket{BucketStart: isoTime(start), Completed: f.completed, Cancelled: f.cancelled,
		AvgWaitMs: mean(f.waits), P50WaitMs: percentile(f.waits, 50), P95WaitMs: percentile(f.waits, 95), AvgHandleMs: mean(f.handles)}
}

// flowBuckets buckets the tasks that finished in the window; keep picks the tasks by the worker
// that finished them ("" for a cancel of a task nobody held).
func (ws *workspace) flowBuckets(h historyWindow, keep func(workerID string) bool) []flow {
	out := make([]flow, h.count())
	for id, tr := range ws.ledger.tasks {
		if !keep(tr.workerID) {
			continue
		}
		if i := h.index(tr.completedAt); i >= 0 {
			created := tr.firstOfferAt
			if t, err := ws.engine.Task(id); err == nil {
				created = t.CreatedAt
			}
			out[i].complete(created, tr.acceptedAt, tr.completedAt)
		}
		if i := h.index(tr.cancelledAt); i >= 0 {
			out[i].cancelled++
		}
	}
	return out
}

// prepTimeseries is GET /stats/timeseries: the workspace's completions and cancellations
// per bucket (docs/contract.md, "History").
func prepTimeseries(r *request) (op, *apiError) {
	window, aerr := statsWindowQuery(r)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		h, err := window(now)
		if err != nil {
			return 0, nil, err
		}
		fl := ws.flowBuckets(h, func(string) bool { return true })
		out := struct {
			From    string           `json:"from"`
			To      string           `json:"to"`
			Bucket  string           `json:"bucket"`
			Buckets []wireFlowBucket `json:"buckets"`
		}{From: isoTime(h.from), To: isoTime(h.to), Bucket: h.bucket, Buckets: []wireFlowBucket{}}
		for i, start := range h.starts() {
			out.Buckets = append(out.Buckets, fl[i].bucket(start))
		}
		return http.StatusOK, out, nil
	}, nil
}

// wireWorkerProductivity is one row of GET /stats/workers. Like the platform's, it merges
// three sources: the finished tasks (throughput, wait and handle times), the offer outcomes
// (offered ... released) and the shift log (onShiftMs ... shiftCount).
type wireWorkerProductivity struct {
	WorkerID       string   `json:"workerId"`
	Completed      int      `json:"completed"`
	Cancelled      int      `json:"cancelled"`
	AvgWaitMs      *float64 `json:"avgWaitMs"`
	AvgHandleMs    *float64 `json:"avgHandleMs"`
	P50HandleMs    *float64 `json:"p50HandleMs"`
	P95HandleMs    *float64 `json:"p95HandleMs"`
	Offered        int      `json:"offered"`
	Accepted       int      `json:"accepted"`
	Rejected       int      `json:"rejected"`
	Failed         int      `json:"failed"`
	Expired        int      `json:"expired"`
	Released       int      `json:"released"`
	AcceptanceRate *float64 `json:"acceptanceRate"`
	OnShiftMs      int64    `json:"onShiftMs"`
	BreakMs        int64    `json:"breakMs"`
	WorkingMs      int64    `json:"workingMs"`
	ShiftCount     int      `json:"shiftCount"`
	Utilization    *float64 `json:"utilization"`
}

// productivity is the row of one worker: f is what it finished in h; its offer outcomes and
// shifts come from its time log. acceptanceRate (accepted / offered) is null before any
// offer; utilization (handle time / worked time) is null with no worked time.
func (ws *workspace) productivity(id string, f *flow, h historyWindow, now time.Time) wireWorkerProductivity {
	l := ws.time.logs[id]
	if l == nil {
		l = &workerLog{} // a removed worker's log, or none yet: nothing counted
	}
	// The log's windows are half-open; the history window is closed at to.
	w := window{from: h.from, to: h.to.Add(time.Nanosecond)}
	t, c := l.totals(w, now), l.counts(w)
	row := wireWorkerProductivity{WorkerID: id, Completed: f.completed, Cancelled: f.cancelled,
		AvgWaitMs: mean(f.waits), AvgHandleMs: mean(f.handles),
		P50HandleMs: percentile(f.handles, 50), P95HandleMs: percentile(f.handles, 95),
		Offered: c.offered, Accepted: c.accepted, Rejected: c.rejected, Failed: c.failed,
		Expired: c.expired, Released: c.released,
		OnShiftMs: t.onShift.Milliseconds(), BreakMs: t.breakTime.Milliseconds(),
		WorkingMs: t.working.Milliseconds(), ShiftCount: t.shiftCount,
	}
	if c.offered > 0 {
		rate := float64(c.accepted) / float64(c.offered)
		row.AcceptanceRate = &rate
	}
	if row.WorkingMs > 0 {
		var handled time.Duration
		for _, d := range f.handles {
			handled += d
		}
		u := float64(handled.Milliseconds()) / float64(row.WorkingMs)
		row.Utilization = &u
	}
	return row
}

// prepHistoryWorkers is GET /stats/workers: per worker, what it finished in the window.
// Every current worker is listed, and a removed one that finished something in the window;
// teamId keeps the team's members (an unknown team has none).
func prepHistoryWorkers(r *request) (op, *apiError) {
	window, aerr := statsWindowQuery(r)
	if aerr != nil {
		return nil, aerr
	}
	teamID := r.query.Get("teamId")
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		h, err := window(now)
		if err != nil {
			return 0, nil, err
		}
		rows := map[string]*flow{}
		for _, id := range ws.engine.WorkerIDs() {
			rows[id] = &flow{}
		}
		for id, tr := range ws.ledger.tasks {
			if tr.workerID == "" || (!h.within(tr.completedAt) && !h.within(tr.cancelledAt)) {
				continue
			}
			f := rows[tr.workerID]
			if f == nil {
				f = &flow{}
				rows[tr.workerID] = f
			}
			if h.within(tr.completedAt) {
				created := tr.firstOfferAt
				if t, err := ws.engine.Task(id); err == nil {
					created = t.CreatedAt
				}
				f.complete(created, tr.acceptedAt, tr.completedAt)
			}
			if h.within(tr.cancelledAt) {
				f.cancelled++
			}
		}
		var team *team
		if teamID != "" {
			team = ws.teams.find(teamID)
		}
		ids := make([]string, 0, len(rows))
		for id := range rows {
			if teamID == "" || (team != nil && team.memberIndex(id) >= 0) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		out := struct {
			From    string                   `json:"from"`
			To      string                   `json:"to"`
			Workers []wireWorkerProductivity `json:"workers"`
		}{From: isoTime(h.from), To: isoTime(h.to), Workers: []wireWorkerProductivity{}}
		for _, id := range ids {
			out.Workers = append(out.Workers, ws.productivity(id, rows[id], h, now))
		}
		return http.StatusOK, out, nil
	}, nil
}

type wireWorkerBucket struct {
	wireFlowBucket
	OnShiftMs *int64 `json:"onShiftMs"`
	BreakMs   *int64 `json:"breakMs"`
	WorkingMs *int64 `json:"workingMs"`
	Offered   *int   `json:"offered"`
	Accepted  *int   `json:"accepted"`
	Rejected  *int   `json:"rejected"`
	Failed    *int   `json:"failed"`
	Expired   *int   `json:"expired"`
	Released  *int   `json:"released"`
}

// prepWorkerTimeseries is GET /stats/workers/{id}/timeseries: one worker's completions and
// cancellations per bucket and, in day buckets, its offers by how they ended (counted when
// made, and when they ended) and the tasks it failed. Worked time is not measured by the
// mock server: null.
func prepWorkerTimeseries(r *request) (op, *apiError) {
	workerID := r.params[0]
	window, aerr := statsWindowQuery(r)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Worker(workerID); err != nil && !ws.ledger.knows(workerID) {
			return 0, nil, notFoundf("worker %s not found", workerID)
		}
		h, err := window(now)
		if err != nil {
			return 0, nil, err
		}
		starts := h.starts()
		fl := ws.flowBuckets(h, func(id string) bool { return id == workerID })
		type offerCounts struct{ offered, accepted, rejected, expired, released int }
		counts := make([]offerCounts, len(starts))
		for _, o := range ws.ledger.offers {
			if o.workerID != workerID {
				continue
			}
			if i := h.index(o.at); i >= 0 {
				counts[i].offered++
			}
			if i := h.index(o.endedAt); i >= 0 {
				switch o.outcome {
				case match.EventTaskAccepted:
					counts[i].accepted++
				case match.EventTaskRejected:
					counts[i].rejected++
				case match.EventTaskExpired:
					counts[i].expired++
				case match.EventTaskReleased:
					counts[i].released++
				}
			}
		}
		failed := make([]int, len(starts))
		for _, tr := range ws.ledger.tasks {
			if i := h.index(tr.failedAt); i >= 0 && tr.workerID == workerID {
				failed[i]++
			}
		}
		out := struct {
			WorkerID string             `json:"workerId"`
			From     string             `json:"from"`
			To       string             `json:"to"`
			Bucket   string             `json:"bucket"`
			Buckets  []wireWorkerBucket `json:"buckets"`
		}{WorkerID: workerID, From: isoTime(h.from), To: isoTime(h.to), Bucket: h.bucket, Buckets: []wireWorkerBucket{}}
		for i, start := range starts {
			b := wireWorkerBucket{wireFlowBucket: fl[i].bucket(start)}
			if h.bucket == "day" {
				c, f := counts[i], failed[i]
				b.Offered, b.Accepted, b.Rejected, b.Expired, b.Released, b.Failed = &c.offered, &c.accepted, &c.rejected, &c.expired, &c.released, &f
			}
			out.Buckets = append(out.Buckets, b)
		}
		return http.StatusOK, out, nil
	}, nil
}

// knows reports whether a worker took part in anything the ledger kept.
func (l *ledger) knows(workerID string) bool {
	return slices.ContainsFunc(l.offers, func(o offerRecord) bool { return o.workerID == workerID })
}
