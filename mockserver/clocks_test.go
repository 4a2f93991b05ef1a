package mockserver_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// clockWorld is a server on a manual clock, a client for it, and a cursor into its events
// so each step asserts only what it caused.
type clockWorld struct {
	t    *testing.T
	t0   time.Time
	clk  *mockserver.ManualClock
	srv  *mockserver.Server
	c    *taskrouting.Client
	seen int
}

func newClockWorld(t *testing.T) *clockWorld {
	t.Helper()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	return &clockWorld{t: t, t0: t0, clk: clk, srv: srv, c: newClient(t, srv, srv.APIKey())}
}

func (w *clockWorld) worker(id string, tags ...string) {
	w.t.Helper()
	_, err := w.c.Workers.Upsert(context.Background(), taskrouting.UpsertWorkerParams{ID: id, Tags: tags, Available: taskrouting.Ptr(true)})
	require.NoError(w.t, err)
}

func (w *clockWorld) create(p taskrouting.CreateTaskParams) {
	w.t.Helper()
	_, err := w.c.Tasks.Create(context.Background(), p)
	require.NoError(w.t, err)
}

// to sets the clock to t0+d and returns the events since the last call.
func (w *clockWorld) to(d time.Duration) []string {
	w.clk.Set(w.t0.Add(d))
	return w.events()
}

// events renders the events since the last call as "kind task [reason] [level]".
func (w *clockWorld) events() []string {
	w.t.Helper()
	all := w.srv.Events()
	var out []string
	for _, ev := range all[w.seen:] {
		var p struct {
			Reason string `json:"reason"`
			Level  *int   `json:"escalationLevel"`
		}
		require.NoError(w.t, json.Unmarshal(ev.Payload, &p))
		s := string(ev.Kind) + " " + ev.TaskID
		if p.Reason != "" {
			s += " " + p.Reason
		}
		if p.Level != nil {
			s += " level=" + string(rune('0'+*p.Level))
		}
		out = append(out, s)
	}
	w.seen = len(all)
	return out
}

func (w *clockWorld) task(id string) *taskrouting.Task {
	w.t.Helper()
	task, err := w.c.Tasks.Get(context.Background(), id)
	require.NoError(w.t, err)
	return task
}

func (w *clockWorld) wantEvents(step string, want []string) {
	w.t.Helper()
	if d := cmp.Diff(want, w.events()); d != "" {
		w.t.Errorf("%s (-want +got):\n%s", step, d)
	}
}

// TestSLAExpireThroughClient crosses sla.expireAfterMs: an offered task with onExpire park is
// taken from its worker and parked at the boundary, not a millisecond before; a queued one
// with the default (drop) expires.
func TestSLAExpireThroughClient(t *testing.T) {
	t.Parallel()
	w := newClockWorld(t)
	ctx := context.Background()
	w.worker("agent_1", "billing")
	hour := taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Hour})
	w.create(taskrouting.CreateTaskParams{ID: "offered", Tags: []string{"billing"}, Escalation: hour,
		SLA: taskrouting.Some(taskrouting.SLA{ExpireAfter: 10 * time.Minute, OnExpire: "park"})})
	w.create(taskrouting.CreateTaskParams{ID: "waiting", Tags: []string{"welsh"},
		SLA: taskrouting.Some(taskrouting.SLA{ExpireAfter: 10 * time.Minute})})
	w.events()

	assert.Empty(t, w.to(10*time.Minute-time.Millisecond), "just before")
	assert.Equal(t, taskrouting.TaskStatusPending, w.task("offered").Status)
	assert.Equal(t, taskrouting.TaskStatusQueued, w.task("waiting").Status)

	assert.Equal(t, []string{"task.released offered sla", "task.parked offered sla", "task.dropped waiting sla"}, w.to(10*time.Minute), "at the boundary")
	assert.Equal(t, taskrouting.TaskStatusParked, w.task("offered").Status)
	assert.Equal(t, "", w.task("offered").WorkerID)
	assert.Equal(t, taskrouting.TaskStatusExpired, w.task("waiting").Status)
	q, err := w.c.Workers.Queue(ctx, "agent_1")
	require.NoError(t, err)
	assert.Empty(t, q.TaskIDs, "the worker's backlog is freed")

	assert.Empty(t, w.to(2*time.Hour), "after: a parked task is never offered, an expired one is over")
	parked, err := w.c.Tasks.Parked(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, parked.Count)
	assert.Equal(t, "offered", parked.Tasks[0].ID)
	require.ErrorIs(t, w.c.Tasks.Cancel(ctx, "waiting"), taskrouting.ErrInvalidState, "expired is terminal")
}

