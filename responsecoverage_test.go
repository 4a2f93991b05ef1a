package taskrouting

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
)

// uncoveredMembers lists the response members, by schema path, that no field of the Go type
// reads, each with the reason. A path is "<component>.<member>..." inside a named schema and
// "<operationId>.<member>..." in an inline one; "[]" steps into array items and "*" into
// map values. TestResponseTypesCoverTheContract fails on an unlisted member and on an entry
// that no longer matches anything, so the list only shrinks.
var uncoveredMembers = map[string]string{
	// Secrets the client keeps in its session and never hands back.
	"AcceptWorkerInviteResult.token": "the worker session token: WorkerClient keeps it",
	"JoinWorkspaceResult.token":      "the worker session token: WorkerClient keeps it",
	"WorkerSessionToken.token":       "the worker session token: WorkerClient keeps it",
	"SupervisorSession.token":        "the supervisor session token: SupervisorClient keeps it",
	"worker.refresh":                 "the new token and its expiry go into the session; Refresh reports whether it refreshed",
	// Envelope members of the answers a method unwraps to the list or object inside.
	"tasks.booking.candidates.count":   "the length of the returned slice",
	"tasks.bookings.count":             "the length of the returned slice",
	"tasks.recurring.list.count":       "the length of the returned slice",
	"tasks.booking.set.id":             "the task id the caller passed",
	"workers.timeCorrections.workerId": "the worker id the caller passed",
}

// TestResponseTypesCoverTheContract walks the 2xx response schema of every operation in
// api/openapi.json against the Go type its client method returns (the method whose doc names
// the operation on its "API:" line), through objects, arrays and maps. A member is covered
// when changing its value in an answer changes what the type decodes; Raw fields, which keep
// everything, do not count.
func TestResponseTypesCoverTheContract(t *testing.T) {
	spec := loadSpec(t)
	methods := apiMethods(t)
	used := map[string]bool{}
	var missing []string
	checked := 0
	for _, m := range methods {
		op, ok := spec.ops[m.op]
		if !ok {
			continue // TestClientMethodsMatchTheContract (api package) holds the API lines to the document
		}
		if op.schema == nil {
			continue // no JSON body on success
		}
		if m.out == nil || m.out.Kind() < reflect.Array { // none, or a bool
			var leaves []string
			spec.gen(op.schema, m.op, "", &leaves, 0)
			if len(leaves) == 0 {
				continue // nothing but constants
			}
			if _, ok := uncoveredMembers[m.op]; ok {
				used[m.op] = true
				continue
			}
			missing = append(missing, fmt.Sprintf("%s: %s returns no value for a JSON answer", m.op, m.where))
			continue
		}
		checked++
		for _, p := range spec.uncovered(t, m, op) {
			if key := allowed(p); key != "" {
				used[key] = true
				continue
			}
			missing = append(missing, fmt.Sprintf("%s (%s, %s returns %s)", p, m.op, m.where, m.out))
		}
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	for _, p := range missing {
		t.Errorf("response member without a field: %s", p)
	}
	for p := range uncoveredMembers {
		if !used[p] {
			t.Errorf("uncoveredMembers lists %q, which every type now covers (or no schema has)", p)
		}
	}
	require.Greater(t, checked, 100, "client methods checked")
}

// allowed is the uncoveredMembers entry for schema path p (the path or a parent), or "".
func allowed(p string) string {
	for key := p; ; {
		if _, ok := uncoveredMembers[key]; ok {
			return key
		}
		i := strings.LastIndexAny(key, ".[*")
		if i <= 0 {
			return ""
		}
		key = key[:i]
	}
}

// apiMethod is a client method and the operation its doc names.
type apiMethod struct {
	op, where string
	out       reflect.Type // the decoded answer's type; nil when the method returns none
}

var apiDocLine = regexp.MustCompile(`^API: ([A-Za-z0-9_.]+), [A-Z]+ /\S*$`)

// apiMethods finds the methods with an "API:" doc line and, by reflection on the client
// types, what each returns. A method returning an iterator is checked by its element type
// only when no other method claims the operation.
func apiMethods(t *testing.T) []apiMethod {
	t.Helper()
	recv := clientTypes()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var out, iters []apiMethod
	claimed := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || fn.Recv == nil {
				continue
			}
			for _, c := range fn.Doc.List {
				sub := apiDocLine.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")))
				if sub == nil {
					continue
				}
				rt := recv[receiverName(fn)]
				require.NotNil(t, rt, "receiver of %s is not reachable from Client, WorkerClient or SupervisorClient", fn.Name.Name)
				meth, ok := rt.MethodByName(fn.Name.Name)
				require.True(t, ok, "%s.%s", rt, fn.Name.Name)
				m := apiMethod{op: sub[1], where: rt.Elem().Name() + "." + fn.Name.Name}
				if n := meth.Type.NumOut(); n == 2 || (n == 1 && meth.Type.Out(0).Kind() == reflect.Func) {
					m.out = meth.Type.Out(0)
				}
				if m.out != nil && m.out.Kind() == reflect.Func { // iter.Seq2[T, error]
					m.out = m.out.In(0).In(0)
					iters = append(iters, m)
					continue
				}
				claimed[m.op] = true
				out = append(out, m)
			}
		}
	}
	for _, m := range iters {
		if !claimed[m.op] {
			out = append(out, m)
		}
	}
	return out
}

