package mockserver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

func archiveSetup(t *testing.T) (*taskrouting.Client, *mockserver.ManualClock, time.Time) {
	t.Helper()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	return newClient(t, srv, srv.APIKey()), clk, t0
}

func upsertWorkers(t *testing.T, c *taskrouting.Client, tags []string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		_, err := c.Workers.Upsert(context.Background(), taskrouting.UpsertWorkerParams{ID: id, Tags: tags, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}
}

func taskIDs(t *testing.T, c *taskrouting.Client, status taskrouting.TaskStatus) []string {
	t.Helper()
	ids := []string{}
	for task, err := range c.Tasks.List(context.Background(), taskrouting.ListTasksParams{Status: status}) {
		require.NoError(t, err)
		ids = append(ids, task.ID)
	}
	return ids
}

// A template cuts its first occurrence when created and the next one exactly at each
// boundary of the server's clock; it is never a task itself. Removing it stops it, and with
// DropScheduled cancels the occurrences not finished.
func TestRecurringTemplateFiresOnTheClock(t *testing.T) {
	t.Parallel()
	c, clk, t0 := archiveSetup(t)
	ctx := context.Background()

	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "hourly-ping", Tags: []string{"ops"}, Title: "Ping",
		Recurrence: &taskrouting.Recurrence{Every: time.Hour, OnMiss: "park"}})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskRef{ID: "hourly-ping", Status: taskrouting.TaskStatusScheduled}, ref)
	_, err = c.Tasks.Get(ctx, "hourly-ping")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "the template is not a task")

	count := func() int { return len(taskIDs(t, c, taskrouting.TaskStatusAll)) }
	template := func() taskrouting.RecurringTask {
		list, err := c.Tasks.Recurring.List(ctx)
		require.NoError(t, err)
		require.Len(t, list, 1)
		return list[0]
	}
	assert.Equal(t, 1, count(), "the first occurrence is cut at creation")
	diff := cmp.Diff(taskrouting.RecurringTask{ID: "hourly-ping", Tags: []string{"ops"}, Title: "Ping", NextAt: t0.Add(time.Hour),
		Occurrences: 1, Recurrence: taskrouting.Recurrence{Every: time.Hour, OnMiss: "park"}}, template())
	assert.Empty(t, diff, "template (-want +got)")

	clk.Advance(time.Hour - time.Millisecond)
	assert.Equal(t, 1, count(), "one millisecond before the boundary")
	clk.Advance(time.Millisecond)
	assert.Equal(t, 2, count(), "at the boundary")
	clk.Advance(2 * time.Hour)
	assert.Equal(t, 4, count(), "every boundary crossed cuts one")
	assert.Equal(t, t0.Add(4*time.Hour), template().NextAt)
	for _, id := range taskIDs(t, c, taskrouting.TaskStatusAll) {
		task, err := c.Tasks.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, []string{"ops"}, task.Tags)
		assert.Equal(t, "Ping", task.Title, "an occurrence carries the template's members")
	}

	require.NoError(t, c.Tasks.Recurring.Remove(ctx, "hourly-ping", taskrouting.RemoveRecurringParams{DropScheduled: true}))
	assert.Empty(t, taskIDs(t, c, taskrouting.TaskStatusQueued), "dropScheduled cancels the live occurrences")
	clk.Advance(3 * time.Hour)
	assert.Equal(t, 4, count(), "a removed template cuts nothing")
	err = c.Tasks.Recurring.Remove(ctx, "hourly-ping", taskrouting.RemoveRecurringParams{})
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "removing twice is not idempotent")
}

// Removing without DropScheduled leaves the occurrences already cut alone.
func TestRecurringRemoveKeepsOccurrencesByDefault(t *testing.T) {
	t.Parallel()
	c, clk, _ := archiveSetup(t)
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"ops"}, Recurrence: &taskrouting.Recurrence{Every: time.Minute}})
	require.NoError(t, err)
	clk.Advance(time.Minute)
	list, err := c.Tasks.Recurring.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.NoError(t, c.Tasks.Recurring.Remove(ctx, list[0].ID, taskrouting.RemoveRecurringParams{}))
	assert.Len(t, taskIDs(t, c, taskrouting.TaskStatusQueued), 2)
}