// TestMaxRejectionsThroughClient spends sla.maxRejections: the rejection at the budget parks,
// fails or keeps the task, the one before does not.
func TestMaxRejectionsThroughClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		action taskrouting.MaxRejectionsAction
		want   taskrouting.TaskStatus
		events []string
	}{
		{taskrouting.MaxRejectionsPark, taskrouting.TaskStatusParked, []string{"task.rejected t1", "task.parked t1 maxRejections"}},
		{taskrouting.MaxRejectionsFail, taskrouting.TaskStatusFailed, []string{"task.rejected t1", "task.failed t1 maxRejections"}},
		{taskrouting.MaxRejectionsKeep, taskrouting.TaskStatusPending, []string{"task.rejected t1", "task.matched t1"}},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			t.Parallel()
			w := newClockWorld(t)
			ctx := context.Background()
			for _, id := range []string{"agent_1", "agent_2", "agent_3"} {
				w.worker(id, "billing")
			}
			w.create(taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"billing"},
				SLA: taskrouting.Some(taskrouting.SLA{MaxRejections: 2, OnMaxRejections: tc.action})})
			_, err := w.c.Decisions.Reject(ctx, "t1", w.task("t1").WorkerID)
			require.NoError(t, err)
			require.Equal(t, taskrouting.TaskStatusPending, w.task("t1").Status, "one under the budget")
			w.events()

			_, err = w.c.Decisions.Reject(ctx, "t1", w.task("t1").WorkerID)
			require.NoError(t, err)
			assert.Equal(t, tc.want, w.task("t1").Status)
			w.wantEvents("at the budget", tc.events)
		})
	}
}

// TestEscalationLadderThroughClient lets offers run out on a ladder of one step: the first
// expiry escalates (level 1, priority boost), the second ends the ladder and parks. Unpark
// with resetEscalation climbs it again from 0.
func TestEscalationLadderThroughClient(t *testing.T) {
	t.Parallel()
	w := newClockWorld(t)
	ctx := context.Background()
	w.worker("agent_1", "billing")
	w.create(taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"billing"}, Priority: 10,
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Minute, PriorityBoost: 5, MaxEscalations: taskrouting.Ptr(1)})})
	w.events()

	assert.Empty(t, w.to(time.Minute-time.Millisecond), "just before the offer runs out")
	assert.Equal(t, []string{"task.expired t1", "task.escalated t1 level=1", "task.matched t1"}, w.to(time.Minute))
	got := w.task("t1")
	assert.Equal(t, 1, got.EscalationLevel)
	assert.Equal(t, 15.0, got.Priority)

	assert.Empty(t, w.to(2*time.Minute-time.Millisecond))
	assert.Equal(t, []string{"task.expired t1", "task.parked t1 escalation"}, w.to(2*time.Minute), "end of the ladder")
	assert.Equal(t, taskrouting.TaskStatusParked, w.task("t1").Status)
	assert.Empty(t, w.to(time.Hour), "after: parked, never offered")

	ref, err := w.c.Tasks.Unpark(ctx, "t1", taskrouting.UnparkTaskParams{ResetEscalation: taskrouting.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusQueued, ref.Status)
	w.wantEvents("unpark", []string{"task.unparked t1", "task.matched t1"})
	assert.Equal(t, 0, w.task("t1").EscalationLevel)
}

