package contract

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// miniDoc is a small OpenAPI 3.1 document in the shape of api/openapi.json: a base path,
// shared components, a literal path beside a parameter, query parameters and an alias.
const miniDoc = `{
  "openapi": "3.1.0",
  "servers": [{"url": "https://api.example.test/v1"}],
  "paths": {
    "/tasks": {
      "post": {
        "operationId": "tasks.create",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateTask"}}}},
        "responses": {
          "201": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Task"}}}},
          "default": {"$ref": "#/components/responses/Error"}
        }
      },
      "get": {
        "operationId": "tasks.list",
        "parameters": [
          {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
          {"name": "status", "in": "query", "schema": {"type": "string", "enum": ["queued", "done"]}}
        ],
        "responses": {"200": {"content": {"application/json": {"schema": {"type": "object", "required": ["data"]}}}}}
      }
    },
    "/tasks/{id}": {
      "patch": {
        "operationId": "tasks.update",
        "x-operation-aliases": ["tasks.setPriority"],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "additionalProperties": false, "properties": {"priority": {"type": "integer"}}}}}},
        "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Task"}}}}}
      },
      "delete": {"operationId": "tasks.cancel", "responses": {"204": {"description": "gone"}}}
    },
    "/tasks/suggest-workers": {
      "post": {"operationId": "tasks.suggestWorkers", "responses": {"200": {"description": "ok"}}}
    }
  },
  "components": {
    "schemas": {
      "CreateTask": {
        "type": "object", "additionalProperties": false, "required": ["tags"],
        "properties": {
          "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "minLength": 1, "maxLength": 4}},
          "priority": {"type": "integer", "minimum": -10, "maximum": 10},
          "title": {"type": ["string", "null"]}
        }
      },
      "Task": {
        "type": "object", "required": ["id", "createdAt"],
        "properties": {"id": {"type": "string"}, "createdAt": {"type": "integer"}}
      }
    },
    "responses": {
      "Error": {"content": {"application/json": {"schema": {"type": "object", "required": ["error"]}}}}
    }
  }
}`

func compileMini(t *testing.T) *Contract {
	t.Helper()
	c, err := Compile([]byte(miniDoc))
	require.NoError(t, err)
	return c
}

func TestOperationMatchesMethodAndPath(t *testing.T) {
	c := compileMini(t)
	cases := []struct {
		method, path, want string
	}{
		{"POST", "/v1/tasks", "tasks.create"},
		{"POST", "/tasks", "tasks.create"},
		{"GET", "/v1/tasks", "tasks.list"},
		{"PATCH", "/v1/tasks/task_1", "tasks.update"},
		{"POST", "/v1/tasks/suggest-workers", "tasks.suggestWorkers"},
		{"DELETE", "/v1/tasks/suggest-workers", "tasks.cancel"},
		{"PUT", "/v1/tasks", ""},
		{"GET", "/v1/tasks/a/b", ""},
		{"PATCH", "/v1/tasks/", ""},
	}
	for _, tc := range cases {
		got, ok := c.Operation(tc.method, tc.path)
		assert.Equal(t, tc.want, got, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.want != "", ok, "%s %s", tc.method, tc.path)
	}
	r, ok := c.Lookup("tasks.setPriority")
	require.True(t, ok)
	assert.Equal(t, Route{ID: "tasks.update", Method: "PATCH", Path: "/tasks/{id}", HasBody: true}, r)
	r, ok = c.Lookup("tasks.list")
	require.True(t, ok)
	assert.Equal(t, Route{ID: "tasks.list", Method: "GET", Path: "/tasks", Query: []string{"limit", "status"}}, r)
	assert.Equal(t, []string{"tasks.cancel", "tasks.create", "tasks.list", "tasks.setPriority", "tasks.suggestWorkers", "tasks.update"}, c.Operations())
}