// A booking holds the task for its worker: it is taken from whoever had the offer, it waits
// for the booked worker rather than going to another, and once released it goes to the best
// worker again. Overlapping bookings of one worker clash unless forced.
func TestBookingHonouredAndReleased(t *testing.T) {
	t.Parallel()
	c, _, t0 := archiveSetup(t)
	ctx := context.Background()
	upsertWorkers(t, c, []string{"visit"}, "w1", "w2")
	slot := &taskrouting.TimeSlot{StartAt: t0.Add(24 * time.Hour), Duration: time.Hour}
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"visit"}, Slot: slot})
	require.NoError(t, err)
	holder := func(id string) string {
		task, err := c.Tasks.Get(ctx, id)
		require.NoError(t, err)
		return string(task.Status) + ":" + task.WorkerID
	}
	require.Equal(t, "pending:w1", holder("t1"))
	task, err := c.Tasks.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, slot, task.Slot, "the slot is stored and read back")

	b, err := c.Tasks.Booking.Set(ctx, "t1", taskrouting.SetBookingParams{WorkerID: "w2"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.SlotBooking{TaskID: "t1", WorkerID: "w2", StartAt: slot.StartAt, EndAt: slot.StartAt.Add(time.Hour),
		BookedAt: t0, Source: "manual"}, b)
	assert.Equal(t, "pending:w2", holder("t1"), "the offer moves to the booked worker")
	task, err = c.Tasks.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, b, task.Booking, "a single-task read carries the booking")

	_, err = c.Decisions.Reject(ctx, "t1", "w2")
	require.NoError(t, err)
	assert.Equal(t, "queued:", holder("t1"), "booked for w2, it is not offered to w1")

	// w2 is booked for t1's slot: a second overlapping slot clashes.
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t2", Tags: []string{"visit"},
		Slot: &taskrouting.TimeSlot{StartAt: slot.StartAt.Add(30 * time.Minute), Duration: time.Hour}})
	require.NoError(t, err)
	_, err = c.Tasks.Booking.Set(ctx, "t2", taskrouting.SetBookingParams{WorkerID: "w2"})
	var apiErr *taskrouting.APIError
	require.True(t, errors.As(err, &apiErr), "got %v", err)
	assert.Equal(t, 409, apiErr.StatusCode)
	assert.Equal(t, "booking_clash", apiErr.Code)
	cands, err := c.Tasks.Booking.Candidates(ctx, "t2")
	require.NoError(t, err)
	byID := map[string]taskrouting.SlotCandidate{}
	for _, cd := range cands {
		byID[cd.WorkerID] = cd
	}
	assert.Equal(t, "t1", byID["w2"].ClashingTaskID)
	assert.False(t, byID["w2"].Bookable)
	assert.True(t, byID["w1"].Bookable)
	_, err = c.Tasks.Booking.Set(ctx, "t2", taskrouting.SetBookingParams{WorkerID: "w2", Force: true})
	require.NoError(t, err, "force books over the clash")

	bookings, err := c.Tasks.Bookings(ctx, taskrouting.BookingsParams{From: slot.StartAt, To: slot.StartAt.Add(time.Minute)})
	require.NoError(t, err)
	require.Len(t, bookings, 1, "only t1's slot overlaps the first minute")
	assert.Equal(t, "t1", bookings[0].TaskID)

	require.NoError(t, c.Tasks.Booking.Release(ctx, "t1"))
	assert.Equal(t, "pending:w1", holder("t1"), "released, the task goes to the eligible worker")
	task, err = c.Tasks.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Nil(t, task.Booking)
	err = c.Tasks.Booking.Release(ctx, "t1")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "nothing left to release")

	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t3", Tags: []string{"visit"}})
	require.NoError(t, err)
	_, err = c.Tasks.Booking.Set(ctx, "t3", taskrouting.SetBookingParams{WorkerID: "w1"})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "a task without a slot cannot be booked")
}

