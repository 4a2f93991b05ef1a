package taskrouter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Workspace is a TaskRouter workspace's routing configuration, as its list endpoints return
// it (Workers, TaskQueues, Workflows, Activities), with the JSON strings inside decoded.
type Workspace struct {
	Workers    []Worker
	Queues     []TaskQueue
	Workflows  []Workflow
	Activities []Activity
}

// Worker is one Workers list entry. Attributes is the decoded attributes JSON string.
type Worker struct {
	Sid           string         `json:"sid"`
	FriendlyName  string         `json:"friendly_name"`
	ActivitySid   string         `json:"activity_sid"`
	ActivityName  string         `json:"activity_name"`
	Available     bool           `json:"available"`
	RawAttributes string         `json:"attributes"`
	Attributes    map[string]any `json:"-"`
}

// Props are the worker's own properties a worker. key can read besides its attributes.
func (w Worker) Props() map[string]any {
	return map[string]any{"sid": w.Sid, "friendly_name": w.FriendlyName,
		"activity_sid": w.ActivitySid, "activity_name": w.ActivityName, "available": w.Available}
}

// TaskQueue is one TaskQueues list entry.
type TaskQueue struct {
	Sid                string `json:"sid"`
	FriendlyName       string `json:"friendly_name"`
	TargetWorkers      string `json:"target_workers"`
	TaskOrder          string `json:"task_order"` // FIFO (default) or LIFO
	MaxReservedWorkers int    `json:"max_reserved_workers"`
}

// Workflow is one Workflows list entry with its configuration decoded.
type Workflow struct {
	Sid                    string `json:"sid"`
	FriendlyName           string `json:"friendly_name"`
	RawConfiguration       string `json:"configuration"`
	TaskReservationTimeout int    `json:"task_reservation_timeout"` // seconds
	Config                 WorkflowConfig
}

// WorkflowConfig is a workflow's configuration JSON: {"task_routing": {...}}.
type WorkflowConfig struct {
	TaskRouting struct {
		Filters       []Filter `json:"filters"`
		DefaultFilter *Target  `json:"default_filter"`
	} `json:"task_routing"`
}

// Filter routes the tasks its expression matches through its targets in order.
type Filter struct {
	Name       string   `json:"filter_friendly_name"`
	Expression string   `json:"expression"`
	Targets    []Target `json:"targets"`
}

// Target is one routing step: a queue, an optional expression narrowing its workers, a
// priority and a timeout (seconds) after which the task moves to the next target.
type Target struct {
	Queue                   string          `json:"queue"`
	Expression              string          `json:"expression"`
	RawPriority             json.RawMessage `json:"priority"`
	Timeout                 *float64        `json:"timeout"`
	OrderBy                 string          `json:"order_by"`
	SkipIf                  string          `json:"skip_if"`
	KnownWorkerSid          string          `json:"known_worker_sid"`
	KnownWorkerFriendlyName string          `json:"known_worker_friendly_name"`
}

// Priority is the target's priority when it is a number (or a string holding one);
// otherwise 0 and false.
func (t Target) Priority() (float64, bool) {
	if len(t.RawPriority) == 0 || string(t.RawPriority) == "null" {
		return 0, false
	}
	var f float64
	if json.Unmarshal(t.RawPriority, &f) == nil {
		return f, true
	}
	var s string
	if json.Unmarshal(t.RawPriority, &s) == nil {
		f, err := strconv.ParseFloat(s, 64) // mutation:ignore: ParseFloat reads every bit size but 32 as 64 (63 or 65 is the same call)
		if err == nil {
			return f, true
		}
	}
	return 0, false
}

// Activity is one Activities list entry.
type Activity struct {
	Sid          string `json:"sid"`
	FriendlyName string `json:"friendly_name"`
	Available    bool   `json:"available"`
}

// FormatError is input that is not what TaskRouter's API returns: File, Line (1-based, for
// an event export; 0 when not known) and Where (a JSON path such as workers[3].attributes,
// or an event's number) say where, Err what. Its message reads "file:line: where: what".
type FormatError struct {
	File  string
	Line  int
	Where string
	Err   error
}

