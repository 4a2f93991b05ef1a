package api_test

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
)

// catalogueOp is one row of testdata/catalogue.txt, the platform's operation catalogue.
type catalogueOp struct {
	Plane, Group, ID, Method, Path string
}

// docOp is one operation id of api/openapi.json with where it sits.
type docOp struct {
	Plane, Group, ID, Method, Path string
	raw                            map[string]any
}

func readCatalogue(t *testing.T) []catalogueOp {
	t.Helper()
	f, err := os.Open("testdata/catalogue.txt")
	require.NoError(t, err)
	defer f.Close()
	var ops []catalogueOp
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		require.Len(t, f, 5, "catalogue line %q", line)
		ops = append(ops, catalogueOp{Plane: f[0], Group: f[1], ID: f[2], Method: f[3], Path: f[4]})
	}
	require.NoError(t, sc.Err())
	return ops
}

func loadDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(api.OpenAPI(), &doc))
	return doc
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// docOperations lists every operation id of the document, aliases included (an alias shares
// its operation's plane, group, method and path).
func docOperations(t *testing.T, doc map[string]any) []docOp {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	require.True(t, ok, "paths is an object")
	var ops []docOp
	for path, item := range paths {
		for method, raw := range item.(map[string]any) {
			if !slices.Contains(httpMethods, method) {
				continue
			}
			o := raw.(map[string]any)
			id, _ := o["operationId"].(string)
			plane, _ := o["x-plane"].(string)
			tags, _ := o["tags"].([]any)
			group := ""
			if len(tags) == 1 {
				group, _ = tags[0].(string)
			}
			op := docOp{Plane: plane, Group: group, ID: id, Method: strings.ToUpper(method), Path: path, raw: o}
			ops = append(ops, op)
			aliases, _ := o["x-operation-aliases"].([]any)
			for _, a := range aliases {
				alias := op
				alias.ID, _ = a.(string)
				ops = append(ops, alias)
			}
		}
	}
	slices.SortFunc(ops, func(a, b docOp) int { return strings.Compare(a.ID, b.ID) })
	return ops
}

func TestOpenAPIReturnsACopy(t *testing.T) {
	a := api.OpenAPI()
	require.NotEmpty(t, a)
	a[0] = 'X'
	assert.Equal(t, byte('{'), api.OpenAPI()[0], "changing one copy must not change the next")
}

func TestDocumentIsOpenAPI31(t *testing.T) {
	doc := loadDoc(t)
	assert.Equal(t, "3.1.0", doc["openapi"])
	servers, _ := doc["servers"].([]any)
	require.Len(t, servers, 1)
	assert.Equal(t, "/v1", servers[0].(map[string]any)["url"])
}

// TestOperationsMatchTheCatalogue proves the document has exactly the catalogue's operations:
// 118 on the workspace plane, 36 on the worker plane, 13 on the supervisor plane (167; the two
// attachment upload composites are not HTTP operations), each with the catalogue's group,
// method and path, and nothing else.
func TestOperationsMatchTheCatalogue(t *testing.T) {
	catalogue := readCatalogue(t)
	slices.SortFunc(catalogue, func(a, b catalogueOp) int { return strings.Compare(a.ID, b.ID) })
	var got []catalogueOp
	for _, op := range docOperations(t, loadDoc(t)) {
		got = append(got, catalogueOp{Plane: op.Plane, Group: op.Group, ID: op.ID, Method: op.Method, Path: op.Path})
	}
	if diff := cmp.Diff(catalogue, got); diff != "" {
		t.Errorf("document operations differ from the catalogue (-catalogue +document):\n%s", diff)
	}
	perPlane := map[string]int{}
	for _, op := range got {
		perPlane[op.Plane]++
	}
	assert.Equal(t, map[string]int{"workspace": 118, "worker": 36, "supervisor": 13}, perPlane)
}

func TestOperationIDsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range docOperations(t, loadDoc(t)) {
		assert.False(t, seen[op.ID], "operation id %s appears twice", op.ID)
		seen[op.ID] = true
	}
}

