package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// TestCreateManyRefusesRecurrenceAlone: a bulk entry with a recurrence fails alone (a
// template is made by tasks.create only) while the others are created, and GET /tasks with
// a cursor this server never issued is a 400, not a first page.
func TestCreateManyRefusesRecurrenceAlone(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	a := mustAPI(t, srv, 200, "POST", "/tasks/bulk", map[string]any{"tasks": []any{
		map[string]any{"id": "b1", "tags": []string{"ops"}},
		map[string]any{"id": "b2", "tags": []string{"ops"}, "recurrence": map[string]any{"everyMs": 60000}},
		map[string]any{"id": "b3", "tags": []string{"ops"}},
	}})
	want := `{"created":2,"failed":1,"results":[{"index":0,"id":"b1","status":"queued"},` +
		`{"index":1,"error":{"code":"invalid_body","message":"recurrence makes a template and is taken by tasks.create only"}},` +
		`{"index":2,"id":"b3","status":"queued"}]}`
	assert.Empty(t, cmp.Diff(want, string(a.Body)))
	mustAPI(t, srv, 404, "GET", "/tasks/b2", nil)
	assert.Empty(t, cmp.Diff(`{"recurring":[],"count":0}`, string(mustAPI(t, srv, 200, "GET", "/tasks/recurring", nil).Body)), "no template either")

	for _, cursor := range []string{"abc", "-1", "1.5"} {
		got := mustAPI(t, srv, 400, "GET", "/tasks?cursor="+cursor, nil)
		assert.Empty(t, cmp.Diff(`{"error":{"code":"invalid_body","message":"cursor is not one this server issued"}}`, string(got.Body)), cursor)
	}
}
