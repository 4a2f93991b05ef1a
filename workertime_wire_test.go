package taskrouting

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The platform's shapes for worker time, as its answers carry them.
const (
	shiftWire = `{"id":"sh_1","type":"shift","startedAt":"2026-09-01T09:00:00.000Z","endedAt":"2026-09-01T17:00:00.000Z",
		"durationMs":28800000,"corrected":true,"correctionNote":"paper timesheet","correctedBy":null,"correctedAt":"2026-09-02T08:00:00.000Z",
		"source":"operator","endReason":"manual","reason":null,"description":"Stocktake","taskId":"task_1"}`
	openBreakWire = `{"id":"br_1","type":"break","startedAt":"2026-09-01T12:00:00.000Z","endedAt":null,"durationMs":600000,
		"corrected":false,"reason":"lunch"}`
	correctionWire = `{"id":"cor_1","entryType":"shift","entryId":"sh_1","workerId":"agent_1","before":{"endedAt":null},
		"after":{"endedAt":"2026-09-01T17:00:00.000Z"},"note":"forgot to clock out","by":"ops@example.com","at":"2026-09-02T08:00:00.000Z"}`
	correctedShiftWire = `{"id":"sh_1","type":"shift","startedAt":"2026-09-01T09:00:00.000Z","endedAt":"2026-09-01T17:00:00.000Z",
		"corrected":true,"source":"operator","endReason":"manual","reason":null,"description":"Stocktake","taskId":"task_1"}`
	// operatorDayWire is the workspace plane's today (WorkerMetricsDay); dayWire the worker
	// plane's (WorkerMetricsToday), which also says when the open shift started.
	operatorDayWire = `{"since":"2026-09-01T00:00:00.000Z","completedTasks":3,"shiftCount":1,"onShiftMs":3600000,"breakCount":1,
		"totalBreakMs":600000,"longestBreakMs":600000,"workingMs":3000000}`
	dayWire = `{"since":"2026-09-01T00:00:00.000Z","completedTasks":3,"shiftCount":1,"onShiftMs":3600000,"breakCount":1,
		"totalBreakMs":600000,"longestBreakMs":600000,"workingMs":3000000,"currentShiftStartedAt":"2026-09-01T09:00:00.000Z"}`
	presenceWire = `{"workers":[{"workerId":"agent_1","label":"Mari","status":"on-break","breakStartedAt":"2026-09-01T12:00:00.000Z","breakReason":"lunch"},
		{"workerId":"agent_2","label":"agent_2","status":"working","breakStartedAt":null,"breakReason":null}],
		"counts":{"working":1,"onBreak":1,"paused":0,"total":2}}`
)

