package taskrouter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Event types the shadow replay reads; others in an export are skipped.
const (
	EventTaskCreated          = "task.created"
	EventTaskCompleted        = "task.completed"
	EventTaskCanceled         = "task.canceled"
	EventReservationCreated   = "reservation.created"
	EventReservationAccepted  = "reservation.accepted"
	EventReservationRejected  = "reservation.rejected"
	EventReservationTimeout   = "reservation.timeout"
	EventReservationCanceled  = "reservation.canceled"
	EventWorkerActivityUpdate = "worker.activity.update"
)

// Event is one entry of a TaskRouter event export, reduced to what a replay needs. The
// members come from the Event resource (event_type, event_date or event_date_ms, and
// event_data); event_data keys are read in either spelling TaskRouter uses (task_sid or
// TaskSid).
type Event struct {
	Sid            string
	Type           string
	At             time.Time
	TaskSid        string
	TaskAttributes string // JSON, as exported
	TaskPriority   *float64
	WorkflowSid    string
	QueueSid       string
	WorkerSid      string
	ReservationSid string
	ActivitySid    string
	ActivityName   string
	// WorkerAvailable is the availability of the worker's new activity, when the event says
	// it (worker_activity_available); else the replay looks the activity up.
	WorkerAvailable *bool
}

type rawEvent struct {
	Sid         string          `json:"sid"`
	EventType   string          `json:"event_type"`
	EventDate   string          `json:"event_date"`
	EventDateMs json.RawMessage `json:"event_date_ms"`
	EventData   map[string]any  `json:"event_data"`
}

// ReadEvents streams an event export to fn in the order given: JSON lines of Event
// resources, a JSON array of them, or Events list pages ({"events": [...]}) one after
// another. Events out of time order are an error (a replay cannot go back in time); fn's
// error stops the read and is returned. Input that is not an export is a *FormatError with
// the line the event (or the broken JSON) starts on and the event's number; ReadEventsFile
// adds the file's name.
func ReadEvents(r io.Reader, fn func(Event) error) error {
	lc := &lineCounter{r: r}
	dec := json.NewDecoder(bufio.NewReaderSize(lc, 1<<16)) // mutation:ignore: a buffer size changes only the speed
	var last time.Time
	n := 0
	emit := func(raw json.RawMessage, line int) error {
		n++
		ev, err := parseEvent(raw)
		if err != nil {
			return &FormatError{Line: line, Where: "event " + strconv.Itoa(n), Err: err}
		}
		if ev.At.Before(last) {
			return &FormatError{Line: line, Where: "event " + strconv.Itoa(n),
				Err: fmt.Errorf("at %s, before the event before it (%s): sort the export by time", ev.At.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))}
		}
		last = ev.At
		return fn(ev)
	}
	// broken is a JSON error of the stream's next value, on line.
	broken := func(err error, line int) error {
		return &FormatError{Line: line, Where: "after event " + strconv.Itoa(n), Err: describeJSONError(err)}
	}
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			var se *json.SyntaxError
			switch {
			case errors.Is(err, io.EOF):
				return nil
			case errors.As(err, &se):
				return broken(err, lc.lineAt(se.Offset-1))
			case errors.Is(err, io.ErrUnexpectedEOF):
				return broken(err, lc.lineAt(lc.read-1)) // the value runs to the end
			}
			return broken(err, lc.lineAt(dec.InputOffset()))
		}
		line := lc.lineAt(dec.InputOffset() - int64(len(v)))
		from, to := 0, len(v) // the array of events within v
		switch firstByte(v) {
		case '[':
		case '{':
			var ok bool
			if from, to, ok = eventsOfPage(v); !ok {
				if err := emit(v, line); err != nil {
					return err
				}
				continue
			}
		default:
			return &FormatError{Line: line, Where: "after event " + strconv.Itoa(n), Err: errors.New("expected an event object, an array or an events page")}
		}
		err := eachElement(v[from:to], func(e json.RawMessage, off int) error {
			return emit(e, line+bytes.Count(v[:from+off], []byte{'\n'}))
		})
		if err != nil {
			return err
		}
	}
}

// ReadEventsFile is ReadEvents on the file at path; a *FormatError names the file.
func ReadEventsFile(path string, fn func(Event) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return NameFile(ReadEvents(f, fn), path)
}

// NameFile sets the file of a *FormatError in err's chain that names none, and returns err.
func NameFile(err error, path string) error {
	var fe *FormatError
	if errors.As(err, &fe) && fe.File == "" {
		fe.File = path
	}
	return err
}

