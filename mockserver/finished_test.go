package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// finishTask creates a task for w1 and ends it as how says, each POST with an idempotency
// key of its own.
func finishTask(t *testing.T, srv *Server, id, how string) {
	t.Helper()
	must := func(want int, path string, body any) {
		t.Helper()
		a := api(t, srv, "POST", path, body, "Idempotency-Key", path+"#"+id)
		require.Equal(t, want, a.Status, "POST %s: %s", path, a.Body)
	}
	must(202, "/tasks", map[string]any{"id": id, "tags": []string{"english"}, "title": "task " + id})
	switch how {
	case "cancelled":
		mustAPI(t, srv, 204, "DELETE", "/tasks/"+id, nil)
		return
	}
	must(200, "/tasks/"+id+"/accept", map[string]any{"workerId": "w1"})
	switch how {
	case "completed":
		must(200, "/tasks/"+id+"/complete", map[string]any{"workerId": "w1", "result": map[string]any{"ok": true}})
	case "failed":
		must(200, "/tasks/"+id+"/fail", map[string]any{"workerId": "w1", "reason": "broken"})
	}
}

// heldTasks lists the ids GET /tasks answers, following the cursor.
func heldTasks(t *testing.T, srv *Server) []string {
	t.Helper()
	var ids []string
	path := "/tasks?limit=100"
	for {
		var page struct {
			Tasks      []struct{ ID string }
			NextCursor *string
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", path, nil).Body, &page))
		for _, tk := range page.Tasks {
			ids = append(ids, tk.ID)
		}
		if page.NextCursor == nil {
			return ids
		}
		path = "/tasks?limit=100&cursor=" + *page.NextCursor
	}
}

// TestFinishedTasksAreForgottenOldestFirst: with WithFinishedTasks(3), finished tasks of
// every terminal status pile up to 5 (2n-1), and the 6th drops the oldest three; the newest
// 3 finished are always readable, a forgotten one answers 404 not_found as an unknown id
// does, a live task is never forgotten, and the lists, /stats and tasks.history agree with
// what GET reads.
func TestFinishedTasksAreForgottenOldestFirst(t *testing.T) {
	const keep = 3
	srv := Start(t, WithFinishedTasks(keep))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true, "maxBacklogSize": 100})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "live", "tags": []string{"english"}})
	hows := []string{"completed", "cancelled", "failed", "completed", "cancelled", "completed", "failed", "completed", "completed", "cancelled", "completed"}
	var finished []string
	for i, how := range hows {
		id := fmt.Sprintf("t%02d", i)
		finishTask(t, srv, id, how)
		finished = append(finished, id)

		// The rule: at 2n the oldest are dropped down to n; below, every finished is held.
		held := len(finished) % keep
		if len(finished) >= keep {
			held += keep
		}
		wantHeld := finished[len(finished)-held:]
		for _, old := range finished[:len(finished)-held] {
			a := api(t, srv, "GET", "/tasks/"+old, nil)
			require.Equal(t, http.StatusNotFound, a.Status, "after %d finished, %s: %s", len(finished), old, a.Body)
			var env errorEnvelope
			require.NoError(t, json.Unmarshal(a.Body, &env))
			assert.Equal(t, CodeNotFound, env.Error.Code)
		}
		for _, id := range wantHeld {
			mustAPI(t, srv, 200, "GET", "/tasks/"+id, nil)
		}
		if diff := cmp.Diff(append([]string{"live"}, wantHeld...), heldTasks(t, srv)); diff != "" {
			t.Fatalf("after %d finished, GET /tasks (-want +got):\n%s", len(finished), diff)
		}
	}
	mustAPI(t, srv, 200, "GET", "/tasks/live", nil)

	// /stats counts what the server holds: the tasks GET /tasks lists.
	var stats struct{ Tasks map[string]int }
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/stats", nil).Body, &stats))
	held := heldTasks(t, srv)
	total := 0
	for _, n := range stats.Tasks {
		total += n
	}
	assert.Equal(t, len(held), total, "/stats counts %v, GET /tasks lists %v", stats.Tasks, held)

	// tasks.history lists the finished tasks held, newest first; a cursor from before the
	// drop ends the listing instead of failing.
	var hist struct {
		Tasks      []struct{ ID string }
		NextCursor *string
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/tasks/history?limit=1", nil).Body, &hist))
	require.NotNil(t, hist.NextCursor)
	assert.Equal(t, finished[len(finished)-1], hist.Tasks[0].ID)
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/tasks/history?limit=1&cursor="+*hist.NextCursor, nil).Body, &hist))
	require.Len(t, hist.Tasks, 1)
	assert.Equal(t, finished[len(finished)-2], hist.Tasks[0].ID, "the cursor continues below the newest")
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/tasks/history?limit=100", nil).Body, &hist))
	var got []string
	for _, tk := range hist.Tasks {
		got = append(got, tk.ID)
	}
	want := []string{}
	for _, id := range held[1:] {
		want = append([]string{id}, want...)
	}
	assert.Equal(t, want, got)
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/tasks/history?cursor=1", nil).Body, &hist))
	assert.Empty(t, hist.Tasks, "a cursor below the forgotten tasks")
}

