package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatsWindowOnEveryRoute: the three stats routes read from and to alike, as epoch
// milliseconds (0 included) or ISO-8601, and refuse alike, before anything else, a time
// neither reading takes (a negative number; a lowercase z, which the query's schema does
// not check), and, at run time, a window from after to or of more than 1,000 buckets.
func TestStatsWindowOnEveryRoute(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}})
	type outcome struct {
		Status        int
		Code, Message string
	}
	ok := outcome{Status: 200}
	badTime := func(name string) outcome {
		return outcome{400, CodeValidationFailed, "querystring/" + name + " must be an ISO-8601 time or epoch milliseconds"}
	}
	tests := []struct {
		name, query string
		want        outcome
	}{
		{"epoch milliseconds", "from=1763600000000", ok},
		{"ISO-8601", "from=2025-11-20T00:00:00Z&to=2025-11-21T00:00:00.000Z", ok},
		{"a day of days", "bucket=day&from=2025-11-20T00:00:00Z", ok},
		{"epoch 0 is a time: too many hours since", "from=0", outcome{400, CodeInvalidBody, "the range holds more than 1000 hour buckets"}},
		{"a negative number", "from=-5", badTime("from")},
		{"a lowercase z in from", "from=2025-11-20T00:00:00z", badTime("from")},
		{"a lowercase z in to", "from=2025-11-19T00:00:00Z&to=2025-11-20T00:00:00z", badTime("to")},
		{"from after to", "from=1763700000001&to=1763700000000", outcome{400, CodeInvalidBody, "from must not be after to"}},
	}
	for _, route := range []string{"/stats/timeseries", "/stats/workers", "/stats/workers/agent_1/timeseries"} {
		for _, tc := range tests {
			t.Run(route+"/"+tc.name, func(t *testing.T) {
				a := api(t, srv, "GET", route+"?"+tc.query, nil)
				got := outcome{Status: a.Status}
				if a.Status != 200 {
					got.Code, got.Message = a.errCode(t), a.errMessage(t)
				}
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			})
		}
	}
}
