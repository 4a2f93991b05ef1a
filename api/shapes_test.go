package api_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// TestDocumentCatchesDrift proves the document tells the platform's shapes from near misses:
// each case is a request or an answer the platform would not send or take, next to one it
// would. The near misses are the differences a mock server or client drifting from the
// platform would show (worker meta, epoch-ms break times, an old stats shape, a time
// correction without its reason, a link under the SDK's snake_case name).
func TestDocumentCatchesDrift(t *testing.T) {
	c, err := contract.Compile(api.OpenAPI())
	require.NoError(t, err)
	cases := []struct {
		name    string
		op      string
		status  int // 0: a request body
		body    string
		wantErr bool
	}{
		{"task create with platform members", "tasks.create", 0, `{"tags":["billing"],"latitude":52.5,"longitude":13.4,"requiredSkills":[{"skillId":"sk_1","minLevel":3}]}`, false},
		{"task create without tags", "tasks.create", 0, `{"tags":[]}`, true},
		{"task create with an unknown member", "tasks.create", 0, `{"tags":["billing"],"colour":"red"}`, true},
		{"priority patch under its alias", "tasks.setPriority", 0, `{"priority":5}`, false},
		{"update with nothing to change", "tasks.update", 0, `{}`, true},
		{"sign-in with a short PIN", "identities.create", 0, `{"label":"desk 4","pin":"12"}`, true},
		{"sign-in without a label", "identities.create", 0, `{"pin":"4921"}`, true},
		{"skill override over 100", "workers.upsert", 0, `{"skills":[{"skillId":"sk_1","level":2,"weightOverride":101}]}`, true},
		{"worker meta is not the platform's", "workers.upsert", 0, `{"id":"ana","meta":{"desk":4}}`, true},
		{"worker detail", "workers.get", 200, `{"id":"ana","tags":["billing"],"available":true,"queueDepth":0}`, false},
		{"worker detail with the mock's break flag", "workers.get", 200, `{"id":"ana","tags":["billing"],"available":true,"queueDepth":0,"onBreak":false}`, true},
		{"task with the mock's queue clock", "tasks.get", 200, `{"id":"t1","status":"queued","queuedAt":1795439033448}`, true},
		{"worker profile with the mock's backlog count", "worker.me", 200, `{"workerId":"ana","available":true,"onBreak":false,"queueDepth":0}`, true},
		{"worker detail with meta", "workers.get", 200, `{"id":"ana","tags":[],"meta":{}}`, true},
		{"break start with an ISO time", "worker.startBreak", 200, `{"workerId":"ana","onBreak":true,"since":"2026-07-24T11:30:00.000Z"}`, false},
		{"break start with epoch ms", "worker.startBreak", 200, `{"workerId":"ana","onBreak":true,"since":1795439033448}`, true},
		{"identity in the platform's form", "identities.create", 200, `{"identity":{"id":"wid_1","workerId":"ana","label":"desk 4","status":"active","hasPin":true,"createdAt":"2026-07-24T11:30:00.000Z"}}`, false},
		{"identity without id", "identities.create", 200, `{"identity":{"workerId":"ana","label":"desk 4","hasPin":true}}`, true},
		{"learning stats in the platform's form", "learning.status", 200, `{"enabled":true,"shadowMode":false,"autoWeights":false,"modelSize":2,"stats":{"decisions":5,"rewards":1,"totalReward":1,"averageReward":1}}`, false},
		{"learning stats in another shape", "learning.status", 200, `{"enabled":true,"stats":{"workers":1,"pairs":2,"outcomes":3}}`, true},
		{"shift added with its ends and a reason", "workers.createTimeEntry", 0, `{"startedAt":"2026-09-20T09:00:00.000Z","endedAt":"2026-09-20T17:00:00.000Z","note":"Worked, never logged","breaks":[{"startedAt":"2026-09-20T12:00:00.000Z","endedAt":"2026-09-20T12:30:00.000Z"}],"taskId":"task_1"}`, false},
		{"shift added with a two-letter reason", "workers.createTimeEntry", 0, `{"startedAt":"2026-09-20T09:00:00.000Z","endedAt":"2026-09-20T17:00:00.000Z","note":"ok"}`, true},
		{"shift added with epoch ms ends", "workers.createTimeEntry", 0, `{"startedAt":1790000000000,"endedAt":1790028800000,"note":"Worked, never logged"}`, true},
		{"shift added with an open break", "workers.createTimeEntry", 0, `{"startedAt":"2026-09-20T09:00:00.000Z","endedAt":"2026-09-20T17:00:00.000Z","note":"Worked, never logged","breaks":[{"startedAt":"2026-09-20T12:00:00.000Z","endedAt":null}]}`, true},
		{"correction reopening a shift", "workers.correctTimeEntry", 0, `{"note":"Still working","endedAt":null,"description":null,"taskId":null,"type":"shift"}`, false},
		{"correction without a reason", "workers.correctTimeEntry", 0, `{"endedAt":"2026-09-20T17:00:00.000Z"}`, true},
		{"correction of an unknown entry type", "workers.correctTimeEntry", 0, `{"note":"Forgot to clock out","type":"absence"}`, true},
		{"correction in the platform's form", "workers.correctTimeEntry", 200, `{"entry":{"id":"shift_1","type":"shift","startedAt":"2026-09-20T09:00:00.000Z","endedAt":"2026-09-20T17:00:00.000Z","corrected":true,"source":"operator","endReason":"manual","reason":null,"description":"Stocktake","taskId":"task_1"},"correction":{"id":"corr_1","entryType":"shift","entryId":"shift_1","workerId":"w-1","before":{"endedAt":null},"after":{"endedAt":"2026-09-20T17:00:00.000Z"},"note":"Forgot to clock out","by":"ops@example.com","at":"2026-09-21T08:00:00.000Z"}}`, false},
		{"correction trail entry without its time", "workers.correctTimeEntry", 200, `{"entry":{"id":"shift_1","type":"shift","startedAt":"2026-09-20T09:00:00.000Z"},"correction":{"id":"corr_1","entryType":"shift","entryId":"shift_1","workerId":"w-1","before":null,"after":{},"note":"n","by":null}}`, true},
		{"link in the platform's form", "workers.link", 0, `{"vendorUserId":"owner_42","tags":["sales"]}`, false},
		{"link under a snake_case name", "workers.link", 0, `{"vendor_user_id":"owner_42"}`, true},
		{"link answer in the platform's form", "workers.link", 200, `{"connector":"hubspot","vendorUserId":"owner_42","workerId":"w-1","createdAt":"2026-09-01T00:00:00Z"}`, false},
		{"link answer with an epoch ms time", "workers.link", 200, `{"connector":"hubspot","vendorUserId":"owner_42","workerId":"w-1","createdAt":1788220800000}`, true},
		{"offboarding in the platform's form", "workers.offboarding", 200, `{"workerId":"w-1","lastDay":"2026-09-30","tasks":{"pending":2,"accepted":1,"booked":3},"rosters":[{"rosterId":"r-1","name":"October","published":true,"shifts":4}],"coverRequests":1,"coverOffers":2,"swaps":1,"pendingTimeOff":1,"leavePolicies":2,"teams":3}`, false},
		{"offboarding with a task list instead of counts", "workers.offboarding", 200, `{"workerId":"w-1","lastDay":"2026-09-30","tasks":["t1","t2"]}`, true},
		{"history page in the platform's form", "tasks.history", 200, `{"tasks":[{"id":"t1","status":"completed","terminalAt":1790000000000,"tags":["billing"],"workerId":"ana","matchedAt":null,"archived":true}],"nextCursor":null,"hasMore":false}`, false},
		{"history page with a live status", "tasks.history", 200, `{"tasks":[{"id":"t1","status":"accepted","terminalAt":1790000000000}]}`, true},
		{"worker metrics with an unknown window member", "workers.metrics", 200, `{"workerId":"w-1","today":{"since":"2026-09-26T00:00:00.000Z"},"window":{"from":"2026-09-19T00:00:00.000Z","to":"2026-09-26T00:00:00.000Z","acceptanceRate":null,"score":3}}`, true},
		{"team time in the platform's form", "team.time", 200, `{"from":"2026-09-01T00:00:00.000Z","to":"2026-09-08T00:00:00.000Z","workers":[{"workerId":"w-1","label":"Mari","onShiftMs":144000000,"breakMs":9000000,"workingMs":135000000,"openShift":true,"entries":[{"id":"shift_1","type":"shift","startedAt":"2026-09-20T09:00:00.000Z","endedAt":null,"durationMs":0}]}],"days":null,"totals":{"workerCount":1,"workingMs":135000000},"truncated":false}`, false},
		{"team time with worked time in hours", "team.time", 200, `{"from":"2026-09-01T00:00:00.000Z","to":"2026-09-08T00:00:00.000Z","workers":[{"workerId":"w-1","workingHours":37.5}]}`, true},
		{"error envelope", "tasks.get", 404, `{"error":{"code":"not_found","message":"no task t1"}}`, false},
		{"error without envelope", "tasks.get", 404, `{"message":"no task t1"}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.status == 0 {
				err = c.ValidateRequest(tc.op, url.Values{}, []byte(tc.body))
			} else {
				err = c.ValidateResponse(tc.op, tc.status, []byte(tc.body))
			}
			if tc.wantErr {
				assert.Error(t, err)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}
