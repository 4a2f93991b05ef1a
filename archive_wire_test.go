package taskrouting

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fixtures in the shapes the platform's SDK tests use; times are t0 and
// offsets from it.
const (
	bookingWire = `{"taskId":"task_1","workerId":"w-1","startAt":1763700000000,"endAt":1763703600000,
		"bookedAt":1763699000000,"source":"manual","warnings":[{"from":1763700000000,"to":1763701800000,"reason":"outside_shift"}]}`
	archivedWire = `{"id":"task_9","tags":["plumbing"],"priority":40,"status":"completed","workerId":"w-1",
		"createdAt":1763600000000,"matchedAt":1763600060000,"terminalAt":1763700000000,"meta":{"ticket":"T-1"},
		"title":"Fix the tap","result":{"ok":true},
		"data":{"hasContext":true,"referenceCount":1,"attachmentCount":0,"commentCount":2},"archived":true}`
	archivedBareWire = `{"id":"task_2","tags":[],"priority":null,"status":"cancelled","workerId":null,"createdAt":null,
		"matchedAt":null,"terminalAt":5,"meta":null,"title":null,"result":null,"data":null,"archived":true}`
	templateWire = `{"id":"nightly-sweep","tags":["ops"],"priority":80,"title":"Nightly sweep",
		"recurrence":{"everyMs":86400000,"windowMs":3600000,"onMiss":"park","catchUp":"skip"},"nextAt":1763700000000,"occurrences":12}`
)

var (
	bookingDecoded = &SlotBooking{TaskID: "task_1", WorkerID: "w-1", StartAt: t0, EndAt: t0.Add(time.Hour),
		BookedAt: t0.Add(-1000 * time.Second), Source: "manual",
		Warnings: []SlotWindow{{From: t0, To: t0.Add(30 * time.Minute), Reason: "outside_shift"}}}
	archivedDecoded = ArchivedTask{ID: "task_9", Tags: []string{"plumbing"}, Priority: Ptr(40.0), Status: TaskStatusCompleted,
		WorkerID: "w-1", CreatedAt: time.UnixMilli(1763600000000), MatchedAt: time.UnixMilli(1763600060000), TerminalAt: t0,
		Meta: map[string]any{"ticket": "T-1"}, Title: "Fix the tap", Result: map[string]any{"ok": true},
		Data: &TaskDataSummary{HasContext: true, ReferenceCount: 1, CommentCount: 2}, Archived: true}
)

