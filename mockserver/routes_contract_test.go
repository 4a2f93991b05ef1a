package mockserver

import (
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// TestRoutesMatchContract: every route is bound to api/openapi.json by operation id (bind
// takes method, path, query parameters and body from the file; this holds bind to it), and
// aliases must name the same operation.
func TestRoutesMatchContract(t *testing.T) {
	spec, err := contract.Default()
	require.NoError(t, err)
	param := regexp.MustCompile(`\{[^}]+\}`)
	for _, rt := range allRoutes(nil) {
		r, ok := spec.Lookup(rt.opID)
		if !assert.True(t, ok, "%s is not in api/openapi.json", rt.opID) {
			continue
		}
		assert.Equal(t, rt.method, r.Method, rt.opID)
		assert.Equal(t, rt.pattern, param.ReplaceAllString(r.Path, "{}"), rt.opID)
		for _, alias := range rt.aliases {
			a, ok := spec.Lookup(alias)
			assert.True(t, ok, alias)
			assert.Equal(t, r.ID, a.ID, "%s is an alias of %s", alias, rt.opID)
		}
	}
}

func TestOperationsListsEveryRouteOnce(t *testing.T) {
	ops := Operations()
	assert.True(t, slices.IsSorted(ops))
	assert.Equal(t, len(ops), len(slices.Compact(slices.Clone(ops))), "no duplicates")
	assert.Len(t, ops, len(allRoutes(nil))+1, "every route, and tasks.setPriority")
	assert.Contains(t, ops, "tasks.setPriority")
	assert.Contains(t, ops, "worker.startBreak")
}

// TestPathParamErrorsNameTheParameter: a bad id in a path is refused naming the parameter as
// api/openapi.json does, the second one of a path included.
func TestPathParamErrorsNameTheParameter(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	for _, tc := range []struct{ path, want string }{
		{"/tasks/bad%20id", "params/id must match pattern"},
		{"/tasks/task_1/comments/bad%20id", "params/commentId must match pattern"},
		{"/tasks/bad%20id/comments/cmt_1", "params/id must match pattern"},
	} {
		a := call(t, srv, srv.APIKey(), http.MethodDelete, tc.path, nil)
		require.Equal(t, http.StatusBadRequest, a.Status, "%s: %s", tc.path, a.Body)
		assert.Contains(t, string(a.Body), tc.want, tc.path)
	}
}