func receiverName(fn *ast.FuncDecl) string {
	e := fn.Recv.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// clientTypes maps the name of every client and service type to its pointer type, found by
// walking the fields of the three clients.
func clientTypes() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	queue := []reflect.Type{reflect.TypeOf(&Client{}), reflect.TypeOf(&WorkerClient{}), reflect.TypeOf(&SupervisorClient{})}
	pkg := queue[0].Elem().PkgPath()
	for len(queue) > 0 {
		pt := queue[0]
		queue = queue[1:]
		if _, seen := out[pt.Elem().Name()]; seen {
			continue
		}
		out[pt.Elem().Name()] = pt
		for i := range pt.Elem().NumField() {
			ft := pt.Elem().Field(i).Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct && ft.Elem().PkgPath() == pkg &&
				(strings.HasSuffix(ft.Elem().Name(), "Service") || strings.HasSuffix(ft.Elem().Name(), "Client")) {
				queue = append(queue, ft)
			}
		}
	}
	return out
}

// spec is the part of api/openapi.json the coverage walk reads.
type spec struct {
	doc map[string]any
	ops map[string]specOp
}

type specOp struct {
	schema map[string]any // the first 2xx JSON response schema; nil without one
}

func loadSpec(t *testing.T) *spec {
	t.Helper()
	s := &spec{ops: map[string]specOp{}}
	require.NoError(t, json.Unmarshal(api.OpenAPI(), &s.doc))
	paths, _ := s.doc["paths"].(map[string]any)
	for _, item := range paths {
		for _, v := range item.(map[string]any) {
			op, ok := v.(map[string]any)
			if !ok || op["operationId"] == nil {
				continue
			}
			id := op["operationId"].(string)
			responses, _ := op["responses"].(map[string]any)
			codes := make([]string, 0, len(responses))
			for code := range responses {
				codes = append(codes, code)
			}
			sort.Strings(codes)
			var schema map[string]any
			for _, code := range codes {
				if !strings.HasPrefix(code, "2") {
					continue
				}
				r, _ := s.resolve(responses[code].(map[string]any))
				content, _ := r["content"].(map[string]any)
				if j, ok := content["application/json"].(map[string]any); ok {
					schema, _ = j["schema"].(map[string]any)
					break
				}
			}
			s.ops[id] = specOp{schema: schema}
		}
	}
	return s
}

// resolve follows $ref; the name is the component's when there was one.
func (s *spec) resolve(sch map[string]any) (map[string]any, string) {
	name := ""
	for {
		ref, ok := sch["$ref"].(string)
		if !ok {
			return sch, name
		}
		parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
		var cur any = s.doc
		for _, p := range parts {
			cur = cur.(map[string]any)[p]
		}
		sch, name = cur.(map[string]any), parts[len(parts)-1]
	}
}

