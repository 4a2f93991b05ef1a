package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// archiveStore is the record tasks.history reads: when each task was first matched and the
// tasks that finished, in the order they finished. It learns both from the matcher's events
// (workspace.publish), so it sees every way a task can end. Its zero value is empty and usable.
type archiveStore struct {
	matchedAt map[string]time.Time // first task.matched of each task
	finished  []finishedTask       // oldest first; a cursor is a position: an index plus dropped
	dropped   int                  // finished tasks forgotten from the front (finished.go)
	limit     int                  // WithFinishedTasks (finished.go); 0: no bound
}

type finishedTask struct {
	taskID string
	at     time.Time
}

func (a *archiveStore) observe(ev match.Event) {
	switch ev.Kind {
	case match.EventTaskMatched:
		if a.matchedAt == nil {
			a.matchedAt = map[string]time.Time{}
		}
		if _, seen := a.matchedAt[ev.TaskID]; !seen {
			a.matchedAt[ev.TaskID] = ev.At
		}
	case match.EventTaskCompleted, match.EventTaskCancelled, match.EventTaskFailed, match.EventTaskDropped:
		a.finished = append(a.finished, finishedTask{taskID: ev.TaskID, at: ev.At})
	}
}

// archivedStatuses are the finished states the platform's archive holds: a task completed,
// cancelled, failed (tasks.fail, or onMaxRejections fail) or expired (an SLA or schedule
// clock dropped it).
var archivedStatuses = []string{"completed", "cancelled", "failed", "expired"}

// historyQuery is a parsed tasks.history request.
type historyQuery struct {
	statuses         []string
	workerID, tag, q string
	from, to         time.Time // zero: unbounded
	before           int       // cursor: only entries below this index; -1: from the newest
	limit            int
}

func parseHistoryQuery(r *request) (historyQuery, *apiError) {
	h := historyQuery{before: -1, limit: 50}
	if s := r.query.Get("status"); s != "" {
		for _, st := range strings.Split(s, ",") {
			if !slices.Contains(archivedStatuses, st) {
				return h, validationf("querystring/status must be one or several of: %s", strings.Join(archivedStatuses, ", "))
			}
			h.statuses = append(h.statuses, st)
		}
	}
	h.workerID, h.tag, h.q = r.query.Get("workerId"), r.query.Get("tag"), strings.ToLower(r.query.Get("q"))
	var err *apiError
	if h.from, err = parseHistoryTime("from", r.query.Get("from")); err != nil {
		return h, err
	}
	if h.to, err = parseHistoryTime("to", r.query.Get("to")); err != nil {
		return h, err
	}
	if c := r.query.Get("cursor"); c != "" {
		n, perr := strconv.Atoi(c)
		if perr != nil || n < 0 {
			return h, invalidBodyf("cursor is not one this server issued")
		}
		h.before = n
	}
	if l := r.query.Get("limit"); l != "" {
		n, perr := strconv.Atoi(l)
		if perr != nil || n < 1 || n > 100 {
			return h, validationf("querystring/limit must be an integer >= 1 and <= 100")
		}
		h.limit = n
	}
	return h, nil
}