// TestEscalateThroughClient is the manual step and its refusals.
func TestEscalateThroughClient(t *testing.T) {
	t.Parallel()
	w := newClockWorld(t)
	ctx := context.Background()
	w.worker("agent_1", "billing")
	w.create(taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"billing"},
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Hour, MaxEscalations: taskrouting.Ptr(1)})})
	w.events()

	_, err := w.c.Tasks.Escalate(ctx, "t1", taskrouting.EscalateTaskParams{WorkerID: "agent_2"})
	require.ErrorIs(t, err, taskrouting.ErrInvalidState, "not the offered worker")
	_, err = w.c.Tasks.Escalate(ctx, "nope", taskrouting.EscalateTaskParams{})
	require.ErrorIs(t, err, taskrouting.ErrNotFound)

	step, err := w.c.Tasks.Escalate(ctx, "t1", taskrouting.EscalateTaskParams{WorkerID: "agent_1"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.EscalationStep{ID: "t1", Escalated: true, Level: 1}, step)
	w.wantEvents("first step", []string{"task.released t1 escalated", "task.escalated t1 level=1", "task.matched t1"})

	step, err = w.c.Tasks.Escalate(ctx, "t1", taskrouting.EscalateTaskParams{})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.EscalationStep{ID: "t1", Parked: true, Level: 1}, step, "end of the ladder")
	w.wantEvents("end", []string{"task.released t1 escalated", "task.parked t1 escalation"})

	_, err = w.c.Tasks.Escalate(ctx, "t1", taskrouting.EscalateTaskParams{})
	require.ErrorIs(t, err, taskrouting.ErrInvalidState, "a parked task does not escalate")
	assert.Empty(t, w.events(), "a refusal emits nothing")
}

// TestScheduleThroughClient crosses schedule.notBefore (never offered before it, even with a
// free eligible worker) and schedule.notAfter (the default drop expires the task).
func TestScheduleThroughClient(t *testing.T) {
	t.Parallel()
	w := newClockWorld(t)
	ctx := context.Background()
	w.create(taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"billing"},
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: 5 * time.Hour}),
		Schedule:   &taskrouting.Schedule{NotBefore: w.t0.Add(time.Hour), NotAfter: w.t0.Add(2 * time.Hour)}})
	held, err := w.c.Tasks.Scheduled(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, held.Count)
	assert.Equal(t, taskrouting.TaskStatusScheduled, held.Tasks[0].Status)

	assert.Empty(t, w.to(time.Hour-time.Millisecond))
	w.worker("agent_1", "billing")
	assert.Equal(t, taskrouting.TaskStatusScheduled, w.task("t1").Status, "just before: not offered to a free, eligible worker")
	w.events()

	assert.Equal(t, []string{"task.queued t1 schedule", "task.matched t1"}, w.to(time.Hour), "at notBefore")
	held, err = w.c.Tasks.Scheduled(ctx)
	require.NoError(t, err)
	assert.Zero(t, held.Count)

	assert.Empty(t, w.to(2*time.Hour-time.Millisecond))
	assert.Equal(t, []string{"task.released t1 schedule", "task.dropped t1 schedule"}, w.to(2*time.Hour), "at notAfter")
	assert.Equal(t, taskrouting.TaskStatusExpired, w.task("t1").Status)
	assert.Empty(t, w.to(3*time.Hour), "after")
}