// The archive lists finished tasks newest first, filters by status, worker, tag, time and
// text, and pages with a cursor across pages.
func TestHistoryFiltersAndPaging(t *testing.T) {
	t.Parallel()
	c, clk, t0 := archiveSetup(t)
	ctx := context.Background()
	upsertWorkers(t, c, []string{"a", "b"}, "w1")
	finish := []struct {
		id, tag, title string
		complete       bool
	}{
		{"t1", "a", "Fix the tap", true},
		{"t2", "b", "Paint", false},
		{"t3", "a", "Fix the door", true},
		{"t4", "b", "Tap water", true},
		{"t5", "a", "Queued then cancelled", false},
	}
	for _, f := range finish {
		_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: f.id, Tags: []string{f.tag}, Title: f.title})
		require.NoError(t, err)
		clk.Advance(time.Minute)
		if f.complete {
			_, err = c.Decisions.Accept(ctx, f.id, "w1")
			require.NoError(t, err)
			_, err = c.Decisions.Complete(ctx, f.id, "w1", map[string]any{"ok": true})
		} else {
			err = c.Tasks.Cancel(ctx, f.id)
		}
		require.NoError(t, err)
		clk.Advance(time.Minute)
	}
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "open", Tags: []string{"a"}})
	require.NoError(t, err)

	tests := []struct {
		name string
		p    taskrouting.HistoryParams
		want []string
	}{
		{"all, newest first, across pages", taskrouting.HistoryParams{Limit: 2}, []string{"t5", "t4", "t3", "t2", "t1"}},
		{"several statuses", taskrouting.HistoryParams{Statuses: []taskrouting.TaskStatus{"cancelled", "failed"}, Limit: 1}, []string{"t5", "t2"}},
		{"worker", taskrouting.HistoryParams{WorkerID: "w1", Limit: 1}, []string{"t4", "t3", "t1"}},
		{"tag", taskrouting.HistoryParams{Tag: "a"}, []string{"t5", "t3", "t1"}},
		{"time window", taskrouting.HistoryParams{From: t0.Add(3 * time.Minute), To: t0.Add(7 * time.Minute)}, []string{"t3", "t2"}},
		{"text, any case", taskrouting.HistoryParams{Query: "TAP"}, []string{"t4", "t1"}},
	}
	for _, tc := range tests {
		var got []string
		for task, err := range c.Tasks.History(ctx, tc.p) {
			require.NoError(t, err, tc.name)
			got = append(got, task.ID)
		}
		assert.Equal(t, tc.want, got, tc.name)
	}

	page, err := c.Tasks.HistoryPage(ctx, taskrouting.HistoryParams{Limit: 1})
	require.NoError(t, err)
	assert.True(t, page.HasMore)
	d := cmp.Diff(taskrouting.ArchivedTask{ID: "t5", Status: taskrouting.TaskStatusCancelled, Tags: []string{"a"}, Priority: taskrouting.Ptr(0.0),
		CreatedAt: t0.Add(8 * time.Minute), MatchedAt: t0.Add(8 * time.Minute), TerminalAt: t0.Add(9 * time.Minute),
		Title: "Queued then cancelled", Data: &taskrouting.TaskDataSummary{}, Archived: true}, page.Tasks[0])
	assert.Empty(t, d, "archived task (-want +got)")
	done, err := c.Tasks.HistoryPage(ctx, taskrouting.HistoryParams{Statuses: []taskrouting.TaskStatus{"completed"}, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ok": true}, done.Tasks[0].Result)
	assert.Equal(t, "w1", done.Tasks[0].WorkerID)

	_, err = c.Tasks.HistoryPage(ctx, taskrouting.HistoryParams{Statuses: []taskrouting.TaskStatus{"queued"}})
	assert.ErrorIs(t, err, taskrouting.ErrValidation, "the archive holds finished states only")
}

// A check creates and reserves nothing, and reports what a create would refuse with the code
// the create answers.
func TestCheckCreatesNothing(t *testing.T) {
	t.Parallel()
	c, _, t0 := archiveSetup(t)
	ctx := context.Background()
	upsertWorkers(t, c, []string{"english"}, "w1", "w2")
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "taken", Tags: []string{"english"}})
	require.NoError(t, err)
	before := c.Quota().QueuedTasks.Remaining

	rep, err := c.Tasks.Check(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskCheckReport{EligibleWorkerCount: 2, EvaluatedAt: t0, Issues: []taskrouting.TaskCheckIssue{},
		UncoveredTags: []string{}}, rep, "both workers have room for another offer")

	tests := []struct {
		name     string
		p        taskrouting.CreateTaskParams
		wantCode string
	}{
		{"id in use", taskrouting.CreateTaskParams{ID: "taken", Tags: []string{"english"}}, "task_exists"},
		{"threshold on a tag the task lacks", taskrouting.CreateTaskParams{Tags: []string{"english"}, SkillThresholds: map[string]float64{"german": 1}}, "invalid_body"},
	}
	for _, tc := range tests {
		rep, err := c.Tasks.Check(ctx, tc.p)
		require.NoError(t, err, tc.name)
		errs := rep.Errors()
		require.Len(t, errs, 1, tc.name)
		assert.Equal(t, tc.wantCode, errs[0].Code, tc.name)
		_, err = c.Tasks.Create(ctx, tc.p)
		var apiErr *taskrouting.APIError
		require.True(t, errors.As(err, &apiErr), "%s: create must refuse what check reported, got %v", tc.name, err)
		assert.Equal(t, tc.wantCode, apiErr.Code, tc.name)
	}

	rep, err = c.Tasks.Check(ctx, taskrouting.CreateTaskParams{Tags: []string{"german"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"german"}, rep.UncoveredTags)
	assert.Equal(t, 0, rep.EligibleWorkerCount)
	assert.Empty(t, rep.Errors(), "nobody able to take it is a warning: create would queue it")

	assert.Equal(t, []string{"taken"}, taskIDs(t, c, taskrouting.TaskStatusAll), "no check created a task")
	assert.Equal(t, before, c.Quota().QueuedTasks.Remaining)
}

