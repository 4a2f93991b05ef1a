package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Error codes the server answers with, in the envelope {"error":{"code":..,"message":..}}
// (docs/contract.md section 3).
const (
	CodeValidationFailed    = "validation_failed"
	CodeInvalidBody         = "invalid_body"
	CodeUnauthorized        = "unauthorized"
	CodePlanLimitExceeded   = "plan_limit_exceeded"
	CodeNotFound            = "not_found"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodeTaskExists          = "task_exists"
	CodeWorkerBacklogFull   = "worker_backlog_full"
	CodeInvalidState        = "invalid_state"
	CodeIdempotencyConflict = "idempotency_conflict"
	CodePayloadTooLarge     = "payload_too_large"
	CodeUnsupportedMedia    = "unsupported_media_type"
	CodeRateLimited         = "rate_limited"
	CodeInternalError       = "internal_error"
	CodeServiceUnavailable  = "service_unavailable"
)

// apiError is an answer other than success, decided anywhere in the request path. It carries
// no request data beyond what the caller sent, never a key or a secret.
type apiError struct {
	status     int
	code       string
	message    string
	retryAfter int // seconds; sent as Retry-After when > 0
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func validationf(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, CodeValidationFailed, format, args...)
}

func invalidBodyf(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, CodeInvalidBody, format, args...)
}

func notFoundf(format string, args ...any) *apiError {
	return errorf(http.StatusNotFound, CodeNotFound, format, args...)
}

func conflictf(code, format string, args ...any) *apiError {
	return errorf(http.StatusConflict, code, format, args...)
}

type errorEnvelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// encodeError renders the platform's error envelope. HTML escaping is off so messages such
// as "must be <= 100" read as written.
func encodeError(e *apiError) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(errorEnvelope{Error: errorBody{Code: e.code, Message: e.message}})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// codeForStatus names the code a fault answers with for a bare status.
func codeForStatus(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return CodeRateLimited
	case status == http.StatusServiceUnavailable:
		return CodeServiceUnavailable
	case status == http.StatusUnauthorized:
		return CodeUnauthorized
	case status == http.StatusNotFound:
		return CodeNotFound
	case status == http.StatusConflict:
		return CodeInvalidState
	case status == http.StatusPaymentRequired:
		return CodePlanLimitExceeded
	case status >= 500:
		return CodeInternalError
	default:
		return CodeInvalidBody
	}
}
