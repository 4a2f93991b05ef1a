package mockserver

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// These tests play the smallest scenarios of docs/contract.md ("How the platform matches":
// one pass per command, expiry on the maintenance sweep, removal) through the server's HTTP
// API with its defaults, as a user's test reaches them.

// passServer starts a server on a manual clock at t0 (a whole multiple of the 5 s sweep).
func passServer(t *testing.T, m MatcherConfig) (*Server, *ManualClock) {
	t.Helper()
	clk := NewManualClock(t0)
	return Start(t, WithClock(clk), WithMatcher(m)), clk
}

// pairs lists the server's events from index from on as "kind task>worker".
func pairs(srv *Server, from int) []string {
	var out []string
	for _, ev := range srv.Events()[from:] {
		out = append(out, fmt.Sprintf("%s %s>%s", ev.Kind, ev.TaskID, ev.WorkerID))
	}
	return out
}

func taskStatus(t *testing.T, srv *Server, id string) string {
	t.Helper()
	return mustAPI(t, srv, 200, "GET", "/tasks/"+id, nil).json(t)["status"].(string)
}

// TestOnePassPerCommand: 55 tasks wait, a worker with 52 slots reads its 50-task window and
// takes all 50 in the pass after its registration; a priority-5 task created next is in the
// window of the create's one pass and is offered. A pass before the create as well (the
// server's former pre-pass) would give the two free slots to priority-1 tasks first, and the
// priority-5 task would wait. Small clock moves between requests (no deadline crossed) run
// no pass either.
func TestOnePassPerCommand(t *testing.T) {
	for _, step := range []time.Duration{0, time.Millisecond, 1500 * time.Millisecond} {
		t.Run(step.String(), func(t *testing.T) {
			srv, clk := passServer(t, MatcherConfig{})
			for i := range 55 {
				mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": fmt.Sprintf("t%02d", i), "tags": []string{"a"}, "priority": 1})
				clk.Advance(step)
			}
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "maxBacklogSize": 52, "available": true})
			clk.Advance(step)
			q := mustAPI(t, srv, 200, "GET", "/workers/w1/queue", nil).json(t)["taskIds"].([]any)
			require.Len(t, q, 50, "the window yields 50 offers")
			clk.Advance(step)
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "tz", "tags": []string{"a"}, "priority": 5})
			require.Equal(t, "pending", taskStatus(t, srv, "tz"))
			q = mustAPI(t, srv, 200, "GET", "/workers/w1/queue", nil).json(t)["taskIds"].([]any)
			require.Len(t, q, 52, "tz and the next priority-1 task fill the two free slots")
		})
	}
}

// firstComeExpiry sets up docs/contract.md's first-come example: one-slot workers w1 and w2,
// t1 (priority 2) offered to w1 and t2 (priority 1) to w2, both offers expiring on the
// sweep after 60 s. It returns the index of the first event after the sweep.
func firstComeExpiry(t *testing.T) (*Server, *ManualClock, int) {
	t.Helper()
	srv, clk := passServer(t, MatcherConfig{Mode: ModeFirstCome})
	for _, w := range []string{"w1", "w2"} {
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": w, "tags": []string{"a"}, "maxBacklogSize": 1, "available": true})
	}
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}, "priority": 2})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a"}, "priority": 1})
	require.Equal(t, []string{"task.matched t1>w1", "task.matched t2>w2"}, pairs(srv, 0))
	from := len(srv.Events())
	clk.Advance(60 * time.Second)
	return srv, clk, from
}

// TestExpirySweepThenOnePass: both offers expire on one sweep, then one pass: both workers
// want t1, w1's claim wins, and w2 gets nothing until the next command. A pass at each
// deadline and another at the end of the advance would offer t2 again within the advance.
func TestExpirySweepThenOnePass(t *testing.T) {
	srv, _, from := firstComeExpiry(t)
	want := []string{"task.expired t1>w1", "task.expired t2>w2", "task.matched t1>w1"}
	require.Empty(t, cmp.Diff(want, pairs(srv, from)))
	require.Equal(t, "queued", taskStatus(t, srv, "t2"))

	// The next command's pass offers it.
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w3", "tags": []string{"b"}, "available": true})
	require.Equal(t, "pending", taskStatus(t, srv, "t2"))
}

// TestReadsChangeNothing: after the sweep t2 waits although w2 could take it; reads of every
// kind leave the events, the decisions and the task as they were, and only the next command
// runs the pass that offers it.
func TestReadsChangeNothing(t *testing.T) {
	srv, clk, _ := firstComeExpiry(t)
	clk.Advance(time.Millisecond)
	events := pairs(srv, 0)
	decisions := mustAPI(t, srv, 200, "GET", "/decisions", nil).Body
	for _, path := range []string{"/tasks/t2", "/tasks", "/tasks?status=queued", "/workers", "/workers/w2",
		"/workers/w2/queue", "/stats", "/decisions?taskId=t2", "/tasks/t2/unmatched"} {
		api(t, srv, "GET", path, nil)
	}
	require.Empty(t, cmp.Diff(events, pairs(srv, 0)), "a read emitted events")
	require.Equal(t, string(decisions), string(mustAPI(t, srv, 200, "GET", "/decisions", nil).Body), "a read decided")
	require.Equal(t, "queued", taskStatus(t, srv, "t2"))
}