// shape narrows a schema to what an answer carries: the first non-null alternative of
// anyOf/oneOf and of a type list, allOf merged.
func (s *spec) shape(sch map[string]any) (map[string]any, string) {
	sch, name := s.resolve(sch)
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := sch[k].([]any); ok {
			for _, a := range alts {
				r, n := s.resolve(a.(map[string]any))
				if r["type"] != "null" {
					if n == "" {
						n = name
					}
					r, _ = s.shape(r)
					return r, n
				}
			}
		}
	}
	if parts, ok := sch["allOf"].([]any); ok {
		merged := map[string]any{"type": "object", "properties": map[string]any{}}
		for _, p := range parts {
			r, _ := s.shape(p.(map[string]any))
			for k, v := range props(r) {
				merged["properties"].(map[string]any)[k] = v
			}
		}
		return merged, name
	}
	return sch, name
}

func props(sch map[string]any) map[string]any {
	p, _ := sch["properties"].(map[string]any)
	return p
}

func typeOf(sch map[string]any) string {
	switch v := sch["type"].(type) {
	case string:
		return v
	case []any:
		for _, x := range v {
			if x != "null" {
				return x.(string)
			}
		}
	}
	if props(sch) != nil {
		return "object"
	}
	return ""
}

// gen writes an answer for sch with every member present; the member at flip (a schema
// path) takes its second value. It also lists the leaves it wrote.
func (s *spec) gen(sch map[string]any, path string, flip string, leaves *[]string, depth int) any {
	sch, name := s.shape(sch)
	if name != "" {
		path = name
	}
	second := path == flip
	if _, ok := sch["const"]; ok {
		return sch["const"] // a constant carries nothing to read
	}
	if len(sch) == 0 || (typeOf(sch) == "" && sch["enum"] == nil) {
		return nil // any value: the schema says nothing to check a field against
	}
	if typeOf(sch) == "string" && sch["format"] == nil && isTimeName(path) {
		sch = map[string]any{"type": "string", "format": "date-time"}
	}
	switch typeOf(sch) {
	case "object":
		p := props(sch)
		addl, _ := sch["additionalProperties"].(map[string]any)
		if len(p) == 0 && addl == nil {
			*leaves = append(*leaves, path)
			if second {
				return map[string]any{"k": 2}
			}
			return map[string]any{"k": 1}
		}
		out := map[string]any{}
		if depth > 8 {
			return out
		}
		for k, v := range p {
			out[k] = s.gen(v.(map[string]any), path+"."+k, flip, leaves, depth+1)
		}
		if addl != nil && len(p) == 0 {
			out["k1"] = s.gen(addl, path+".*", flip, leaves, depth+1)
		}
		return out
	case "array":
		items, _ := sch["items"].(map[string]any)
		if len(items) == 0 {
			*leaves = append(*leaves, path)
			if second {
				return []any{2}
			}
			return []any{1}
		}
		return []any{s.gen(items, path+"[]", flip, leaves, depth+1)}
	}
	*leaves = append(*leaves, path)
	return leafValue(sch, second)
}

// isTimeName tells a string member that carries a point in time by its name, for the schemas
// that leave the format out.
func isTimeName(path string) bool {
	name := path[strings.LastIndexAny(path, ".]*")+1:]
	return name == "from" || name == "to" || name == "since" || name == "bucketStart" || strings.HasSuffix(name, "At")
}

