package taskrouting_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
)

// decodeExact decodes a body keeping every number's text.
func decodeExact(t *testing.T, body string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return v
}

// TestWithJSONSetKeepsNumbersExact: numbers pass WithJSONSet as they were
// written, never through float64: those the params type or Do's body
// already hold, those a set puts in, and those inside a value an earlier
// set put in. 2^53+1 (9007199254740993) is the smallest integer a float64
// would change.
func TestWithJSONSetKeepsNumbersExact(t *testing.T) {
	accepted := answer(202, `{"id":"t1","status":"queued"}`)
	tests := []struct {
		name string
		send func(c *taskrouting.Client) error
		want string
	}{
		{"numbers of the params type", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{
				Tags: []string{"english"},
				Meta: map[string]any{"big": int64(9007199254740993), "frac": json.Number("0.10000000000000000555")},
			}, taskrouting.WithJSONSet("meta.source", "crm"))
			return err
		}, `{"meta":{"big":9007199254740993,"frac":0.10000000000000000555,"source":"crm"},"tags":["english"]}`},
		{"numbers a set puts in", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}},
				taskrouting.WithJSONSet("meta.i64", int64(9007199254740993)),
				taskrouting.WithJSONSet("meta.u64", uint64(math.MaxUint64)),
				taskrouting.WithJSONSet("meta.num", json.Number("-9007199254740993")),
				taskrouting.WithJSONSet("meta.raw", json.RawMessage(`{"n":123456789012345678901234567890}`)))
			return err
		}, `{"meta":{"i64":9007199254740993,"num":-9007199254740993,"raw":{"n":123456789012345678901234567890},"u64":18446744073709551615},"tags":["english"]}`},
		{"a set inside a value an earlier set put in", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}},
				taskrouting.WithJSONSet("meta", json.RawMessage(`{"n":9007199254740993,"list":[1,2]}`)),
				taskrouting.WithJSONSet("meta.list.1", int64(9007199254740995)),
				taskrouting.WithJSONSet("meta.extra", map[string]int64{"m": 9007199254740997}),
				taskrouting.WithJSONSet("meta.extra.k", true))
			return err
		}, `{"meta":{"extra":{"k":true,"m":9007199254740997},"list":[1,9007199254740995],"n":9007199254740993},"tags":["english"]}`},
		{"numbers of Do's body", func(c *taskrouting.Client) error {
			return c.Do(context.Background(), "POST", "/tasks", json.RawMessage(`{"tags":["english"],"meta":{"big":9007199254740993}}`), nil,
				taskrouting.WithJSONSet("priority", 2))
		}, `{"meta":{"big":9007199254740993},"priority":2,"tags":["english"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{answers: []func(w http.ResponseWriter, r *http.Request){accepted}}
			c := startRecorder(t, rec)
			if err := tt.send(c); err != nil {
				t.Fatal(err)
			}
			sent := rec.requests()
			if len(sent) != 1 {
				t.Fatalf("%d requests sent, want 1", len(sent))
			}
			if diff := cmp.Diff(decodeExact(t, tt.want), decodeExact(t, sent[0].Body)); diff != "" {
				t.Errorf("body sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWithJSONSetRefusesWithoutSending: a set that cannot apply is a
// *ParamError naming WithJSONSet, and nothing is sent; an index one past
// an array's end is such a set, not a panic.
func TestWithJSONSetRefusesWithoutSending(t *testing.T) {
	ctx := context.Background()
	params := taskrouting.CreateTaskParams{Tags: []string{"english"}}
	tests := []struct {
		name string
		send func(c *taskrouting.Client) error
	}{
		{"index one past the end", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("tags.1", "french"))
			return err
		}},
		{"index one past the end of an empty array", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("meta", json.RawMessage(`{"l":[]}`)), taskrouting.WithJSONSet("meta.l.0", 1))
			return err
		}},
		{"negative index", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("tags.-1", "french"))
			return err
		}},
		{"name into an array", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("tags.first", "french"))
			return err
		}},
		{"member inside a number", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}, Priority: 2}, taskrouting.WithJSONSet("priority.x", 1))
			return err
		}},
		{"a DELETE without a body", func(c *taskrouting.Client) error {
			return c.Tasks.Cancel(ctx, "t1", taskrouting.WithJSONSet("reason", "duplicate"))
		}},
		{"a DELETE through Do", func(c *taskrouting.Client) error {
			return c.Do(ctx, "DELETE", "/tasks/t1", nil, nil, taskrouting.WithJSONSet("reason", "duplicate"))
		}},
		{"a GET", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Get(ctx, "t1", taskrouting.WithJSONSet("x", 1))
			return err
		}},
		{"a value that does not encode", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, params, taskrouting.WithJSONSet("meta.f", math.Inf(1)))
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{answers: []func(w http.ResponseWriter, r *http.Request){answer(202, `{"id":"t1","status":"queued"}`)}}
			c := startRecorder(t, rec)
			err := tt.send(c)
			var pe *taskrouting.ParamError
			if !errors.As(err, &pe) || pe.Param != "WithJSONSet" || !errors.Is(err, taskrouting.ErrInvalidParams) {
				t.Errorf("err = %v, want a *ParamError for WithJSONSet", err)
			}
			if n := len(rec.requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
			if tt.name == "a value that does not encode" && !strings.Contains(fmt.Sprint(err), "unsupported value") {
				t.Errorf("err = %v, want it to say why the value does not encode", err)
			}
		})
	}
}

// The last element of an array, and a DELETE or a POST that has a body,
// take a set.
func TestWithJSONSetAtTheEdges(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		send   func(c *taskrouting.Client) error
		method string
		want   string
	}{
		{"last element", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english", "billing"}}, taskrouting.WithJSONSet("tags.1", "french"))
			return err
		}, "POST", `{"tags":["english","french"]}`},
		{"a DELETE with a body", func(c *taskrouting.Client) error {
			return c.Do(ctx, "DELETE", "/portal/devices", json.RawMessage(`{"token":"d1"}`), nil, taskrouting.WithJSONSet("platform", "ios"))
		}, "DELETE", `{"platform":"ios","token":"d1"}`},
		{"a backslash not before a dot is part of the name", func(c *taskrouting.Client) error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}},
				taskrouting.WithJSONSet(`meta.a\b`, 1), taskrouting.WithJSONSet(`meta.c\`, 2))
			return err
		}, "POST", `{"meta":{"a\\b":1,"c\\":2},"tags":["english"]}`},
		{"a POST without a body", func(c *taskrouting.Client) error {
			return c.Do(ctx, "POST", "/tasks/t1/escalate", nil, nil, taskrouting.WithJSONSet("reason", "late"))
		}, "POST", `{"reason":"late"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{answers: []func(w http.ResponseWriter, r *http.Request){answer(200, `{"id":"t1","status":"queued"}`)}}
			c := startRecorder(t, rec)
			if err := tt.send(c); err != nil {
				t.Fatal(err)
			}
			sent := rec.requests()
			if len(sent) != 1 || sent[0].Method != tt.method {
				t.Fatalf("sent %+v, want one %s", sent, tt.method)
			}
			if diff := cmp.Diff(decodeExact(t, tt.want), decodeExact(t, sent[0].Body)); diff != "" {
				t.Errorf("body sent (-want +got):\n%s", diff)
			}
		})
	}
}
