package taskrouting_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/api"
	"github.com/taskrouting/taskrouting-go/internal/contract"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// bulkSandbox is a mock server on a manual clock and a client for it with
// the given retries inside each call.
func bulkSandbox(t *testing.T, retries int, opts ...mockserver.Option) (*mockserver.Server, *taskrouting.Client) {
	t.Helper()
	clk := mockserver.NewManualClock(time.UnixMilli(1_700_000_000_000))
	srv := mockserver.Start(t, append([]mockserver.Option{mockserver.WithClock(clk)}, opts...)...)
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(),
		taskrouting.WithMaxRetries(retries), taskrouting.WithRetryWait(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	return srv, c
}

func tasksNamed(prefix string, n int) []taskrouting.CreateTaskParams {
	out := make([]taskrouting.CreateTaskParams, n)
	for i := range out {
		out[i] = taskrouting.CreateTaskParams{Tags: []string{"english"}}
		if prefix != "" {
			out[i].ID = fmt.Sprintf("%s%d", prefix, i)
		}
	}
	return out
}

// countTasks lists every task the server holds.
func countTasks(t *testing.T, c *taskrouting.Client) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for task, err := range c.Tasks.List(context.Background(), taskrouting.ListTasksParams{Status: taskrouting.TaskStatusAll, Limit: 100}) {
		require.NoError(t, err)
		require.False(t, ids[task.ID], "task %s listed twice", task.ID)
		ids[task.ID] = true
	}
	return ids
}

func TestCreateManyReportsEachEntry(t *testing.T) {
	srv, c := bulkSandbox(t, 0)
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t_old", Tags: []string{"english"}})
	require.NoError(t, err)

	rep, err := c.Tasks.CreateMany(ctx, []taskrouting.CreateTaskParams{
		{ID: "t_a", Tags: []string{"english"}},
		{ID: "t_old", Tags: []string{"english"}}, // exists already
		{ID: "t_b", Tags: []string{"billing"}},
		{ID: "t_b", Tags: []string{"billing"}}, // repeats the entry before it
	})
	require.NoError(t, err)
	type row struct {
		Index     int
		ID, Code  string
		Succeeded bool
	}
	var got []row
	for _, r := range rep.Results {
		g := row{Index: r.Index, ID: r.ID, Succeeded: r.OK()}
		if r.Error != nil {
			g.Code = r.Error.Code
		}
		got = append(got, g)
	}
	want := []row{
		{Index: 0, ID: "t_a", Succeeded: true},
		{Index: 1, Code: taskrouting.CodeTaskExists},
		{Index: 2, ID: "t_b", Succeeded: true},
		{Index: 3, Code: taskrouting.CodeTaskExists},
	}
	assert.Empty(t, cmp.Diff(want, got))
	assert.Equal(t, 2, rep.Created)
	assert.Equal(t, 2, rep.Failed)

	// The request on the wire is the platform's tasks.createMany body.
	doc, err := contract.Compile(api.OpenAPI())
	require.NoError(t, err)
	var sent []byte
	for _, r := range srv.Requests() {
		if r.Path == "/v1/tasks/bulk" || r.Path == "/tasks/bulk" {
			sent = r.Body
		}
	}
	require.NotNil(t, sent)
	assert.NoError(t, doc.ValidateRequest("tasks.createMany", url.Values{}, sent))
	assert.JSONEq(t, `{"tasks":[{"id":"t_a","tags":["english"]},{"id":"t_old","tags":["english"]},{"id":"t_b","tags":["billing"]},{"id":"t_b","tags":["billing"]}]}`, string(sent))
}

func TestCreateManyRefusesBadInputBeforeSending(t *testing.T) {
	srv, c := bulkSandbox(t, 0)
	cases := []struct {
		name  string
		tasks []taskrouting.CreateTaskParams
		param string
	}{
		{"empty", nil, "tasks"},
		{"over the batch limit", tasksNamed("", taskrouting.MaxBulkTasks+1), "tasks"},
		{"entry without tags", []taskrouting.CreateTaskParams{{Tags: []string{"a"}}, {}}, "tasks[1].Tags"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Tasks.CreateMany(context.Background(), tc.tasks)
			var pe *taskrouting.ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
		})
	}
	assert.Empty(t, srv.Requests(), "nothing may be sent")
}

