package taskrouter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadWorkspace(t *testing.T) {
	ws, err := ReadWorkspace("testdata/workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		Workers, Queues, Workflows, Activities int
		Skills                                 any
		Order                                  string
		Filters                                int
		Timeout                                float64
		Priority                               float64
		Known                                  string
	}{
		len(ws.Workers), len(ws.Queues), len(ws.Workflows), len(ws.Activities),
		ws.Workers[0].Attributes["skills"], ws.Queues[3].TaskOrder,
		len(ws.Workflows[0].Config.TaskRouting.Filters),
		*ws.Workflows[0].Config.TaskRouting.Filters[0].Targets[0].Timeout,
		must(ws.Workflows[0].Config.TaskRouting.Filters[0].Targets[0].Priority()),
		ws.Workflows[1].Config.TaskRouting.Filters[1].Targets[0].KnownWorkerSid,
	}
	want := got
	want.Workers, want.Queues, want.Workflows, want.Activities = 6, 5, 2, 3
	want.Skills = []any{"billing", "refunds"}
	want.Order, want.Filters, want.Timeout, want.Priority, want.Known = "LIFO", 4, 60, 10, "task.owner_sid"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func must(f float64, ok bool) float64 {
	if !ok {
		return -1
	}
	return f
}

func TestReadWorkspaceDirectoryOfPages(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		// Two pages of the Workers list, one after the other.
		"workers.json": `{"workers":[{"sid":"WK1","attributes":"{\"skills\":[\"a\"]}","available":true}],"meta":{"page":0}}
{"workers":[{"sid":"WK2","attributes":"{}"}],"meta":{"page":1}}`,
		"task_queues.json": `{"task_queues":[{"sid":"WQ1","target_workers":"skills HAS 'a'"}]}`,
		"workflows.json":   `{"workflows":[{"sid":"WW1","configuration":"{\"task_routing\":{\"filters\":[],\"default_filter\":{\"queue\":\"WQ1\"}}}"}]}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := ReadWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"WK1", "WK2"}, []string{ws.Workers[0].Sid, ws.Workers[1].Sid}); diff != "" {
		t.Error(diff)
	}
	if ws.Workflows[0].Config.TaskRouting.DefaultFilter.Queue != "WQ1" {
		t.Errorf("default filter = %+v", ws.Workflows[0].Config.TaskRouting.DefaultFilter)
	}
}

func TestParseWorkspaceErrors(t *testing.T) {
	tests := []struct{ name, in, where, msg string }{
		{"not JSON", `{"workers": [`, "page 1", "unexpected EOF"},
		{"empty", ``, "page 1", "no JSON object"},
		{"attributes not JSON", `{"workers":[{"sid":"WK1","attributes":"{skills"}]}`, "workers[0].attributes", "not a JSON object"},
		{"attributes an array", `{"workers":[{"sid":"WK1","attributes":"[1]"}]}`, "workers[0].attributes", "not a JSON object"},
		{"worker without sid", `{"workers":[{"attributes":"{}"}]}`, "workers[0]", "no sid"},
		{"duplicate worker", `{"workers":[{"sid":"WK1"},{"sid":"WK1"}]}`, "workers[1]", "sid WK1 also at workers[0]"},
		{"wrong type", `{"task_queues":[{"sid":"WQ1","max_reserved_workers":"two"}]}`, "page 1", "max_reserved_workers must be int, not a JSON string"},
		{"task order", `{"task_queues":[{"sid":"WQ1","task_order":"RANDOM"}]}`, "task_queues[0].task_order", `"RANDOM" is neither FIFO nor LIFO`},
		{"configuration not JSON", `{"workflows":[{"sid":"WW1","configuration":"{"}]}`, "workflows[0].configuration", "not a workflow configuration"},
		{"unknown queue", `{"workflows":[{"sid":"WW1","configuration":"{\"task_routing\":{\"filters\":[{\"expression\":\"1==1\",\"targets\":[{\"queue\":\"WQx\"}]}]}}"}]}`,
			"workflows[0].configuration.task_routing.filters[0].targets[0].queue", "names WQx, which is not among the task queues"},
		{"unknown queue in the default filter", `{"task_queues":[{"sid":"WQ1"}],"workflows":[{"sid":"WW1","configuration":"{\"task_routing\":{\"filters\":[{\"expression\":\"1==1\",\"targets\":[{\"queue\":\"WQ1\"}]}],\"default_filter\":{\"queue\":\"WQx\"}}}"}]}`,
			"workflows[0].configuration.task_routing.default_filter.queue", "names WQx, which is not among the task queues"},
		{"target without a queue", `{"task_queues":[{"sid":"WQ1"}],"workflows":[{"sid":"WW1","configuration":"{\"task_routing\":{\"filters\":[{\"expression\":\"1==1\",\"targets\":[{\"queue\":\"WQ1\"},{\"priority\":1}]}]}}"}]}`,
			"workflows[0].configuration.task_routing.filters[0].targets[1]", "no queue"},
		{"default filter without a queue", `{"workflows":[{"sid":"WW1","configuration":"{\"task_routing\":{\"filters\":[],\"default_filter\":{}}}"}]}`,
			"workflows[0].configuration.task_routing.default_filter", "no queue"},
		{"queue without sid", `{"task_queues":[{"sid":"WQ1"},{"friendly_name":"x"}]}`, "task_queues[1]", "no sid"},
		{"workflow without sid", `{"workflows":[{"configuration":"{}"}]}`, "workflows[0]", "no sid"},
		{"second page broken", `{"workers":[]}` + "\n" + `{"workers": 5}`, "page 2", "must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseWorkspace([]byte(tt.in))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FormatError", err)
			}
			if fe.Where != tt.where || !strings.Contains(fe.Err.Error(), tt.msg) {
				t.Errorf("err = %q at %q, want %q at %q", fe.Err, fe.Where, tt.msg, tt.where)
			}
		})
	}
}

func TestReadEvents(t *testing.T) {
	in := `{"sid":"EV1","event_type":"task.created","event_date":"2026-11-02T09:00:00Z","event_data":{"task_sid":"WT1","task_attributes":"{\"type\":\"billing\"}","workflow_sid":"WW1","task_priority":"5"}}
{"events":[{"sid":"EV2","event_type":"reservation.created","event_date_ms":1793610001000,"event_data":{"TaskSid":"WT1","WorkerSid":"WK1","TaskQueueSid":"WQ1","ReservationSid":"WR1"}}]}
[{"sid":"EV3","event_type":"worker.activity.update","event_date_ms":"1793610002000","event_data":{"worker_sid":"WK2","worker_activity_sid":"WAoff","worker_activity_name":"Offline"}},
 {"sid":"EV4","event_type":"workflow.entered","event_date_ms":1793610003000,"event_data":{}}]
{"sid":"EV5","event_type":"worker.activity.update","event_date_ms":1793610004000,"event_data":{"WorkerSid":"WK3","WorkerActivityAvailable":false}}
{"sid":"EV6","event_type":"task.created","event_date_ms":1793610005000,"event_data":{"task_sid":"WT2","task_priority":"high","task_attributes":{"type":"sales"}}}`
	var got []Event
	err := ReadEvents(strings.NewReader(in), func(e Event) error { got = append(got, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	five := 5.0
	want := []Event{
		{Sid: "EV1", Type: EventTaskCreated, At: got[0].At, TaskSid: "WT1", TaskAttributes: `{"type":"billing"}`, WorkflowSid: "WW1", TaskPriority: &five},
		{Sid: "EV2", Type: EventReservationCreated, At: got[1].At, TaskSid: "WT1", WorkerSid: "WK1", QueueSid: "WQ1", ReservationSid: "WR1"},
		{Sid: "EV3", Type: EventWorkerActivityUpdate, At: got[2].At, WorkerSid: "WK2", ActivitySid: "WAoff", ActivityName: "Offline"},
		{Sid: "EV4", Type: "workflow.entered", At: got[3].At},
		{Sid: "EV5", Type: EventWorkerActivityUpdate, At: got[4].At, WorkerSid: "WK3", WorkerAvailable: new(bool)},
		// A priority that is no number is none; attributes given as an object are kept as JSON.
		{Sid: "EV6", Type: EventTaskCreated, At: got[5].At, TaskSid: "WT2", TaskAttributes: `{"type":"sales"}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got[0].At.Format("15:04:05") != "09:00:00" || got[2].At.UnixMilli() != 1793610002000 {
		t.Errorf("times %v %v", got[0].At, got[2].At)
	}
}

func TestReadEventsErrors(t *testing.T) {
	page := func(events string) string { return `{"meta":{"page":0},` + "\n" + `"events":[` + events + `]}` }
	tests := []struct {
		name, in, where, msg string
		line                 int
	}{
		{"no type", `{"event_date_ms":1}`, "event 1", "no event_type", 1},
		{"no time", `{"event_type":"task.created"}`, "event 1", "neither event_date nor event_date_ms", 1},
		{"bad time", `{"event_type":"task.created","event_date":"yesterday"}`, "event 1", `event_date "yesterday" is not an ISO 8601 time`, 1},
		{"missing task", `{"event_type":"reservation.created","event_date_ms":1,"event_data":{"worker_sid":"WK1"}}`, "event 1", "reservation.created without event_data.task_sid", 1},
		{"out of order", `{"event_type":"x","event_date_ms":5}
{"event_type":"x","event_date_ms":4}`, "event 2", "before the event before it", 2},
		{"broken", `{"event_type":"x","event_date_ms":5}
{`, "after event 1", "unexpected EOF", 2},
		{"syntax error on line 3", `{"event_type":"x","event_date_ms":5}

{"event_type": x}`, "after event 1", "invalid character 'x'", 3},
		// The offending byte is the first of its line: the line is its own, not the one before.
		{"syntax error at the start of a line", `{"event_type":"x","event_date_ms":5}` + "\nx", "after event 1", "invalid character 'x'", 2},
		{"not an object", `42`, "after event 0", "expected an event object", 1},
		{"in an array, on its own line", "[{\"event_type\":\"x\",\"event_date_ms\":5},\n\n {\"event_date_ms\":6}]", "event 2", "no event_type", 3},
		{"in a page after a line", `{"event_type":"x","event_date_ms":5}` + "\n" + page(`{"event_type":"x","event_date_ms":6},`+"\n"+`{"event_type":"x"}`), "event 3", "neither event_date", 4},
		{"past the first reads of the file", strings.Repeat(`{"event_type":"x","event_date_ms":5,"event_data":{"pad":"`+strings.Repeat("p", 60)+`"}}`+"\n", 5000) + `{"event_type":"x"}`, "event 5001", "neither event_date", 5001},
		{"outcome without its worker", `{"event_type":"reservation.accepted","event_date_ms":1,"event_data":{"task_sid":"WT1"}}`, "event 1", "reservation.accepted without event_data.worker_sid", 1},
		{"rejection without its task", `{"event_type":"reservation.rejected","event_date_ms":1,"event_data":{"worker_sid":"WK1"}}`, "event 1", "reservation.rejected without event_data.task_sid", 1},
		{"timeout without its worker", `{"event_type":"reservation.timeout","event_date_ms":1,"event_data":{"task_sid":"WT1"}}`, "event 1", "reservation.timeout without event_data.worker_sid", 1},
		{"activity update without its worker", `{"event_type":"worker.activity.update","event_date_ms":1,"event_data":{"worker_activity_sid":"WA1"}}`, "event 1", "worker.activity.update without event_data.worker_sid", 1},
		{"broken at the end, then a newline", `{"event_type":"x","event_date_ms":5}` + "\n" + `{"event_type": "x",` + "\n", "after event 1", "unexpected EOF", 2},
		{"after blank lines", "\n\n\n" + `{"event_type":"reservation.created","event_date_ms":1,"event_data":{"task_sid":"WT1"}}`, "event 1", "without event_data.worker_sid", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ReadEvents(strings.NewReader(tt.in), func(Event) error { return nil })
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FormatError", err)
			}
			if fe.Where != tt.where || fe.Line != tt.line || !strings.Contains(fe.Err.Error(), tt.msg) {
				t.Errorf("err = %q at line %d %q, want %q at line %d %q", fe.Err, fe.Line, fe.Where, tt.msg, tt.line, tt.where)
			}
		})
	}
}

// TestReadEventsFileNamesFileAndLine: every error of an event file reads "file:line: event n".
func TestReadEventsFileNamesFileAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	in := `{"event_type":"x","event_date_ms":5}` + "\n" + `{"event_type":"task.created","event_date_ms":6}` + "\n"
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	err := ReadEventsFile(path, func(Event) error { return nil })
	want := "taskrouter export: " + path + ":2: event 2: task.created without event_data.task_sid"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestKnownWorkerTargetNeedsNoQueue: a target naming a worker (by sid or friendly name) is
// complete without a queue.
func TestKnownWorkerTargetNeedsNoQueue(t *testing.T) {
	for _, target := range []string{`{\"known_worker_sid\":\"task.owner\"}`, `{\"known_worker_friendly_name\":\"task.owner_name\"}`} {
		_, err := ParseWorkspace([]byte(`{"workflows":[{"sid":"WW1","configuration":"{\"task_routing\":{\"filters\":[{\"expression\":\"1==1\",\"targets\":[` + target + `]}]}}"}]}`))
		if err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
}

// TestReadWorkspaceDirectoryNeedsItsLists: of a directory's four files only activities.json
// may be missing.
func TestReadWorkspaceDirectoryNeedsItsLists(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"task_queues.json": `{"task_queues":[]}`, "workflows.json": `{"workflows":[]}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadWorkspace(dir); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "workers.json") {
		t.Errorf("no workers.json: err = %v", err)
	}
}

// TestReadWorkspaceOfAMissingPath: a path that does not exist is an error that says so and
// names the path.
func TestReadWorkspaceOfAMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "export.json")
	ws, err := ReadWorkspace(missing)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(fmt.Sprint(err), missing) || ws != nil {
		t.Errorf("ReadWorkspace(%s) = %v, %v; want nil and an error naming the missing path", missing, ws, err)
	}
}