// TestEveryOperationIsComplete checks the members every operation must carry: plane,
// security matching the plane, provenance, implementation status, and a response for every
// status with a JSON schema unless the status has no body.
func TestEveryOperationIsComplete(t *testing.T) {
	schemes := map[string]string{"workspace": "apiKey", "worker": "workerToken", "supervisor": "supervisorToken"}
	// These sign a caller in or hand out public facts, so they take no credential.
	unauthenticated := []string{"worker.login", "worker.join", "worker.acceptInvite", "supervisor.entry", "supervisor.acceptInvite"}
	doc := loadDoc(t)
	for _, op := range docOperations(t, doc) {
		if op.raw["operationId"] != op.ID {
			continue // an alias row; its operation is checked under its own id
		}
		t.Run(op.ID, func(t *testing.T) {
			o := op.raw
			assert.Contains(t, schemes, op.Plane, "x-plane")
			assert.Equal(t, "platform", o["x-source"], "x-source")
			assert.IsType(t, []any{}, o["x-decided"], "x-decided is a list")
			assert.IsType(t, true, o["x-client"], "x-client is a bool")
			assert.IsType(t, true, o["x-mock"], "x-mock is a bool")
			sec, ok := o["security"].([]any)
			require.True(t, ok, "security is present")
			if slices.Contains(unauthenticated, op.ID) {
				assert.Empty(t, sec, "an unauthenticated operation lists no scheme")
			} else {
				require.Len(t, sec, 1)
				assert.Contains(t, sec[0], schemes[op.Plane], "the plane's credential")
			}
			responses, _ := o["responses"].(map[string]any)
			require.NotEmpty(t, responses)
			success := 0
			for status, r := range responses {
				resp := resolveRef(t, doc, r.(map[string]any))
				_, hasBody := resp["content"]
				switch {
				case status == "204":
					assert.False(t, hasBody, "204 has no body")
				default:
					require.True(t, hasBody, "status %s has a schema", status)
					schema := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
					assert.NotNil(t, schema, "status %s has a JSON schema", status)
				}
				if status[0] == '2' {
					success++
				}
				if status[0] == '4' || status[0] == '5' {
					assert.Contains(t, r.(map[string]any)["$ref"], "#/components/responses/", "errors use the shared envelope")
				}
			}
			assert.Positive(t, success, "at least one success status")
		})
	}
}

// TestEveryRefResolves walks the whole document and resolves each $ref.
func TestEveryRefResolves(t *testing.T) {
	doc := loadDoc(t)
	refs := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				refs++
				assert.NotNil(t, lookup(doc, ref), "$ref %s", ref)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	assert.Positive(t, refs)
}

// TestPathParametersAreIDs checks each {param} of a path is declared once, as a required id.
func TestPathParametersAreIDs(t *testing.T) {
	doc := loadDoc(t)
	for _, op := range docOperations(t, doc) {
		var want, got []string
		for _, seg := range strings.Split(op.Path, "/") {
			if strings.HasPrefix(seg, "{") {
				want = append(want, strings.Trim(seg, "{}"))
			}
		}
		params, _ := op.raw["parameters"].([]any)
		for _, p := range params {
			pm := p.(map[string]any)
			if pm["in"] != "path" {
				continue
			}
			got = append(got, pm["name"].(string))
			assert.Equal(t, true, pm["required"], "%s: path parameter %s is required", op.ID, pm["name"])
			assert.Equal(t, "#/components/schemas/Id", pm["schema"].(map[string]any)["$ref"], "%s: %s is an id", op.ID, pm["name"])
		}
		assert.Equal(t, want, got, "%s: path parameters", op.ID)
	}
}

func resolveRef(t *testing.T, doc, m map[string]any) map[string]any {
	t.Helper()
	ref, ok := m["$ref"].(string)
	if !ok {
		return m
	}
	v, ok := lookup(doc, ref).(map[string]any)
	require.True(t, ok, "$ref %s resolves to an object", ref)
	return v
}

// lookup resolves a local JSON pointer ("#/components/schemas/Task"), or returns nil.
func lookup(doc map[string]any, ref string) any {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = doc
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}

// TestTimeMembersSayTheirForm checks that every time member of a schema (a name ending in
// "At", or "since") says how it travels: epoch milliseconds as an integer or an ISO-8601
// string, because the platform mixes both and a client must not guess.
func TestTimeMembersSayTheirForm(t *testing.T) {
	doc := loadDoc(t)
	checked := 0
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for name, p := range props {
					pm, _ := p.(map[string]any)
					if (strings.HasSuffix(name, "At") || name == "since") && pm["$ref"] == nil && pm["anyOf"] == nil {
						checked++
						types := typeNames(pm["type"])
						switch pm["x-time"] {
						case "epoch-ms":
							assert.Contains(t, types, "integer", "%s.%s: epoch ms is an integer", where, name)
						case "iso-8601":
							assert.Contains(t, types, "string", "%s.%s: ISO-8601 is a string", where, name)
							assert.Equal(t, "date-time", pm["format"], "%s.%s: format", where, name)
						default:
							t.Errorf("%s.%s: x-time must be epoch-ms or iso-8601, is %v", where, name, pm["x-time"])
						}
					}
				}
			}
			for k, x := range v {
				walk(where+"/"+k, x)
			}
		case []any:
			for _, x := range v {
				walk(where, x)
			}
		}
	}
	walk("#", doc)
	assert.Greater(t, checked, 10, "time members found")
}

func typeNames(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}
