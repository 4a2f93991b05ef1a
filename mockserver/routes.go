package mockserver

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// route is one operation of DESIGN §2.3. A "{}" segment is a path parameter.
type route struct {
	method  string
	pattern string
	hasBody bool
	query   []string // allowed query parameters; any other is validation_failed
	prepare func(*request) (op, *apiError)
	allow   string // set on the 405 answer only
}

// newRoutes lists the operations in the order of the API tables. Literal segments win over
// parameters because findRoute prefers the route with more literal matches. Each Server
// holds its own table: the package keeps no state.
func newRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/tasks", hasBody: true, prepare: prepCreateTask},
		{method: http.MethodGet, pattern: "/tasks/{}", prepare: prepGetTask},
		{method: http.MethodGet, pattern: "/tasks", query: []string{"status", "cursor", "limit"}, prepare: prepListTasks},
		{method: http.MethodDelete, pattern: "/tasks/{}", prepare: prepCancelTask},
		{method: http.MethodPost, pattern: "/tasks/{}/accept", hasBody: true, prepare: prepAccept},
		{method: http.MethodPost, pattern: "/tasks/{}/reject", hasBody: true, prepare: prepReject},
		{method: http.MethodPost, pattern: "/tasks/{}/complete", hasBody: true, prepare: prepComplete},
		{method: http.MethodPost, pattern: "/workers", hasBody: true, prepare: prepUpsertWorker},
		{method: http.MethodPatch, pattern: "/workers/{}", hasBody: true, prepare: prepPatchWorker},
		{method: http.MethodGet, pattern: "/workers/{}", prepare: prepGetWorker},
		{method: http.MethodGet, pattern: "/workers", prepare: prepListWorkers},
		{method: http.MethodPost, pattern: "/workers/{}/availability", hasBody: true, prepare: prepSetAvailability},
		{method: http.MethodGet, pattern: "/workers/{}/queue", prepare: prepWorkerQueue},
		{method: http.MethodDelete, pattern: "/workers/{}", prepare: prepRemoveWorker},
		{method: http.MethodGet, pattern: "/decisions", query: []string{"taskId", "workerId", "limit"}, prepare: prepListDecisions},
		{method: http.MethodPost, pattern: "/tasks/{}/assign", hasBody: true, prepare: prepAssign},
		{method: http.MethodPatch, pattern: "/tasks/{}", hasBody: true, prepare: prepSetPriority},
		{method: http.MethodPost, pattern: "/tasks/suggest-workers", hasBody: true, prepare: prepSuggestWorkers},
		{method: http.MethodGet, pattern: "/learning/status", prepare: prepLearningStatus},
		{method: http.MethodGet, pattern: "/learning/workers/{}", prepare: prepWorkerStats},
		{method: http.MethodPost, pattern: "/workers/{}/identity", hasBody: true, prepare: prepSetIdentity},
		{method: http.MethodDelete, pattern: "/workers/{}/identity", prepare: prepRemoveIdentity},
	}
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
		params, literals, ok := matchPattern(rt.pattern, segs)
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
			if err := checkID("params/"+paramName(best.pattern, i), p); err != nil {
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

func matchPattern(pattern string, segs []string) (params []string, literals int, ok bool) {
	pat := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
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

// paramName names a path parameter in messages: "id" for the resource's own id.
func paramName(pattern string, i int) string {
	if i == 0 {
		return "id"
	}
	return "param" + string(rune('0'+i))
}