func wireT(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

var (
	shiftDecoded = TimeEntry{Type: "shift", ID: "sh_1", StartedAt: wireT("2026-09-01T09:00:00Z"), EndedAt: wireT("2026-09-01T17:00:00Z"),
		Duration: 8 * time.Hour, Corrected: true, CorrectionNote: "paper timesheet", CorrectedAt: wireT("2026-09-02T08:00:00Z"),
		Source: "operator", EndReason: "manual", Description: "Stocktake", TaskID: "task_1"}
	openBreakDecoded  = TimeEntry{Type: "break", ID: "br_1", StartedAt: wireT("2026-09-01T12:00:00Z"), Duration: 10 * time.Minute, Reason: "lunch"}
	correctionDecoded = TimeCorrection{ID: "cor_1", EntryType: "shift", EntryID: "sh_1", WorkerID: "agent_1",
		Before: map[string]any{"endedAt": nil}, After: map[string]any{"endedAt": "2026-09-01T17:00:00.000Z"},
		Note: "forgot to clock out", By: "ops@example.com", At: wireT("2026-09-02T08:00:00Z")}
	correctedShiftDecoded = CorrectedTimeEntry{ID: "sh_1", Type: "shift", StartedAt: wireT("2026-09-01T09:00:00Z"),
		EndedAt: wireT("2026-09-01T17:00:00Z"), Corrected: true, Source: "operator", EndReason: "manual", Description: "Stocktake", TaskID: "task_1"}
	dayDecoded = WorkerDay{Since: wireT("2026-09-01T00:00:00Z"), CompletedTasks: 3, ShiftCount: 1, OnShift: time.Hour, BreakCount: 1,
		TotalBreak: 10 * time.Minute, LongestBreak: 10 * time.Minute, Working: 50 * time.Minute, CurrentShiftStartedAt: wireT("2026-09-01T09:00:00Z")}
	operatorDayDecoded = WorkerDay{Since: wireT("2026-09-01T00:00:00Z"), CompletedTasks: 3, ShiftCount: 1, OnShift: time.Hour, BreakCount: 1,
		TotalBreak: 10 * time.Minute, LongestBreak: 10 * time.Minute, Working: 50 * time.Minute}
	presenceDecoded = &TeamPresence{Workers: []PresenceMember{
		{WorkerID: "agent_1", Label: "Mari", Status: "on-break", BreakStartedAt: wireT("2026-09-01T12:00:00Z"), BreakReason: "lunch"},
		{WorkerID: "agent_2", Label: "agent_2", Status: "working"},
	}, Counts: PresenceCounts{Working: 1, OnBreak: 1, Total: 2}}
	wait20s, cycle10m, rate09 = 20 * time.Second, 10 * time.Minute, 0.9
)

// workerTimeCases are the worker-time calls of both planes on the wire: the request each
// sends and how it decodes the platform's answer, both held to api/openapi.json.
var workerTimeCases = []struct {
	name, op, method, path, query string
	call                          func(ctx context.Context, c *Client, w *WorkerClient) (any, error)
	body                          string // "" for none
	status                        int
	answer                        string
	want                          any
}{
	{"metrics with a window", "workers.metrics", "GET", "/workers/agent_1/metrics", "window=30d",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.Metrics(ctx, "agent_1", WorkerMetricsParams{WindowDays: 30})
		}, "", 200,
		`{"workerId":"agent_1","today":` + operatorDayWire + `,"window":{"from":"2026-08-03T00:00:00.000Z","to":"2026-09-01T10:00:00.000Z",
		"days":[{"day":"2026-09-01","completed":3}],"medianWaitMs":20000,"medianCycleMs":600000,"shiftCount":1,"onShiftMs":3600000,
		"breakMs":600000,"workingMs":3000000,"offered":10,"accepted":9,"rejected":1,"completed":3,"failed":0,"expired":0,"released":0,
		"acceptanceRate":0.9}}`,
		&WorkerMetrics{WorkerID: "agent_1", Today: operatorDayDecoded, Window: WorkerPeriod{From: wireT("2026-08-03T00:00:00Z"),
			To: wireT("2026-09-01T10:00:00Z"), Days: []DayCompleted{{"2026-09-01", 3}}, MedianWait: &wait20s, MedianCycle: &cycle10m,
			ShiftCount: 1, OnShift: time.Hour, Break: 10 * time.Minute, Working: 50 * time.Minute, Offered: 10, Accepted: 9,
			Rejected: 1, Completed: 3, AcceptanceRate: &rate09}}},
	{"metrics of a worker without history", "workers.metrics", "GET", "/workers/agent_1/metrics", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.Metrics(ctx, "agent_1", WorkerMetricsParams{})
		}, "", 200,
		`{"workerId":"agent_1","today":{"since":"2026-09-01T00:00:00.000Z"},"window":{"from":"2026-08-26T00:00:00.000Z",
		"to":"2026-09-01T10:00:00.000Z","days":null,"medianWaitMs":null,"medianCycleMs":null,"acceptanceRate":null}}`,
		&WorkerMetrics{WorkerID: "agent_1", Today: WorkerDay{Since: wireT("2026-09-01T00:00:00Z")},
			Window: WorkerPeriod{From: wireT("2026-08-26T00:00:00Z"), To: wireT("2026-09-01T10:00:00Z")}}},
	{"time entries with bounds", "workers.timeEntries", "GET", "/workers/agent_1/time-entries",
		"from=2026-09-01T00%3A00%3A00.000Z&to=2026-09-02T00%3A00%3A00.000Z",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.TimeEntries(ctx, "agent_1", TimeEntriesParams{From: wireT("2026-09-01T00:00:00Z"), To: wireT("2026-09-02T00:00:00Z")})
		}, "", 200,
		`{"workerId":"agent_1","from":"2026-09-01T00:00:00.000Z","to":"2026-09-02T00:00:00.000Z","entries":[` + shiftWire + `,` + openBreakWire + `],
		"totals":{"shiftCount":1,"onShiftMs":28800000,"breakCount":1,"breakMs":600000,"workingMs":28200000}}`,
		&TimeEntries{WorkerID: "agent_1", From: wireT("2026-09-01T00:00:00Z"), To: wireT("2026-09-02T00:00:00Z"),
			Entries: []TimeEntry{shiftDecoded, openBreakDecoded},
			Totals:  TimeTotals{ShiftCount: 1, OnShift: 8 * time.Hour, BreakCount: 1, Break: 10 * time.Minute, Working: 7*time.Hour + 50*time.Minute}}},
	{"create a shift with its breaks", "workers.createTimeEntry", "POST", "/workers/w%2F1/time-entries", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.CreateTimeEntry(ctx, "w/1", CreateTimeEntryParams{StartedAt: wireT("2026-09-01T09:00:00Z"),
				EndedAt: wireT("2026-09-01T17:00:00Z"), Note: "paper timesheet", Description: "Stocktake", TaskID: "task_1",
				Breaks: []TimeEntryBreak{{StartedAt: wireT("2026-09-01T12:00:00Z"), EndedAt: wireT("2026-09-01T12:30:00Z")}}})
		},
		`{"startedAt":"2026-09-01T09:00:00.000Z","endedAt":"2026-09-01T17:00:00.000Z","note":"paper timesheet",
		"breaks":[{"startedAt":"2026-09-01T12:00:00.000Z","endedAt":"2026-09-01T12:30:00.000Z"}],"description":"Stocktake","taskId":"task_1"}`,
		201, `{"entry":` + correctedShiftWire + `,"correction":` + correctionWire + `}`,
		&TimeEntryCorrection{Entry: correctedShiftDecoded, Correction: correctionDecoded}},
	{"create sends only the required members", "workers.createTimeEntry", "POST", "/workers/agent_1/time-entries", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.CreateTimeEntry(ctx, "agent_1", CreateTimeEntryParams{StartedAt: wireT("2026-09-01T09:00:00Z"),
				EndedAt: wireT("2026-09-01T17:00:00Z"), Note: "paper timesheet"})
		},
		`{"startedAt":"2026-09-01T09:00:00.000Z","endedAt":"2026-09-01T17:00:00.000Z","note":"paper timesheet"}`,
		201, `{"entry":` + correctedShiftWire + `,"correction":` + correctionWire + `}`, nil},
	{"correct sends what changed", "workers.correctTimeEntry", "PATCH", "/workers/agent_1/time-entries/sh%2F1", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh/1", CorrectTimeEntryParams{Note: "forgot to clock out",
				EndedAt: Some(wireT("2026-09-01T17:00:00Z"))})
		},
		`{"note":"forgot to clock out","endedAt":"2026-09-01T17:00:00.000Z"}`, 200,
		`{"entry":` + correctedShiftWire + `,"correction":` + correctionWire + `}`,
		&TimeEntryCorrection{Entry: correctedShiftDecoded, Correction: correctionDecoded}},
	{"correct reopens, clears and sends breaks", "workers.correctTimeEntry", "PATCH", "/workers/agent_1/time-entries/sh_1", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", CorrectTimeEntryParams{Note: "kept working", Type: "shift",
				StartedAt: wireT("2026-09-01T08:30:00Z"), EndedAt: Null[time.Time](), Description: Null[string](), TaskID: Some("task_2"),
				Breaks: []TimeEntryBreak{{ID: "br_1", StartedAt: wireT("2026-09-01T12:00:00Z"), EndedAt: wireT("2026-09-01T12:30:00Z")},
					{StartedAt: wireT("2026-09-01T15:00:00Z")}}})
		},
		`{"note":"kept working","startedAt":"2026-09-01T08:30:00.000Z","endedAt":null,"type":"shift","description":null,"taskId":"task_2",
		"breaks":[{"id":"br_1","startedAt":"2026-09-01T12:00:00.000Z","endedAt":"2026-09-01T12:30:00.000Z"},
		{"startedAt":"2026-09-01T15:00:00.000Z","endedAt":null}]}`, 200,
		`{"entry":` + correctedShiftWire + `,"correction":` + correctionWire + `,"breaks":[{"id":"br_1","type":"break",
		"startedAt":"2026-09-01T12:00:00.000Z","endedAt":null,"corrected":true,"reason":"lunch"}],"corrections":[` + correctionWire +
			`,{"id":"cor_2","entryType":"break","entryId":"br_1","workerId":"agent_1","before":null,"after":{"startedAt":"2026-09-01T12:00:00.000Z"},
		"note":"kept working","by":null,"at":"2026-09-02T08:00:00.000Z"}]}`,
		&TimeEntryCorrection{Entry: correctedShiftDecoded, Correction: correctionDecoded,
			Breaks: []CorrectedTimeEntry{{ID: "br_1", Type: "break", StartedAt: wireT("2026-09-01T12:00:00Z"), Corrected: true, Reason: "lunch"}},
			Corrections: []TimeCorrection{correctionDecoded, {ID: "cor_2", EntryType: "break", EntryID: "br_1", WorkerID: "agent_1",
				After: map[string]any{"startedAt": "2026-09-01T12:00:00.000Z"}, Note: "kept working", At: wireT("2026-09-02T08:00:00Z")}}}},
	{"correct to no breaks sends an empty list", "workers.correctTimeEntry", "PATCH", "/workers/agent_1/time-entries/sh_1", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", CorrectTimeEntryParams{Note: "no lunch", Breaks: []TimeEntryBreak{}})
		},
		`{"note":"no lunch","breaks":[]}`, 200, `{"entry":` + correctedShiftWire + `,"correction":` + correctionWire + `}`, nil},
	{"time corrections", "workers.timeCorrections", "GET", "/workers/agent_1/time-corrections", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.TimeCorrections(ctx, "agent_1")
		},
		"", 200, `{"workerId":"agent_1","corrections":[` + correctionWire + `]}`, []TimeCorrection{correctionDecoded}},
	{"offboarding on a last day", "workers.offboarding", "GET", "/workers/agent_1/offboarding", "lastDay=2026-09-30",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.Offboarding(ctx, "agent_1", "2026-09-30")
		}, "", 200,
		`{"workerId":"agent_1","lastDay":"2026-09-30","tasks":{"pending":2,"accepted":1,"booked":3},
		"rosters":[{"rosterId":"r_1","name":"October","published":true,"shifts":4}],"coverRequests":1,"coverOffers":2,"swaps":0,
		"pendingTimeOff":1,"leavePolicies":2,"teams":3}`,
		&OffboardingSummary{WorkerID: "agent_1", LastDay: "2026-09-30", Tasks: OffboardingTasks{Pending: 2, Accepted: 1, Booked: 3},
			Rosters: []OffboardingRoster{{RosterID: "r_1", Name: "October", Published: true, Shifts: 4}}, CoverRequests: 1,
			CoverOffers: 2, PendingTimeOff: 1, LeavePolicies: 2, Teams: 3}},
	{"offboarding without a last day", "workers.offboarding", "GET", "/workers/agent_1/offboarding", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.Offboarding(ctx, "agent_1", "")
		},
		"", 200, `{"workerId":"agent_1","lastDay":"2026-09-26"}`,
		&OffboardingSummary{WorkerID: "agent_1", LastDay: "2026-09-26", Rosters: []OffboardingRoster{}}},
	{"links of one connector", "workers.links", "GET", "/workers/links", "connector=hubspot",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.Links(ctx, "hubspot")
		},
		"", 200, `{"links":[{"connector":"hubspot","vendorUserId":"981","workerId":"agent_1","createdAt":"2026-09-01T00:00:00.000Z"}]}`,
		[]WorkerLink{{Connector: "hubspot", VendorUserID: "981", WorkerID: "agent_1", CreatedAt: wireT("2026-09-01T00:00:00Z")}}},
	{"link puts the vendor user and tags", "workers.link", "PUT", "/workers/agent_1/links/jira", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.Link(ctx, "agent_1", "jira", LinkWorkerParams{VendorUserID: "acc-1", Tags: []string{"eng"}})
		}, `{"vendorUserId":"acc-1","tags":["eng"]}`, 200,
		`{"connector":"jira","vendorUserId":"acc-1","workerId":"agent_1","createdAt":"2026-09-01T00:00:00.000Z"}`,
		&WorkerLink{Connector: "jira", VendorUserID: "acc-1", WorkerID: "agent_1", CreatedAt: wireT("2026-09-01T00:00:00Z")}},
	{"unlink escapes both ids", "workers.unlink", "DELETE", "/workers/agent%2F1/links/jira%2Fcloud", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return nil, c.Workers.Unlink(ctx, "agent/1", "jira/cloud")
		}, "", 204, "", nil},
	{"break metrics of a team", "breaks.metrics", "GET", "/breaks/metrics", "from=2026-09-01T00%3A00%3A00.000Z&teamId=team_1",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Workers.BreakMetrics(ctx, BreakMetricsParams{From: wireT("2026-09-01T00:00:00Z"), TeamID: "team_1"})
		}, "", 200,
		`{"workers":[{"workerId":"agent_1","label":"Mari","count":2,"totalBreakMs":1200000,"longestBreakMs":900000,"active":true}],
		"totalBreakMs":1200000,"breakCount":2,"activeCount":1}`,
		&BreakMetrics{Workers: []BreakMetric{{WorkerID: "agent_1", Label: "Mari", Count: 2, TotalBreak: 20 * time.Minute,
			LongestBreak: 15 * time.Minute, Active: true}}, TotalBreak: 20 * time.Minute, BreakCount: 2, ActiveCount: 1}},
	{"presence of the workspace", "team.presence", "GET", "/team/presence", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) { return c.Teams.Presence(ctx, "") },
		"", 200, presenceWire, presenceDecoded},
	{"team time with entries", "team.time", "GET", "/team/time",
		"entries=true&from=2026-09-01T00%3A00%3A00.000Z&teamId=t_1&to=2026-09-08T00%3A00%3A00.000Z&workerId=agent_1",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Teams.Time(ctx, TeamTimeParams{From: wireT("2026-09-01T00:00:00Z"), To: wireT("2026-09-08T00:00:00Z"),
				TeamID: "t_1", WorkerID: "agent_1", Entries: true})
		}, "", 200,
		`{"from":"2026-09-01T00:00:00.000Z","to":"2026-09-08T00:00:00.000Z","workers":[{"workerId":"agent_1","label":"Mari",
		"shiftCount":5,"onShiftMs":144000000,"breakCount":5,"breakMs":9000000,"workingMs":135000000,"openShift":true,"openBreak":false,
		"completed":40,"offered":50,"accepted":45,"rejected":3,"expired":2,"failed":1,"released":1,"entries":[` + shiftWire + `]}],
		"days":[{"day":"2026-09-01","onShiftMs":28800000,"breakMs":1800000,"workingMs":27000000}],
		"totals":{"workerCount":1,"shiftCount":5,"onShiftMs":144000000,"breakCount":5,"breakMs":9000000,"workingMs":135000000,
		"completed":40,"offered":50,"accepted":45,"rejected":3,"expired":2,"failed":1},"truncated":true}`,
		&TeamTime{From: wireT("2026-09-01T00:00:00Z"), To: wireT("2026-09-08T00:00:00Z"), Truncated: true,
			Workers: []TeamTimeWorker{{WorkerID: "agent_1", Label: "Mari", ShiftCount: 5, OnShift: 40 * time.Hour, BreakCount: 5,
				Break: 150 * time.Minute, Working: 37*time.Hour + 30*time.Minute, OpenShift: true, Completed: 40, Offered: 50,
				Accepted: 45, Rejected: 3, Expired: 2, Failed: 1, Released: 1, Entries: []TimeEntry{shiftDecoded}}},
			Days: []TeamTimeDay{{Day: "2026-09-01", OnShift: 8 * time.Hour, Break: 30 * time.Minute, Working: 7*time.Hour + 30*time.Minute}},
			Totals: TeamTimeTotals{WorkerCount: 1, ShiftCount: 5, OnShift: 40 * time.Hour, BreakCount: 5, Break: 150 * time.Minute,
				Working: 37*time.Hour + 30*time.Minute, Completed: 40, Offered: 50, Accepted: 45, Rejected: 3, Expired: 2, Failed: 1}}},
	{"team time without entries sends no query", "team.time", "GET", "/team/time", "",
		func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
			return c.Teams.Time(ctx, TeamTimeParams{})
		},
		"", 200, `{"from":"2026-09-01T00:00:00.000Z","to":"2026-09-08T00:00:00.000Z","workers":[{"workerId":"agent_1"}],"days":null,"totals":{},"truncated":false}`,
		&TeamTime{From: wireT("2026-09-01T00:00:00Z"), To: wireT("2026-09-08T00:00:00Z"), Workers: []TeamTimeWorker{{WorkerID: "agent_1"}}}},
	{"worker breaks today", "worker.breaksToday", "GET", "/portal/breaks/today", "",
		func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) { return w.BreaksToday(ctx) },
		"", 200, `{"workerId":"agent_1","since":"2026-09-01T00:00:00.000Z","breaks":[{"id":"br_1","startedAt":"2026-09-01T12:00:00.000Z",
		"endedAt":null,"reason":"lunch","durationMs":600000}],"active":{"id":"br_1","startedAt":"2026-09-01T12:00:00.000Z","endedAt":null,
		"reason":"lunch","durationMs":600000},"completedTasks":3,"totalBreakMs":600000}`,
		&BreaksToday{WorkerID: "agent_1", Since: wireT("2026-09-01T00:00:00Z"), CompletedTasks: 3, TotalBreak: 10 * time.Minute,
			Breaks: []WorkerBreak{{ID: "br_1", StartedAt: wireT("2026-09-01T12:00:00Z"), Reason: "lunch", Duration: 10 * time.Minute}},
			Active: &WorkerBreak{ID: "br_1", StartedAt: wireT("2026-09-01T12:00:00Z"), Reason: "lunch", Duration: 10 * time.Minute}}},
	{"worker metrics today", "worker.metricsToday", "GET", "/portal/metrics/today", "",
		func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) { return w.MetricsToday(ctx) },
		"", 200, `{"workerId":"agent_1",` + dayWire[1:],
		func() *WorkerDay { d := dayDecoded; d.WorkerID = "agent_1"; return &d }()},
	{"worker metrics window", "worker.metricsWindow", "GET", "/portal/metrics", "window=14d",
		func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) { return w.Metrics(ctx, 14) },
		"", 200, `{"workerId":"agent_1","since":"2026-08-19T00:00:00.000Z","days":[],"medianWaitMs":null,"medianCycleMs":600000}`,
		&WorkerMetricsWindow{WorkerID: "agent_1", Since: wireT("2026-08-19T00:00:00Z"), Days: []DayCompleted{}, MedianCycle: &cycle10m}},
	{"worker time entries", "worker.timeEntries", "GET", "/portal/me/time-entries", "",
		func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) { return w.TimeEntries(ctx) },
		"", 200, `{"workerId":"agent_1","entries":[` + shiftWire[:len(shiftWire)-1] + `,"correctionKind":"added"}]}`,
		&TimeEntries{WorkerID: "agent_1", Entries: []TimeEntry{func() TimeEntry { e := shiftDecoded; e.CorrectionKind = "added"; return e }()}}},
	{"worker team presence", "worker.teamPresence", "GET", "/portal/team/presence", "",
		func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) { return w.TeamPresence(ctx) },
		"", 200, presenceWire, presenceDecoded},
}

