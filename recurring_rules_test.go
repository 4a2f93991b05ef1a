package taskrouting

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Rule: a Recurrence's Every is 1 s to 365 days, its Window the same when set (0 is not
// sent, so not checked), OnMiss "park" or "drop", CatchUp "skip" or "all" (both optional);
// a refusal names the field.
func TestRecurrenceLimits(t *testing.T) {
	const year = 365 * 24 * time.Hour
	const between = "must be between 1000 and 31536000000"
	for _, tc := range []struct {
		name      string
		r         *Recurrence
		wantParam string // "" for accepted
		wantProb  string
	}{
		{"no recurrence", nil, "", ""},
		{"every second", &Recurrence{Every: time.Second}, "", ""},
		{"every year", &Recurrence{Every: year}, "", ""},
		{"every 999 ms", &Recurrence{Every: 999 * time.Millisecond}, "r.Every", between},
		{"every year and a millisecond", &Recurrence{Every: year + time.Millisecond}, "r.Every", between},
		{"no every", &Recurrence{}, "r.Every", between},
		{"window of a second", &Recurrence{Every: time.Hour, Window: time.Second}, "", ""},
		{"window of a year", &Recurrence{Every: time.Hour, Window: year}, "", ""},
		{"window of 999 ms", &Recurrence{Every: time.Hour, Window: 999 * time.Millisecond}, "r.Window", between},
		{"window of 1 ms", &Recurrence{Every: time.Hour, Window: time.Millisecond}, "r.Window", between},
		{"window of a year and a millisecond", &Recurrence{Every: time.Hour, Window: year + time.Millisecond}, "r.Window", between},
		{"park and skip", &Recurrence{Every: time.Hour, OnMiss: "park", CatchUp: "skip"}, "", ""},
		{"drop and all", &Recurrence{Every: time.Hour, OnMiss: "drop", CatchUp: "all"}, "", ""},
		{"keep", &Recurrence{Every: time.Hour, OnMiss: "keep"}, "r.OnMiss", `must be one of "park", "drop"`},
		{"some", &Recurrence{Every: time.Hour, CatchUp: "some"}, "r.CatchUp", `must be one of "skip", "all"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.validate("r")
			if tc.wantParam == "" {
				assert.NoError(t, err)
				return
			}
			var pe *ParamError
			if assert.True(t, errors.As(err, &pe), "got %v", err) {
				diff(t, "error", ParamError{Param: tc.wantParam, Problem: tc.wantProb, Limit: true}, *pe)
			}
		})
	}
}

// Rule: a recurring template's answer that is not its wire form is an error, not a zero
// template; a refused list is the error, with no templates.
func TestRecurringAnswersThatDoNotDecode(t *testing.T) {
	var r Recurrence
	assert.Error(t, json.Unmarshal([]byte(`{"everyMs":"hourly"}`), &r), "a recurrence")
	var tpl RecurringTask
	assert.Error(t, json.Unmarshal([]byte(`{"id":5}`), &tpl), "a template")

	srv, _ := serveOnce(t, 503, nil, `{"error":{"code":"service_unavailable","message":"down"}}`)
	c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
	got, err := c.Tasks.Recurring.List(context.Background())
	assert.Error(t, err)
	assert.Nil(t, got)
}