// TestMockCreateManyRefusesSchemaInvalidBatch: the platform's request schema covers every
// entry (items are CreateTaskInput), so one entry that breaks it refuses the whole call with
// 400 and creates nothing; per-entry failures are the ones no schema states (task_exists,
// rate_limited, plan limits). A mock that failed such an entry alone would pass a test the
// platform fails (docs/contract.md, "Bulk creation").
func TestMockCreateManyRefusesSchemaInvalidBatch(t *testing.T) {
	srv, c := bulkSandbox(t, 0)
	for _, body := range []string{
		`{"tasks":[{"tags":[]},{"tags":["x"]}]}`,
		`{"tasks":[{"tags":["x"],"bogus":1},{"tags":["x"]}]}`,
		`{"tasks":[{"tags":["x"]},5]}`,
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL()+"/tasks/bulk", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var env struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
		assert.Equal(t, taskrouting.CodeValidationFailed, env.Error.Code, body)
		assert.Contains(t, env.Error.Message, "body/tasks/", body)
	}
	assert.Empty(t, countTasks(t, c), "a refused batch creates nothing")
}

// checkEveryIndex asserts that the report has one entry per input, in
// order, and that the ids it reports as created are exactly the server's.
func checkEveryIndex(t *testing.T, c *taskrouting.Client, rep *taskrouting.BulkCreateReport, n int) {
	t.Helper()
	require.Len(t, rep.Entries, n)
	reported := map[string]bool{}
	for i, e := range rep.Entries {
		assert.Equal(t, i, e.Index)
		assert.True(t, (e.ID == "") != (e.Err == nil), "entry %d must have an id or an error: %+v", i, e)
		if e.ID != "" {
			assert.False(t, reported[e.ID], "id %s reported twice", e.ID)
			reported[e.ID] = true
		}
	}
	assert.Equal(t, len(reported), rep.Created)
	assert.Equal(t, n-rep.Created, rep.Failed)
	assert.Empty(t, cmp.Diff(reported, countTasks(t, c)), "created ids vs the server's tasks")
}

func TestCreateAllChunksAndReportsEveryIndex(t *testing.T) {
	_, c := bulkSandbox(t, 0)
	in := tasksNamed("", 450)
	in[7].Tags, in[300].Tags = nil, []string{""} // fail their own check; never sent
	rep, err := c.Tasks.CreateAll(context.Background(), in, taskrouting.BulkOptions{ChunkSize: 100, Concurrency: 3})
	require.NoError(t, err)
	checkEveryIndex(t, c, rep, 450)
	assert.Equal(t, 448, rep.Created)
	assert.Equal(t, 5, rep.Calls) // 448 entries in chunks of 100
	for _, i := range []int{7, 300} {
		assert.ErrorIs(t, rep.Entries[i].Err, taskrouting.ErrInvalidParams, "entry %d", i)
	}
	assert.Empty(t, in[0].ID, "the caller's slice is not modified")
}

func TestCreateAllRetriesOnlyTransientFailuresWithoutDuplicates(t *testing.T) {
	cases := []struct {
		name   string
		faults []mockserver.Fault
		calls  int
	}{
		{"drop after commit", []mockserver.Fault{{Path: "/tasks/bulk", DropAfterCommit: true, Times: 2}}, 7},
		{"503", []mockserver.Fault{{Path: "/tasks/bulk", Status: http.StatusServiceUnavailable, Times: 3}}, 8},
		{"drop and 503", []mockserver.Fault{
			{Path: "/tasks/bulk", DropAfterCommit: true, Times: 1},
			{Path: "/tasks/bulk", Status: http.StatusServiceUnavailable, Times: 1},
		}, 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := bulkSandbox(t, 0) // no retries inside a call: the pipeline's own retries are tested
			for _, f := range tc.faults {
				require.NoError(t, srv.InjectFault(f))
			}
			rep, err := c.Tasks.CreateAll(context.Background(), tasksNamed("", 500), taskrouting.BulkOptions{ChunkSize: 100, Concurrency: 2, MaxAttempts: 3})
			require.NoError(t, err)
			checkEveryIndex(t, c, rep, 500)
			assert.Equal(t, 500, rep.Created)
			assert.Equal(t, tc.calls, rep.Calls)
		})
	}
}

