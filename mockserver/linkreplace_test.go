package mockserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// workers.link on a worker already linked to the connector replaces the link: the same vendor
// user keeps the link's createdAt, another one restarts it; either way the worker has one
// link there. Tags that would take the worker over the plan's limit are 402 and no link is
// made or changed.
func TestWorkerLinkReplaceAndPlanLimit(t *testing.T) {
	clock := NewManualClock(t0)
	srv := Start(t, WithClock(clock), WithLimits(Limits{WorkerSkills: 2}))
	mustAPI(t, srv, http.StatusOK, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}})
	links := func() []linkJSON {
		var page struct {
			Links []linkJSON `json:"links"`
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", "/workers/links", nil).Body, &page))
		return page.Links
	}
	iso := func(d time.Duration) string { return isoTime(t0.Add(d)) }
	steps := []struct {
		name   string
		body   map[string]any
		status int
		want   []linkJSON
	}{
		{"first link", map[string]any{"vendorUserId": "U1", "tags": []string{"slack"}}, 200,
			[]linkJSON{{"slack", "U1", "w1", iso(0)}}},
		{"same vendor user a minute later", map[string]any{"vendorUserId": "U1"}, 200,
			[]linkJSON{{"slack", "U1", "w1", iso(0)}}},
		{"another vendor user", map[string]any{"vendorUserId": "U2"}, 200,
			[]linkJSON{{"slack", "U2", "w1", iso(2 * time.Minute)}}},
		{"a third tag is over the plan", map[string]any{"vendorUserId": "U3", "tags": []string{"ops"}}, 402,
			[]linkJSON{{"slack", "U2", "w1", iso(2 * time.Minute)}}},
	}
	for _, st := range steps {
		a := api(t, srv, "PUT", "/workers/w1/links/slack", st.body)
		if a.Status != st.status {
			t.Errorf("%s: %d %s, want %d", st.name, a.Status, a.Body, st.status)
		}
		if d := cmp.Diff(st.want, links()); d != "" {
			t.Errorf("%s: links (-want +got):\n%s", st.name, d)
		}
		clock.Advance(time.Minute)
	}
}
