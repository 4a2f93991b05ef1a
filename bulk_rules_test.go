package taskrouting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bulkScript is a server for POST /tasks/bulk whose n-th call (from 0) is answered by
// answer(n, ids of the call's entries) as a report; it records every call's ids, sorted
// (the order of the entries sent again is not promised).
type bulkScript struct {
	mu     sync.Mutex
	calls  [][]string
	answer func(n int, ids []string) []BulkTaskResult
}

func (s *bulkScript) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
		}
		if r.URL.Path != "/v1/tasks/bulk" || json.NewDecoder(r.Body).Decode(&body) != nil {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		ids := make([]string, len(body.Tasks))
		for i, e := range body.Tasks {
			ids[i] = e.ID
		}
		s.mu.Lock()
		n := len(s.calls)
		s.calls = append(s.calls, slices.Sorted(slices.Values(ids)))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(BulkTaskReport{Results: s.answer(n, ids)})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func bulkOK(index int, id string) BulkTaskResult {
	return BulkTaskResult{Index: index, ID: id, Status: TaskStatusQueued}
}

func bulkFailed(index int, code string) BulkTaskResult {
	return BulkTaskResult{Index: index, Error: &BulkTaskError{Code: code, Message: code}}
}

// bulkOutcome is a report's entries as ids and error codes, for comparison.
type bulkOutcome struct {
	Created, Failed, Calls int
	IDs                    []string
	Codes                  []string // the *APIError code, the error's text otherwise, "" when created
}

func outcomeOf(rep *BulkCreateReport) bulkOutcome {
	o := bulkOutcome{Created: rep.Created, Failed: rep.Failed, Calls: rep.Calls}
	for i, e := range rep.Entries {
		if e.Index != i {
			o.Codes = append(o.Codes, fmt.Sprintf("entry %d has index %d", i, e.Index))
			continue
		}
		o.IDs = append(o.IDs, e.ID)
		var ae *APIError
		switch {
		case e.Err == nil:
			o.Codes = append(o.Codes, "")
		case errors.As(e.Err, &ae):
			o.Codes = append(o.Codes, ae.Code)
		default:
			o.Codes = append(o.Codes, e.Err.Error())
		}
	}
	return o
}

// Rule: CreateAll reads a report entry by entry. A result whose index is outside the call
// is ignored; an entry the report leaves out, or fails with a transient code, is sent again
// in the next round under the same id, and a task_exists answer then counts it as created
// (an earlier attempt may have committed it); a task_exists on the first attempt is a
// failure. An entry the report never answers fails, after MaxAttempts rounds, saying so.
func TestCreateAllReadsTheReportEntryByEntry(t *testing.T) {
	const missing = "taskrouting: bulk report has no result for this entry"
	for _, tc := range []struct {
		name      string
		attempts  int
		answer    func(n int, ids []string) []BulkTaskResult
		want      bulkOutcome
		wantCalls [][]string
	}{
		{
			name:     "left out and rate limited, then answered",
			attempts: 3,
			answer: func(n int, ids []string) []BulkTaskResult {
				if n == 0 { // t_1 left out, t_2 rate limited, t_3 already there, two stray indexes
					return []BulkTaskResult{bulkOK(0, ids[0]), bulkOK(len(ids), "t_stray"), bulkFailed(-1, CodeInternalError),
						bulkFailed(2, CodeRateLimited), bulkFailed(3, CodeTaskExists)}
				}
				return []BulkTaskResult{bulkFailed(0, CodeTaskExists), bulkOK(1, ids[1])}
			},
			want: bulkOutcome{Created: 3, Failed: 1, Calls: 2, IDs: []string{"t_0", "t_1", "t_2", ""},
				Codes: []string{"", "", "", CodeTaskExists}},
			wantCalls: [][]string{{"t_0", "t_1", "t_2", "t_3"}, {"t_1", "t_2"}},
		},
		{
			name:     "internal error and unavailable are transient, validation is not",
			attempts: 2,
			answer: func(n int, ids []string) []BulkTaskResult {
				if n == 0 {
					return []BulkTaskResult{bulkFailed(0, CodeInternalError), bulkFailed(1, codeServiceUnavailable),
						bulkFailed(2, CodeValidationFailed), bulkOK(3, ids[3])}
				}
				return []BulkTaskResult{bulkOK(0, ids[0]), bulkFailed(1, CodeTaskExists)}
			},
			want: bulkOutcome{Created: 3, Failed: 1, Calls: 2, IDs: []string{"t_0", "t_1", "", "t_3"},
				Codes: []string{"", "", CodeValidationFailed, ""}},
			wantCalls: [][]string{{"t_0", "t_1", "t_2", "t_3"}, {"t_0", "t_1"}},
		},
		{
			name:     "never answered",
			attempts: 2,
			answer: func(n int, ids []string) []BulkTaskResult {
				if n == 0 {
					return []BulkTaskResult{bulkOK(0, ids[0]), bulkOK(2, ids[2]), bulkOK(3, ids[3])}
				}
				return nil
			},
			want: bulkOutcome{Created: 3, Failed: 1, Calls: 2, IDs: []string{"t_0", "", "t_2", "t_3"},
				Codes: []string{"", missing, "", ""}},
			wantCalls: [][]string{{"t_0", "t_1", "t_2", "t_3"}, {"t_1"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := &bulkScript{answer: tc.answer}
			c := newTestClient(t, script.serve(t).URL+"/v1", WithMaxRetries(0))
			in := make([]CreateTaskParams, 4)
			for i := range in {
				in[i] = CreateTaskParams{ID: fmt.Sprintf("t_%d", i), Tags: []string{"english"}}
			}
			rep, err := c.Tasks.CreateAll(context.Background(), in, BulkOptions{MaxAttempts: tc.attempts})
			require.NoError(t, err)
			diff(t, "report", tc.want, outcomeOf(rep))
			diff(t, "calls", tc.wantCalls, script.calls)
		})
	}
}

// Rule: CreateAll with a context that has ended sends nothing and reports every entry
// failed with the context's error; an option that belongs to a client is refused before
// anything is sent.
func TestCreateAllBeforeSending(t *testing.T) {
	script := &bulkScript{answer: func(int, []string) []BulkTaskResult { return nil }}
	c := newTestClient(t, script.serve(t).URL+"/v1", WithMaxRetries(0))
	in := []CreateTaskParams{{Tags: []string{"english"}}, {Tags: []string{"english"}}}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := c.Tasks.CreateAll(ctx, in, BulkOptions{})
	assert.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	diff(t, "report", bulkOutcome{Failed: 2, IDs: []string{"", ""}, Codes: []string{"context canceled", "context canceled"}}, outcomeOf(rep))

	_, err = c.Tasks.CreateAll(context.Background(), in, BulkOptions{}, WithQuotaPacing(time.Second))
	var pe *ParamError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "WithQuotaPacing", pe.Param)
	assert.Empty(t, script.calls, "a call was sent")
}

// Rule: a failed call is sent again only when it may succeed then: a 5xx, a 429 or a
// transport error; never a refusal of the request (another 4xx, a caller mistake) and never
// after the caller's context has ended.
func TestBulkCallTransience(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"500", &APIError{StatusCode: 500, Code: CodeInternalError}, true},
		{"503", &APIError{StatusCode: 503}, true},
		{"429", &APIError{StatusCode: 429, Code: CodeRateLimited}, true},
		{"499", &APIError{StatusCode: 499}, false},
		{"409", &APIError{StatusCode: 409, Code: CodeTaskExists}, false},
		{"400", &APIError{StatusCode: 400, Code: CodeValidationFailed}, false},
		{"transport error", errors.New("connection reset by peer"), true},
		{"canceled", fmt.Errorf("call: %w", context.Canceled), false},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), false},
		{"caller mistake", &ParamError{Param: "tasks", Problem: "must hold 1 to 200 entries"}, false},
	} {
		assert.Equal(t, tc.want, isTransient(tc.err), tc.name)
	}
	for code, want := range map[string]bool{
		CodeRateLimited: true, CodeInternalError: true, codeServiceUnavailable: true,
		CodeTaskExists: false, CodeValidationFailed: false, CodePlanLimitExceeded: false, "": false,
	} {
		assert.Equal(t, want, transientCode(code), code)
	}
}