func TestCreateAllNeverRetriesRefusals(t *testing.T) {
	srv, c := bulkSandbox(t, 0)
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t_dup", Tags: []string{"english"}})
	require.NoError(t, err)
	in := tasksNamed("t_", 3)
	in[1].ID = "t_dup"
	rep, err := c.Tasks.CreateAll(ctx, in, taskrouting.BulkOptions{MaxAttempts: 5})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Calls)
	assert.ErrorIs(t, rep.Entries[1].Err, taskrouting.ErrTaskExists)
	assert.Equal(t, 2, rep.Created)

	// A refusal of the whole call fails its entries once, without a retry.
	require.NoError(t, srv.InjectFault(mockserver.Fault{Path: "/tasks/bulk", Status: http.StatusBadRequest, Times: 1}))
	rep, err = c.Tasks.CreateAll(ctx, tasksNamed("t_next", 2), taskrouting.BulkOptions{MaxAttempts: 5})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Calls)
	assert.Equal(t, 2, rep.Failed)
	assert.ErrorIs(t, rep.Entries[0].Err, taskrouting.ErrValidation)
}

func TestCreateAllRefusesBadOptions(t *testing.T) {
	srv, c := bulkSandbox(t, 0)
	cases := []struct {
		name string
		o    taskrouting.BulkOptions
		opts []taskrouting.RequestOption
	}{
		{"chunk over the batch limit", taskrouting.BulkOptions{ChunkSize: 201}, nil},
		{"negative concurrency", taskrouting.BulkOptions{Concurrency: -1}, nil},
		{"one key for many calls", taskrouting.BulkOptions{}, []taskrouting.RequestOption{taskrouting.WithIdempotencyKey("k1")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Tasks.CreateAll(context.Background(), tasksNamed("", 1), tc.o, tc.opts...)
			assert.True(t, errors.Is(err, taskrouting.ErrInvalidParams), "got %v", err)
		})
	}
	assert.Empty(t, srv.Requests())
}

func TestMockCreateManyCountsTaskRatePerTaskAndReplaysByKey(t *testing.T) {
	_, c := bulkSandbox(t, 0, mockserver.WithLimits(mockserver.Limits{TaskRate: 3}))
	ctx := context.Background()
	first, err := c.Tasks.CreateMany(ctx, tasksNamed("t_", 5), taskrouting.WithIdempotencyKey("bulk-1"))
	require.NoError(t, err)
	var codes []string
	for _, r := range first.Results {
		if r.Error != nil {
			codes = append(codes, r.Error.Code)
		} else {
			codes = append(codes, "ok")
		}
	}
	assert.Equal(t, []string{"ok", "ok", "ok", taskrouting.CodeRateLimited, taskrouting.CodeRateLimited}, codes)

	again, err := c.Tasks.CreateMany(ctx, tasksNamed("t_", 5), taskrouting.WithIdempotencyKey("bulk-1"))
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(first, again), "the same key answers the same report")
	assert.Len(t, countTasks(t, c), 3)
}

// clockStepper advances a manual clock after every answer, so each CreateAll round meets a
// new task-rate window.
type clockStepper struct {
	next http.RoundTripper
	clk  *mockserver.ManualClock
	step time.Duration
}

func (s clockStepper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	s.clk.Advance(s.step)
	return resp, err
}

// TestCreateAllRetriesRateLimitedEntries: entries the server refuses with rate_limited in a
// report are sent again in the next round, and are created once the window allows them.
func TestCreateAllRetriesRateLimitedEntries(t *testing.T) {
	clk := mockserver.NewManualClock(time.UnixMilli(1_700_000_000_000))
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithLimits(mockserver.Limits{TaskRate: 3, TaskRateWindow: time.Minute}))
	hc := &http.Client{Transport: clockStepper{next: http.DefaultTransport, clk: clk, step: time.Minute}}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithHTTPClient(hc), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := c.Tasks.CreateAll(ctx, tasksNamed("t_", 7), taskrouting.BulkOptions{ChunkSize: 7, MaxAttempts: 3})
	require.NoError(t, err)
	assert.Equal(t, 7, rep.Created)
	assert.Equal(t, 3, rep.Calls) // 3 created per window: 3, 3, 1
	checkEveryIndex(t, c, rep, 7)
}
