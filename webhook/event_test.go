package webhook

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseEventEnvelopes(t *testing.T) {
	created := time.UnixMilli(1763700000123)
	tests := []struct {
		name string
		body string
		want Event
	}{
		{
			name: "flat",
			body: `{"event":"task.accepted","id":"evt_1","createdAt":1763700000123,"taskId":"t1","workerId":"w1"}`,
			want: Event{Kind: KindTaskAccepted, ID: "evt_1", CreatedAt: created, TaskID: "t1", WorkerID: "w1"},
		},
		{
			name: "nested under data",
			body: `{"event":"task.accepted","id":"evt_1","createdAt":1763700000123,"data":{"taskId":"t1","workerId":"w1"}}`,
			want: Event{Kind: KindTaskAccepted, ID: "evt_1", CreatedAt: created, TaskID: "t1", WorkerID: "w1"},
		},
		{
			name: "createdAt only in data",
			body: `{"event":"task.accepted","id":"evt_1","data":{"createdAt":1763700000123,"taskId":"t1","workerId":"w1"}}`,
			want: Event{Kind: KindTaskAccepted, ID: "evt_1", CreatedAt: created, TaskID: "t1", WorkerID: "w1"},
		},
		{
			// An "id" inside data may be the task's; the event id is only
			// ever read beside "event", or de-duplication would merge events.
			name: "id in data is not the event id",
			body: `{"event":"task.accepted","data":{"id":"t1","taskId":"t1","workerId":"w1"}}`,
			want: Event{Kind: KindTaskAccepted, TaskID: "t1", WorkerID: "w1"},
		},
		{
			name: "data wins member by member",
			body: `{"event":"task.accepted","taskId":"outer","workerId":"w1","data":{"taskId":"inner"}}`,
			want: Event{Kind: KindTaskAccepted, TaskID: "inner", WorkerID: "w1"},
		},
		{
			name: "unknown kind with unknown members",
			body: `{"event":"worker.updated","id":"evt_9","workerId":"w1","extra":[1,2,3]}`,
			want: Event{Kind: "worker.updated", ID: "evt_9", WorkerID: "w1"},
		},
		{
			name: "data that is not an object is ignored",
			body: `{"event":"task.cancelled","taskId":"t1","data":"x"}`,
			want: Event{Kind: KindTaskCancelled, TaskID: "t1"},
		},
		{
			name: "null timestamps",
			body: `{"event":"task.cancelled","createdAt":null,"taskId":"t1"}`,
			want: Event{Kind: KindTaskCancelled, TaskID: "t1"},
		},
		{
			name: "timestamp written as float",
			body: `{"event":"task.cancelled","createdAt":1.763700000123e12}`,
			want: Event{Kind: KindTaskCancelled, CreatedAt: created},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseEvent([]byte(tc.body))
			if err != nil {
				t.Fatalf("ParseEvent: %v", err)
			}
			tc.want.Raw = json.RawMessage(tc.body)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseEvent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEventRejectsInvalidPayloads(t *testing.T) {
	for _, body := range []string{
		``, `null`, `[]`, `"task.matched"`, `{`, `{}`, `{"event":null}`, `{"event":7}`,
		`{"event":"task.matched","taskId":5}`, `{"event":"task.matched","createdAt":"soon"}`,
		`{"event":"task.matched","createdAt":1.5}`, `{"event":"task.matched","createdAt":1e300}`,
		`{"event":"task.matched","data":{"workerId":false}}`, `{"event":"x"} trailing`,
	} {
		if _, err := ParseEvent([]byte(body)); !errors.Is(err, ErrInvalidPayload) {
			t.Errorf("ParseEvent(%q) = %v, want ErrInvalidPayload", body, err)
		}
	}
}

func TestTypedAccessorsOnBothEnvelopes(t *testing.T) {
	matched := TaskMatched{
		TaskID: "task_1", WorkerID: "agent_1", DecisionID: "dec_1",
		MatchedAt: time.UnixMilli(1750000000000), ExpiresAt: time.UnixMilli(1750000060000),
		Priority: 90.5, Tags: []string{"english", "billing"},
	}
	members := `"taskId":"task_1","workerId":"agent_1","decisionId":"dec_1","matchedAt":1750000000000,` +
		`"expiresAt":1750000060000,"priority":90.5,"tags":["english","billing"]`
	completedMembers := `"taskId":"task_1","workerId":"agent_1","result":{"resolved":true}`
	for _, shape := range []struct {
		name string
		wrap func(kind, members string) string
	}{
		{"flat", func(kind, m string) string { return `{"event":"` + kind + `","id":"evt_1",` + m + `}` }},
		{"nested", func(kind, m string) string { return `{"event":"` + kind + `","id":"evt_1","data":{` + m + `}}` }},
	} {
		t.Run(shape.name, func(t *testing.T) {
			ev := mustParse(t, shape.wrap("task.matched", members))
			gotMatched, err := ev.TaskMatched()
			if err != nil {
				t.Fatalf("TaskMatched: %v", err)
			}
			if diff := cmp.Diff(matched, gotMatched); diff != "" {
				t.Errorf("TaskMatched (-want +got):\n%s", diff)
			}

			ev = mustParse(t, shape.wrap("task.completed", completedMembers))
			gotCompleted, err := ev.TaskCompleted()
			if err != nil {
				t.Fatalf("TaskCompleted: %v", err)
			}
			wantCompleted := TaskCompleted{TaskID: "task_1", WorkerID: "agent_1", Result: json.RawMessage(`{"resolved":true}`)}
			if diff := cmp.Diff(wantCompleted, gotCompleted); diff != "" {
				t.Errorf("TaskCompleted (-want +got):\n%s", diff)
			}

			pair := `"taskId":"task_1","workerId":"agent_1"`
			want := TaskAccepted{TaskID: "task_1", WorkerID: "agent_1"}
			released := pair + `,"reason":"reassigned","priority":5,"tags":["english"]`
			onBreak := `"workerId":"agent_1","reason":"lunch"`
			checks := []struct {
				kind    string
				members string
				get     func(Event) (any, error)
				want    any
			}{
				{"task.accepted", pair, func(e Event) (any, error) { return e.TaskAccepted() }, want},
				{"task.rejected", pair, func(e Event) (any, error) { return e.TaskRejected() }, TaskRejected(want)},
				{"task.expired", pair, func(e Event) (any, error) { return e.TaskExpired() }, TaskExpired(want)},
				{"task.cancelled", pair, func(e Event) (any, error) { return e.TaskCancelled() }, TaskCancelled(want)},
				{"task.released", released, func(e Event) (any, error) { return e.TaskReleased() },
					TaskReleased{TaskID: "task_1", WorkerID: "agent_1", Reason: ReleaseReassigned}},
				{"worker.break_started", onBreak, func(e Event) (any, error) { return e.WorkerBreakStarted() },
					WorkerBreakStarted{WorkerID: "agent_1", Reason: "lunch"}},
				{"worker.break_ended", onBreak, func(e Event) (any, error) { return e.WorkerBreakEnded() },
					WorkerBreakEnded{WorkerID: "agent_1", Reason: "lunch"}},
			}
			for _, c := range checks {
				got, err := c.get(mustParse(t, shape.wrap(c.kind, c.members)))
				if err != nil {
					t.Errorf("%s: %v", c.kind, err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", c.kind, diff)
				}
			}
		})
	}
}

func TestTypedAccessorErrors(t *testing.T) {
	// Every accessor refuses an event of another kind, even one whose members it could read.
	accessors := map[Kind]func(Event) error{
		KindTaskMatched:        func(e Event) error { _, err := e.TaskMatched(); return err },
		KindTaskAccepted:       func(e Event) error { _, err := e.TaskAccepted(); return err },
		KindTaskRejected:       func(e Event) error { _, err := e.TaskRejected(); return err },
		KindTaskCompleted:      func(e Event) error { _, err := e.TaskCompleted(); return err },
		KindTaskExpired:        func(e Event) error { _, err := e.TaskExpired(); return err },
		KindTaskCancelled:      func(e Event) error { _, err := e.TaskCancelled(); return err },
		KindTaskReleased:       func(e Event) error { _, err := e.TaskReleased(); return err },
		KindWorkerBreakStarted: func(e Event) error { _, err := e.WorkerBreakStarted(); return err },
		KindWorkerBreakEnded:   func(e Event) error { _, err := e.WorkerBreakEnded(); return err },
	}
	for kind, get := range accessors {
		for other := range accessors {
			ev := mustParse(t, `{"event":"`+string(other)+`","taskId":"t1","workerId":"w1"}`)
			err := get(ev)
			if other == kind && err != nil {
				t.Errorf("accessor of %s on its own kind: %v", kind, err)
			}
			if other != kind && !errors.Is(err, ErrWrongKind) {
				t.Errorf("accessor of %s on %s = %v, want ErrWrongKind", kind, other, err)
			}
		}
	}
	ev := mustParse(t, `{"event":"task.matched","data":{"tags":"english"}}`)
	if _, err := ev.TaskMatched(); !errors.Is(err, ErrInvalidPayload) {
		t.Errorf("TaskMatched with string tags = %v, want ErrInvalidPayload", err)
	}
	ev = mustParse(t, `{"event":"task.matched","taskId":"t1"}`)
	got, err := ev.TaskMatched()
	if err != nil {
		t.Fatalf("TaskMatched with few members: %v", err)
	}
	if diff := cmp.Diff(TaskMatched{TaskID: "t1"}, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("TaskMatched (-want +got):\n%s", diff)
	}
}

func TestConstructEventVerifiesFirst(t *testing.T) {
	vec := contractVectors[0]
	if _, err := ConstructEvent([]byte(vec.body), vec.header(), testSecret); !errors.Is(err, ErrTimestampTooOld) {
		t.Errorf("ConstructEvent of a 2025 vector now = %v, want ErrTimestampTooOld", err)
	}
	body := []byte(`not json at all`)
	now := time.Now()
	if _, err := ConstructEvent(body, Sign(body, testSecret, now), testSecret); !errors.Is(err, ErrInvalidPayload) {
		t.Errorf("ConstructEvent of signed garbage = %v, want ErrInvalidPayload", err)
	}
	if _, err := ConstructEvent(body, Sign(body, "whsec_x", now), testSecret); !errors.Is(err, ErrNoMatchingSignature) {
		t.Errorf("ConstructEvent of forged garbage = %v, want ErrNoMatchingSignature (verify before parse)", err)
	}
	good := []byte(vec.body)
	ev, err := ConstructEvent(good, Sign(good, testSecret, now), testSecret)
	if err != nil {
		t.Fatalf("ConstructEvent: %v", err)
	}
	want := Event{Kind: KindTaskMatched, TaskID: "task_8fk2", WorkerID: "agent_1", Raw: good}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("ConstructEvent (-want +got):\n%s", diff)
	}
}

func mustParse(t *testing.T, body string) Event {
	t.Helper()
	ev, err := ParseEvent([]byte(body))
	if err != nil {
		t.Fatalf("ParseEvent(%s): %v", body, err)
	}
	return ev
}

// The client decodes wire times as UTC; events do too, so one instant prints
// the same whichever package it came from.
func TestEventTimesAreUTC(t *testing.T) {
	ev, err := ParseEvent([]byte(`{"event":"task.matched","id":"evt_1","createdAt":1763700000123,` +
		`"taskId":"t1","workerId":"w1","matchedAt":1763700000123,"expiresAt":1763700060123}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ev.TaskMatched()
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]time.Time{"CreatedAt": ev.CreatedAt, "MatchedAt": m.MatchedAt, "ExpiresAt": m.ExpiresAt} {
		if got.Location() != time.UTC {
			t.Errorf("%s location = %v, want UTC", name, got.Location())
		}
	}
}
