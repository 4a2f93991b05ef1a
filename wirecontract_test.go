package taskrouting

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// wireContract is api/openapi.json compiled once for all the wire tests.
var wireContract = sync.OnceValues(func() (*contract.Contract, error) {
	return contract.Compile(api.OpenAPI())
})

// checkRequestContract holds a request the client sent to the request
// schema of the operation it reaches in api/openapi.json: the method and
// path must name an operation, and the query and body must be valid for
// it. It returns the operation id.
func checkRequestContract(t *testing.T, r seenRequest) string {
	t.Helper()
	c, err := wireContract()
	require.NoError(t, err, "compiling api/openapi.json")
	op, ok := c.Operation(r.Method, r.Path)
	require.True(t, ok, "%s %s is no operation of api/openapi.json", r.Method, r.Path)
	assert.NoError(t, c.ValidateRequest(op, r.Query, r.Body), "%s request %s", op, r.Body)
	return op
}

// checkOperationReached checks that a request for operation want reached
// it: got may be another id of the same method and path (tasks.setPriority
// is an alias of tasks.update on PATCH /tasks/{id}).
func checkOperationReached(t *testing.T, want, got string) {
	t.Helper()
	c, err := wireContract()
	require.NoError(t, err)
	wantRoute, ok := c.Lookup(want)
	require.True(t, ok, "%s is no operation of api/openapi.json", want)
	gotRoute, _ := c.Lookup(got)
	diff(t, "operation reached", wantRoute, gotRoute)
}

// validator is a params type the client checks before sending.
type validator interface{ validate() error }