func TestWorkerTimeWire(t *testing.T) {
	contract, err := wireContract()
	require.NoError(t, err)
	for _, tc := range workerTimeCases {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, tc.status, map[string]string{"Content-Type": "application/json"}, tc.answer)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)

			got, err := tc.call(context.Background(), c, w)
			require.NoError(t, err)

			reqs := rec.all()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.method+" "+tc.path, reqs[0].Method+" "+reqs[0].Path)
			assert.Equal(t, tc.query, reqs[0].Query.Encode())
			var wantBody any
			if tc.body != "" {
				wantBody = jsonValue(t, []byte(tc.body))
			}
			diff(t, "request body", wantBody, jsonValue(t, reqs[0].Body))
			checkOperationReached(t, tc.op, checkRequestContract(t, reqs[0]))
			assert.NoError(t, contract.ValidateResponse(tc.op, tc.status, []byte(tc.answer)), "the served answer is not the platform's shape")
			if tc.want != nil {
				diff(t, "decoded answer", tc.want, got)
			}
		})
	}
}

// TestWorkerTimeRefusedBeforeSending checks that input the platform would refuse is a
// *ParamError and nothing reaches the server.
func TestWorkerTimeRefusedBeforeSending(t *testing.T) {
	start, end := wireT("2026-09-01T09:00:00Z"), wireT("2026-09-01T17:00:00Z")
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client, w *WorkerClient) error
		param string
	}{
		{"metrics window past 30 days", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Metrics(ctx, "agent_1", WorkerMetricsParams{WindowDays: 31})
			return err
		}, "WorkerMetricsParams.WindowDays"},
		{"worker metrics negative window", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Metrics(ctx, -1)
			return err
		}, "windowDays"},
		{"time entries from after to", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.TimeEntries(ctx, "agent_1", TimeEntriesParams{From: end, To: start})
			return err
		}, "TimeEntriesParams.From"},
		{"create without a note", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.CreateTimeEntry(ctx, "agent_1", CreateTimeEntryParams{StartedAt: start, EndedAt: end})
			return err
		}, "CreateTimeEntryParams.Note"},
		{"create ending before it starts", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.CreateTimeEntry(ctx, "agent_1", CreateTimeEntryParams{StartedAt: end, EndedAt: start, Note: "oops"})
			return err
		}, "CreateTimeEntryParams.EndedAt"},
		{"create with an open break", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.CreateTimeEntry(ctx, "agent_1", CreateTimeEntryParams{StartedAt: start, EndedAt: end, Note: "lunch",
				Breaks: []TimeEntryBreak{{StartedAt: start.Add(time.Hour)}}})
			return err
		}, "CreateTimeEntryParams.Breaks[0].EndedAt"},
		{"correct with an unknown type", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", CorrectTimeEntryParams{Note: "why", Type: "lunch"})
			return err
		}, "CorrectTimeEntryParams.Type"},
		{"correct without an entry id", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "", CorrectTimeEntryParams{Note: "why"})
			return err
		}, "entryID"},
		{"offboarding with a bad day", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Offboarding(ctx, "agent_1", "30/09/2026")
			return err
		}, "lastDay"},
		{"link without a vendor user", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Link(ctx, "agent_1", "jira", LinkWorkerParams{})
			return err
		}, "LinkWorkerParams.VendorUserID"},
		{"unlink a dot segment", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Workers.Unlink(ctx, "agent_1", "..")
		}, "connector"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, http.StatusOK, nil, "{}")
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)
			err := tc.call(context.Background(), c, w)
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all(), "a refused call reached the server")
		})
	}
}
