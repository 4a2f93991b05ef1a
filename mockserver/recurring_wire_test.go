package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// recurringList reads GET /tasks/recurring.
func recurringList(t *testing.T, srv *Server) (tpls []templateJSON, count int) {
	t.Helper()
	var page struct {
		Recurring []templateJSON `json:"recurring"`
		Count     int            `json:"count"`
	}
	a := mustAPI(t, srv, http.StatusOK, "GET", "/tasks/recurring", nil)
	require.NoError(t, json.Unmarshal(a.Body, &page))
	return page.Recurring, page.Count
}

// openTaskIDs reads the ids of the tasks tasks.list answers that are not finished.
func openTaskIDs(t *testing.T, srv *Server) []string {
	t.Helper()
	var page struct {
		Tasks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"tasks"`
	}
	a := mustAPI(t, srv, http.StatusOK, "GET", "/tasks?limit=100", nil)
	require.NoError(t, json.Unmarshal(a.Body, &page))
	var ids []string
	for _, task := range page.Tasks {
		if task.Status != "cancelled" && task.Status != "completed" {
			ids = append(ids, task.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// A template made by tasks.create with recurrence is answered 202 "scheduled" under its own
// id, refuses a second template with that id, and tasks.recurring.list reads every member it
// was sent (priority and title only when sent), the soonest nextAt first and then by id.
// Over the plan's queued-task limit an occurrence is skipped but counted; removing a template
// with dropScheduled cancels what it cut, and a second removal is 404.
func TestRecurringTemplatesOverTheWire(t *testing.T) {
	clock := NewManualClock(t0)
	srv := Start(t, WithClock(clock), WithLimits(Limits{QueuedTasks: 3}))
	ms := t0.UnixMilli()

	// Created b, a, c: a and b share nextAt (the id decides), c is due sooner.
	a := mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{
		"id": "b", "tags": []string{"ops"}, "priority": 3, "title": "Daily check",
		"recurrence": map[string]any{"everyMs": 60000, "windowMs": 5000, "onMiss": "park", "catchUp": "all"},
	})
	if d := cmp.Diff(map[string]any{"id": "b", "status": "scheduled"}, a.json(t)); d != "" {
		t.Errorf("create answer (-want +got):\n%s", d)
	}
	mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{
		"id": "a", "tags": []string{"ops"}, "recurrence": map[string]any{"everyMs": 60000},
	})
	mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{
		"id": "c", "tags": []string{"ops", "eu"}, "recurrence": map[string]any{"everyMs": 30000},
	})
	dup := api(t, srv, "POST", "/tasks", map[string]any{"id": "a", "tags": []string{"x"}, "recurrence": map[string]any{"everyMs": 1000}})
	if dup.Status != http.StatusConflict || dup.errCode(t) != CodeTaskExists {
		t.Errorf("second template a: %d %s, want 409 %s", dup.Status, dup.Body, CodeTaskExists)
	}

	three, win, park, all := 3.0, int64(5000), "park", "all"
	title := "Daily check"
	want := []templateJSON{
		{ID: "c", Tags: []string{"ops", "eu"}, Recurrence: recurrenceJSON{EveryMs: 30000}, NextAt: ms + 30000, Occurrences: 1},
		{ID: "a", Tags: []string{"ops"}, Recurrence: recurrenceJSON{EveryMs: 60000}, NextAt: ms + 60000, Occurrences: 1},
		{ID: "b", Tags: []string{"ops"}, Priority: &three, Title: &title,
			Recurrence: recurrenceJSON{EveryMs: 60000, WindowMs: &win, OnMiss: &park, CatchUp: &all}, NextAt: ms + 60000, Occurrences: 1},
	}
	got, count := recurringList(t, srv)
	if d := cmp.Diff(want, got); d != "" || count != 3 {
		t.Errorf("list at t0, count %d (-want +got):\n%s", count, d)
	}
	initial := openTaskIDs(t, srv)
	require.Len(t, initial, 3, "one occurrence per template at t0")

	// At +30s c is due, but three tasks are open: the occurrence is counted, not created.
	clock.Advance(30 * time.Second)
	// All three are now due at +60s: the ids decide the order.
	got, _ = recurringList(t, srv)
	want[0].Occurrences, want[0].NextAt = 2, ms+60000
	if d := cmp.Diff([]templateJSON{want[1], want[2], want[0]}, got); d != "" {
		t.Errorf("list after +30s (-want +got):\n%s", d)
	}
	if d := cmp.Diff(initial, openTaskIDs(t, srv)); d != "" {
		t.Errorf("open tasks after a skipped occurrence (-want +got):\n%s", d)
	}

	mustAPI(t, srv, http.StatusNoContent, "DELETE", "/tasks/recurring/c?dropScheduled=true", nil)
	if n := len(openTaskIDs(t, srv)); n != 2 {
		t.Errorf("open tasks after removing c with dropScheduled: %d, want 2", n)
	}
	mustAPI(t, srv, http.StatusNoContent, "DELETE", "/tasks/recurring/a", nil)
	if n := len(openTaskIDs(t, srv)); n != 2 {
		t.Errorf("open tasks after removing a without dropScheduled: %d, want 2", n)
	}
	if again := api(t, srv, "DELETE", "/tasks/recurring/c", nil); again.Status != http.StatusNotFound {
		t.Errorf("second removal of c: %d %s, want 404", again.Status, again.Body)
	}
	got, count = recurringList(t, srv)
	if len(got) != 1 || got[0].ID != "b" || count != 1 {
		t.Errorf("list after removals: %+v (count %d), want only b", got, count)
	}
}

// With catchUp "all" a jump over more boundaries than maxCatchUp cuts maxCatchUp occurrences
// and moves the template to the first boundary after now on its grid; a jump over exactly
// maxCatchUp boundaries leaves it at the next boundary.
func TestRecurringCatchUpIsBounded(t *testing.T) {
	all := "all"
	tests := []struct {
		name       string
		every      time.Duration
		jump       time.Duration
		wantNextAt time.Duration
	}{
		// Boundaries t0, t0+2ms, ..., t0+1998ms are 1000; t0+2000ms is the next.
		{"exactly maxCatchUp boundaries", 2 * time.Millisecond, 1999 * time.Millisecond, 2000 * time.Millisecond},
		// 2001 boundaries are due by +4000ms; after 1000 the grid goes on at +4002ms.
		{"more than maxCatchUp", 2 * time.Millisecond, 4000 * time.Millisecond, 4002 * time.Millisecond},
		{"more than maxCatchUp, between boundaries", 2 * time.Millisecond, 4001 * time.Millisecond, 4002 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := New(WithClock(NewManualClock(t0)))
			require.NoError(t, err)
			defer srv.Close()
			ws := srv.workspaces[srv.keys[0]]
			ws.mu.Lock()
			defer ws.mu.Unlock()
			ws.recurring.templates = append(ws.recurring.templates, &template{
				id: "tpl", in: match.TaskInput{ID: "tpl", Tags: []string{"ops"}}, rec: recurrence{every: tc.every, catchUp: &all}, nextAt: t0,
			})
			ws.fireRecurring(t0.Add(tc.jump))
			tpl := ws.recurring.find("tpl")
			const bound = 1000 // the documented bound, written out: comparing with maxCatchUp would hold for any value of it
			if tpl.occurrences != bound || !tpl.nextAt.Equal(t0.Add(tc.wantNextAt)) {
				t.Errorf("occurrences %d, nextAt t0+%v; want %d, t0+%v", tpl.occurrences, tpl.nextAt.Sub(t0), bound, tc.wantNextAt)
			}
		})
	}
}
