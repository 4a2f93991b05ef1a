package api_test

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
)

// platformModels are the members of the platform's published response models, as its SDKs
// read them (repository fivexer/sdks at fb30b4e871d71c3858ae413b6b88fb39d9f63897:
// python/src/fivexer/models.py, the from_json of each class named here; the Java and PHP
// models of the same name list subsets of them). The platform's contract/openapi.json gives
// no response schemas, so these models are the evidence of what an answer may carry.
var platformModels = map[string]struct {
	model   string   // the class in models.py
	members []string // wire names it reads
}{
	"Task": {"Task", []string{
		"id", "tags", "priority", "status", "workerId", "createdAt", "meta", "title",
		"latitude", "longitude", "maxDistanceKm", "requireGeo", "allowedCidrs", "skillThresholds",
		"escalation", "escalationLevel", "sla", "acceptedAt", "schedule", "workflowRunId",
		"workflowStepId", "data", "result", "archived", "slot", "booking",
	}},
	"WorkerDetail": {"WorkerDetail", []string{
		"id", "tags", "routingWeights", "learnedRoutingWeights", "routingWeightsSnapshot",
		"learnedRoutingWeightsSyncedAt", "skills", "teams", "maxBacklogSize", "available",
		"invitePending", "pendingApproval", "queueDepth", "locale",
	}},
	"WorkerMe": {"WorkerMe", []string{
		"workerId", "label", "available", "pendingApproval", "onBreak", "breakStartedAt",
		"skills", "skillSetupPending", "locale", "emailNotices", "pushCategories",
	}},
	"WorkerMetricsDay": {"WorkerMetricsDay", []string{
		"since", "completedTasks", "shiftCount", "onShiftMs", "breakCount", "totalBreakMs",
		"longestBreakMs", "workingMs",
	}},
	"LearningStatus": {"LearningStatus", []string{
		"enabled", "shadowMode", "autoWeights", "modelSize", "signalWeights", "rewards", "stats",
	}},
}

// notInPlatformModels are members of the schemas above that the published models do not
// read but api/openapi.json keeps, each with the reason. The mock server sends none of them.
var notInPlatformModels = map[string]string{
	"WorkerDetail.unavailableReason": "in the contract since its first version; no SDK model reads it and the mock server never sends it",
}

// TestPlatformAnswersHaveThePlatformMembers pins the decision of docs/contract.md, "Platform
// answers carry only platform members": the response schema of each platform model has
// exactly that model's members, so the mock server, which may send only what the schema
// declares, cannot add its own. The mock's bookkeeping (a task's queuedAt, offerExpiresAt,
// vetoedWorkers, rejectedBy; a worker's createdAt, lastMatchedAt, break reason) is on its
// admin surface; learning's learnedVeto and halfLifeMs are options the caller sets.
func TestPlatformAnswersHaveThePlatformMembers(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(api.OpenAPI(), &doc))
	used := map[string]bool{}
	for name, pm := range platformModels {
		schema, ok := doc.Components.Schemas[name]
		require.True(t, ok, "schema %s", name)
		var got []string
		for m := range schema.Properties {
			if _, ok := notInPlatformModels[name+"."+m]; ok {
				used[name+"."+m] = true
				continue
			}
			got = append(got, m)
		}
		sort.Strings(got)
		want := slices.Clone(pm.members)
		sort.Strings(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("schema %s against the platform's %s model (-platform +contract):\n%s", name, pm.model, diff)
		}
	}
	for k := range notInPlatformModels {
		if !used[k] {
			t.Errorf("notInPlatformModels lists %s, which the contract no longer has", k)
		}
	}
}
