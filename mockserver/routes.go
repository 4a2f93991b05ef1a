package mockserver

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/taskrouting/taskrouting-go/internal/contract"
	"github.com/taskrouting/taskrouting-go/internal/match"
)

// route is one operation of api/openapi.json, bound by its operation id (TestRoutesMatchContract
// holds method and path to the file). A "{}" segment is a path parameter.
type route struct {
	opID    string
	aliases []string // further operation ids served by the same call (tasks.setPriority)
	method  string
	pattern string
	hasBody bool
	query   []string // allowed query parameters; any other is validation_failed
	prepare func(*request) (op, *apiError)
	allow   string   // set on the 405 answer only
	parts   []string // pattern split on "/", set once by indexRoutes so a lookup splits nothing
}

// indexRoutes splits every pattern once, when a server is made: a lookup walks the whole
// table, and splitting each pattern again per request cost more than the lookup itself.
func indexRoutes(table []route) []route {
	for i := range table {
		table[i].parts = strings.Split(strings.TrimPrefix(table[i].pattern, "/"), "/")
	}
	return table
}

// newRoutes lists the operations in the order of the API tables. Literal segments win over
// parameters because findRoute prefers the route with more literal matches. Each Server
// holds its own table: the package keeps no state.
func newRoutes() []route {
	return []route{
		{opID: "tasks.create", method: http.MethodPost, pattern: "/tasks", hasBody: true, prepare: prepCreateTask},
		{opID: "tasks.createMany", method: http.MethodPost, pattern: "/tasks/bulk", hasBody: true, prepare: prepCreateMany},
		{opID: "tasks.get", method: http.MethodGet, pattern: "/tasks/{}", prepare: prepGetTask},
		{opID: "tasks.list", method: http.MethodGet, pattern: "/tasks", query: []string{"status", "cursor", "limit"}, prepare: prepListTasks},
		{opID: "tasks.cancel", method: http.MethodDelete, pattern: "/tasks/{}", prepare: prepCancelTask},
		{opID: "tasks.accept", method: http.MethodPost, pattern: "/tasks/{}/accept", hasBody: true, prepare: prepAccept},
		{opID: "tasks.reject", method: http.MethodPost, pattern: "/tasks/{}/reject", hasBody: true, prepare: prepReject},
		{opID: "tasks.complete", method: http.MethodPost, pattern: "/tasks/{}/complete", hasBody: true, prepare: prepComplete},
		{opID: "workers.upsert", method: http.MethodPost, pattern: "/workers", hasBody: true, prepare: prepUpsertWorker},
		{opID: "workers.patch", method: http.MethodPatch, pattern: "/workers/{}", hasBody: true, prepare: prepPatchWorker},
		{opID: "workers.get", method: http.MethodGet, pattern: "/workers/{}", prepare: prepGetWorker},
		{opID: "workers.list", method: http.MethodGet, pattern: "/workers", prepare: prepListWorkers},
		{opID: "workers.setAvailability", method: http.MethodPost, pattern: "/workers/{}/availability", hasBody: true, prepare: prepSetAvailability},
		{opID: "workers.queue", method: http.MethodGet, pattern: "/workers/{}/queue", prepare: prepWorkerQueue},
		{opID: "workers.remove", method: http.MethodDelete, pattern: "/workers/{}", prepare: prepRemoveWorker},
		{opID: "decisions.list", method: http.MethodGet, pattern: "/decisions", query: []string{"taskId", "workerId", "limit"}, prepare: prepListDecisions},
		{opID: "tasks.assign", method: http.MethodPost, pattern: "/tasks/{}/assign", hasBody: true, prepare: prepAssign},
		{opID: "tasks.fail", method: http.MethodPost, pattern: "/tasks/{}/fail", hasBody: true, prepare: prepFail},
		{opID: "tasks.ack", method: http.MethodPost, pattern: "/tasks/{}/ack", hasBody: true, prepare: prepAck},
		{opID: "tasks.escalate", method: http.MethodPost, pattern: "/tasks/{}/escalate", hasBody: true, prepare: prepEscalate},
		{opID: "tasks.unpark", method: http.MethodPost, pattern: "/tasks/{}/unpark", hasBody: true, prepare: prepUnpark},
		{opID: "tasks.parked", method: http.MethodGet, pattern: "/tasks/parked", prepare: prepTasksWithStatus(match.StatusParked)},
		{opID: "tasks.scheduled", method: http.MethodGet, pattern: "/tasks/scheduled", prepare: prepTasksWithStatus(match.StatusScheduled)},
		{opID: "tasks.update", aliases: []string{"tasks.setPriority"}, method: http.MethodPatch, pattern: "/tasks/{}", hasBody: true, prepare: prepUpdateTask},
		{opID: "tasks.suggestWorkers", method: http.MethodPost, pattern: "/tasks/suggest-workers", hasBody: true, prepare: prepSuggestWorkers},
		{opID: "learning.status", method: http.MethodGet, pattern: "/learning/status", prepare: prepLearningStatus},
		{opID: "learning.workerStats", method: http.MethodGet, pattern: "/learning/workers/{}", prepare: prepWorkerStats},
		{opID: "learning.previewWeights", method: http.MethodGet, pattern: "/learning/weights/preview", query: []string{"workerId", "overrideManual", "includeUnexploredTags"}, prepare: prepPreviewWeights},
		{opID: "learning.applyWeights", method: http.MethodPost, pattern: "/learning/weights/apply", hasBody: true, prepare: prepApplyWeights},
		{opID: "learning.revertWeights", method: http.MethodPost, pattern: "/learning/weights/revert", hasBody: true, prepare: prepRevertWeights},
		{opID: "learning.feedback", method: http.MethodPost, pattern: "/tasks/{}/feedback", hasBody: true, prepare: prepFeedback},
		{opID: "learning.reward", method: http.MethodPost, pattern: "/tasks/{}/reward", hasBody: true, prepare: prepReward},
		{opID: "learning.feedbackBulk", method: http.MethodPost, pattern: "/learning/feedback", hasBody: true, prepare: prepFeedbackBulk},
		{opID: "learning.reset", method: http.MethodPost, pattern: "/learning/reset", prepare: prepResetLearning},
		{opID: "stats", method: http.MethodGet, pattern: "/stats", prepare: prepStats},
		{opID: "slaStats", method: http.MethodGet, pattern: "/stats/sla", query: []string{"tag"}, prepare: prepSLAStats},
		{opID: "queueAudit", method: http.MethodGet, pattern: "/stats/queue-audit", query: []string{"limit", "minWaitingMs", "includeHealthy"}, prepare: prepQueueAudit},
		{opID: "history.timeseries", method: http.MethodGet, pattern: "/stats/timeseries", query: []string{"from", "to", "bucket"}, prepare: prepTimeseries},
		{opID: "history.workers", method: http.MethodGet, pattern: "/stats/workers", query: []string{"from", "to", "bucket", "teamId"}, prepare: prepHistoryWorkers},
		{opID: "history.workerTimeseries", method: http.MethodGet, pattern: "/stats/workers/{}/timeseries", query: []string{"from", "to", "bucket"}, prepare: prepWorkerTimeseries},
		{opID: "identities.create", method: http.MethodPost, pattern: "/workers/{}/identity", hasBody: true, prepare: prepSetIdentity},
		{opID: "tasks.attachments.create", method: http.MethodPost, pattern: "/tasks/{}/attachments", hasBody: true, prepare: prepCreateAttachment},
		{opID: "tasks.attachments.confirm", method: http.MethodPost, pattern: "/tasks/{}/attachments/{}/confirm", prepare: prepConfirmAttachment},
		{opID: "tasks.attachments.list", method: http.MethodGet, pattern: "/tasks/{}/attachments", prepare: prepListAttachments},
		{opID: "tasks.attachments.download", method: http.MethodGet, pattern: "/tasks/{}/attachments/{}/download", prepare: prepDownloadAttachment},
		{opID: "tasks.attachments.remove", method: http.MethodDelete, pattern: "/tasks/{}/attachments/{}", prepare: prepRemoveAttachment},
		{opID: "tasks.context.get", method: http.MethodGet, pattern: "/tasks/{}/context", prepare: prepGetContext},
		{opID: "tasks.context.set", method: http.MethodPut, pattern: "/tasks/{}/context", hasBody: true, prepare: prepSetContext},
		{opID: "tasks.context.clear", method: http.MethodDelete, pattern: "/tasks/{}/context", prepare: prepClearContext},
		{opID: "tasks.comments.add", method: http.MethodPost, pattern: "/tasks/{}/comments", hasBody: true, prepare: prepAddComment},
		{opID: "tasks.comments.list", method: http.MethodGet, pattern: "/tasks/{}/comments", query: []string{"cursor", "limit"}, prepare: prepListComments},
		{opID: "skills.create", method: http.MethodPost, pattern: "/skills", hasBody: true, prepare: prepCreateSkill},
		{opID: "skills.list", method: http.MethodGet, pattern: "/skills", query: []string{"q", "limit"}, prepare: prepListSkills},
		{opID: "skills.suggest", method: http.MethodGet, pattern: "/skills/suggest", query: []string{"selected", "limit"}, prepare: prepSuggestSkills},
		{opID: "skills.expiring", method: http.MethodGet, pattern: "/skills/expiring", query: []string{"withinDays", "asOf"}, prepare: prepExpiringSkills},
		{opID: "skills.get", method: http.MethodGet, pattern: "/skills/{}", prepare: prepGetSkill},
		{opID: "skills.patch", method: http.MethodPatch, pattern: "/skills/{}", hasBody: true, prepare: prepPatchSkill},
		{opID: "skills.remove", method: http.MethodDelete, pattern: "/skills/{}", prepare: prepRemoveSkill},
		{opID: "tasks.comments.remove", method: http.MethodDelete, pattern: "/tasks/{}/comments/{}", prepare: prepRemoveComment},
		{opID: "teams.create", method: http.MethodPost, pattern: "/teams", hasBody: true, prepare: prepCreateTeam},
		{opID: "teams.list", method: http.MethodGet, pattern: "/teams", prepare: prepListTeams},
		{opID: "teams.get", method: http.MethodGet, pattern: "/teams/{}", prepare: prepGetTeam},
		{opID: "teams.patch", method: http.MethodPatch, pattern: "/teams/{}", hasBody: true, prepare: prepPatchTeam},
		{opID: "teams.remove", method: http.MethodDelete, pattern: "/teams/{}", prepare: prepRemoveTeam},
		{opID: "teams.members", method: http.MethodGet, pattern: "/teams/{}/members", prepare: prepTeamMembers},
		{opID: "teams.setMembers", method: http.MethodPut, pattern: "/teams/{}/members", hasBody: true, prepare: prepSetTeamMembers},
		{opID: "identities.remove", method: http.MethodDelete, pattern: "/workers/{}/identity", prepare: prepRemoveIdentity},
		{opID: "identities.list", method: http.MethodGet, pattern: "/worker-identities", prepare: prepListIdentities},
		{opID: "identities.invite", method: http.MethodPost, pattern: "/worker-identities/invite", hasBody: true, prepare: prepInvite},
		{opID: "identities.resendInvite", method: http.MethodPost, pattern: "/worker-identities/{}/invite/resend", prepare: prepResendInvite},
		{opID: "identities.update", method: http.MethodPatch, pattern: "/workers/{}/identity", hasBody: true, prepare: prepUpdateIdentity},
		{opID: "joinLinks.create", method: http.MethodPost, pattern: "/join-links", hasBody: true, prepare: prepCreateJoinLink},
		{opID: "joinLinks.list", method: http.MethodGet, pattern: "/join-links", prepare: prepListJoinLinks},
		{opID: "joinLinks.revoke", method: http.MethodDelete, pattern: "/join-links/{}", prepare: prepRevokeJoinLink},
		{opID: "portal", method: http.MethodGet, pattern: "/portal", prepare: prepPortal},
		{opID: "notifications.sequences.list", method: http.MethodGet, pattern: "/notification-sequences", prepare: prepListSequences},
		{opID: "notifications.sequences.create", method: http.MethodPost, pattern: "/notification-sequences", hasBody: true, prepare: prepCreateSequence},
		{opID: "notifications.sequences.get", method: http.MethodGet, pattern: "/notification-sequences/{}", prepare: prepGetSequence},
		{opID: "notifications.sequences.update", method: http.MethodPatch, pattern: "/notification-sequences/{}", hasBody: true, prepare: prepUpdateSequence},
		{opID: "notifications.sequences.remove", method: http.MethodDelete, pattern: "/notification-sequences/{}", prepare: prepRemoveSequence},
		{opID: "notifications.channels.list", method: http.MethodGet, pattern: "/notification-channels", prepare: prepListChannels},
		{opID: "notifications.channels.create", method: http.MethodPost, pattern: "/notification-channels", hasBody: true, prepare: prepCreateChannel},
		{opID: "notifications.channels.get", method: http.MethodGet, pattern: "/notification-channels/{}", prepare: prepGetChannel},
		{opID: "notifications.channels.update", method: http.MethodPatch, pattern: "/notification-channels/{}", hasBody: true, prepare: prepUpdateChannel},
		{opID: "notifications.channels.remove", method: http.MethodDelete, pattern: "/notification-channels/{}", prepare: prepRemoveChannel},
		// Worker time, links and offboarding (workertime.go, timecorrections.go, teamtime.go, links.go).
		{opID: "workers.metrics", method: http.MethodGet, pattern: "/workers/{}/metrics", query: []string{"window"}, prepare: prepWorkerMetrics},
		{opID: "workers.timeEntries", method: http.MethodGet, pattern: "/workers/{}/time-entries", query: []string{"from", "to"}, prepare: prepTimeEntries},
		{opID: "workers.createTimeEntry", method: http.MethodPost, pattern: "/workers/{}/time-entries", hasBody: true, prepare: prepCreateTimeEntry},
		{opID: "workers.correctTimeEntry", method: http.MethodPatch, pattern: "/workers/{}/time-entries/{}", hasBody: true, prepare: prepCorrectTimeEntry},
		{opID: "workers.timeCorrections", method: http.MethodGet, pattern: "/workers/{}/time-corrections", prepare: prepTimeCorrections},
		{opID: "workers.offboarding", method: http.MethodGet, pattern: "/workers/{}/offboarding", query: []string{"lastDay"}, prepare: prepOffboarding},
		{opID: "workers.links", method: http.MethodGet, pattern: "/workers/links", query: []string{"connector"}, prepare: prepListLinks},
		{opID: "workers.link", method: http.MethodPut, pattern: "/workers/{}/links/{}", hasBody: true, prepare: prepLink},
		{opID: "workers.unlink", method: http.MethodDelete, pattern: "/workers/{}/links/{}", prepare: prepUnlink},
		{opID: "breaks.metrics", method: http.MethodGet, pattern: "/breaks/metrics", query: []string{"from", "to", "teamId", "workerId"}, prepare: prepBreakMetrics},
		{opID: "team.presence", method: http.MethodGet, pattern: "/team/presence", query: []string{"teamId"}, prepare: prepPresence},
		{opID: "team.time", method: http.MethodGet, pattern: "/team/time", query: []string{"from", "to", "teamId", "workerId", "entries"}, prepare: prepTeamTime},
		{opID: "workflows.list", method: http.MethodGet, pattern: "/workflows", prepare: prepListWorkflows},
		{opID: "workflows.get", method: http.MethodGet, pattern: "/workflows/{}", prepare: prepGetWorkflow},
		{opID: "workflows.save", method: http.MethodPut, pattern: "/workflows/{}", hasBody: true, prepare: prepSaveWorkflow},
		{opID: "workflows.remove", method: http.MethodDelete, pattern: "/workflows/{}", prepare: prepRemoveWorkflow},
		{opID: "workflows.run", method: http.MethodPost, pattern: "/workflows/{}/runs", hasBody: true, prepare: prepStartRun},
		{opID: "workflows.listRuns", method: http.MethodGet, pattern: "/workflows/{}/runs", query: []string{"status", "cursor", "limit"}, prepare: prepListWorkflowRuns},
		{opID: "runs.list", method: http.MethodGet, pattern: "/workflow-runs", query: []string{"status", "workflowId", "cursor", "limit"}, prepare: prepListRuns},
		{opID: "runs.get", method: http.MethodGet, pattern: "/workflow-runs/{}", prepare: prepGetRun},
		{opID: "runs.steps", method: http.MethodGet, pattern: "/workflow-runs/{}/steps", prepare: prepRunSteps},
		{opID: "runs.cancel", method: http.MethodPost, pattern: "/workflow-runs/{}/cancel", prepare: prepCancelRun},
		{opID: "runs.completeStep", method: http.MethodPost, pattern: "/workflow-runs/{}/steps/{}/complete", hasBody: true, prepare: prepCompleteStep},
		{opID: "runs.failStep", method: http.MethodPost, pattern: "/workflow-runs/{}/steps/{}/fail", hasBody: true, prepare: prepFailStep},
		{opID: "tasks.history", method: http.MethodGet, pattern: "/tasks/history", query: []string{"status", "workerId", "tag", "from", "to", "q", "cursor", "limit"}, prepare: prepTaskHistory},
		{opID: "tasks.bookings", method: http.MethodGet, pattern: "/tasks/bookings", query: []string{"from", "to", "workerId"}, prepare: prepListBookings},
		{opID: "tasks.booking.candidates", method: http.MethodGet, pattern: "/tasks/{}/booking/candidates", prepare: prepBookingCandidates},
		{opID: "tasks.booking.set", method: http.MethodPost, pattern: "/tasks/{}/booking", hasBody: true, prepare: prepSetBooking},
		{opID: "tasks.booking.release", method: http.MethodDelete, pattern: "/tasks/{}/booking", prepare: prepReleaseBooking},
		{opID: "tasks.recurring.list", method: http.MethodGet, pattern: "/tasks/recurring", prepare: prepListRecurring},
		{opID: "tasks.recurring.remove", method: http.MethodDelete, pattern: "/tasks/recurring/{}", query: []string{"dropScheduled"}, prepare: prepRemoveRecurring},
		{opID: "tasks.check", method: http.MethodPost, pattern: "/tasks/check", hasBody: true, prepare: prepCheckTask},
	}
}