// A task failed by its worker and one dropped by its SLA clock end up in the archive too,
// under their own statuses.
func TestHistoryHoldsFailedAndExpiredTasks(t *testing.T) {
	t.Parallel()
	c, clk, _ := archiveSetup(t)
	ctx := context.Background()
	upsertWorkers(t, c, []string{"a"}, "w1")
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "failed", Tags: []string{"a"}})
	require.NoError(t, err)
	_, err = c.Decisions.Accept(ctx, "failed", "w1")
	require.NoError(t, err)
	_, err = c.Tasks.Fail(ctx, "failed", taskrouting.FailTaskParams{WorkerID: "w1", Reason: "broken"})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "dropped", Tags: []string{"nobody"},
		SLA: taskrouting.Some(taskrouting.SLA{ExpireAfter: time.Minute})})
	require.NoError(t, err)
	clk.Advance(time.Minute)

	got := map[string]taskrouting.TaskStatus{}
	for task, err := range c.Tasks.History(ctx, taskrouting.HistoryParams{Statuses: []taskrouting.TaskStatus{"failed", "expired"}}) {
		require.NoError(t, err)
		got[task.ID] = task.Status
	}
	want := map[string]taskrouting.TaskStatus{"failed": "failed", "dropped": "expired"}
	assert.Empty(t, cmp.Diff(want, got), "archive (-want +got)")
}
