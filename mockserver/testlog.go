package mockserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// WithTestLogger reports through t.Logf each webhook delivery attempt the receiver refused
// (any answer outside 2xx) or that failed to reach it: the event, the attempt, the status
// and the first line of the receiver's answer, and for 400 and 401 what usually causes them
// (a wrong signing secret, or a verifier not given the manual clock). A test whose receiver
// sees nothing then says why, instead of only "0 completions". Start sets it for its t; pass
// WithTestLogger(nil) to Start to turn it off, e.g. in a test that refuses deliveries on
// purpose. The lines are written with t.Logf, so go test shows them for a failing test, or
// with -v.
func WithTestLogger(t testing.TB) Option {
	return func(cfg *config) { cfg.testLog = t }
}

// reasonBytes bounds how much of a refusing receiver's answer is kept.
const reasonBytes = 200

// firstLine is the receiver's answer as a one-line reason, at most reasonBytes long.
func firstLine(body []byte) string {
	s := string(body)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > reasonBytes {
		s = s[:reasonBytes] + "..."
	}
	return s
}

// hintFor says what a refusal usually means when the receiver is a webhook.Handler.
func hintFor(status int, manual bool) string {
	switch status {
	case http.StatusUnauthorized:
		h := "a webhook.Handler answers 401 when the signature does not verify: is its verifier made with srv.SigningSecret()"
		if manual {
			h += ", and given the manual clock (webhook.WithClock(clk.Now)), since deliveries are signed at the server's time"
		}
		return h + "? Its WithErrorHook says which."
	case http.StatusBadRequest:
		return "a webhook.Handler answers 400 for a missing or malformed signature header or body; its WithErrorHook says which."
	case http.StatusInternalServerError:
		return "a webhook.Handler answers 500 when its callback returned an error; its WithErrorHook receives it."
	}
	return ""
}

// staleHint explains a 401 of an attempt signed at the server clock's time when that time is
// further from the wall clock than a verifier's default tolerance: every verifier on the wall
// clock (a receiver not given the manual clock, any receiver in another language) refuses
// such a delivery as stale, and every one after it. "" when that is not the case.
func staleHint(rec Delivery, wallSigned bool, wallNow time.Time) string {
	if wallSigned || rec.StatusCode != http.StatusUnauthorized {
		return ""
	}
	skew := wallNow.Sub(rec.At)
	if skew.Abs() <= webhook.DefaultTolerance {
		return ""
	}
	return fmt.Sprintf("If the verifier reads the wall clock (one not given the manual clock, or a receiver in another "+
		"language): the attempt was signed at the server clock's time, %s from the wall clock, beyond the verifier's %s "+
		"tolerance, so it and every later one are refused as stale; give the verifier the server's clock, or start the "+
		"server with WithWallClockSignatures (the binary: -sign-with-wall-clock) to sign with the wall clock's time",
		skew.Abs().Round(time.Minute), webhook.DefaultTolerance)
}

// reportRefusal writes one refused attempt to the test log; the caller holds d.mu.
func (d *deliverer) reportRefusal(rec Delivery) {
	if d.testLog == nil || rec.Outcome == OutcomeDelivered {
		return
	}
	d.testLog.Helper()
	what := "answered " + http.StatusText(rec.StatusCode)
	if rec.StatusCode == 0 {
		what = "failed: " + rec.Err
	}
	next := "will retry"
	if rec.Outcome == OutcomeFailed {
		next = "given up"
	} else if d.manual {
		next = "will retry when the manual clock reaches the retry time; later events to this URL wait behind it"
	}
	line := fmt.Sprintf("mockserver: webhook %s %s to %s: attempt %d %s", rec.Kind, rec.EventID, rec.URL, rec.Attempt, what)
	if rec.StatusCode != 0 {
		line += fmt.Sprintf(" (%d)", rec.StatusCode)
	}
	if rec.Reason != "" {
		line += fmt.Sprintf(", receiver said %q", rec.Reason)
	}
	line += "; " + next
	if h := hintFor(rec.StatusCode, d.manual); h != "" {
		line += ". " + h
	}
	if h := staleHint(rec, d.signNow != nil, time.Now()); h != "" {
		line += " " + h + "."
	}
	d.testLog.Logf("%s", line)
}