func TestValidateRequestNamesMembersAsThePlatform(t *testing.T) {
	c := compileMini(t)
	cases := []struct {
		name  string
		op    string
		query url.Values
		body  string
		want  []string // nil: valid
	}{
		{name: "valid create", op: "tasks.create", body: `{"tags":["a"],"priority":3,"title":null}`},
		{name: "empty tags", op: "tasks.create", body: `{"tags":[]}`, want: []string{"body/tags must NOT have fewer than 1 items"}},
		{name: "unknown member", op: "tasks.create", body: `{"tags":["a"],"meta":{}}`, want: []string{"body must NOT have additional properties"}},
		{name: "missing tags", op: "tasks.create", body: `{}`, want: []string{"body must have required property 'tags'"}},
		{name: "several problems sorted", op: "tasks.create", body: `{"tags":["","toolong"],"priority":11}`, want: []string{
			"body/priority must be <= 10",
			"body/tags/0 must NOT have fewer than 1 characters",
			"body/tags/1 must NOT have more than 4 characters",
		}},
		{name: "wrong types", op: "tasks.create", body: `{"tags":"a","title":1}`, want: []string{"body/tags must be array", "body/title must be string,null"}},
		{name: "fraction for integer", op: "tasks.create", body: `{"tags":["a"],"priority":1.5}`, want: []string{"body/priority must be integer"}},
		{name: "no body when required", op: "tasks.create", want: []string{"body must be object"}},
		{name: "not JSON", op: "tasks.create", body: `{"tags":`, want: []string{"body must be valid JSON"}},
		{name: "query ok", op: "tasks.list", query: url.Values{"limit": {"5"}, "status": {"done"}}},
		{name: "query parameter the operation lacks", op: "tasks.list", query: url.Values{"limit": {"5"}, "other": {"x"}}, want: []string{"querystring must NOT have additional property 'other'"}},
		{name: "query limit high", op: "tasks.list", query: url.Values{"limit": {"500"}}, want: []string{"querystring/limit must be <= 100"}},
		{name: "query limit not a number", op: "tasks.list", query: url.Values{"limit": {"ten"}}, want: []string{"querystring/limit must be integer"}},
		{name: "query enum", op: "tasks.list", query: url.Values{"status": {"lost"}}, want: []string{"querystring/status must be equal to one of the allowed values"}},
		{name: "alias validates as its operation", op: "tasks.setPriority", body: `{"priority":1,"tags":[]}`, want: []string{"body must NOT have additional properties"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			err := c.ValidateRequest(tc.op, tc.query, body)
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			if diff := cmp.Diff(tc.want, ve.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateResponse(t *testing.T) {
	c := compileMini(t)
	cases := []struct {
		name   string
		op     string
		status int
		body   string
		want   string // "" : valid
	}{
		{name: "declared answer", op: "tasks.create", status: 201, body: `{"id":"t1","createdAt":1}`},
		{name: "drifted time", op: "tasks.create", status: 201, body: `{"id":"t1","createdAt":"2026-01-01T00:00:00Z"}`, want: "response/createdAt must be integer"},
		{name: "missing member", op: "tasks.create", status: 201, body: `{"createdAt":1}`, want: "response must have required property 'id'"},
		{name: "error by default", op: "tasks.create", status: 422, body: `{"error":{"code":"validation_failed","message":"m"}}`},
		{name: "undeclared success", op: "tasks.list", status: 201, body: `{}`, want: "response status 201 is not declared"},
		{name: "undeclared error with envelope", op: "tasks.list", status: 503, body: `{"error":{"code":"unavailable","message":"m"}}`},
		{name: "undeclared error without envelope", op: "tasks.list", status: 503, body: `{"oops":1}`, want: "response must be an error envelope {error:{code,message}}"},
		{name: "no body declared", op: "tasks.cancel", status: 204},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.ValidateResponse(tc.op, tc.status, []byte(tc.body))
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

func TestUnknownOperation(t *testing.T) {
	c := compileMini(t)
	var unknown *UnknownOperationError
	assert.ErrorAs(t, c.ValidateRequest("tasks.nope", nil, nil), &unknown)
	assert.ErrorAs(t, c.ValidateResponse("tasks.nope", 200, nil), &unknown)
}

func TestCompileRefusesBadDocuments(t *testing.T) {
	for name, doc := range map[string]string{
		"not JSON":          `{`,
		"not an object":     `[]`,
		"no operation id":   `{"paths":{"/x":{"get":{"responses":{}}}}}`,
		"duplicate id":      `{"paths":{"/x":{"get":{"operationId":"a"},"post":{"operationId":"a"}}}}`,
		"broken schema ref": `{"paths":{"/x":{"post":{"operationId":"a","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Nope"}}}}}}}}`,
	} {
		_, err := Compile([]byte(doc))
		assert.Error(t, err, name)
	}
}

func TestPointerTokens(t *testing.T) {
	for _, tc := range []struct{ raw, escaped string }{
		{"", ""},
		{"status", "status"},
		{"a/b", "a~1b"},
		{"a~b", "a~0b"},
		{"~1", "~01"},
		{"/~", "~1~0"},
		{"~0/", "~00~1"},
	} {
		if got := escapeToken(tc.raw); got != tc.escaped {
			t.Errorf("escapeToken(%q) = %q, want %q", tc.raw, got, tc.escaped)
		}
		if got := unescapeToken(tc.escaped); got != tc.raw {
			t.Errorf("unescapeToken(%q) = %q, want %q", tc.escaped, got, tc.raw)
		}
	}
}
