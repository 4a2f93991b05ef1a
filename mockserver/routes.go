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

// route is one operation of api/openapi.json, bound by its operation id with bind, which
// takes the method, path and whether a body is read from the file (the contract checks the
// query parameters). A "{}"
// segment is a path parameter.
type route struct {
	opID    string
	aliases []string // further operation ids served by the same call (tasks.setPriority)
	method  string
	pattern string
	hasBody bool
	prepare func(*request) (op, *apiError)
	allow   string   // set on the 405 answer only
	parts   []string // pattern split on "/", set once by indexRoutes so a lookup splits nothing
}

// bind makes the route of an operation from api/openapi.json: the table names only the
// operation and the function that serves it, so the method, path, query parameters and body
// live in the file alone. An operation id the file lacks is a mistake in this package, found
// by every test that makes a server.
func bind(opID string, prepare func(*request) (op, *apiError), aliases ...string) route {
	spec, err := contract.Default()
	if err != nil {
		panic("mockserver: api/openapi.json does not compile: " + err.Error())
	}
	r, ok := spec.Lookup(opID)
	if !ok {
		panic("mockserver: route for " + opID + ", which api/openapi.json lacks")
	}
	return route{
		opID: opID, aliases: aliases, method: r.Method, pattern: anonymousParams(r.Path),
		hasBody: r.HasBody, prepare: prepare,
	}
}

// anonymousParams writes a path template's parameters as the router's "{}": /tasks/{id} is
// /tasks/{}.
func anonymousParams(path string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}

// routeTable is a plane's routes in table order, indexed by a pattern's first segment.
type routeTable struct {
	all     []route
	byFirst map[string][]int // positions in all, ascending, of the patterns starting with that literal
	wild    []int            // positions of the patterns starting with a parameter
}

// indexRoutes splits every pattern once, when a server is made, and indexes the table by
// first segment: a lookup then walks only the routes that can match, not the whole table.
func indexRoutes(table []route) routeTable {
	t := routeTable{all: table, byFirst: map[string][]int{}}
	for i := range table {
		table[i].parts = strings.Split(strings.TrimPrefix(table[i].pattern, "/"), "/")
		if first := table[i].parts[0]; first == "{}" {
			t.wild = append(t.wild, i)
		} else {
			t.byFirst[first] = append(t.byFirst[first], i)
		}
	}
	return t
}

// candidates lists, in table order, the positions of the routes whose first segment can
// match seg.
func (t *routeTable) candidates(seg string) []int {
	lit := t.byFirst[seg]
	if len(t.wild) == 0 {
		return lit
	}
	out := make([]int, 0, len(lit)+len(t.wild))
	out = append(append(out, lit...), t.wild...)
	slices.Sort(out)
	return out
}

