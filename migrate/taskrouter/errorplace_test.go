package taskrouter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFormatErrorNamesOnlyAKnownLine: a FormatError prints "file:line" only when the line is
// known (1-based); line 0 means not known and prints no line at all, never "file:0".
func TestFormatErrorNamesOnlyAKnownLine(t *testing.T) {
	what := errors.New("no sid")
	tests := []struct {
		name string
		err  *FormatError
		want string
	}{
		{"file, no line", &FormatError{File: "workers.json", Where: "workers[0]", Err: what},
			"taskrouter export: workers.json: workers[0]: no sid"},
		{"nothing but where", &FormatError{Where: "page 1", Err: what},
			"taskrouter export: page 1: no sid"},
		{"file and line", &FormatError{File: "events.jsonl", Line: 3, Where: "after event 2", Err: what},
			"taskrouter export: events.jsonl:3: after event 2: no sid"},
		{"line, no file", &FormatError{Line: 1, Where: "after event 0", Err: what},
			"taskrouter export: line 1: after event 0: no sid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
				t.Errorf("Error() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSONSyntaxErrorNamesItsByte: a JSON syntax error in an export says at which byte it
// is (counted from the start of the file, or of the embedded document), so a user can find it.
func TestJSONSyntaxErrorNamesItsByte(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"first page", `{"workers": [}`,
			"taskrouter export: page 1: invalid character '}' looking for beginning of value (at byte 14)"},
		{"second page", `{"workers":[]}` + "\n" + `{"workers": x}`,
			"taskrouter export: page 2: invalid character 'x' looking for beginning of value (at byte 28)"},
		{"workflow configuration", `{"workflows":[{"sid":"WW1","configuration":"{\"task_routing\": }"}]}`,
			"taskrouter export: workflows[0].configuration: not a workflow configuration: invalid character '}' looking for beginning of value (at byte 18)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseWorkspace([]byte(tt.in))
			if err == nil {
				t.Fatal("ParseWorkspace accepted it")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: ReadWorkspace refuses a one-file export that is not JSON, naming the file, as it does
// each file of a directory export.
func TestReadWorkspaceRefusesABrokenFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "export.json")
	if err := os.WriteFile(file, []byte(`{"workers": [}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := ReadWorkspace(file)
	if err == nil {
		t.Fatalf("ReadWorkspace accepted it: %+v", ws)
	}
	if !strings.Contains(err.Error(), "export.json") || !strings.Contains(err.Error(), "at byte 14") {
		t.Errorf("error %q does not name the file and the place", err)
	}
}

// Rule: an event whose event_date_ms is not milliseconds is refused, naming the value.
func TestEventDateMustBeMilliseconds(t *testing.T) {
	in := `{"sid":"EV1","event_type":"task.created","event_date_ms":"soon","event_data":{"task_sid":"WT1"}}`
	err := ReadEvents(strings.NewReader(in), func(Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "event_date_ms") || !strings.Contains(err.Error(), "not milliseconds") {
		t.Errorf("ReadEvents = %v; want an error naming event_date_ms", err)
	}
}

// Rule: a syntax error in an events file names the line of the offending character, also
// when that character ends its line.
func TestEventsSyntaxErrorNamesItsLine(t *testing.T) {
	in := `{"sid":"EV1","event_type":"workflow.entered","event_date_ms":1,"event_data":{}}` + "\n" +
		`{"sid":"EV2",}` + "\n" +
		`{"sid":"EV3","event_type":"workflow.entered","event_date_ms":1,"event_data":{}}` + "\n"
	err := ReadEvents(strings.NewReader(in), func(Event) error { return nil })
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("ReadEvents = %v; want a *FormatError", err)
	}
	if fe.Line != 2 {
		t.Errorf("line %d, want 2 (%v)", fe.Line, err)
	}
}
