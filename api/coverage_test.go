package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/mockserver"
)

// apiLine is the doc comment convention of the client: "API: tasks.create, POST /tasks".
var apiLine = regexp.MustCompile(`^API: ([A-Za-z0-9_.]+), ([A-Z]+) (/\S*)$`)

// clientClaim is one API line found on a client method.
type clientClaim struct {
	ID, Method, Path string
	Where            string // file:line and function, for messages
}

// clientClaims scans the root package's doc comments for API lines.
func clientClaims(t *testing.T) []clientClaim {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir("..")
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join("..", name), nil, parser.ParseComments)
		require.NoError(t, err)
		if f.Name.Name == "taskrouting" {
			files = append(files, f)
		}
	}
	require.NotEmpty(t, files, "the root package's files")
	var claims []clientClaim
	for _, file := range files {
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil {
				continue
			}
			for _, c := range fn.Doc.List {
				text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
				if !strings.HasPrefix(text, "API:") {
					continue
				}
				where := fset.Position(c.Pos()).String() + " " + fn.Name.Name
				m := apiLine.FindStringSubmatch(text)
				if !assert.NotNil(t, m, "%s: malformed API line %q (want \"API: <operation id>, <METHOD> <path>\")", where, text) {
					continue
				}
				claims = append(claims, clientClaim{ID: m[1], Method: m[2], Path: m[3], Where: where})
			}
		}
	}
	require.NotEmpty(t, claims, "no API lines found in the root package")
	return claims
}

// TestCoverage compares the document's operations with what the Go client and the mock
// server implement. It fails when either claims an operation the document lacks, when an API
// line's method or path disagrees with the document, or when an operation's x-client or
// x-mock disagrees with the code; it logs, per plane, what each side has and what neither has.
func TestCoverage(t *testing.T) {
	doc := loadDoc(t)
	ops := docOperations(t, doc)
	byID := map[string]docOp{}
	for _, op := range ops {
		byID[op.ID] = op
	}

	client := map[string]bool{}
	for _, c := range clientClaims(t) {
		op, ok := byID[c.ID]
		if !assert.True(t, ok, "%s: the client claims %s, which api/openapi.json lacks", c.Where, c.ID) {
			continue
		}
		assert.Equal(t, op.Method+" "+op.Path, c.Method+" "+c.Path, "%s: %s's method and path", c.Where, c.ID)
		client[c.ID] = true
	}
	mock := map[string]bool{}
	for _, id := range mockserver.Operations() {
		assert.Contains(t, byID, id, "the mock server serves %s, which api/openapi.json lacks", id)
		mock[id] = true
	}

	for _, op := range ops {
		gotClient, gotMock := claimedStatus(op)
		assert.Equal(t, client[op.ID], gotClient, "%s: x-client says %v, the client code says %v", op.ID, gotClient, client[op.ID])
		assert.Equal(t, mock[op.ID], gotMock, "%s: x-mock says %v, mockserver.Operations says %v", op.ID, gotMock, mock[op.ID])
	}

	for _, plane := range []string{"workspace", "worker", "supervisor"} {
		var inClient, inMock, neither []string
		total := 0
		for _, op := range ops {
			if op.Plane != plane {
				continue
			}
			total++
			if client[op.ID] {
				inClient = append(inClient, op.ID)
			}
			if mock[op.ID] {
				inMock = append(inMock, op.ID)
			}
			if !client[op.ID] && !mock[op.ID] {
				neither = append(neither, op.ID)
			}
		}
		t.Logf("%s plane: %d operations; client %d, mock server %d, neither %d", plane, total, len(inClient), len(inMock), len(neither))
		t.Logf("  client: %s", strings.Join(inClient, " "))
		t.Logf("  mock server: %s", strings.Join(inMock, " "))
		t.Logf("  neither: %s", strings.Join(neither, " "))
	}
}

// TestEveryOperationIsServed holds the repository to full parity with the platform's
// catalogue: every operation of api/openapi.json, on every plane, has a client method and a
// mock server route. (TestCoverage keeps the flags true to the code; this one keeps them all
// true.)
func TestEveryOperationIsServed(t *testing.T) {
	ops := docOperations(t, loadDoc(t))
	require.GreaterOrEqual(t, len(ops), 167, "the platform's catalogue has 167 operations")
	served := map[string]bool{}
	for _, id := range mockserver.Operations() {
		served[id] = true
	}
	clientHas := map[string]bool{}
	for _, cl := range clientClaims(t) {
		clientHas[cl.ID] = true
	}
	for _, op := range ops {
		assert.True(t, clientHas[op.ID], "%s (%s %s): no client method", op.ID, op.Method, op.Path)
		assert.True(t, served[op.ID], "%s (%s %s): not served by the mock server", op.ID, op.Method, op.Path)
	}
}

// claimedStatus reads x-client and x-mock for an operation id; an alias keeps its own pair
// under x-alias-status of the operation it shares.
func claimedStatus(op docOp) (client, mock bool) {
	if op.raw["operationId"] != op.ID {
		aliases, _ := op.raw["x-alias-status"].(map[string]any)
		st, _ := aliases[op.ID].(map[string]any)
		client, _ = st["x-client"].(bool)
		mock, _ = st["x-mock"].(bool)
		return client, mock
	}
	client, _ = op.raw["x-client"].(bool)
	mock, _ = op.raw["x-mock"].(bool)
	return client, mock
}