// TestForgottenTaskTakesItsStoresAlong: what the server keeps beside a task (its
// attachments, its first-match time, the idempotency answers that name it) leaves with it,
// so a request retried with its key after that runs again, and the id may be created anew.
func TestForgottenTaskTakesItsStoresAlong(t *testing.T) {
	srv := Start(t, WithFinishedTasks(1))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true})
	created := api(t, srv, "POST", "/tasks", map[string]any{"id": "old", "tags": []string{"english"}}, "Idempotency-Key", "create-old")
	require.Equal(t, 202, created.Status, "%s", created.Body)
	mustAPI(t, srv, 201, "POST", "/tasks/old/attachments", map[string]any{"filename": "a.txt", "contentType": "text/plain", "sizeBytes": 1})
	mustAPI(t, srv, 200, "POST", "/tasks/old/accept", map[string]any{"workerId": "w1"})
	a := api(t, srv, "POST", "/tasks/old/complete", map[string]any{"workerId": "w1"}, "Idempotency-Key", "complete-old")
	require.Equal(t, 200, a.Status, "%s", a.Body)
	ws := srv.workspaces[srv.keys[0]]
	ws.mu.Lock()
	require.NotNil(t, ws.idem.entries["complete-old"], "the answer is stored")
	require.NotEmpty(t, ws.attachments.byTask["old"])
	ws.mu.Unlock()

	finishTask(t, srv, "new", "completed") // 2 finished with n = 1: "old" goes
	mustAPI(t, srv, 404, "GET", "/tasks/old", nil)
	ws.mu.Lock()
	_, idem := ws.idem.entries["complete-old"]
	_, idemCreate := ws.idem.entries["create-old"]
	_, att := ws.attachments.byTask["old"]
	_, matched := ws.archive.matchedAt["old"]
	ws.mu.Unlock()
	assert.False(t, idem, "the idempotency answer naming the task is gone")
	assert.False(t, idemCreate, "the create's idempotency answer, which names the task in its body, is gone")
	assert.False(t, att, "the attachments are gone")
	assert.False(t, matched, "the first-match time is gone")

	a = api(t, srv, "POST", "/tasks/old/complete", map[string]any{"workerId": "w1"}, "Idempotency-Key", "complete-old")
	assert.Equal(t, http.StatusNotFound, a.Status, "the retry runs again against an unknown task: %s", a.Body)
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "old", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "GET", "/tasks/new", nil)
}

// TestFinishedTasksKeptWithoutBound: WithFinishedTasks(0) (and negative) keeps every
// finished task, as before the bound.
func TestFinishedTasksKeptWithoutBound(t *testing.T) {
	for _, n := range []int{0, -1} {
		srv := Start(t, WithFinishedTasks(n))
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true})
		for i := range 5 {
			finishTask(t, srv, fmt.Sprintf("t%d", i), "completed")
		}
		mustAPI(t, srv, 200, "GET", "/tasks/t0", nil)
	}
}

