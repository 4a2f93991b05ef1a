package taskrouting

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSlotTypesWriteTheWireForm: SlotWindow and SlotBooking marshal to the wire's epoch
// milliseconds and read back to the same values; a booking without BookedAt leaves the
// member out.
func TestSlotTypesWriteTheWireForm(t *testing.T) {
	from := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)   // 1795773600000
	to := time.Date(2026, 11, 27, 11, 30, 0, 0, time.UTC)    // 1795779000000
	booked := time.Date(2026, 11, 26, 9, 15, 0, 0, time.UTC) // 1795684500000
	window := SlotWindow{From: from, To: to, Reason: "time_off"}
	for _, tc := range []struct {
		name string
		v    any
		want string
		back any
	}{
		{"window", window, `{"from":1795773600000,"to":1795779000000,"reason":"time_off"}`, &SlotWindow{}},
		{"booking", SlotBooking{TaskID: "t1", WorkerID: "w1", StartAt: from, EndAt: to, BookedAt: booked, Source: "manual", Warnings: []SlotWindow{window}},
			`{"taskId":"t1","workerId":"w1","source":"manual","warnings":[{"from":1795773600000,"to":1795779000000,"reason":"time_off"}],"startAt":1795773600000,"endAt":1795779000000,"bookedAt":1795684500000}`,
			&SlotBooking{}},
		{"booking not yet booked", SlotBooking{TaskID: "t1", WorkerID: "w1", StartAt: from, EndAt: to, Source: "auto", Warnings: []SlotWindow{}},
			`{"taskId":"t1","workerId":"w1","source":"auto","warnings":[],"startAt":1795773600000,"endAt":1795779000000}`,
			&SlotBooking{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(b)); diff != "" {
				t.Errorf("wire form (-want +got):\n%s", diff)
			}
			if err := json.Unmarshal(b, tc.back); err != nil {
				t.Fatal(err)
			}
			back := tc.back
			switch v := back.(type) {
			case *SlotWindow:
				back = *v
			case *SlotBooking:
				back = *v
			}
			if diff := cmp.Diff(tc.v, back); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEveryClientReportsItsBaseURL: each constructor refuses a bad base URL with a
// *ParamError naming baseURL, and BaseURL answers the root without its trailing slash.
func TestEveryClientReportsItsBaseURL(t *testing.T) {
	const sent, want = "https://api.example.com/v1/", "https://api.example.com/v1"
	clients := map[string]func(base string) (interface{ BaseURL() string }, error){
		"Client": func(base string) (interface{ BaseURL() string }, error) {
			return NewClient(base, "sk_test_abc")
		},
		"WorkerClient": func(base string) (interface{ BaseURL() string }, error) {
			return NewWorkerClient(base)
		},
		"SupervisorClient": func(base string) (interface{ BaseURL() string }, error) {
			return NewSupervisorClient(base)
		},
	}
	for name, build := range clients {
		t.Run(name, func(t *testing.T) {
			c, err := build(sent)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.BaseURL(); got != want {
				t.Errorf("BaseURL() = %q, want %q", got, want)
			}
			_, err = build("ftp://api.example.com")
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != "baseURL" {
				t.Errorf("an ftp base URL: %v, want a *ParamError on baseURL", err)
			}
		})
	}
	t.Run("SupervisorClient option", func(t *testing.T) {
		_, err := NewSupervisorClient(want, WithTimeout(-time.Second))
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "WithTimeout" {
			t.Errorf("a negative timeout: %v, want a *ParamError on WithTimeout", err)
		}
	})
}

// TestTaskCheckReportErrors: Errors keeps the issues of severity "error", in order, and
// nothing else.
func TestTaskCheckReportErrors(t *testing.T) {
	r := &TaskCheckReport{Issues: []TaskCheckIssue{
		{Severity: "warning", Code: "no_eligible_worker"},
		{Severity: "error", Code: "task_exists"},
		{Severity: "info", Code: "queued_behind"},
		{Severity: "error", Code: "tag_unknown", Tag: "fr"},
	}}
	want := []TaskCheckIssue{{Severity: "error", Code: "task_exists"}, {Severity: "error", Code: "tag_unknown", Tag: "fr"}}
	if diff := cmp.Diff(want, r.Errors()); diff != "" {
		t.Errorf("Errors() (-want +got):\n%s", diff)
	}
	if got := (&TaskCheckReport{Issues: []TaskCheckIssue{{Severity: "warning"}}}).Errors(); got != nil {
		t.Errorf("no error issues: %v, want nil", got)
	}
}

// TestWorkerSessionToken: a signed-out session's token is ""; a session made from a token
// answers it; an empty token makes a signed-out session.
func TestWorkerSessionToken(t *testing.T) {
	if got := (WorkerSession{}).Token(); got != "" {
		t.Errorf("zero session's token %q", got)
	}
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	if got := sessionOfToken("w1", "wt_abc", at); got.Token() != "wt_abc" || got.WorkerID != "w1" || !got.ExpiresAt.Equal(at) {
		t.Errorf("session of a token: %+v with token %q", got, got.Token())
	}
	if got := sessionOfToken("w1", "", at); got.Token() != "" || got.WorkerID != "" || !got.ExpiresAt.IsZero() {
		t.Errorf("session of no token: %+v, want a signed-out session", got)
	}
}

// TestWithClockRules: WithClock is a client option, and takes a clock.
func TestWithClockRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  RequestOption
		per  bool // given to a call instead of the constructor
		want string
	}{
		{"nil", WithClock(nil), false, "WithClock"},
		{"per call", WithClock(time.Now), true, "WithClock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.per {
				c, cerr := NewWorkerClient("https://api.example.com/v1")
				if cerr != nil {
					t.Fatal(cerr)
				}
				_, err = c.Me(t.Context(), tc.opt)
			} else {
				_, err = NewWorkerClient("https://api.example.com/v1", tc.opt)
			}
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != tc.want {
				t.Errorf("got %v, want a *ParamError on %s", err, tc.want)
			}
		})
	}
}

// TestUpdateNotificationChannelLogValue: the update's log line carries what changes,
// Disabled when set, and never the secret.
func TestUpdateNotificationChannelLogValue(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	log.Info("update", "p", UpdateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example.com/x", Events: []string{"task.created"}, Secret: NewSecret("whsec_DoNotLeak"), Disabled: Ptr(true)})
	log.Info("update", "p", UpdateNotificationChannelParams{Target: "https://hooks.example.com/y"})
	want := `{"level":"INFO","msg":"update","p":{"type":"webhook","target":"https://hooks.example.com/x","events":["task.created"],"secret":"[redacted]","disabled":true}}
{"level":"INFO","msg":"update","p":{"type":"","target":"https://hooks.example.com/y","events":null,"secret":""}}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}
