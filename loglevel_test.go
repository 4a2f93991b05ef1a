package taskrouting_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// The attempt that ends a call in failure is logged above the retries
// before it; successes and the API's own 4xx answers stay low.
func TestLogLevelOfTheLastFailedAttempt(t *testing.T) {
	tests := []struct {
		name   string
		fault  mockserver.Fault
		path   string // GET this, relative to the base URL
		levels []string
	}{
		{"retries spent on 503", mockserver.Fault{Path: "/workers", Status: 503}, "/workers", []string{"WARN", "WARN", "ERROR"}},
		{"429 then success", mockserver.Fault{Path: "/workers", Status: 429, Times: 1}, "/workers", []string{"WARN", "DEBUG"}},
		{"501 is not retried", mockserver.Fault{Path: "/workers", Status: 501}, "/workers", []string{"ERROR"}},
		{"404 is an answer", mockserver.Fault{}, "/tasks/nope", []string{"INFO"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mockserver.Start(t)
			if tt.fault.Status != 0 {
				if err := srv.InjectFault(tt.fault); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c := mockClient(t, srv, taskrouting.WithLogger(logger))
			_ = c.Do(context.Background(), "GET", tt.path, nil, nil)
			var got []string
			dec := json.NewDecoder(&buf)
			for dec.More() {
				var line struct{ Level string }
				if err := dec.Decode(&line); err != nil {
					t.Fatal(err)
				}
				got = append(got, line.Level)
			}
			if diff := cmp.Diff(tt.levels, got); diff != "" {
				t.Errorf("levels (-want +got):\n%s", diff)
			}
		})
	}
}