// TestSnapshotWithForgottenTasks: a snapshot of a server that forgot finished tasks
// restores to the same tasks on a server with the same bound (its commands forget the same
// tasks at the same points, including a command answered 404 because its task was
// forgotten and an id created again after); a server with another bound refuses it at
// /settings/finishedTasks, and a document without the member is checked by its answers.
func TestSnapshotWithForgottenTasks(t *testing.T) {
	ctx := context.Background()
	srv := Start(t, WithFinishedTasks(2), WithSeed(3))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true})
	for i := range 5 {
		finishTask(t, srv, fmt.Sprintf("t%d", i), "completed")
	}
	mustAPI(t, srv, 404, "POST", "/tasks/t0/complete", map[string]any{"workerId": "w1"})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t0", "tags": []string{"english"}})
	want := heldTasks(t, srv)
	require.Equal(t, []string{"t2", "t3", "t4", "t0"}, want)
	saved, err := srv.Snapshot(ctx)
	require.NoError(t, err)

	same := Start(t, WithFinishedTasks(2), WithSeed(3))
	require.NoError(t, same.Restore(ctx, saved))
	assert.Equal(t, want, heldTasks(t, same))
	mustAPI(t, same, 404, "GET", "/tasks/t1", nil)

	other := Start(t, WithSeed(3))
	err = other.Restore(ctx, saved)
	var se *StateError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "/settings/finishedTasks", se.Pointer)

	// Without the member the document is not checked against the bound, but its commands'
	// answers are: on a server that keeps every finished task, the complete of t0 is not 404.
	var doc map[string]any
	require.NoError(t, json.Unmarshal(saved, &doc))
	delete(doc["settings"].(map[string]any), "finishedTasks")
	old, err := json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, Start(t, WithFinishedTasks(2), WithSeed(3)).Restore(ctx, old))
	err = Start(t, WithSeed(3), WithFinishedTasks(-1)).Restore(ctx, old)
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Pointer, "/commands/")
}

// TestFinishedByTheClockAreForgottenAtItsVisit: tasks the clock finishes (an SLA expiry)
// count as finished and are forgotten at the clock's own visit, before any request reads.
func TestFinishedByTheClockAreForgottenAtItsVisit(t *testing.T) {
	clk := NewManualClock(time.UnixMilli(1_700_000_000_000))
	srv := Start(t, WithClock(clk), WithFinishedTasks(1))
	for _, id := range []string{"a", "b"} {
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": id, "tags": []string{"nobody"}, "sla": map[string]any{"expireAfterMs": 1000}})
	}
	clk.Advance(2 * time.Second)
	mustAPI(t, srv, 404, "GET", "/tasks/a", nil)
	var tk struct{ Status string }
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/tasks/b", nil).Body, &tk))
	assert.Equal(t, "expired", tk.Status)
}

// TestIdempotentRequestsNamingNoTask: a keyed POST under /tasks/ whose path names no task
// (bulk, check, suggest-workers) is stored and replayed as before, tied to no task.
func TestIdempotentRequestsNamingNoTask(t *testing.T) {
	srv := Start(t, WithFinishedTasks(1))
	for _, c := range []struct {
		path string
		body any
	}{
		{"/tasks/bulk", map[string]any{"tasks": []any{map[string]any{"id": "b1", "tags": []string{"english"}}}}},
		{"/tasks/check", map[string]any{"tags": []string{"english"}}},
		{"/tasks/suggest-workers", map[string]any{"tags": []string{"english"}}},
	} {
		first := api(t, srv, "POST", c.path, c.body, "Idempotency-Key", "k"+c.path)
		require.Equal(t, http.StatusOK, first.Status, "%s: %s", c.path, first.Body)
		again := api(t, srv, "POST", c.path, c.body, "Idempotency-Key", "k"+c.path)
		assert.Equal(t, string(first.Body), string(again.Body), "%s: the answer is replayed", c.path)
	}
}