// allRoutes is every plane's table; s binds the routes that need the server (nil when only
// the table is wanted).
func allRoutes(s *Server) []route {
	return slices.Concat(newRoutes(), newWorkerRoutes(), newWorkerPushRoutes(s), newSupervisorRoutes(s))
}

// Operations lists the operation ids (catalogue names, as in api/openapi.json) the mock
// server serves on both planes, sorted.
func Operations() []string {
	var ids []string
	for _, rt := range allRoutes(nil) {
		ids = append(ids, rt.opID)
		ids = append(ids, rt.aliases...)
	}
	slices.Sort(ids)
	return ids
}

// findRoute resolves a request path (with BasePath) to an operation and its parameters. An
// unknown path is 404; a known path with another method is 405 with Allow.
//
// It splits the path as sent (escaped) and unescapes each segment afterwards, as the
// platform's router does: an id holding an escaped "/" is one segment, which then fails the id
// check, instead of becoming a separator that reaches another operation
// (DELETE /workers/w1%2Fidentity must not remove w1's sign-in).
func findRoute(routeTable []route, method string, u *url.URL) (route, []string, *apiError) {
	path := u.EscapedPath()
	rel, ok := strings.CutPrefix(path, BasePath+"/")
	if !ok {
		// The usual cause is a client given the server's root instead of URL().
		return route{}, nil, notFoundf("no route for %s: API paths start with the base path %s (use the server's URL())", path, BasePath)
	}
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		if !strings.Contains(seg, "%") {
			continue
		}
		plain, err := url.PathUnescape(seg)
		if err != nil {
			return route{}, nil, notFoundf("no route for %s", path)
		}
		segs[i] = plain
	}
	var best *route
	var bestParams []string
	bestLiterals := -1
	var allow []string
	for i := range routeTable {
		rt := &routeTable[i]
		params, literals, ok := matchPattern(rt.parts, segs)
		if !ok {
			continue
		}
		if rt.method != method {
			if !slices.Contains(allow, rt.method) {
				allow = append(allow, rt.method)
			}
			continue
		}
		if literals > bestLiterals {
			best, bestParams, bestLiterals = rt, params, literals
		}
	}
	if best != nil {
		for i, p := range bestParams {
			if err := checkID("params/"+paramName(best.opID, i), p); err != nil {
				return route{}, nil, err
			}
		}
		return *best, bestParams, nil
	}
	if len(allow) > 0 {
		e := errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method %s is not allowed on %s", method, path)
		return route{allow: strings.Join(allow, ", ")}, nil, e
	}
	return route{}, nil, notFoundf("no route for %s %s", method, path)
}

func matchPattern(pat []string, segs []string) (params []string, literals int, ok bool) {
	if len(pat) != len(segs) {
		return nil, 0, false
	}
	for i, p := range pat {
		switch {
		case p == "{}" && segs[i] != "":
			params = append(params, segs[i])
		case p == segs[i]:
			literals++
		default:
			return nil, 0, false
		}
	}
	return params, literals, true
}

// paramName names a path parameter in messages as api/openapi.json names it ("id",
// "commentId").
func paramName(opID string, i int) string {
	// The route table writes parameters as {}; their names are the contract's.
	if c, err := contract.Default(); err == nil {
		if rt, ok := c.Lookup(opID); ok {
			n := 0
			for _, seg := range strings.Split(rt.Path, "/") {
				if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
					if n == i {
						return seg[1 : len(seg)-1]
					}
					n++
				}
			}
		}
	}
	return "param" + strconv.Itoa(i)
}
