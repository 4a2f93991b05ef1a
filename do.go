package taskrouting

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Do sends any operation of the API, one this package models or one it
// does not yet, through the same path as every typed method: the client's
// credential, retries and backoff, an Idempotency-Key on every POST (yours
// with WithIdempotencyKey), the quota snapshot, middlewares, an *APIError
// for any answer outside 2xx (with the server's request id and the
// credential scrubbed from it), and the call options (WithResponseInto,
// WithHeader, WithJSONSet, ...).
//
// path is relative to the base URL, as api/openapi.json writes it, with
// ids already escaped (url.PathEscape) and an optional query:
// "/tasks/" + url.PathEscape(id) + "/escalate" or "/stats/sla?tag=english".
// body is encoded as JSON (a json.RawMessage or []byte is sent as it is);
// nil sends none. A 2xx answer is decoded into out when out is not nil
// (a *json.RawMessage keeps it undecoded). A path that is not relative, or
// has a dot segment, is a *ParamError and nothing is sent.
func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...RequestOption) error {
	return c.do(ctx, method, path, body, out, opts)
}

// Do sends any worker-plane operation with the worker's session, as
// Client.Do does on the workspace plane (no Idempotency-Key, no quota).
func (w *WorkerClient) Do(ctx context.Context, method, path string, body, out any, opts ...RequestOption) error {
	return w.c.do(ctx, method, path, body, out, opts)
}

// Do sends any supervisor-plane operation with the supervisor's session,
// as Client.Do does on the workspace plane.
func (s *SupervisorClient) Do(ctx context.Context, method, path string, body, out any, opts ...RequestOption) error {
	return s.c.do(ctx, method, path, body, out, opts)
}

func (c *Client) do(ctx context.Context, method, path string, body, out any, opts []RequestOption) error {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return &ParamError{Param: "method", Problem: "must be GET, POST, PUT, PATCH or DELETE"}
	}
	rawPath, rawQuery, _ := strings.Cut(path, "?")
	if !strings.HasPrefix(rawPath, "/") || strings.HasPrefix(rawPath, "//") {
		return &ParamError{Param: "path", Problem: "must be relative to the base URL and start with /"}
	}
	if strings.ContainsAny(rawPath, "#\r\n\t ") {
		return &ParamError{Param: "path", Problem: "must be escaped (url.PathEscape each id)"}
	}
	for _, seg := range strings.Split(rawPath[1:], "/") {
		if unescaped, err := url.PathUnescape(seg); err != nil {
			return &ParamError{Param: "path", Problem: "has a bad escape"}
		} else if unescaped == "." || unescaped == ".." {
			return &ParamError{Param: "path", Problem: "must not have a dot segment"}
		}
	}
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return &ParamError{Param: "path", Problem: "has a query that does not parse"}
	}
	switch b := body.(type) {
	case []byte:
		if b != nil {
			body = json.RawMessage(b)
		} else {
			body = nil
		}
	case json.RawMessage:
		if b == nil {
			body = nil
		}
	}
	if raw, ok := body.(json.RawMessage); ok && !json.Valid(raw) {
		return &ParamError{Param: "body", Problem: "is not valid JSON"}
	}
	return c.call(ctx, method, rawPath, query, body, out, opts)
}