func (e *FormatError) Error() string {
	loc := e.File
	if e.Line > 0 {
		if loc == "" {
			loc = "line " + strconv.Itoa(e.Line)
		} else {
			loc += ":" + strconv.Itoa(e.Line)
		}
	}
	if e.Where != "" {
		if loc != "" {
			loc += ": "
		}
		loc += e.Where
	}
	return fmt.Sprintf("taskrouter export: %s: %v", loc, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// listFiles are the files of a workspace directory, one per list endpoint, each holding the
// endpoint's answer (or the answers of its pages concatenated).
var listFiles = []string{"workers.json", "task_queues.json", "workflows.json", "activities.json"}

// ReadWorkspace reads a workspace export: either one JSON file with the members "workers",
// "task_queues", "workflows" and "activities" (the list endpoints' own member names), or a
// directory holding workers.json, task_queues.json, workflows.json and activities.json, each
// the answer of that list endpoint (several pages may follow one another in one file).
func ReadWorkspace(path string) (*Workspace, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var lists listPage
	if st.IsDir() {
		for _, name := range listFiles {
			file := filepath.Join(path, name)
			b, err := os.ReadFile(file)
			if errors.Is(err, fs.ErrNotExist) && name == "activities.json" {
				continue // activities only name what the workers' activity already says
			}
			if err != nil {
				return nil, err
			}
			if err := lists.decodeAll(file, b); err != nil {
				return nil, err
			}
		}
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := lists.decodeAll(path, b); err != nil {
			return nil, err
		}
	}
	return lists.workspace(path)
}

// ParseWorkspace reads a combined workspace export from memory (see ReadWorkspace).
func ParseWorkspace(b []byte) (*Workspace, error) {
	var lists listPage
	if err := lists.decodeAll("", b); err != nil {
		return nil, err
	}
	return lists.workspace("")
}

type listPage struct {
	Workers    []Worker    `json:"workers"`
	Queues     []TaskQueue `json:"task_queues"`
	Workflows  []Workflow  `json:"workflows"`
	Activities []Activity  `json:"activities"`
}

// decodeAll appends every JSON object of b (one or several list answers) to l.
func (l *listPage) decodeAll(file string, b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	for n := 0; ; n++ {
		var page listPage
		err := dec.Decode(&page)
		if err != nil {
			if errors.Is(err, io.EOF) {
				if n > 0 {
					return nil
				}
				err = errors.New("no JSON object")
			}
			return &FormatError{File: file, Where: "page " + strconv.Itoa(n+1), Err: describeJSONError(err)}
		}
		l.Workers = append(l.Workers, page.Workers...)
		l.Queues = append(l.Queues, page.Queues...)
		l.Workflows = append(l.Workflows, page.Workflows...)
		l.Activities = append(l.Activities, page.Activities...)
	}
}

func (l *listPage) workspace(file string) (*Workspace, error) {
	ws := &Workspace{Workers: l.Workers, Queues: l.Queues, Workflows: l.Workflows, Activities: l.Activities}
	seen := map[string]string{}
	for i := range ws.Workers {
		w := &ws.Workers[i]
		where := fmt.Sprintf("workers[%d]", i)
		if w.Sid == "" {
			return nil, &FormatError{File: file, Where: where, Err: errors.New("no sid")}
		}
		if prev, dup := seen[w.Sid]; dup {
			return nil, &FormatError{File: file, Where: where, Err: fmt.Errorf("sid %s also at %s", w.Sid, prev)}
		}
		seen[w.Sid] = where
		w.Attributes = map[string]any{}
		if w.RawAttributes != "" {
			if err := json.Unmarshal([]byte(w.RawAttributes), &w.Attributes); err != nil {
				return nil, &FormatError{File: file, Where: where + ".attributes",
					Err: fmt.Errorf("not a JSON object: %w", describeJSONError(err))}
			}
		}
	}
	queues := map[string]bool{}
	for i, q := range ws.Queues {
		where := fmt.Sprintf("task_queues[%d]", i)
		if q.Sid == "" {
			return nil, &FormatError{File: file, Where: where, Err: errors.New("no sid")}
		}
		switch q.TaskOrder {
		case "", "FIFO", "LIFO":
		default:
			return nil, &FormatError{File: file, Where: where + ".task_order", Err: fmt.Errorf("%q is neither FIFO nor LIFO", q.TaskOrder)}
		}
		queues[q.Sid] = true
	}
	for i := range ws.Workflows {
		wf := &ws.Workflows[i]
		where := fmt.Sprintf("workflows[%d]", i)
		if wf.Sid == "" {
			return nil, &FormatError{File: file, Where: where, Err: errors.New("no sid")}
		}
		if err := json.Unmarshal([]byte(wf.RawConfiguration), &wf.Config); err != nil {
			return nil, &FormatError{File: file, Where: where + ".configuration",
				Err: fmt.Errorf("not a workflow configuration: %w", describeJSONError(err))}
		}
		check := func(t Target, at string) error {
			if t.Queue != "" && !queues[t.Queue] {
				return &FormatError{File: file, Where: at + ".queue", Err: fmt.Errorf("names %s, which is not among the task queues", t.Queue)}
			}
			if t.Queue == "" && t.KnownWorkerSid == "" && t.KnownWorkerFriendlyName == "" {
				return &FormatError{File: file, Where: at, Err: errors.New("no queue")}
			}
			return nil
		}
		for fi, f := range wf.Config.TaskRouting.Filters {
			for ti, t := range f.Targets {
				if err := check(t, fmt.Sprintf("%s.configuration.task_routing.filters[%d].targets[%d]", where, fi, ti)); err != nil {
					return nil, err
				}
			}
		}
		if d := wf.Config.TaskRouting.DefaultFilter; d != nil {
			if err := check(*d, where+".configuration.task_routing.default_filter"); err != nil {
				return nil, err
			}
		}
	}
	return ws, nil
}

// describeJSONError keeps encoding/json's message but says where a syntax error is.
func describeJSONError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%v (at byte %d)", se, se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s must be %s, not a JSON %s", te.Field, te.Type, te.Value)
	}
	return err
}