// newRoutes lists the operations in the order of the API tables. Literal segments win over
// parameters because findRoute prefers the route with more literal matches. Each Server
// holds its own table: the package keeps no state.
func newRoutes() []route {
	return []route{
		bind("tasks.create", prepCreateTask),
		bind("tasks.createMany", prepCreateMany),
		bind("tasks.get", prepGetTask),
		bind("tasks.list", prepListTasks),
		bind("tasks.cancel", prepCancelTask),
		bind("tasks.accept", prepAccept),
		bind("tasks.reject", prepReject),
		bind("tasks.complete", prepComplete),
		bind("workers.upsert", prepUpsertWorker),
		bind("workers.patch", prepPatchWorker),
		bind("workers.get", prepGetWorker),
		bind("workers.list", prepListWorkers),
		bind("workers.setAvailability", prepSetAvailability),
		bind("workers.queue", prepWorkerQueue),
		bind("workers.remove", prepRemoveWorker),
		bind("decisions.list", prepListDecisions),
		bind("tasks.assign", prepAssign),
		bind("tasks.fail", prepFail),
		bind("tasks.ack", prepAck),
		bind("tasks.escalate", prepEscalate),
		bind("tasks.unpark", prepUnpark),
		bind("tasks.parked", prepTasksWithStatus(match.StatusParked)),
		bind("tasks.scheduled", prepTasksWithStatus(match.StatusScheduled)),
		bind("tasks.update", prepUpdateTask, "tasks.setPriority"),
		bind("tasks.suggestWorkers", prepSuggestWorkers),
		bind("learning.status", prepLearningStatus),
		bind("learning.workerStats", prepWorkerStats),
		bind("learning.previewWeights", prepPreviewWeights),
		bind("learning.applyWeights", prepApplyWeights),
		bind("learning.revertWeights", prepRevertWeights),
		bind("learning.feedback", prepFeedback),
		bind("learning.reward", prepReward),
		bind("learning.feedbackBulk", prepFeedbackBulk),
		bind("learning.reset", prepResetLearning),
		bind("stats", prepStats),
		bind("slaStats", prepSLAStats),
		bind("queueAudit", prepQueueAudit),
		bind("history.timeseries", prepTimeseries),
		bind("history.workers", prepHistoryWorkers),
		bind("history.workerTimeseries", prepWorkerTimeseries),
		bind("identities.create", prepSetIdentity),
		bind("tasks.attachments.create", prepCreateAttachment),
		bind("tasks.attachments.confirm", prepConfirmAttachment),
		bind("tasks.attachments.list", prepListAttachments),
		bind("tasks.attachments.download", prepDownloadAttachment),
		bind("tasks.attachments.remove", prepRemoveAttachment),
		bind("tasks.context.get", prepGetContext),
		bind("tasks.context.set", prepSetContext),
		bind("tasks.context.clear", prepClearContext),
		bind("tasks.comments.add", prepAddComment),
		bind("tasks.comments.list", prepListComments),
		bind("skills.create", prepCreateSkill),
		bind("skills.list", prepListSkills),
		bind("skills.suggest", prepSuggestSkills),
		bind("skills.expiring", prepExpiringSkills),
		bind("skills.get", prepGetSkill),
		bind("skills.patch", prepPatchSkill),
		bind("skills.remove", prepRemoveSkill),
		bind("tasks.comments.remove", prepRemoveComment),
		bind("teams.create", prepCreateTeam),
		bind("teams.list", prepListTeams),
		bind("teams.get", prepGetTeam),
		bind("teams.patch", prepPatchTeam),
		bind("teams.remove", prepRemoveTeam),
		bind("teams.members", prepTeamMembers),
		bind("teams.setMembers", prepSetTeamMembers),
		bind("identities.remove", prepRemoveIdentity),
		bind("identities.list", prepListIdentities),
		bind("identities.invite", prepInvite),
		bind("identities.resendInvite", prepResendInvite),
		bind("identities.update", prepUpdateIdentity),
		bind("joinLinks.create", prepCreateJoinLink),
		bind("joinLinks.list", prepListJoinLinks),
		bind("joinLinks.revoke", prepRevokeJoinLink),
		bind("portal", prepPortal),
		bind("notifications.sequences.list", prepListSequences),
		bind("notifications.sequences.create", prepCreateSequence),
		bind("notifications.sequences.get", prepGetSequence),
		bind("notifications.sequences.update", prepUpdateSequence),
		bind("notifications.sequences.remove", prepRemoveSequence),
		bind("notifications.channels.list", prepListChannels),
		bind("notifications.channels.create", prepCreateChannel),
		bind("notifications.channels.get", prepGetChannel),
		bind("notifications.channels.update", prepUpdateChannel),
		bind("notifications.channels.remove", prepRemoveChannel),
		// Worker time, links and offboarding (workertime.go, timecorrections.go, teamtime.go, links.go).
		bind("workers.metrics", prepWorkerMetrics),
		bind("workers.timeEntries", prepTimeEntries),
		bind("workers.createTimeEntry", prepCreateTimeEntry),
		bind("workers.correctTimeEntry", prepCorrectTimeEntry),
		bind("workers.timeCorrections", prepTimeCorrections),
		bind("workers.offboarding", prepOffboarding),
		bind("workers.links", prepListLinks),
		bind("workers.link", prepLink),
		bind("workers.unlink", prepUnlink),
		bind("breaks.metrics", prepBreakMetrics),
		bind("team.presence", prepPresence),
		bind("team.time", prepTeamTime),
		bind("workflows.list", prepListWorkflows),
		bind("workflows.get", prepGetWorkflow),
		bind("workflows.save", prepSaveWorkflow),
		bind("workflows.remove", prepRemoveWorkflow),
		bind("workflows.run", prepStartRun),
		bind("workflows.listRuns", prepListWorkflowRuns),
		bind("runs.list", prepListRuns),
		bind("runs.get", prepGetRun),
		bind("runs.steps", prepRunSteps),
		bind("runs.cancel", prepCancelRun),
		bind("runs.completeStep", prepCompleteStep),
		bind("runs.failStep", prepFailStep),
		bind("tasks.history", prepTaskHistory),
		bind("tasks.bookings", prepListBookings),
		bind("tasks.booking.candidates", prepBookingCandidates),
		bind("tasks.booking.set", prepSetBooking),
		bind("tasks.booking.release", prepReleaseBooking),
		bind("tasks.recurring.list", prepListRecurring),
		bind("tasks.recurring.remove", prepRemoveRecurring),
		bind("tasks.check", prepCheckTask),
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
func findRoute(table *routeTable, method string, u *url.URL) (route, []string, *apiError) {
	path := u.EscapedPath()
	rel, ok := strings.CutPrefix(path, BasePath+"/")
	if !ok {
		// The platform's plain 404: the hint that the base URL lacks /v1 is the mock's own, so
		// it goes to the log and to the owning test (Start), not into the answer.
		return route{}, nil, notFoundf("no route for %s", path)
	}
	var buf [8]string // a path of up to 8 segments (every route's) is split without an allocation
	segs := splitPath(buf[:0], rel)
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
	for _, i := range table.candidates(segs[0]) {
		rt := &table.all[i]
		if len(rt.parts) != len(segs) {
			continue
		}
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
	// A first pass decides the match, so a pattern that fails allocates no parameters.
	for i, p := range pat {
		if p != segs[i] && (p != "{}" || segs[i] == "") {
			return nil, 0, false
		}
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

// splitPath is strings.Split(rel, "/") appended to segs.
func splitPath(segs []string, rel string) []string {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return append(segs, rel)
		}
		segs = append(segs, rel[:i])
		rel = rel[i+1:]
	}
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
