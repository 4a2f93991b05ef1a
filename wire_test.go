package taskrouting

import (
	"context"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.UnixMilli(1763700000000).UTC()

func f64(v float64) *float64 { return &v }

var agent1Reasons = []Reason{
	{Kind: ReasonTagWeight, Tag: "english", Weight: 100},
	{Kind: ReasonTagWeight, Tag: "billing", Weight: 50},
}

// wireCases calls each operation the way a user would and says what the
// decoded answer must be. The request sent and the answer served come from
// testdata/wire/<operation>.json.
var wireCases = []struct {
	op   string
	call func(ctx context.Context, c *Client) (any, error)
	want any
}{
	{"workers.upsert", func(ctx context.Context, c *Client) (any, error) {
		return c.Workers.Upsert(ctx, UpsertWorkerParams{
			ID: "agent_1", Tags: []string{"english", "billing"}, RoutingWeights: map[string]float64{"english": 100},
			MaxBacklogSize: Ptr(3), Available: Ptr(true),
		})
	}, &WorkerRef{ID: "agent_1"}},
	{"workers.patch", func(ctx context.Context, c *Client) (any, error) {
		return c.Workers.Patch(ctx, "agent_1", PatchWorkerParams{RoutingWeights: map[string]float64{"english": 100, "billing": 50}})
	}, &WorkerRef{ID: "agent_1"}},
	{"workers.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Workers.Get(ctx, "agent_1")
	}, &WorkerDetail{
		ID: "agent_1", Tags: []string{"english", "billing"}, RoutingWeights: map[string]float64{"english": 100, "billing": 50},
		MaxBacklogSize: Ptr(3), Available: true,
	}},
	{"workers.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Workers.List(ctx)
	}, &WorkerList{Workers: []string{"agent_1"}, Count: 1}},
	{"tasks.suggestWorkers", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.SuggestWorkers(ctx, SuggestWorkersParams{Tags: []string{"english", "billing"}, Priority: f64(90), Limit: 5})
	}, &Suggestion{Tags: []string{"english", "billing"}, Priority: 90, Workers: []Candidate{
		{WorkerID: "agent_1", Eligible: true, Score: 150, EffectivePriority: 90, Reasons: agent1Reasons},
	}}},
	{"tasks.create", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Create(ctx, CreateTaskParams{
			Tags: []string{"english", "billing"}, ID: "task_8fk2", Priority: 90, Meta: map[string]any{"orderId": "o_123"},
			Title: "Refund request", Escalation: Some(Escalation{RespondWithin: time.Minute, OnNoResponse: "allow"}),
			SLA: Null[SLA](),
		})
	}, &TaskRef{ID: "task_8fk2", Status: TaskStatusQueued}},
	{"tasks.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Get(ctx, "task_8fk2")
	}, &task8fk2},
	{"tasks.list", func(ctx context.Context, c *Client) (any, error) {
		var got []Task
		for task, err := range c.Tasks.List(ctx, ListTasksParams{Status: TaskStatusPending, Limit: 10}) {
			if err != nil {
				return nil, err
			}
			got = append(got, task)
		}
		return got, nil
	}, []Task{task8fk2}},
	{"workers.queue", func(ctx context.Context, c *Client) (any, error) {
		return c.Workers.Queue(ctx, "agent_1")
	}, &WorkerQueue{WorkerID: "agent_1", TaskIDs: []string{"task_8fk2"}}},
	{"decisions.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Decisions.List(ctx, ListDecisionsParams{TaskID: "task_8fk2", Limit: 10})
	}, []Decision{{ID: "dec_1", TaskID: "task_8fk2", WorkerID: "agent_1", MatchedAt: t0, Mode: "best-match", Candidates: []Candidate{
		{WorkerID: "agent_1", Eligible: true, Chosen: true, Score: 150, EffectivePriority: 90, Reasons: agent1Reasons},
	}}}},
	{"tasks.setPriority", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.SetPriority(ctx, "task_8fk2", 95)
	}, &TaskPriority{ID: "task_8fk2", Priority: 95}},
	{"tasks.update", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Update(ctx, "task_e5f6", UpdateTaskParams{Tags: []string{"billing", "german"}, Title: Some("Rechnung prüfen")})
	}, &TaskUpdate{ID: "task_e5f6", Status: TaskStatusQueued, Tags: []string{"billing", "german"}, Priority: Ptr(0.0)}},
	{"tasks.accept", func(ctx context.Context, c *Client) (any, error) {
		return c.Decisions.Accept(ctx, "task_8fk2", "agent_1")
	}, &TaskRef{ID: "task_8fk2", Status: TaskStatusAccepted}},
	{"tasks.complete", func(ctx context.Context, c *Client) (any, error) {
		return c.Decisions.Complete(ctx, "task_8fk2", "agent_1", map[string]any{"resolved": true})
	}, &TaskRef{ID: "task_8fk2", Status: TaskStatusCompleted}},
	{"tasks.reject", func(ctx context.Context, c *Client) (any, error) {
		return c.Decisions.Reject(ctx, "task_9aa3", "agent_1")
	}, &TaskRef{ID: "task_9aa3", Status: TaskStatusQueued}},
	{"tasks.assign", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Assign(ctx, "task_9aa3", AssignTaskParams{WorkerID: "agent_2", Force: true})
	}, &Assignment{ID: "task_9aa3", Status: TaskStatusPending, WorkerID: "agent_2"}},
	{"workers.setAvailability", func(ctx context.Context, c *Client) (any, error) {
		return c.Workers.SetAvailability(ctx, "agent_2", SetAvailabilityParams{Available: false, ReleaseBacklog: true})
	}, &Availability{ID: "agent_2", ReleasedTaskIDs: []string{"task_9aa3"}}},
	{"tasks.cancel", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Tasks.Cancel(ctx, "task_9aa3")
	}, nil},
	{"learning.status", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.Status(ctx)
	}, &LearningStatus{ShadowMode: true}},
	{"learning.workerStats", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.WorkerStats(ctx, "agent_1")
	}, &WorkerLearningStats{WorkerID: "agent_1", Skills: []SkillStats{
		{Tag: "billing", Count: 3, MeanReward: 0.6667, CurrentWeight: f64(50)},
		{Tag: "english", Count: 3, MeanReward: 0.6667, CurrentWeight: f64(100)},
	}}},
	{"workers.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Workers.Remove(ctx, "agent_2")
	}, nil},
}