// eventsOfPage finds the events array of an Events list page: v[from:to].
func eventsOfPage(v json.RawMessage) (from, to int, ok bool) {
	var page struct {
		Events json.RawMessage `json:"events"`
	}
	if json.Unmarshal(v, &page) != nil || firstByte(page.Events) != '[' {
		return 0, 0, false // mutation:ignore: the caller reads from and to only when ok
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	if _, err := dec.Token(); err != nil { // the opening {; mutation:ignore: v is valid JSON, read whole by json.Unmarshal above
		return 0, 0, false // mutation:ignore: the caller reads from and to only when ok
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil { // mutation:ignore: json.Unmarshal read v whole above, so no token of it fails
			return 0, 0, false // mutation:ignore: the caller reads from and to only when ok
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil { // mutation:ignore: as above, v is valid JSON
			return 0, 0, false // mutation:ignore: the caller reads from and to only when ok
		}
		if key == "events" && firstByte(val) == '[' {
			to = int(dec.InputOffset())
			return to - len(val), to, true
		}
	}
	return 0, 0, false // mutation:ignore: the caller reads from and to only when ok
}

// eachElement calls fn with each element of the JSON array list (already decoded once, so
// well formed) and its byte offset in list.
func eachElement(list json.RawMessage, fn func(json.RawMessage, int) error) error {
	dec := json.NewDecoder(bytes.NewReader(list))
	if _, err := dec.Token(); err != nil { // [
		return err
	}
	for dec.More() {
		var e json.RawMessage
		if err := dec.Decode(&e); err != nil {
			return err
		}
		if err := fn(e, int(dec.InputOffset())-len(e)); err != nil {
			return err
		}
	}
	return nil
}

// lineCounter passes a stream through and keeps where its lines start, forgetting those
// before the last offset asked about (the offsets asked about only grow).
type lineCounter struct {
	r       io.Reader
	read    int64
	breaks  []int64 // offsets of the newlines read and not yet passed
	dropped int     // newlines before breaks[0]
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.breaks = append(c.breaks, c.read+int64(i))
		}
	}
	c.read += int64(n)
	return n, err
}

// lineAt is the 1-based line of byte off.
func (c *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(c.breaks) && c.breaks[i] < off {
		i++
	}
	c.dropped += i
	c.breaks = c.breaks[i:]
	return c.dropped + 1
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0 // mutation:ignore: callers compare the byte with '[' and '{' only
}

func parseEvent(b []byte) (Event, error) {
	var raw rawEvent
	if err := json.Unmarshal(b, &raw); err != nil {
		return Event{}, describeJSONError(err)
	}
	if raw.EventType == "" {
		return Event{}, errors.New("no event_type")
	}
	ev := Event{Sid: raw.Sid, Type: raw.EventType}
	switch {
	case len(raw.EventDateMs) > 0 && string(raw.EventDateMs) != "null":
		s := strings.Trim(string(raw.EventDateMs), `"`)
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Event{}, fmt.Errorf("event_date_ms %s is not milliseconds", raw.EventDateMs)
		}
		ev.At = time.UnixMilli(ms).UTC()
	case raw.EventDate != "":
		t, err := time.Parse(time.RFC3339Nano, raw.EventDate)
		if err != nil {
			return Event{}, fmt.Errorf("event_date %q is not an ISO 8601 time", raw.EventDate)
		}
		ev.At = t.UTC()
	default:
		return Event{}, errors.New("neither event_date nor event_date_ms")
	}
	data := make(map[string]any, len(raw.EventData))
	for k, v := range raw.EventData {
		data[strings.ReplaceAll(strings.ToLower(k), "_", "")] = v
	}
	str := func(k string) string {
		switch v := data[k].(type) {
		case string:
			return v
		case map[string]any, []any:
			b, _ := json.Marshal(v)
			return string(b)
		}
		return ""
	}
	ev.TaskSid = str("tasksid")
	ev.TaskAttributes = str("taskattributes")
	ev.WorkflowSid = str("workflowsid")
	ev.QueueSid = str("taskqueuesid")
	ev.WorkerSid = str("workersid")
	ev.ReservationSid = str("reservationsid")
	ev.ActivitySid = str("workeractivitysid")
	ev.ActivityName = str("workeractivityname")
	switch v := data["taskpriority"].(type) {
	case float64:
		ev.TaskPriority = &v
	case string:
		f, err := strconv.ParseFloat(v, 64) // mutation:ignore: ParseFloat reads every bit size but 32 as 64 (63 or 65 is the same call)
		if err == nil {
			ev.TaskPriority = &f
		}
	}
	if v, ok := data["workeractivityavailable"].(bool); ok {
		ev.WorkerAvailable = &v
	}
	need := func(fields ...string) error {
		for _, f := range fields {
			if data[strings.ReplaceAll(f, "_", "")] == nil {
				return fmt.Errorf("%s without event_data.%s", ev.Type, f)
			}
		}
		return nil
	}
	switch ev.Type {
	case EventTaskCreated:
		return ev, need("task_sid")
	case EventReservationCreated, EventReservationAccepted, EventReservationRejected, EventReservationTimeout:
		return ev, need("task_sid", "worker_sid")
	case EventWorkerActivityUpdate:
		return ev, need("worker_sid")
	}
	return ev, nil
}
