package taskrouting

import (
	"context"
	"errors"
	"net/url"
	"testing"
)

// Rule: the run iterator walks the pages from the caller's cursor until a page without a
// next cursor, yields a page's error and stops, stops at the consumer's break without
// asking for another page, refuses a cursor it has seen (the caller's own included) with
// ErrCursorRepeated, and starts again from the caller's cursor when ranged over again.
func TestRunIteratorWalksThePages(t *testing.T) {
	down := errors.New("down")
	type page struct {
		ids  []string
		next string
		err  error
	}
	for _, tc := range []struct {
		name      string
		from      string
		pages     map[string]page // by the cursor asked for
		stopAfter int             // the consumer breaks after this many runs; 0 never
		wantIDs   []string
		wantErr   error
		wantAsked []string
	}{
		{"two pages", "", map[string]page{"": {[]string{"r1", "r2"}, "c1", nil}, "c1": {[]string{"r3"}, "", nil}}, 0,
			[]string{"r1", "r2", "r3"}, nil, []string{"", "c1"}},
		{"a repeated cursor", "", map[string]page{"": {[]string{"r1"}, "c1", nil}, "c1": {[]string{"r2"}, "c1", nil}}, 0,
			[]string{"r1", "r2"}, ErrCursorRepeated, []string{"", "c1"}},
		{"the caller's cursor repeated", "c0", map[string]page{"c0": {[]string{"r1"}, "c0", nil}}, 0,
			[]string{"r1"}, ErrCursorRepeated, []string{"c0"}},
		{"an error on the second page", "", map[string]page{"": {[]string{"r1"}, "c1", nil}, "c1": {nil, "", down}}, 0,
			[]string{"r1"}, down, []string{"", "c1"}},
		{"a break", "", map[string]page{"": {[]string{"r1", "r2"}, "c1", nil}, "c1": {[]string{"r3"}, "", nil}}, 1,
			[]string{"r1"}, nil, []string{""}},
		{"a break at a page's end", "", map[string]page{"": {[]string{"r1", "r2"}, "c1", nil}, "c1": {[]string{"r3"}, "", nil}}, 2,
			[]string{"r1", "r2"}, nil, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			seq := allRuns(ListRunsParams{Cursor: tc.from}, func(p ListRunsParams) (*WorkflowRunPage, error) {
				asked = append(asked, p.Cursor)
				if len(asked) > 3 {
					t.Fatalf("asked for pages %q: a cursor loop", asked)
				}
				pg, ok := tc.pages[p.Cursor]
				if !ok {
					t.Fatalf("asked for cursor %q", p.Cursor)
				}
				if pg.err != nil {
					return nil, pg.err
				}
				out := &WorkflowRunPage{NextCursor: pg.next}
				for _, id := range pg.ids {
					out.Runs = append(out.Runs, WorkflowRun{ID: id})
				}
				return out, nil
			})
			for round := range 2 { // ranging again starts over
				asked = nil
				var ids []string
				var gotErr error
				for r, err := range seq {
					if err != nil {
						gotErr = err
						continue
					}
					ids = append(ids, r.ID)
					if len(ids) == tc.stopAfter {
						break
					}
				}
				diff(t, "runs", tc.wantIDs, ids)
				diff(t, "pages asked", tc.wantAsked, asked)
				if !errors.Is(gotErr, tc.wantErr) || (tc.wantErr == nil) != (gotErr == nil) {
					t.Errorf("round %d: error %v, want %v", round, gotErr, tc.wantErr)
				}
			}
		})
	}
}

// Rule: a page of runs sends status, workflowId and cursor only when set, and limit only
// when positive; a negative limit or one over 100 is refused before sending.
func TestRunPageQuery(t *testing.T) {
	srv, rec := serveOnce(t, 200, nil, `{"runs":[],"nextCursor":""}`)
	c := newTestClient(t, srv.URL+"/v1")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		p    ListRunsParams
		want url.Values
	}{
		{"nothing set", ListRunsParams{}, url.Values{}},
		{"everything set", ListRunsParams{Status: "running", WorkflowID: "wf_1", Cursor: "c1", Limit: 100},
			url.Values{"status": {"running"}, "workflowId": {"wf_1"}, "cursor": {"c1"}, "limit": {"100"}}},
		{"a limit of 1", ListRunsParams{Limit: 1}, url.Values{"limit": {"1"}}},
	} {
		before := len(rec.all())
		_, err := runPage(ctx, c, "/workflow-runs", tc.p, nil)
		noError(t, err)
		reqs := rec.all()
		if len(reqs) != before+1 {
			t.Fatalf("%s: %d requests", tc.name, len(reqs)-before)
		}
		diff(t, tc.name, tc.want, reqs[before].Query)
	}
	for _, limit := range []int{-1, 101} {
		_, err := runPage(ctx, c, "/workflow-runs", ListRunsParams{Limit: limit}, nil)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "ListRunsParams.Limit" {
			t.Errorf("limit %d: got %v, want a refusal of ListRunsParams.Limit", limit, err)
		}
	}
	if n := len(rec.all()); n != 3 {
		t.Errorf("%d requests reached the server, want the 3 accepted", n)
	}
}
