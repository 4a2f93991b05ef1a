package taskrouting

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

// TestEverySentinelMatchesOnlyItsError: each status sentinel matches an APIError of its
// status (ErrServer: every 5xx) and each code sentinel one of its code, and no sentinel
// matches another's error.
func TestEverySentinelMatchesOnlyItsError(t *testing.T) {
	type match struct {
		sentinel error
		err      *APIError
	}
	matches := []match{
		{ErrValidation, &APIError{StatusCode: http.StatusBadRequest}},
		{ErrUnauthorized, &APIError{StatusCode: http.StatusUnauthorized}},
		{ErrPlanLimit, &APIError{StatusCode: http.StatusPaymentRequired}},
		{ErrForbidden, &APIError{StatusCode: http.StatusForbidden}},
		{ErrNotFound, &APIError{StatusCode: http.StatusNotFound}},
		{ErrConflict, &APIError{StatusCode: http.StatusConflict}},
		{ErrPayloadTooLarge, &APIError{StatusCode: http.StatusRequestEntityTooLarge}},
		{ErrRateLimited, &APIError{StatusCode: http.StatusTooManyRequests}},
		{ErrServer, &APIError{StatusCode: http.StatusInternalServerError}},
		{ErrServer, &APIError{StatusCode: http.StatusServiceUnavailable}},
		{ErrTaskExists, &APIError{StatusCode: 200, Code: CodeTaskExists}},
		{ErrBacklogFull, &APIError{StatusCode: 200, Code: CodeWorkerBacklogFull}},
		{ErrInvalidState, &APIError{StatusCode: 200, Code: CodeInvalidState}},
		{ErrIdempotencyKey, &APIError{StatusCode: 200, Code: CodeIdempotencyConflict}},
		{ErrInvalidCredentials, &APIError{StatusCode: 200, Code: CodeInvalidCredentials}},
		{ErrBreakAlreadyOpen, &APIError{StatusCode: 200, Code: CodeBreakAlreadyOpen}},
		{ErrInvalidToken, &APIError{StatusCode: 200, Code: CodeInvalidToken}},
		{ErrInvalidCurrentPIN, &APIError{StatusCode: 200, Code: CodeInvalidCurrentPIN}},
		{ErrApprovalPending, &APIError{StatusCode: 200, Code: CodeApprovalPending}},
		{ErrAssignBlocked, &APIError{StatusCode: 200, Code: CodeAssignBlocked}},
		{ErrVoiceDisabled, &APIError{StatusCode: 200, Code: CodeVoiceDisabled}},
	}
	for _, m := range matches {
		for _, other := range matches {
			want := m.sentinel == other.sentinel
			name := fmt.Sprintf("%v of status %d code %q", other.sentinel, m.err.StatusCode, m.err.Code)
			if got := errors.Is(m.err, other.sentinel); got != want {
				t.Errorf("errors.Is(%s) = %t, want %t", name, got, want)
			}
		}
	}
	if errors.Is(&APIError{StatusCode: 499}, ErrServer) {
		t.Error("a 499 matches ErrServer")
	}
	if errors.Is(&APIError{StatusCode: 500}, errors.New("other")) {
		t.Error("an APIError matches an error that is not a sentinel")
	}
}