// archiveCases are the archive, booking, recurring and check calls on the
// wire: the request each sends and how it decodes the platform's answer.
// Every request and answer is also held to api/openapi.json.
var archiveCases = []struct {
	name       string
	op         string
	call       func(ctx context.Context, c *Client) (any, error)
	wantMethod string
	wantPath   string
	wantQuery  url.Values
	wantBody   string // "" for none
	status     int
	answer     string
	want       any
}{
	{"history joins statuses into one parameter", "tasks.history", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.HistoryPage(ctx, HistoryParams{Statuses: []TaskStatus{TaskStatusCompleted, TaskStatusFailed}, WorkerID: "w-1",
			Tag: "plumbing", From: t0, To: t0.Add(7 * 24 * time.Hour), Query: "tap", Cursor: "c1", Limit: 25})
	}, "GET", "/tasks/history", url.Values{"status": {"completed,failed"}, "workerId": {"w-1"}, "tag": {"plumbing"},
		"from": {"2025-11-21T04:40:00.000Z"}, "to": {"2025-11-28T04:40:00.000Z"}, "q": {"tap"}, "cursor": {"c1"}, "limit": {"25"}},
		"", 200, `{"tasks":[` + archivedWire + `],"nextCursor":"c2","hasMore":true}`,
		&TaskHistoryPage{Tasks: []ArchivedTask{archivedDecoded}, NextCursor: "c2", HasMore: true}},
	{"history without filters sends nothing and reads the gaps as zero", "tasks.history", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.HistoryPage(ctx, HistoryParams{})
	}, "GET", "/tasks/history", nil, "", 200, `{"tasks":[` + archivedBareWire + `],"nextCursor":null,"hasMore":false}`,
		&TaskHistoryPage{Tasks: []ArchivedTask{{ID: "task_2", Tags: []string{}, Status: TaskStatusCancelled,
			TerminalAt: time.UnixMilli(5), Archived: true}}}},
	{"bookings reads a window", "tasks.bookings", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Bookings(ctx, BookingsParams{From: t0, To: t0.Add(time.Hour), WorkerID: "w-1"})
	}, "GET", "/tasks/bookings", url.Values{"from": {"1763700000000"}, "to": {"1763703600000"}, "workerId": {"w-1"}},
		"", 200, `{"bookings":[` + bookingWire + `],"count":1}`, []SlotBooking{*bookingDecoded}},
	{"booking candidates escape the id", "tasks.booking.candidates", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Booking.Candidates(ctx, "task/1")
	}, "GET", "/tasks/task%2F1/booking/candidates", nil, "", 200,
		`{"candidates":[{"workerId":"w-1","score":0.9,"effectivePriority":91.5,"bookable":true,"reasons":[{"type":"skill","ok":true}]},
		{"workerId":"w-2","score":0.8,"effectivePriority":80,"bookable":false,"reasons":[],"clashingTaskId":"task_7",
		"blocked":[{"from":1,"to":2,"reason":"time_off"}],"warnings":null}],"count":2}`,
		[]SlotCandidate{
			{WorkerID: "w-1", Score: 0.9, EffectivePriority: 91.5, Bookable: true, Reasons: []map[string]any{{"type": "skill", "ok": true}}},
			{WorkerID: "w-2", Score: 0.8, EffectivePriority: 80, Reasons: []map[string]any{}, ClashingTaskID: "task_7",
				Blocked: []SlotWindow{{From: time.UnixMilli(1), To: time.UnixMilli(2), Reason: "time_off"}}},
		}},
	{"booking set sends force only when asked", "tasks.booking.set", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Booking.Set(ctx, "task_1", SetBookingParams{WorkerID: "w-1"})
	}, "POST", "/tasks/task_1/booking", nil, `{"workerId":"w-1"}`, 200, `{"id":"task_1","booking":` + bookingWire + `}`, bookingDecoded},
	{"booking set with force", "tasks.booking.set", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Booking.Set(ctx, "task_1", SetBookingParams{WorkerID: "w-1", Force: true})
	}, "POST", "/tasks/task_1/booking", nil, `{"workerId":"w-1","force":true}`, 200, `{"id":"task_1","booking":` + bookingWire + `}`, bookingDecoded},
	{"booking release", "tasks.booking.release", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Tasks.Booking.Release(ctx, "task_1")
	}, "DELETE", "/tasks/task_1/booking", nil, "", 204, "", nil},
	{"recurring list reads templates with their clocks", "tasks.recurring.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Recurring.List(ctx)
	}, "GET", "/tasks/recurring", nil, "", 200,
		`{"recurring":[` + templateWire + `,{"id":"hourly-ping","tags":["ops"],"priority":null,"title":null,"recurrence":{"everyMs":3600000},"nextAt":1763700000000,"occurrences":240}],"count":2}`,
		[]RecurringTask{
			{ID: "nightly-sweep", Tags: []string{"ops"}, Priority: Ptr(80.0), Title: "Nightly sweep", NextAt: t0, Occurrences: 12,
				Recurrence: Recurrence{Every: 24 * time.Hour, Window: time.Hour, OnMiss: "park", CatchUp: "skip"}},
			{ID: "hourly-ping", Tags: []string{"ops"}, NextAt: t0, Occurrences: 240, Recurrence: Recurrence{Every: time.Hour}},
		}},
	{"recurring remove leaves occurrences alone by default", "tasks.recurring.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Tasks.Recurring.Remove(ctx, "tenant/nightly", RemoveRecurringParams{})
	}, "DELETE", "/tasks/recurring/tenant%2Fnightly", nil, "", 204, "", nil},
	{"recurring remove can drop occurrences", "tasks.recurring.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Tasks.Recurring.Remove(ctx, "nightly-sweep", RemoveRecurringParams{DropScheduled: true})
	}, "DELETE", "/tasks/recurring/nightly-sweep", url.Values{"dropScheduled": {"true"}}, "", 204, "", nil},
	{"create sends the recurrence and the slot in milliseconds", "tasks.create", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Create(ctx, CreateTaskParams{ID: "nightly-sweep", Tags: []string{"ops"},
			Recurrence: &Recurrence{Every: 24 * time.Hour, OnMiss: "park"},
			Slot:       &TimeSlot{StartAt: t0, Duration: time.Hour, OnUnbooked: "queue"}})
	}, "POST", "/tasks", nil, `{"id":"nightly-sweep","tags":["ops"],"recurrence":{"everyMs":86400000,"onMiss":"park"},
		"slot":{"startAt":1763700000000,"durationMs":3600000,"onUnbooked":"queue"}}`, 202,
		`{"id":"nightly-sweep","status":"scheduled"}`, &TaskRef{ID: "nightly-sweep", Status: TaskStatusScheduled}},
	{"check sends the create body and reads the report", "tasks.check", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Check(ctx, CreateTaskParams{Tags: []string{"german"}})
	}, "POST", "/tasks/check", nil, `{"tags":["german"]}`, 200,
		`{"eligibleWorkerCount":0,"evaluatedAt":1763700000000,"issues":[{"severity":"warning","code":"no_eligible_worker","message":"nobody","tag":null},
		{"severity":"info","code":"uncovered_tag","message":"no worker carries german","tag":"german"}],"uncoveredTags":["german"]}`,
		&TaskCheckReport{EvaluatedAt: t0, UncoveredTags: []string{"german"}, Issues: []TaskCheckIssue{
			{Severity: "warning", Code: "no_eligible_worker", Message: "nobody"},
			{Severity: "info", Code: "uncovered_tag", Message: "no worker carries german", Tag: "german"}}}},
}

