package taskrouting

import (
	"context"
	"errors"
	"testing"
)

// TestQAListStartCursorRepeated: a List that starts from the caller's cursor must treat that
// cursor as already followed. A server that answers it with the same nextCursor used to get
// the page fetched and yielded twice before ErrCursorRepeated.
func TestQAListStartCursorRepeated(t *testing.T) {
	srv, rec := pagedServer(t, map[string]string{
		"c0": `{"tasks":[{"id":"t1"}],"nextCursor":"c0","hasMore":true}`,
	})
	c := newTestClient(t, srv.URL+"/v1")
	var ids []string
	var gotErr error
	for task, err := range c.Tasks.List(context.Background(), ListTasksParams{Cursor: "c0"}) {
		if err != nil {
			gotErr = err
			break
		}
		ids = append(ids, task.ID)
	}
	diff(t, "ids", []string{"t1"}, ids)
	if !errors.Is(gotErr, ErrCursorRepeated) {
		t.Errorf("error %v, want ErrCursorRepeated", gotErr)
	}
	diff(t, "requests", 1, len(rec.all()))
}

// TestQAListSequenceIsReusable: the iter.Seq2 that List returns must give the same tasks each
// time it is ranged over. It used to advance the captured params' cursor, so a second range
// over the same sequence started on the last page.
func TestQAListSequenceIsReusable(t *testing.T) {
	srv, rec := pagedServer(t, map[string]string{
		"":   `{"tasks":[{"id":"t1"}],"nextCursor":"c1","hasMore":true}`,
		"c1": `{"tasks":[{"id":"t2"}],"nextCursor":null,"hasMore":false}`,
	})
	c := newTestClient(t, srv.URL+"/v1")
	seq := c.Tasks.List(context.Background(), ListTasksParams{})
	for pass := range 2 {
		var ids []string
		for task, err := range seq {
			if err != nil {
				t.Fatalf("pass %d: %v", pass, err)
			}
			ids = append(ids, task.ID)
		}
		diff(t, "ids", []string{"t1", "t2"}, ids)
	}
	diff(t, "requests", 4, len(rec.all()))
}
