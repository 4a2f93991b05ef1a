package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// pagedServer serves GET /v1/tasks from pages keyed by the cursor asked for
// ("" is the first page).
func pagedServer(t *testing.T, pages map[string]string) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		body, ok := pages[r.URL.Query().Get("cursor")]
		if !ok {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"unknown cursor"}}`)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func TestListFollowsCursors(t *testing.T) {
	tests := []struct {
		name     string
		pages    map[string]string
		stopAt   int // stop iterating after this many tasks; 0 = never
		wantIDs  []string
		wantErr  error
		requests int
	}{
		{
			name: "three pages",
			pages: map[string]string{
				"":   `{"tasks":[{"id":"t1"},{"id":"t2"}],"nextCursor":"c1","hasMore":true}`,
				"c1": `{"tasks":[{"id":"t3"}],"nextCursor":"c2","hasMore":true}`,
				"c2": `{"tasks":[{"id":"t4"}],"nextCursor":null,"hasMore":false}`,
			},
			wantIDs: []string{"t1", "t2", "t3", "t4"}, requests: 3,
		},
		{
			name:    "empty",
			pages:   map[string]string{"": `{"tasks":[],"nextCursor":null,"hasMore":false}`},
			wantIDs: nil, requests: 1,
		},
		{
			name: "repeated cursor stops",
			pages: map[string]string{
				"":   `{"tasks":[{"id":"t1"}],"nextCursor":"c1","hasMore":true}`,
				"c1": `{"tasks":[{"id":"t2"}],"nextCursor":"c1","hasMore":true}`,
			},
			wantIDs: []string{"t1", "t2"}, wantErr: ErrCursorRepeated, requests: 2,
		},
		{
			name: "error on a later page",
			pages: map[string]string{
				"": `{"tasks":[{"id":"t1"}],"nextCursor":"gone","hasMore":true}`,
			},
			wantIDs: []string{"t1"}, wantErr: ErrNotFound, requests: 2,
		},
		{
			name: "caller stops early",
			pages: map[string]string{
				"":   `{"tasks":[{"id":"t1"},{"id":"t2"}],"nextCursor":"c1","hasMore":true}`,
				"c1": `{"tasks":[{"id":"t3"}],"nextCursor":null,"hasMore":false}`,
			},
			stopAt: 1, wantIDs: []string{"t1"}, requests: 1,
		},
		{
			name: "hasMore without a cursor ends",
			pages: map[string]string{
				"": `{"tasks":[{"id":"t1"}],"nextCursor":null,"hasMore":true}`,
			},
			wantIDs: []string{"t1"}, requests: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := pagedServer(t, tc.pages)
			c := newTestClient(t, srv.URL+"/v1")
			var ids []string
			var gotErr error
			for task, err := range c.Tasks.List(context.Background(), ListTasksParams{Status: TaskStatusAll, Limit: 2}) {
				if err != nil {
					gotErr = err
					break
				}
				ids = append(ids, task.ID)
				if tc.stopAt > 0 && len(ids) == tc.stopAt {
					break
				}
			}
			diff(t, "ids", tc.wantIDs, ids)
			if !errors.Is(gotErr, tc.wantErr) || (tc.wantErr == nil && gotErr != nil) {
				t.Errorf("error %v, want %v", gotErr, tc.wantErr)
			}
			reqs := rec.all()
			diff(t, "requests", tc.requests, len(reqs))
			for _, r := range reqs {
				if r.Query.Get("status") != "all" || r.Query.Get("limit") != "2" {
					t.Errorf("query %v lost the filter", r.Query)
				}
			}
		})
	}
}