// leafValue is a scalar of sch's type, the first or the second of two distinct values.
func leafValue(sch map[string]any, second bool) any {
	pick := func(a, b any) any {
		if second {
			return b
		}
		return a
	}
	if enum, ok := sch["enum"].([]any); ok && len(enum) > 0 {
		if len(enum) > 1 {
			return pick(enum[0], enum[1])
		}
		return pick(enum[0], fmt.Sprint(enum[0], "-other"))
	}
	switch typeOf(sch) {
	case "string":
		switch {
		case sch["format"] == "date-time" || sch["x-time"] == "iso-8601":
			return pick("2025-11-21T04:40:00.000Z", "2025-11-21T04:41:00.000Z")
		case sch["format"] == "date" || strings.Contains(fmt.Sprint(sch["description"]), "YYYY-MM-DD"):
			return pick("2025-11-21", "2025-11-22")
		}
		return pick("s1", "s2")
	case "integer":
		if sch["x-time"] == "epoch-ms" {
			return pick(1763700000000, 1763700060000)
		}
		return pick(1, 2)
	case "number":
		return pick(1.5, 2.5)
	case "boolean":
		return pick(false, true)
	}
	return nil
}

// uncovered lists the schema paths of op's answer that m's type does not read. A method may
// unwrap one member of the answer's envelope ({"comment": {...}} answered as a *Comment): of
// the answer itself and each of its members, the reading that leaves the least uncovered is
// the method's; the other envelope members count as uncovered.
func (s *spec) uncovered(t *testing.T, m apiMethod, op specOp) []string {
	t.Helper()
	target := m.out
	if target.Kind() == reflect.Pointer {
		target = target.Elem()
	}
	best, ok := s.uncoveredAs(t, target, op.schema, m.op, nil)
	sch, _ := s.shape(op.schema)
	if typeOf(sch) != "object" {
		return best
	}
	names := make([]string, 0, len(props(sch)))
	for name := range props(sch) {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var rest []string
		for _, other := range names {
			if other != name {
				rest = append(rest, m.op+"."+other)
			}
		}
		member := props(sch)[name].(map[string]any)
		if r, _ := s.shape(member); typeOf(r) != "object" && typeOf(r) != "array" {
			continue
		}
		if got, fits := s.uncoveredAs(t, target, member, m.op+"."+name, rest); fits && (!ok || len(got) < len(best)) {
			best, ok = got, true
		}
	}
	return best
}

// uncoveredAs lists what target leaves unread of an answer of schema sch, plus envelope; ok
// is false when target cannot decode such an answer at all.
func (s *spec) uncoveredAs(t *testing.T, target reflect.Type, sch map[string]any, root string, envelope []string) (_ []string, ok bool) {
	t.Helper()
	var leaves []string
	base := s.gen(sch, root, "", &leaves, 0)
	decode := func(v any) (reflect.Value, error) {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out := reflect.New(target)
		return out, json.Unmarshal(b, out.Interface())
	}
	got, err := decode(base)
	if err != nil {
		return []string{root + " (cannot decode: " + err.Error() + ")"}, false
	}
	var out []string
	for _, p := range leaves {
		var ignored []string
		flipped, err := decode(s.gen(sch, root, p, &ignored, 0))
		if err != nil {
			continue // the type reads the member (and refused the second value)
		}
		if cmp.Equal(got.Interface(), flipped.Interface(), ignoreRawFields, cmp.Exporter(func(reflect.Type) bool { return true })) {
			out = append(out, p)
		}
	}
	return append(collapse(out, leaves), envelope...), true
}

// ignoreRawFields leaves out the fields that keep an answer as received.
var ignoreRawFields = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && sf.Name() == "Raw"
}, cmp.Ignore())

// collapse reports an object whose leaves are all uncovered as the object itself.
func collapse(uncovered, leaves []string) []string {
	bad := map[string]bool{}
	for _, p := range uncovered {
		bad[p] = true
	}
	var out []string
	for _, p := range uncovered {
		parent := p
		for {
			i := strings.LastIndexAny(parent, ".[*")
			if i <= 0 {
				break
			}
			next := strings.TrimSuffix(parent[:i], "[")
			all := true
			for _, l := range leaves {
				if strings.HasPrefix(l, next+".") || strings.HasPrefix(l, next+"[") {
					if !bad[l] {
						all = false
						break
					}
				}
			}
			if !all || !strings.Contains(next, ".") || strings.HasPrefix(p, next+".") && !strings.ContainsAny(next, "[*") && strings.Count(next, ".") == 0 {
				break
			}
			parent = next
		}
		out = append(out, parent)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
