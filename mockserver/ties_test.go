package mockserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// playTie plays docs/contract.md's smallest tie through the server's HTTP API: two workers
// whose one weight matches one tag each of the task (w002's weight given), then the task.
func playTie(t *testing.T, srv *Server, w002Weight float64) {
	t.Helper()
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w001", "tags": []string{"g3"}, "routingWeights": map[string]float64{"g3": 5}, "available": true})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w002", "tags": []string{"g7"}, "routingWeights": map[string]float64{"g7": w002Weight}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"g3", "g7"}, "priority": 1})
}

// chosenOf reads t1's holder over HTTP.
func chosenOf(t *testing.T, srv *Server) string {
	t.Helper()
	var task struct {
		WorkerID string `json:"workerId"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/tasks/t1", nil).Body, &task))
	return task.WorkerID
}

// TestTiesAreDisclosed: a decision made on a tie names the tied workers in its explanation
// (a "tie" reason on the chosen candidate of GET /decisions), in Server.Ties, on
// GET /_mock/ties and in the test log; a strict decision names none.
func TestTiesAreDisclosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		w002     float64
		chosen   string
		tie      []string // the "tie" reason's workers; nil: no such reason
		ties     []Tie
		adminLen int
	}{
		{name: "equal weights", w002: 5, chosen: "w001", tie: []string{"w001", "w002"},
			ties: []Tie{{DecisionID: "dec_1", TaskID: "t1", WorkerID: "w001", Workers: []string{"w001", "w002"}}}, adminLen: 1},
		{name: "distinct weights", w002: 4, chosen: "w001", ties: []Tie{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := &logCapture{TB: t}
			srv := Start(t, WithClock(NewManualClock(t0)), WithTestLogger(log))
			playTie(t, srv, tc.w002)
			require.Equal(t, tc.chosen, chosenOf(t, srv))

			var list struct {
				Decisions []struct {
					Candidates []struct {
						WorkerID string        `json:"workerId"`
						Chosen   bool          `json:"chosen"`
						Reasons  []MatchReason `json:"reasons"`
					} `json:"candidates"`
				} `json:"decisions"`
			}
			require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/decisions?taskId=t1", nil).Body, &list))
			require.Len(t, list.Decisions, 1)
			var tie []string
			for _, c := range list.Decisions[0].Candidates {
				for _, r := range c.Reasons {
					if r.Kind == "tie" {
						require.True(t, c.Chosen, "a tie reason on %s, which was not chosen", c.WorkerID)
						tie = r.Workers
					}
				}
			}
			if diff := cmp.Diff(tc.tie, tie); diff != "" {
				t.Errorf("tie reason's workers (-want +got):\n%s", diff)
			}

			got := srv.Ties()
			for i := range got {
				got[i].MatchedAt = got[i].MatchedAt.UTC()
				if !got[i].MatchedAt.Equal(t0) {
					t.Errorf("tie %d matched at %v, want %v", i, got[i].MatchedAt, t0)
				}
				got[i].MatchedAt = tc.ties[i].MatchedAt
			}
			if diff := cmp.Diff(tc.ties, got); diff != "" {
				t.Errorf("Server.Ties (-want +got):\n%s", diff)
			}

			var admin struct {
				Ties []adminTie `json:"ties"`
			}
			require.Equal(t, 200, adminJSONOf(t, srv, "/ties", &admin))
			require.Len(t, admin.Ties, tc.adminLen)
			for i, a := range admin.Ties {
				want := adminTie{DecisionID: tc.ties[i].DecisionID, TaskID: "t1", WorkerID: tc.chosen, Workers: tc.ties[i].Workers, MatchedAt: t0.UnixMilli()}
				if diff := cmp.Diff(want, a); diff != "" {
					t.Errorf("GET /_mock/ties (-want +got):\n%s", diff)
				}
			}

			var tieLines []string
			for _, l := range log.all() {
				if strings.Contains(l, "on a tie") {
					tieLines = append(tieLines, l)
				}
			}
			if tc.tie == nil {
				require.Empty(t, tieLines)
				return
			}
			require.Len(t, tieLines, 1)
			for _, part := range []string{"decision dec_1", "task t1 to w001 on a tie with w002", "Tests that hold on the platform"} {
				require.Contains(t, tieLines[0], part)
			}
		})
	}
}

// TestTieShuffle: WithTieBreak(TieShuffle) gives the tie to each worker for some seeds, the
// same worker for the same seed, and the default order keeps registration order whatever
// the seed; the disclosed set is the same every time.
func TestTieShuffle(t *testing.T) {
	t.Parallel()
	picks := map[string]int{}
	for seed := uint64(1); seed <= 12; seed++ {
		var chosen []string
		for range 2 {
			srv := Start(t, WithClock(NewManualClock(t0)), WithSeed(seed), WithTieBreak(TieShuffle), WithTestLogger(nil))
			playTie(t, srv, 5)
			chosen = append(chosen, chosenOf(t, srv))
			ties := srv.Ties()
			require.Len(t, ties, 1)
			want := []string{"w001", "w002"}
			if chosen[len(chosen)-1] == "w002" {
				want = []string{"w002", "w001"}
			}
			if diff := cmp.Diff(want, ties[0].Workers); diff != "" {
				t.Errorf("seed %d: tie set (-want +got):\n%s", seed, diff)
			}
		}
		require.Equal(t, chosen[0], chosen[1], "seed %d chose differently on a second server", seed)
		picks[chosen[0]]++

		srv := Start(t, WithClock(NewManualClock(t0)), WithSeed(seed), WithTestLogger(nil))
		playTie(t, srv, 5)
		require.Equal(t, "w001", chosenOf(t, srv), "registration order, seed %d", seed)
	}
	if picks["w001"] == 0 || picks["w002"] == 0 {
		t.Errorf("12 seeds chose %v; want each worker at least once", picks)
	}
}

func TestWithTieBreakRefusesUnknown(t *testing.T) {
	t.Parallel()
	_, err := New(WithTieBreak("random"))
	require.ErrorContains(t, err, `unknown tie break "random"`)
}

// adminJSONOf GETs an admin path with the sandbox key and decodes the answer.
func adminJSONOf(t *testing.T, srv *Server, path string, out any) int {
	t.Helper()
	a := adminGet(t, srv, path)
	if a.Status == 200 {
		require.NoError(t, json.Unmarshal(a.Body, out), "body %s", a.Body)
	}
	return a.Status
}