// TestUnparkThroughClient: only a parked task unparks; a shelf life that is over and not
// reset parks it straight back, and the answer says so; resetSla restarts it.
func TestUnparkThroughClient(t *testing.T) {
	t.Parallel()
	w := newClockWorld(t)
	ctx := context.Background()
	w.create(taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"welsh"},
		SLA: taskrouting.Some(taskrouting.SLA{ExpireAfter: time.Minute, OnExpire: "park"})})
	_, err := w.c.Tasks.Unpark(ctx, "t1", taskrouting.UnparkTaskParams{})
	require.ErrorIs(t, err, taskrouting.ErrInvalidState, "a queued task")
	_, err = w.c.Tasks.Unpark(ctx, "nope", taskrouting.UnparkTaskParams{})
	require.ErrorIs(t, err, taskrouting.ErrNotFound)
	assert.Equal(t, []string{"task.parked t1 sla"}, w.to(time.Minute))

	ref, err := w.c.Tasks.Unpark(ctx, "t1", taskrouting.UnparkTaskParams{ResetEscalation: taskrouting.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusParked, ref.Status, "the SLA was not reset")
	w.wantEvents("straight back", []string{"task.unparked t1", "task.parked t1 sla"})

	ref, err = w.c.Tasks.Unpark(ctx, "t1", taskrouting.UnparkTaskParams{ResetSLA: taskrouting.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusQueued, ref.Status)
	w.wantEvents("reset", []string{"task.unparked t1"})
	assert.Empty(t, w.to(2*time.Minute-time.Millisecond), "just before the new shelf life ends")
	assert.Equal(t, []string{"task.parked t1 sla"}, w.to(2*time.Minute))
}

// TestAckAndFailThroughClient: ack stops the response clock; fail ends an accepted task and
// only its worker may fail it.
func TestAckAndFailThroughClient(t *testing.T) {
	t.Parallel()
	w := newClockWorld(t)
	ctx := context.Background()
	w.worker("agent_1", "billing")
	w.worker("agent_2", "welsh")
	w.create(taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"billing"}})
	w.events()

	_, err := w.c.Tasks.Fail(ctx, "t1", taskrouting.FailTaskParams{WorkerID: "agent_1"})
	require.ErrorIs(t, err, taskrouting.ErrInvalidState, "an offered task is not failed")
	_, err = w.c.Tasks.Ack(ctx, "t1", "agent_2")
	require.ErrorIs(t, err, taskrouting.ErrInvalidState, "not the offered worker")
	ref, err := w.c.Tasks.Ack(ctx, "t1", "agent_1")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusAccepted, ref.Status)
	w.wantEvents("ack", []string{"task.accepted t1 ack"})
	assert.Empty(t, w.to(time.Hour), "the response clock stopped")

	_, err = w.c.Tasks.Fail(ctx, "t1", taskrouting.FailTaskParams{WorkerID: "agent_2"})
	require.ErrorIs(t, err, taskrouting.ErrInvalidState, "not the accepting worker")
	ref, err = w.c.Tasks.Fail(ctx, "t1", taskrouting.FailTaskParams{WorkerID: "agent_1", Reason: "customer gone"})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusFailed, ref.Status)
	w.wantEvents("fail", []string{"task.failed t1 customer gone"})
	_, err = w.c.Decisions.Complete(ctx, "t1", "agent_1", nil)
	require.ErrorIs(t, err, taskrouting.ErrInvalidState, "failed is terminal")
}

// TestClocksFreeTheQueuedTaskQuota: a task that fails or expires no longer counts against
// the queued-tasks limit; a parked one still does.
func TestClocksFreeTheQueuedTaskQuota(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithLimits(mockserver.Limits{QueuedTasks: 1}))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	sla := func(onExpire string) taskrouting.Nullable[taskrouting.SLA] {
		return taskrouting.Some(taskrouting.SLA{ExpireAfter: time.Minute, OnExpire: onExpire})
	}
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"a"}, SLA: sla("park")})
	require.NoError(t, err)
	clk.Advance(time.Minute)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t2", Tags: []string{"a"}})
	require.ErrorIs(t, err, taskrouting.ErrPlanLimit, "a parked task is still open")
	require.NoError(t, c.Tasks.Cancel(ctx, "t1"))
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t3", Tags: []string{"a"}, SLA: sla("drop")})
	require.NoError(t, err)
	clk.Advance(time.Minute)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t4", Tags: []string{"a"}})
	require.NoError(t, err, "an expired task is not")
}