// TestSweepInterval: offers whose deadlines are 1 ms apart expire on the same sweep and are
// matched again together, so best-match swaps them (t2, priority 2, goes to the
// earlier-registered w1); with a sweep at each deadline (an interval of 1 ns) each is
// matched again alone and goes back to its worker.
func TestSweepInterval(t *testing.T) {
	for _, tc := range []struct {
		interval time.Duration
		want     []string
	}{
		{0, []string{"task.expired t1>w1", "task.expired t2>w2", "task.matched t2>w1", "task.matched t1>w2"}},
		{time.Nanosecond, []string{"task.expired t1>w1", "task.matched t1>w1", "task.expired t2>w2", "task.matched t2>w2"}},
	} {
		t.Run(tc.interval.String(), func(t *testing.T) {
			srv, clk := passServer(t, MatcherConfig{MaintenanceInterval: tc.interval})
			for _, w := range []string{"w1", "w2"} {
				mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": w, "tags": []string{"a"}, "maxBacklogSize": 1, "available": true})
			}
			clk.Advance(time.Millisecond)
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}, "priority": 1})
			clk.Advance(time.Millisecond)
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a"}, "priority": 2})
			require.Equal(t, []string{"task.matched t1>w1", "task.matched t2>w2"}, pairs(srv, 0))
			from := len(srv.Events())
			clk.Advance(60 * time.Second) // the deadlines, t0+60.001 s and t0+60.002 s, are passed
			if tc.interval == 0 {
				require.Empty(t, pairs(srv, from), "due, but the sweep is at t0+65 s")
				clk.Advance(5 * time.Second)
			}
			require.Empty(t, cmp.Diff(tc.want, pairs(srv, from)))
		})
	}
}

// TestRemovalAsTheEngine: removing a worker releases none of its offers (they expire on the
// sweep, and nobody can answer them) and makes the tasks vetoing it forget the veto, so the
// same id registered again is offered them, until they are queued again.
func TestRemovalAsTheEngine(t *testing.T) {
	srv, clk := passServer(t, MatcherConfig{})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}, "vetoedWorkers": []string{"w1"}})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a"}})
	require.Equal(t, []string{"task.matched t2>w1"}, pairs(srv, 0))

	mustAPI(t, srv, 204, "DELETE", "/workers/w1", nil)
	require.Equal(t, []string{"task.matched t2>w1"}, pairs(srv, 0), "removal released an offer")
	require.Equal(t, "pending", taskStatus(t, srv, "t2"))
	a := api(t, srv, "POST", "/tasks/t2/accept", map[string]any{"workerId": "w1"})
	require.NotEqual(t, 200, a.Status, "a removed worker's offer is nobody's to answer")

	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
	require.Equal(t, []string{"task.matched t2>w1", "task.matched t1>w1"}, pairs(srv, 0), "the veto is forgotten")

	clk.Advance(60 * time.Second)
	got := pairs(srv, 0)
	require.True(t, slices.Contains(got, "task.expired t2>w1"), "%v", got)
	require.False(t, slices.ContainsFunc(got, func(s string) bool { return s == "task.released t2>w1" }), "%v", got)
	// Queued again, t1 is written again with its vetoes (the engine's addAssignment).
	require.True(t, slices.Contains(got, "task.expired t1>w1"), "%v", got)
	require.Equal(t, "queued", taskStatus(t, srv, "t1"))
}

// TestRemovalEveryTagReleases: the every-tag rules keep releasing a removed worker's offers
// (task.released) and keep its vetoes.
func TestRemovalEveryTagReleases(t *testing.T) {
	srv, _ := passServer(t, MatcherConfig{Rules: RulesEveryTag})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}, "vetoedWorkers": []string{"w1"}})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a"}})
	mustAPI(t, srv, 204, "DELETE", "/workers/w1", nil)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
	require.Equal(t, []string{"task.matched t2>w1", "task.released t2>w1", "task.matched t2>w1"}, pairs(srv, 0))
	require.Equal(t, "queued", taskStatus(t, srv, "t1"))
}

// jumpClock is a clock the server treats as the wall clock (it is no ManualClock). With the
// background timer off (withoutTimerLoop), moving it leaves a sweep due and not yet run, as
// the wall clock does between two requests; with the timer on, the timer could wake after
// the jump and run the sweep before the reads, which made this test flaky.
type jumpClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *jumpClock) jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestRealClockSweepOnCommand: with a clock that moved past a sweep the server has not run,
// a read leaves the offers as they were; the next command runs the sweep (and its pass)
// first, then its own pass.
func TestRealClockSweepOnCommand(t *testing.T) {
	clk := &jumpClock{now: t0}
	srv := Start(t, WithClock(clk), withoutTimerLoop())
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "maxBacklogSize": 1, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
	require.Equal(t, []string{"task.matched t1>w1"}, pairs(srv, 0))
	clk.jump(65 * time.Second)
	for _, path := range []string{"/tasks/t1", "/workers/w1/queue", "/stats"} {
		api(t, srv, "GET", path, nil)
	}
	require.Equal(t, []string{"task.matched t1>w1"}, pairs(srv, 0), "a read ran the sweep")
	require.Equal(t, "pending", taskStatus(t, srv, "t1"))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w2", "tags": []string{"b"}, "available": true})
	require.Equal(t, []string{"task.matched t1>w1", "task.expired t1>w1", "task.matched t1>w1"}, pairs(srv, 0))
}

// withoutTimerLoop starts a server with a non-manual clock and no background timer.
func withoutTimerLoop() Option { return func(c *config) { c.noTimerLoop = true } }