var task8fk2 = Task{
	ID: "task_8fk2", Tags: []string{"english", "billing"}, Priority: 90, Status: TaskStatusPending, WorkerID: "agent_1",
	CreatedAt: t0, Meta: map[string]any{"orderId": "o_123"}, Title: "Refund request",
	Escalation: &Escalation{RespondWithin: time.Minute, OnNoResponse: "allow"},
}

// rawOpts leaves the raw JSON out of struct comparisons; TestWireRawKept checks it.
func rawOpts() cmp.Option {
	return cmp.Options{
		cmpopts.IgnoreFields(Task{}, "Raw"),
		cmpopts.IgnoreFields(WorkerDetail{}, "Raw"),
		cmpopts.IgnoreFields(Reason{}, "Raw"),
	}
}

func TestWireFixtures(t *testing.T) {
	for _, tc := range wireCases {
		t.Run(tc.op, func(t *testing.T) {
			fx := loadFixture(t, tc.op)
			srv, rec := serveFixture(t, fx)
			c := newTestClient(t, srv.URL+"/v1/", WithMaxRetries(0))

			got, err := tc.call(context.Background(), c)
			noError(t, err)

			reqs := rec.all()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			checkSentRequest(t, fx, r, "Bearer "+testKey)
			checkOperationReached(t, tc.op, checkRequestContract(t, r))
			if tc.want == nil {
				diff(t, "decoded answer", nil, got)
			} else {
				diff(t, "decoded answer", tc.want, got, rawOpts())
			}
		})
	}
}

