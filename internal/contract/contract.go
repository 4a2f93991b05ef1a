// Package contract checks requests and responses against the OpenAPI 3.1 description of the
// platform's /v1 (package api). Schemas are compiled once; a Contract is immutable and safe
// for concurrent use.
//
// Error messages name the member the way the platform's validation_failed answers do: the
// part of the request ("body", "querystring") and the JSON path inside it, then the broken
// rule, e.g. "body/tags must NOT have fewer than 1 items".
package contract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/taskrouting/taskrouting-go/api"
)

// docURL is the name the compiled document is registered under; $refs of the form
// "#/components/..." resolve against it.
const docURL = "mem:///openapi.json"

// Contract is a compiled OpenAPI document: its operations, their request schemas (body and
// query parameters) and their response schemas by status.
type Contract struct {
	root     map[string]any // the parsed document, for UndeclaredMembers
	basePath string
	ops      map[string]*operation // by operation id and by every alias
	ordered  []*operation          // in document order (paths sorted, methods in httpMethods order)
}

type operation struct {
	id        string
	aliases   []string
	method    string
	path      string   // template, e.g. /tasks/{id}
	segments  []string // path split on "/", the empty first segment dropped
	body      *jsonschema.Schema
	bodyFast  *fastSchema // nil unless the body's schema compiles to the fast walk
	bodyNeed  bool
	query     map[string]*queryParam
	queryNeed bool                          // a query parameter is required: an empty query has something to report
	responses map[string]*jsonschema.Schema // by "200", "2XX", "default"; nil value: no body
	// responseSchemas are the raw response schemas by the same keys, for UndeclaredMembers.
	responseSchemas map[string]map[string]any
}

type queryParam struct {
	schema   *jsonschema.Schema
	kind     string // the schema's JSON type, to read the string a URL carries
	required bool
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Compile reads an OpenAPI 3.1 document and compiles every schema it uses. Each operation
// needs an operationId; "x-operation-aliases" (a list of ids) names further operations that
// share its method and path.
func Compile(doc []byte) (*Contract, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("contract: parse document: %w", err)
	}
	root, ok := parsed.(map[string]any)
	if !ok {
		return nil, errors.New("contract: document is not a JSON object")
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	if err := comp.AddResource(docURL, parsed); err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	c := &Contract{root: root, basePath: basePath(root), ops: map[string]*operation{}}
	paths, _ := root["paths"].(map[string]any)
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	for _, p := range keys {
		item, _ := paths[p].(map[string]any)
		for _, m := range httpMethods {
			raw, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			op, err := compileOperation(comp, root, p, m, item, raw)
			if err != nil {
				return nil, err
			}
			for _, id := range append([]string{op.id}, op.aliases...) {
				if _, dup := c.ops[id]; dup {
					return nil, fmt.Errorf("contract: operation id %q is used twice", id)
				}
				c.ops[id] = op
			}
			c.ordered = append(c.ordered, op)
		}
	}
	return c, nil
}

func basePath(root map[string]any) string {
	servers, _ := root["servers"].([]any)
	if len(servers) == 0 {
		return ""
	}
	s, _ := servers[0].(map[string]any)
	raw, _ := s["url"].(string)
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}

// ptr builds the JSON pointer of a member of the document, escaping each token.
func ptr(tokens ...string) string {
	var b strings.Builder
	b.WriteString(docURL + "#")
	for _, t := range tokens {
		b.WriteString("/" + escapeToken(t))
	}
	return b.String()
}

func compileOperation(comp *jsonschema.Compiler, root map[string]any, path, method string, item, raw map[string]any) (*operation, error) {
	id, _ := raw["operationId"].(string)
	if id == "" {
		return nil, fmt.Errorf("contract: %s %s has no operationId", strings.ToUpper(method), path)
	}
	op := &operation{
		id:              id,
		method:          strings.ToUpper(method),
		path:            path,
		segments:        strings.Split(strings.TrimPrefix(path, "/"), "/"),
		query:           map[string]*queryParam{},
		responses:       map[string]*jsonschema.Schema{},
		responseSchemas: map[string]map[string]any{},
	}
	if aliases, ok := raw["x-operation-aliases"].([]any); ok {
		for _, a := range aliases {
			if s, ok := a.(string); ok {
				op.aliases = append(op.aliases, s)
			}
		}
	}
	fail := func(what string, err error) error {
		return fmt.Errorf("contract: %s: compile %s: %w", id, what, err)
	}
	// Parameters may sit on the path item and on the operation; the operation's win.
	params := map[string]string{} // name -> pointer
	for _, src := range []struct {
		list   any
		tokens []string
	}{{item["parameters"], []string{"paths", path, "parameters"}}, {raw["parameters"], []string{"paths", path, method, "parameters"}}} {
		list, _ := src.list.([]any)
		for i, p := range list {
			pm, tokens := resolve(root, p, append(slices.Clone(src.tokens), strconv.Itoa(i)))
			if pm["in"] != "query" {
				continue
			}
			name, _ := pm["name"].(string)
			params[name] = strings.Join(tokens, "\x00")
		}
	}
	for name, joined := range params {
		tokens := strings.Split(joined, "\x00")
		pm, _ := lookup(root, tokens).(map[string]any)
		sch, err := comp.Compile(ptr(append(tokens, "schema")...))
		if err != nil {
			return nil, fail("query parameter "+name, err)
		}
		schemaMap, _ := pm["schema"].(map[string]any)
		required, _ := pm["required"].(bool)
		op.query[name] = &queryParam{schema: sch, kind: jsonType(root, schemaMap), required: required}
		op.queryNeed = op.queryNeed || required
	}
	if rb, ok := raw["requestBody"].(map[string]any); ok {
		rbm, tokens := resolve(root, rb, []string{"paths", path, method, "requestBody"})
		if hasJSONSchema(rbm) {
			sch, err := comp.Compile(ptr(append(tokens, "content", "application/json", "schema")...))
			if err != nil {
				return nil, fail("request body", err)
			}
			op.body = sch
			op.bodyFast = compileFast(root, lookup(root, append(tokens, "content", "application/json", "schema")))
			op.bodyNeed, _ = rbm["required"].(bool)
		}
	}
	responses, _ := raw["responses"].(map[string]any)
	for status, r := range responses {
		rm, tokens := resolve(root, r, []string{"paths", path, method, "responses", status})
		if !hasJSONSchema(rm) {
			op.responses[strings.ToUpper(status)] = nil
			continue
		}
		sch, err := comp.Compile(ptr(append(tokens, "content", "application/json", "schema")...))
		if err != nil {
			return nil, fail("response "+status, err)
		}
		op.responses[strings.ToUpper(status)] = sch
		op.responseSchemas[strings.ToUpper(status)], _ = lookup(root, append(tokens, "content", "application/json", "schema")).(map[string]any)
	}
	return op, nil
}

func hasJSONSchema(m map[string]any) bool {
	content, _ := m["content"].(map[string]any)
	mt, _ := content["application/json"].(map[string]any)
	_, ok := mt["schema"]
	return ok
}

// resolve follows a local $ref (as parameters, request bodies and responses may use) and
// returns the object with the pointer tokens where it lives.
func resolve(root map[string]any, v any, tokens []string) (map[string]any, []string) {
	for range 8 {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, tokens
		}
		tokens = refTokens(ref)
		v = lookup(root, tokens)
	}
	return nil, tokens
}

