package mockserver

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A route table with patterns that start with a parameter: a lookup walks them together with
// the literal ones, in table order; a literal segment wins over a parameter whatever the
// order, and a parameter never matches an empty segment. A parameter of an operation the
// contract does not know is named by its position.
func TestRouteTableWithLeadingParameters(t *testing.T) {
	table := indexRoutes([]route{
		{opID: "x.wildFirst", method: "GET", pattern: "/{}/items"},
		{opID: "x.task", method: "GET", pattern: "/tasks/{}"},
		{opID: "x.any", method: "GET", pattern: "/{}"},
		{opID: "x.taskItems", method: "GET", pattern: "/tasks/items"},
	})
	if d := cmp.Diff([]int{0, 1, 2, 3}, table.candidates("tasks")); d != "" {
		t.Errorf("candidates of tasks (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{0, 2}, table.candidates("other")); d != "" {
		t.Errorf("candidates of other (-want +got):\n%s", d)
	}
	tests := []struct {
		path   string
		op     string
		params []string
		status int // of the error, 0 when found
	}{
		{"/v1/tasks/items", "x.taskItems", nil, 0},
		{"/v1/tasks/t1", "x.task", []string{"t1"}, 0},
		{"/v1/boxes/items", "x.wildFirst", []string{"boxes"}, 0},
		{"/v1/boxes", "x.any", []string{"boxes"}, 0},
		{"/v1/tasks/", "", nil, 404},
		{"/v1//items", "", nil, 404},
		{"/v1/a/b/c", "", nil, 404},
	}
	for _, tc := range tests {
		rt, params, aerr := findRoute(&table, "GET", &url.URL{Path: tc.path})
		status := 0
		if aerr != nil {
			status = aerr.status
		}
		if d := cmp.Diff([]any{tc.op, tc.params, tc.status}, []any{rt.opID, params, status}); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, d)
		}
	}
	if got := paramName("x.task", 0); got != "param0" {
		t.Errorf("paramName of an operation the contract lacks = %q, want param0", got)
	}
	if got := paramName("tasks.get", 0); got != "id" {
		t.Errorf("paramName(tasks.get, 0) = %q, want id", got)
	}
}
