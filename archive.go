package taskrouting

import (
	"context"
	"encoding/json"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// This file holds the task archive (tasks.history): finished tasks, filtered
// and paged with a cursor.

// HistoryParams filters GET /tasks/history. Zero fields are not sent.
type HistoryParams struct {
	// Statuses keeps tasks that finished in one of these states
	// (completed, cancelled, failed, expired); sent comma-joined as one
	// status parameter. Empty: every finished task.
	Statuses []TaskStatus
	WorkerID string // the worker that held the task
	Tag      string // tasks carrying this tag
	// From and To bound the time the task finished: From inclusive, To
	// exclusive. Sent as ISO-8601 in UTC with milliseconds.
	From, To time.Time
	Query    string // wire q: free text matched against the task's id and title
	Cursor   string // from TaskHistoryPage.NextCursor
	Limit    int    // 1-100; 0 leaves the server's default
}

func (p HistoryParams) validate() error {
	errs := []error{
		checkLen("HistoryParams.WorkerID", p.WorkerID, 0, 128),
		checkLen("HistoryParams.Tag", p.Tag, 0, 64),
		checkLen("HistoryParams.Cursor", p.Cursor, 0, 512),
	}
	if p.Limit != 0 {
		errs = append(errs, checkRange("HistoryParams.Limit", float64(p.Limit), 1, 100))
	}
	for i, s := range p.Statuses {
		errs = append(errs, checkLen("HistoryParams.Statuses["+strconv.Itoa(i)+"]", string(s), 1, 32))
	}
	return firstError(errs...)
}

func (p HistoryParams) query() url.Values {
	q := url.Values{}
	if len(p.Statuses) > 0 {
		names := make([]string, len(p.Statuses))
		for i, s := range p.Statuses {
			names[i] = string(s)
		}
		q.Set("status", strings.Join(names, ","))
	}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("workerId", p.WorkerID)
	set("tag", p.Tag)
	if !p.From.IsZero() {
		q.Set("from", p.From.UTC().Format(isoLayout))
	}
	if !p.To.IsZero() {
		q.Set("to", p.To.UTC().Format(isoLayout))
	}
	set("q", p.Query)
	set("cursor", p.Cursor)
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	return q
}

// TaskDataSummary counts the rich data a task carries (Task.Data, ArchivedTask.Data).
type TaskDataSummary struct {
	HasContext      bool `json:"hasContext"`
	ReferenceCount  int  `json:"referenceCount"`
	AttachmentCount int  `json:"attachmentCount"`
	CommentCount    int  `json:"commentCount"`
}

// ArchivedTask is a finished task as the archive keeps it.
type ArchivedTask struct {
	ID         string           `json:"id"`
	Status     TaskStatus       `json:"status"`
	TerminalAt time.Time        `json:"-"`        // wire terminalAt: when it finished
	Tags       []string         `json:"tags"`     // empty when the archive has none
	Priority   *float64         `json:"priority"` // nil when null
	WorkerID   string           `json:"workerId"` // "" when null
	CreatedAt  time.Time        `json:"-"`        // zero when null
	MatchedAt  time.Time        `json:"-"`        // zero when it was never matched
	Meta       map[string]any   `json:"meta"`
	Title      string           `json:"title"` // "" when null
	Result     map[string]any   `json:"result"`
	Data       *TaskDataSummary `json:"data"`
	Archived   bool             `json:"archived"`
}

// UnmarshalJSON reads the wire times and the nullable members.
func (t *ArchivedTask) UnmarshalJSON(b []byte) error {
	type plain ArchivedTask
	w := struct {
		*plain
		WorkerID   *string  `json:"workerId"`
		Title      *string  `json:"title"`
		TerminalAt wireTime `json:"terminalAt"`
		CreatedAt  wireTime `json:"createdAt"`
		MatchedAt  wireTime `json:"matchedAt"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t.WorkerID, t.Title = nullToEmpty(w.WorkerID), nullToEmpty(w.Title)
	t.TerminalAt, t.CreatedAt, t.MatchedAt = w.TerminalAt.t, w.CreatedAt.t, w.MatchedAt.t
	return nil
}

// TaskHistoryPage is one page of GET /tasks/history.
type TaskHistoryPage struct {
	Tasks      []ArchivedTask `json:"tasks"`
	NextCursor string         `json:"nextCursor"` // "" when null: the last page
	HasMore    bool           `json:"hasMore"`
}

// HistoryPage reads one page of the archive of finished tasks, newest
// first.
//
// API: tasks.history, GET /tasks/history
func (s *TasksService) HistoryPage(ctx context.Context, p HistoryParams, opts ...RequestOption) (*TaskHistoryPage, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(TaskHistoryPage)
	if err := s.c.call(ctx, "GET", "/tasks/history", p.query(), nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// History iterates over every archived task matching p, newest first,
// following nextCursor until hasMore is false. An error is yielded once and
// ends the iteration; a cursor seen before ends it with ErrCursorRepeated.
//
// API: tasks.history, GET /tasks/history
func (s *TasksService) History(ctx context.Context, p HistoryParams, opts ...RequestOption) iter.Seq2[ArchivedTask, error] {
	return func(yield func(ArchivedTask, error) bool) {
		p := p // ranging again starts from the caller's cursor
		seen := map[string]bool{p.Cursor: p.Cursor != ""}
		for {
			page, err := s.HistoryPage(ctx, p, opts...)
			if err != nil {
				yield(ArchivedTask{}, err)
				return
			}
			for _, t := range page.Tasks {
				if !yield(t, nil) {
					return
				}
			}
			if !page.HasMore || page.NextCursor == "" {
				return
			}
			if seen[page.NextCursor] {
				yield(ArchivedTask{}, ErrCursorRepeated)
				return
			}
			seen[page.NextCursor] = true
			p.Cursor = page.NextCursor
		}
	}
}