// escapeToken escapes one JSON pointer token (RFC 6901): "~" first, then "/". Most tokens
// hold neither and come back as they are, without the cost of building a strings.Replacer
// (this runs for every member of every answer the mock server checks).
func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// unescapeToken reverses escapeToken: "~1" first, then "~0".
func unescapeToken(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

func refTokens(ref string) []string {
	frag := strings.TrimPrefix(ref, "#/")
	parts := strings.Split(frag, "/")
	for i, p := range parts {
		parts[i] = unescapeToken(p)
	}
	return parts
}

func lookup(root map[string]any, tokens []string) any {
	var v any = root
	for _, t := range tokens {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// jsonType is the first non-null type a parameter's schema declares (through one $ref).
func jsonType(root map[string]any, schema map[string]any) string {
	schema, _ = resolve(root, schema, nil)
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

// Operation names the operation a request reaches: its method and its path, with or
// without the document's base path (/v1), path parameters filled in. A path matching a
// literal segment wins over a parameter (/tasks/suggest-workers is not /tasks/{id}).
func (c *Contract) Operation(method, path string) (opID string, ok bool) {
	op := c.match(method, path)
	if op == nil {
		return "", false
	}
	return op.id, true
}

func (c *Contract) match(method, path string) *operation {
	if c.basePath != "" {
		if rest, ok := strings.CutPrefix(path, c.basePath+"/"); ok {
			path = "/" + rest
		}
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var best *operation
	bestLiterals := -1
	for _, op := range c.ordered {
		if op.method != method || len(op.segments) != len(segs) {
			continue
		}
		literals, ok := 0, true
		for i, s := range op.segments {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && segs[i] != "" {
				continue
			}
			if s != segs[i] {
				ok = false
				break
			}
			literals++
		}
		if ok && literals > bestLiterals {
			best, bestLiterals = op, literals
		}
	}
	return best
}

// Route is an operation's method and path template as the document states them, with the
// names of its query parameters (sorted) and whether it takes a request body.
type Route struct {
	ID      string
	Method  string
	Path    string
	Query   []string
	HasBody bool
}

// Lookup returns the method and path of an operation (by id or alias).
func (c *Contract) Lookup(opID string) (Route, bool) {
	op, ok := c.ops[opID]
	if !ok {
		return Route{}, false
	}
	var query []string // nil: the operation takes no query parameter
	for name := range op.query {
		query = append(query, name)
	}
	slices.Sort(query)
	return Route{ID: op.id, Method: op.method, Path: op.path, Query: query, HasBody: op.body != nil}, true
}

// Operations lists every operation id and alias of the document, sorted.
func (c *Contract) Operations() []string {
	ids := make([]string, 0, len(c.ops))
	for id := range c.ops {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// DecodeJSON decodes a body the way the validators expect it (numbers kept exact), so a
// caller that validates and then reads the value decodes it once.
func DecodeJSON(body []byte) (any, error) {
	if v, ok := parsePlain(body); ok {
		return v, nil
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(body))
}

// defaultContract compiles api.OpenAPI() on first use; the result is immutable, so every
// caller shares it (a mock server made per test must not pay for a compile each time).
var defaultContract = sync.OnceValues(func() (*Contract, error) { return Compile(api.OpenAPI()) })

// Default returns the compiled contract of package api's OpenAPI document.
func Default() (*Contract, error) { return defaultContract() }