// parseHistoryTime reads a point in time as epoch milliseconds or ISO-8601 (RFC 3339); the
// platform's schema leaves the form open, so the server takes both.
func parseHistoryTime(name, s string) (time.Time, *apiError) {
	if s == "" {
		return time.Time{}, nil
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms >= 0 {
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, validationf("querystring/%s must be epoch milliseconds or an ISO-8601 date-time", name)
	}
	return t, nil
}

// keeps reports whether an archived task passes the filters.
func (h *historyQuery) keeps(t match.Task, at time.Time) bool {
	switch {
	case len(h.statuses) > 0 && !slices.Contains(h.statuses, string(t.Status)),
		h.workerID != "" && t.WorkerID != h.workerID,
		h.tag != "" && !slices.Contains(t.Tags, h.tag),
		!h.from.IsZero() && at.Before(h.from),
		!h.to.IsZero() && !at.Before(h.to):
		return false
	}
	if h.q == "" {
		return true
	}
	title := ""
	if x, _ := t.Extra.(*taskExtra); x != nil && x.title != nil {
		title = *x.title
	}
	return strings.Contains(strings.ToLower(t.ID), h.q) || strings.Contains(strings.ToLower(title), h.q)
}

type archivedTaskJSON struct {
	ID         string           `json:"id"`
	Status     string           `json:"status"`
	TerminalAt int64            `json:"terminalAt"`
	Tags       []string         `json:"tags"`
	Priority   float64          `json:"priority"`
	WorkerID   *string          `json:"workerId"`
	CreatedAt  int64            `json:"createdAt"`
	MatchedAt  *int64           `json:"matchedAt"`
	Meta       json.RawMessage  `json:"meta"`
	Title      *string          `json:"title"`
	Result     json.RawMessage  `json:"result"`
	Data       *taskDataSummary `json:"data"`
	Archived   bool             `json:"archived"`
}

type taskDataSummary struct {
	HasContext      bool `json:"hasContext"`
	ReferenceCount  int  `json:"referenceCount"`
	AttachmentCount int  `json:"attachmentCount"`
	CommentCount    int  `json:"commentCount"`
}

func (ws *workspace) archivedJSON(t match.Task, at time.Time) archivedTaskJSON {
	out := archivedTaskJSON{ID: t.ID, Status: string(t.Status), TerminalAt: at.UnixMilli(), Tags: orEmpty(t.Tags),
		Priority: t.Priority, CreatedAt: t.CreatedAt.UnixMilli(), Meta: json.RawMessage("null"),
		Result: json.RawMessage("null"), Archived: true}
	if t.WorkerID != "" {
		id := t.WorkerID
		out.WorkerID = &id
	}
	if m, ok := ws.archive.matchedAt[t.ID]; ok {
		ms := m.UnixMilli()
		out.MatchedAt = &ms
	}
	if t.Status == match.StatusCompleted {
		out.Result = rawOrNull(t.Result)
	}
	data := &taskDataSummary{AttachmentCount: len(ws.attachments.byTask[t.ID])}
	if x, _ := t.Extra.(*taskExtra); x != nil {
		if x.meta != nil {
			out.Meta = x.meta
		}
		out.Title = x.title
		data.HasContext = !x.ctxCreated.IsZero() || x.others["context"] != nil
		data.CommentCount = len(x.comments)
		var refs []json.RawMessage
		if json.Unmarshal(x.others["references"], &refs) == nil {
			data.ReferenceCount = len(refs)
		}
	}
	out.Data = data
	return out
}

type historyPage struct {
	Tasks      []archivedTaskJSON `json:"tasks"`
	NextCursor *string            `json:"nextCursor"`
	HasMore    bool               `json:"hasMore"`
}

// prepTaskHistory answers GET /tasks/history: finished tasks, the most recently finished
// first. The cursor is the archive position to continue below; positions count every task
// that ever finished, so a cursor stays valid while tasks keep finishing, and one below
// the forgotten tasks (WithFinishedTasks) ends the listing.
func prepTaskHistory(r *request) (op, *apiError) {
	h, err := parseHistoryQuery(r)
	if err != nil {
		return nil, err
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		fin, dropped := ws.archive.finished, ws.archive.dropped
		i := len(fin) - 1
		if h.before >= 0 {
			if h.before > dropped+len(fin) {
				return 0, nil, invalidBodyf("cursor is not one this server issued")
			}
			// Positions below dropped were forgotten (finished.go): the page is empty.
			i = h.before - 1 - dropped
		}
		out := historyPage{Tasks: []archivedTaskJSON{}}
		for ; i >= 0; i-- {
			t, terr := ws.engine.Task(fin[i].taskID)
			if terr != nil || !h.keeps(t, fin[i].at) {
				continue
			}
			if len(out.Tasks) == h.limit {
				out.HasMore = true
				c := strconv.Itoa(dropped + i + 1)
				out.NextCursor = &c
				break
			}
			out.Tasks = append(out.Tasks, ws.archivedJSON(t, fin[i].at))
		}
		return http.StatusOK, out, nil
	}, nil
}