// TestClientLimitsMatchContract holds the client's checks to the request
// schemas at each limit: the value at the limit passes both the client and
// api/openapi.json, the value one past it is refused by both. A client
// looser than the file would send requests the platform refuses; a
// stricter one would refuse requests the platform takes.
func TestClientLimitsMatchContract(t *testing.T) {
	longRefs := func(n int) []TaskReferenceParams {
		refs := make([]TaskReferenceParams, n)
		for i := range refs {
			refs[i].URL = "https://crm.example/r"
		}
		return refs
	}
	tiers := func(n int) [][]string {
		out := make([][]string, n)
		for i := range out {
			out[i] = []string{"t"}
		}
		return out
	}
	tests := []struct {
		name         string
		op           string
		inside, past validator
	}{
		{"routing weights", "workers.upsert", UpsertWorkerParams{RoutingWeights: weights(128)}, UpsertWorkerParams{RoutingWeights: weights(129)}},
		{"worker tags", "workers.upsert", UpsertWorkerParams{Tags: strs(64, "t")}, UpsertWorkerParams{Tags: strs(65, "t")}},
		{"worker id", "workers.upsert", UpsertWorkerParams{ID: strings.Repeat("a", 128)}, UpsertWorkerParams{ID: strings.Repeat("a", 129)}},
		{"skill level", "workers.patch", PatchWorkerParams{Skills: []SkillAssignment{{SkillID: "s", Level: 5}}}, PatchWorkerParams{Skills: []SkillAssignment{{SkillID: "s", Level: 6}}}},
		{"weight override", "workers.patch", PatchWorkerParams{Skills: []SkillAssignment{{SkillID: "s", Level: 1, WeightOverride: Ptr(100.0)}}},
			PatchWorkerParams{Skills: []SkillAssignment{{SkillID: "s", Level: 1, WeightOverride: Ptr(100.5)}}}},
		{"teams", "workers.upsert", UpsertWorkerParams{TeamIDs: strs(32, "team")}, UpsertWorkerParams{TeamIDs: strs(33, "team")}},
		{"ip", "workers.upsert", UpsertWorkerParams{IP: strings.Repeat("1", 45)}, UpsertWorkerParams{IP: strings.Repeat("1", 46)}},
		{"worker latitude", "workers.patch", PatchWorkerParams{Latitude: Ptr(-90.0)}, PatchWorkerParams{Latitude: Ptr(-90.01)}},
		{"backlog", "workers.upsert", UpsertWorkerParams{MaxBacklogSize: Ptr(0)}, UpsertWorkerParams{MaxBacklogSize: Ptr(-1)}},
		{"task tags", "tasks.create", CreateTaskParams{Tags: strs(32, "t")}, CreateTaskParams{Tags: strs(33, "t")}},
		{"task tag length", "tasks.create", CreateTaskParams{Tags: []string{strings.Repeat("é", 64)}}, CreateTaskParams{Tags: []string{strings.Repeat("é", 65)}}},
		{"title", "tasks.create", CreateTaskParams{Tags: []string{"t"}, Title: strings.Repeat("é", 300)}, CreateTaskParams{Tags: []string{"t"}, Title: strings.Repeat("é", 301)}},
		{"references", "tasks.create", CreateTaskParams{Tags: []string{"t"}, References: longRefs(100)}, CreateTaskParams{Tags: []string{"t"}, References: longRefs(101)}},
		{"required skill level", "tasks.create", CreateTaskParams{Tags: []string{"t"}, RequiredSkills: []RequiredSkill{{SkillID: "s", MinLevel: 1}}},
			CreateTaskParams{Tags: []string{"t"}, RequiredSkills: []RequiredSkill{{SkillID: "s", MinLevel: 0}}}},
		{"allowed CIDRs", "tasks.create", CreateTaskParams{Tags: []string{"t"}, AllowedCIDRs: strs(32, "10.0.0.0/8")}, CreateTaskParams{Tags: []string{"t"}, AllowedCIDRs: strs(33, "10.0.0.0/8")}},
		{"team id", "tasks.create", CreateTaskParams{Tags: []string{"t"}, TeamID: strings.Repeat("t", 64)}, CreateTaskParams{Tags: []string{"t"}, TeamID: strings.Repeat("t", 65)}},
		{"respond within", "tasks.create", CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: 24 * time.Hour})},
			CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: 24*time.Hour + time.Second})}},
		{"escalation tiers", "tasks.create", CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: time.Minute, Tiers: tiers(8)})},
			CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: time.Minute, Tiers: tiers(9)})}},
		{"slot duration", "tasks.create", CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: time.Millisecond}},
			CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: time.Millisecond - 1}}},
		{"longest slot", "tasks.create", CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: 30 * 24 * time.Hour}},
			CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: 30*24*time.Hour + time.Millisecond}}},
		{"slot booked ahead", "tasks.create", CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: time.Hour, BookAhead: 0}},
			CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: time.Hour, BookAhead: -time.Millisecond}}},
		{"slot booked furthest ahead", "tasks.create", CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: time.Hour, BookAhead: 365 * 24 * time.Hour}},
			CreateTaskParams{Tags: []string{"t"}, Slot: &TimeSlot{StartAt: t0, Duration: time.Hour, BookAhead: 365*24*time.Hour + time.Millisecond}}},
		{"rejections", "tasks.create", CreateTaskParams{Tags: []string{"t"}, SLA: Some(SLA{MaxRejections: 100})}, CreateTaskParams{Tags: []string{"t"}, SLA: Some(SLA{MaxRejections: 101})}},
		{"suggest limit", "tasks.suggestWorkers", SuggestWorkersParams{Tags: []string{"t"}, Limit: 100}, SuggestWorkersParams{Tags: []string{"t"}, Limit: 101}},
		{"label", "identities.create", SetIdentityParams{Label: strings.Repeat("é", 128), PIN: NewSecret("4921")}, SetIdentityParams{Label: strings.Repeat("é", 129), PIN: NewSecret("4921")}},
		{"short PIN", "identities.create", SetIdentityParams{Label: "d", PIN: NewSecret("4921")}, SetIdentityParams{Label: "d", PIN: NewSecret("492")}},
		{"long PIN", "identities.create", SetIdentityParams{Label: "d", PIN: NewSecret(strings.Repeat("7", 256))}, SetIdentityParams{Label: "d", PIN: NewSecret(strings.Repeat("7", 257))}},
		{"break reason", "worker.startBreak", StartBreakParams{Reason: strings.Repeat("é", 100)}, StartBreakParams{Reason: strings.Repeat("é", 101)}},
		{"update title", "tasks.update", UpdateTaskParams{Title: Some(strings.Repeat("é", 300))}, UpdateTaskParams{Title: Some(strings.Repeat("é", 301))}},
		{"context title", "tasks.context.set", SetTaskContextParams{Title: strings.Repeat("é", 300)}, SetTaskContextParams{Title: strings.Repeat("é", 301)}},
		{"context description", "tasks.context.set", SetTaskContextParams{Description: strings.Repeat("é", 10000)}, SetTaskContextParams{Description: strings.Repeat("é", 10001)}},
		{"context references", "tasks.context.set", SetTaskContextParams{References: longRefs(100)}, SetTaskContextParams{References: longRefs(101)}},
		{"comment author label", "tasks.comments.add", AddCommentParams{Body: "b", AuthorLabel: strings.Repeat("é", 200)}, AddCommentParams{Body: "b", AuthorLabel: strings.Repeat("é", 201)}},
		{"comment worker id", "tasks.comments.add", AddCommentParams{Body: "b", WorkerID: strings.Repeat("a", 128)}, AddCommentParams{Body: "b", WorkerID: strings.Repeat("a", 129)}},
		{"comment body", "tasks.comments.add", AddCommentParams{Body: "b"}, AddCommentParams{}},
	}
	c, err := wireContract()
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []struct {
				what   string
				params validator
				valid  bool
			}{{"at the limit", tc.inside, true}, {"past the limit", tc.past, false}} {
				var sent any = v.params
				if wf, ok := sent.(wireForm); ok {
					sent = wf.wireBody() // what Client.call sends
				}
				body, err := json.Marshal(sent)
				require.NoError(t, err)
				schemaErr := c.ValidateRequest(tc.op, nil, body)
				clientErr := v.params.validate()
				if v.valid {
					assert.NoError(t, schemaErr, "%s: api/openapi.json refuses %s", v.what, body)
					assert.NoError(t, clientErr, "%s: the client refuses", v.what)
				} else {
					assert.Error(t, schemaErr, "%s: api/openapi.json takes %s", v.what, body)
					assert.ErrorIs(t, clientErr, ErrInvalidParams, "%s: the client sends it", v.what)
				}
			}
		})
	}
}
