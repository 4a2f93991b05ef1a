package taskrouter

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// error stops the read and is returned.
func ReadEvents(r io.Reader, fn func(Event) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	var last time.Time
	n := 0
	emit := func(raw json.RawMessage) error {
		n++
		ev, err := parseEvent(raw)
		if err != nil {
			return &FormatError{Where: "event " + strconv.Itoa(n), Err: err}
		}
		if ev.At.Before(last) {
			return &FormatError{Where: "event " + strconv.Itoa(n),
				Err: fmt.Errorf("at %s, before the event before it (%s): sort the export by time", ev.At.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))}
		}
		last = ev.At
		return fn(ev)
	}
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return &FormatError{Where: "after event " + strconv.Itoa(n), Err: describeJSONError(err)}
		}
		switch firstByte(v) {
		case '[':
			var list []json.RawMessage
			if err := json.Unmarshal(v, &list); err != nil {
				return &FormatError{Where: "after event " + strconv.Itoa(n), Err: describeJSONError(err)}
			}
			for _, e := range list {
				if err := emit(e); err != nil {
					return err
				}
			}
		case '{':
			var page struct {
				Events []json.RawMessage `json:"events"`
			}
			if err := json.Unmarshal(v, &page); err == nil && page.Events != nil {
				for _, e := range page.Events {
					if err := emit(e); err != nil {
						return err
					}
				}
				continue
			}
			if err := emit(v); err != nil {
				return err
			}
		default:
			return &FormatError{Where: "after event " + strconv.Itoa(n), Err: errors.New("expected an event object, an array or an events page")}
		}
	}
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
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
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			ev.TaskPriority = &f
		}
	}
	if v, ok := data["workeractivityavailable"].(bool); ok {
		ev.WorkerAvailable = &v
	}
	need := func(fields ...string) error {
		for _, f := range fields {
			if data[f] == nil {
				return fmt.Errorf("%s without event_data.%s", ev.Type, f)
			}
		}
		return nil
	}
	switch ev.Type {
	case EventTaskCreated:
		return ev, need("tasksid")
	case EventReservationCreated, EventReservationAccepted, EventReservationRejected, EventReservationTimeout:
		return ev, need("tasksid", "workersid")
	case EventWorkerActivityUpdate:
		return ev, need("workersid")
	}
	return ev, nil
}
