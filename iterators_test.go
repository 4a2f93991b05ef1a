package taskrouting

import (
	"context"
	"errors"
	"testing"
)

// TestCommentPagesWalk: allComments (behind both comment lists) yields every comment of
// every page in order, stops fetching when the loop breaks, ends a repeated cursor with
// ErrCursorRepeated and an error with that error, once.
func TestCommentPagesWalk(t *testing.T) {
	pageErr := errors.New("page failed")
	for _, tc := range []struct {
		name    string
		pages   map[string]*CommentPage
		stopAt  int // break after this many comments; 0: never
		want    []string
		wantErr error
		fetched []string // the cursors asked, in order
	}{
		{
			name: "every page",
			pages: map[string]*CommentPage{
				"":   {Comments: []Comment{{ID: "c1"}, {ID: "c2"}}, NextCursor: "p2", HasMore: true},
				"p2": {Comments: []Comment{{ID: "c3"}}, HasMore: false},
			},
			want: []string{"c1", "c2", "c3"}, fetched: []string{"", "p2"},
		},
		{
			name: "break on the first page",
			pages: map[string]*CommentPage{
				"":   {Comments: []Comment{{ID: "c1"}, {ID: "c2"}}, NextCursor: "p2", HasMore: true},
				"p2": {Comments: []Comment{{ID: "c3"}}},
			},
			stopAt: 1, want: []string{"c1"}, fetched: []string{""},
		},
		{
			name: "a cursor seen before",
			pages: map[string]*CommentPage{
				"":   {Comments: []Comment{{ID: "c1"}}, NextCursor: "p2", HasMore: true},
				"p2": {Comments: []Comment{{ID: "c2"}}, NextCursor: "p2", HasMore: true},
			},
			want: []string{"c1", "c2"}, wantErr: ErrCursorRepeated, fetched: []string{"", "p2"},
		},
		{
			name:  "hasMore without a cursor ends the walk",
			pages: map[string]*CommentPage{"": {Comments: []Comment{{ID: "c1"}}, HasMore: true}},
			want:  []string{"c1"}, fetched: []string{""},
		},
		{
			name:  "a failing page",
			pages: map[string]*CommentPage{"": {Comments: []Comment{{ID: "c1"}}, NextCursor: "p2", HasMore: true}},
			want:  []string{"c1"}, wantErr: pageErr, fetched: []string{"", "p2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fetched []string
			seq := allComments(ListCommentsParams{}, func(p ListCommentsParams) (*CommentPage, error) {
				fetched = append(fetched, p.Cursor)
				if pg, ok := tc.pages[p.Cursor]; ok {
					return pg, nil
				}
				return nil, pageErr
			})
			var got []string
			var errs []error
			for c, err := range seq {
				if err != nil {
					errs = append(errs, err)
					continue // the walk must end by itself after an error
				}
				got = append(got, c.ID)
				if len(got) == tc.stopAt {
					break
				}
			}
			diff(t, "comments", tc.want, got)
			diff(t, "cursors fetched", tc.fetched, fetched)
			if tc.wantErr == nil && len(errs) > 0 || tc.wantErr != nil && (len(errs) != 1 || !errors.Is(errs[0], tc.wantErr)) {
				t.Errorf("errors %v, want %v once", errs, tc.wantErr)
			}
		})
	}
}

// TestHistoryStopsWhenTheLoopBreaks: breaking out of History fetches no further page.
func TestHistoryStopsWhenTheLoopBreaks(t *testing.T) {
	srv, rec := pagedServer(t, map[string]string{
		"":   `{"tasks":[{"id":"t1","status":"completed","terminalAt":1795773600000,"tags":[]},{"id":"t2","status":"completed","terminalAt":1795773600000,"tags":[]}],"nextCursor":"c1","hasMore":true}`,
		"c1": `{"tasks":[{"id":"t3","status":"completed","terminalAt":1795773600000,"tags":[]}],"nextCursor":null,"hasMore":false}`,
	})
	c := newTestClient(t, srv.URL+"/v1")
	var ids []string
	for task, err := range c.Tasks.History(context.Background(), HistoryParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
		break
	}
	diff(t, "ids", []string{"t1"}, ids)
	diff(t, "requests", 1, len(rec.all()))
}