// TestWireFixturesComplete keeps the table and the directory in step: every
// workspace-plane fixture has a test case, and every test case a fixture.
func TestWireFixturesComplete(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "wire", "*.json"))
	noError(t, err)
	var onDisk, inTable []string
	for _, f := range files {
		op := strings.TrimSuffix(filepath.Base(f), ".json")
		if isWorkerPlaneFixture(op) {
			continue // TestWorkerWireFixturesComplete keeps those in step
		}
		onDisk = append(onDisk, op)
	}
	seqs := map[int]string{}
	for _, tc := range wireCases {
		inTable = append(inTable, tc.op)
		fx := loadFixture(t, tc.op)
		if prev, dup := seqs[fx.Seq]; dup {
			t.Errorf("seq %d used by %s and %s", fx.Seq, prev, tc.op)
		}
		seqs[fx.Seq] = tc.op
	}
	sort.Strings(onDisk)
	sort.Strings(inTable)
	diff(t, "fixtures on disk vs test cases", onDisk, inTable)
	if len(inTable) != 21 {
		t.Errorf("%d workspace-plane operations in the story, want 21", len(inTable))
	}
}

// TestWireRawKept checks that unknown members stay reachable through Raw.
func TestWireRawKept(t *testing.T) {
	fx := loadFixture(t, "tasks.get")
	srv, _ := serveFixture(t, fx)
	c := newTestClient(t, srv.URL+"/v1")
	task, err := c.Tasks.Get(context.Background(), "task_8fk2")
	noError(t, err)
	diff(t, "Task.Raw", jsonValue(t, fx.Response.Body), jsonValue(t, task.Raw))

	fx = loadFixture(t, "workers.get")
	srv, _ = serveFixture(t, fx)
	c = newTestClient(t, srv.URL+"/v1")
	w, err := c.Workers.Get(context.Background(), "agent_1")
	noError(t, err)
	diff(t, "WorkerDetail.Raw", jsonValue(t, fx.Response.Body), jsonValue(t, w.Raw))
}

func TestWireQuotaFromFixtures(t *testing.T) {
	fx := loadFixture(t, "tasks.create")
	srv, _ := serveFixture(t, fx)
	c := newTestClient(t, srv.URL+"/v1")
	_, err := c.Tasks.Create(context.Background(), CreateTaskParams{Tags: []string{"english"}})
	noError(t, err)
	want := Quota{
		TaskRate:    QuotaCounter{Limit: 600, Remaining: 599, Known: true},
		QueuedTasks: QuotaCounter{Limit: 10000, Remaining: 9999, Known: true},
	}
	diff(t, "quota", want, c.Quota())
}

// checkSentRequest compares what the server saw with the fixture's request: method, path,
// query, the headers the fixture names plus Authorization (wantAuth; "" for none) and
// Content-Type (only with a body), the Idempotency-Key's presence, the body as parsed JSON
// and the User-Agent.
func checkSentRequest(t *testing.T, fx wireFixture, r seenRequest, wantAuth string) {
	t.Helper()
	wantQuery := url.Values{}
	for k, v := range fx.Request.Query {
		wantQuery[k] = []string{v}
	}
	wantHeaders := map[string]string{"Authorization": wantAuth, "Content-Type": ""}
	for k, v := range fx.Request.Headers {
		wantHeaders[k] = v
	}
	gotHeaders := map[string]string{}
	for k := range wantHeaders {
		gotHeaders[k] = r.Header.Get(k)
	}
	diff(t, "method", fx.Request.Method, r.Method)
	diff(t, "path", fx.Request.Path, r.Path)
	diff(t, "query", wantQuery, r.Query, cmpopts.EquateEmpty())
	diff(t, "headers", wantHeaders, gotHeaders)
	diff(t, "Idempotency-Key present", fx.Request.IdempotencyKey, r.Header.Get("Idempotency-Key") != "")
	diff(t, "request body", jsonValue(t, fx.Request.Body), jsonValue(t, r.Body))
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "taskrouting-go/"+Version+" go/") {
		t.Errorf("User-Agent = %q", ua)
	}
}
