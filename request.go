package taskrouting

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hashicorp/go-retryablehttp"
)

// maxResponseBytes bounds how much of a response body is read, so a broken
// or hostile server cannot exhaust memory.
const maxResponseBytes = 16 << 20

// requestIDHeader names the id a server gives each answer; Response and
// APIError keep it.
const requestIDHeader = "X-Request-Id"

// ownedHeader reports the headers the client sets itself; WithHeader may
// not replace them.
func ownedHeader(canonical string) bool {
	switch canonical {
	case "Authorization", "Content-Type", "Accept", "Idempotency-Key", "User-Agent":
		return true
	}
	return false
}

// call is the one way a request leaves the client. It builds the URL from
// the base and an already-escaped path, sets auth and the owned headers,
// gives every POST an Idempotency-Key made once and reused on every retry,
// encodes in as JSON, runs the attempts through retryablehttp, records the
// quota headers, and decodes a 2xx body into out or maps anything else to an
// *APIError. in == nil sends no body; out == nil ignores the answer.
// On the worker plane (c.idempotencyKeys false, c.quota nil) the keys and
// the quota are left out and the bearer is the session token, read once per
// call (or pinned by the caller) so a concurrent Login or Logout cannot
// change it between attempts.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, in, out any, opts []RequestOption) error {
	if ctx == nil {
		return &ParamError{Param: "ctx", Problem: "must not be nil"}
	}
	cfg, err := c.callConfig(opts)
	if err != nil {
		return err
	}
	if cfg.idempotencyKey != "" && !c.idempotencyKeys {
		return &ParamError{Param: "WithIdempotencyKey", Problem: "the worker plane takes no idempotency keys"}
	}
	if c.beforeCall != nil && !cfg.bearerSet {
		c.beforeCall(ctx)
	}
	secret := cfg.bearer
	if !cfg.bearerSet {
		if secret = c.creds.bearer(); secret == "" {
			return ErrNotSignedIn
		}
	}

	var body []byte
	if wf, ok := in.(wireForm); ok {
		// Every secret of the parameters is scrubbed from an error that echoes it.
		cfg.redact = append(cfg.redact[:len(cfg.redact):len(cfg.redact)], secretsIn(wf)...)
		in = wf.wireBody() // its MarshalJSON redacts the secret the request must carry
	}
	if in != nil {
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("taskrouting: %s %s: encode request: %w", method, path, err)
		}
	}
	if len(cfg.jsonSet) > 0 {
		if body, err = applyJSONSets(method, body, cfg.jsonSet); err != nil {
			return fmt.Errorf("taskrouting: %s %s: %w", method, path, err)
		}
	}
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var rawBody any // a nil []byte inside an interface would still count as a body
	if body != nil {
		rawBody = body
	}
	callCtx, info := withCallInfo(ctx, method, path)
	req, err := retryablehttp.NewRequestWithContext(callCtx, method, target, rawBody)
	if err != nil {
		return fmt.Errorf("taskrouting: %s %s: build request: %w", method, path, err)
	}
	for name, values := range cfg.header {
		req.Header[name] = values
	}
	if secret != "" {
		req.Header["Authorization"] = []string{"Bearer " + secret}
	}
	req.Header["Accept"] = []string{"application/json"}
	req.Header["User-Agent"] = []string{c.userAgent}
	if body != nil {
		req.Header["Content-Type"] = []string{"application/json"}
	}
	if method == http.MethodPost && c.idempotencyKeys {
		key := cfg.idempotencyKey
		if key == "" {
			if key, err = newIdempotencyKey(); err != nil {
				return fmt.Errorf("taskrouting: %s %s: %w", method, path, err)
			}
		}
		req.Header["Idempotency-Key"] = []string{key}
	}

	run := c.newCallRun(cfg, method, path, info)
	run.repeatable = safeToRepeat(req.Request)
	resp, err := runMiddleware(cfg.middleware, req, run)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		} else if ctxErr == nil && run.reached && writeMethod(method) && !errors.Is(err, ErrCrossOriginRedirect) {
			// An attempt got to the server and no answer says what it did.
			err = fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
		}
		return fmt.Errorf("taskrouting: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if cfg.response != nil {
		*cfg.response = Response{
			StatusCode: resp.StatusCode,
			Header:     resp.Header,
			RequestID:  resp.Header.Get(requestIDHeader),
			Attempts:   run.attempts.attempt,
		}
	}
	var quota Quota
	if c.quota != nil {
		quota = c.quota.update(resp.Header)
	}

	// One byte past the cap tells a body of exactly the cap from a longer one.
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return fmt.Errorf("taskrouting: %s %s: read response: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// An oversized error body still yields the status (its envelope,
		// cut short, no longer parses: code unknown_error).
		return c.apiError(method, path, resp, raw, quota, append(cfg.redact, secret))
	}
	if len(raw) > maxResponseBytes {
		return fmt.Errorf("taskrouting: %s %s: %d answer: %w (the client reads %d bytes at most)",
			method, path, resp.StatusCode, ErrResponseTooLarge, maxResponseBytes)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent || len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := decodeAnswer(raw, out); err != nil {
		return fmt.Errorf("taskrouting: %s %s: decode %d response: %w", method, path, resp.StatusCode, err)
	}
	return nil
}

// apiError maps a non-2xx response. A body that is not the error envelope
// becomes code unknown_error with message "http <status>", as the platform's
// own SDKs do.
func (c *Client) apiError(method, path string, resp *http.Response, raw []byte, quota Quota, secrets []string) *APIError {
	e := &APIError{
		StatusCode: resp.StatusCode,
		Code:       CodeUnknownError,
		Message:    fmt.Sprintf("http %d", resp.StatusCode),
		Method:     method,
		Path:       path,
		Quota:      quota,
		RequestID:  resp.Header.Get(requestIDHeader),
	}
	var env struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &env) == nil && env.Error != nil && env.Error.Code != "" {
		e.Code = env.Error.Code
		e.Message = env.Error.Message
	}
	// A server that echoes the credential (or a PIN from the body) back
	// must not put it into an error string the caller will log.
	// Also quoted, escaped, in another case or cut short (redact.go).
	e.Message = redactSecrets(e.Message, secrets)
	e.Code = redactSecrets(e.Code, secrets)
	if wait, ok := c.retryAfter(resp); ok {
		e.RetryAfter = wait
	}
	return e
}

// callConfig is the client's config with a call's options applied on top.
func (c *Client) callConfig(opts []RequestOption) (config, error) {
	cfg := c.cfg
	cfg.perCall = true
	cfg.header = cfg.header.Clone() // a call's WithHeader must not reach the client's map
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return config{}, err
		}
	}
	if cfg.timeoutSet && cfg.timeout != cfg.httpClient.Timeout {
		hc := *cfg.httpClient
		hc.Timeout = cfg.timeout
		cfg.httpClient = &hc
	}
	return cfg, nil
}

// newIdempotencyKey returns a random version 4 UUID string.
func newIdempotencyKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate idempotency key: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:]), nil
}

// escapePath joins the path template's literal parts with escaped ids,
// e.g. escapePath("/tasks/", id, "/accept").
func escapePath(parts ...string) string {
	var sb strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			sb.WriteString(url.PathEscape(p))
		} else {
			sb.WriteString(p)
		}
	}
	return sb.String()
}