func TestArchiveWire(t *testing.T) {
	for _, tc := range archiveCases {
		runWireCase(t, wireCase{tc.name, tc.op, tc.call, tc.wantMethod, tc.wantPath, tc.wantQuery.Encode(), tc.wantBody, tc.status, tc.answer, tc.want})
	}
}

// TestArchiveRefusedBeforeSending checks that input the platform would
// refuse is a *ParamError and nothing reaches the server.
func TestArchiveRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"history limit over 100", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.HistoryPage(ctx, HistoryParams{Limit: 101})
			return err
		}, "HistoryParams.Limit"},
		{"bookings without a window", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Bookings(ctx, BookingsParams{From: t0})
			return err
		}, "BookingsParams.From/To"},
		{"booking without worker", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Booking.Set(ctx, "task_1", SetBookingParams{})
			return err
		}, "SetBookingParams.WorkerID"},
		{"candidates without task", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Booking.Candidates(ctx, "")
			return err
		}, "taskID"},
		{"release of a dot segment", func(ctx context.Context, c *Client) error {
			return c.Tasks.Booking.Release(ctx, "..")
		}, "taskID"},
		{"remove without template", func(ctx context.Context, c *Client) error {
			return c.Tasks.Recurring.Remove(ctx, "", RemoveRecurringParams{})
		}, "templateID"},
		{"recurrence under a second", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}, Recurrence: &Recurrence{Every: time.Millisecond}})
			return err
		}, "CreateTaskParams.Recurrence.Every"},
		{"recurrence catch-up unknown", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}, Recurrence: &Recurrence{Every: time.Hour, CatchUp: "some"}})
			return err
		}, "CreateTaskParams.Recurrence.CatchUp"},
		{"slot without start", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}, Slot: &TimeSlot{Duration: time.Hour}})
			return err
		}, "CreateTaskParams.Slot.StartAt"},
		{"check without tags", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Check(ctx, CreateTaskParams{})
			return err
		}, "CreateTaskParams.Tags"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, http.StatusOK, nil, "{}")
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			err := tc.call(context.Background(), c)
			var pe *ParamError
			require.True(t, errors.As(err, &pe), "got %v, want a *ParamError", err)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all(), "nothing may be sent")
		})
	}
}

// History follows the cursor across pages and stops on one it has seen.
func TestHistoryIteratorFollowsTheCursor(t *testing.T) {
	pages := map[string]string{
		"":   `{"tasks":[` + archivedWire + `],"nextCursor":"c2","hasMore":true}`,
		"c2": `{"tasks":[` + archivedBareWire + `],"nextCursor":"c2","hasMore":true}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(pages[r.URL.Query().Get("cursor")]))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
	var ids []string
	var last error
	for task, err := range c.Tasks.History(context.Background(), HistoryParams{}) {
		if err != nil {
			last = err
			break
		}
		ids = append(ids, task.ID)
	}
	diff(t, "ids", []string{"task_9", "task_2"}, ids)
	assert.ErrorIs(t, last, ErrCursorRepeated)
}
