package taskrouting

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNullable(t *testing.T) {
	type holder struct {
		E Nullable[Escalation] `json:"e,omitzero"`
	}
	tests := []struct {
		name string
		in   holder
		wire string
	}{
		{"absent", holder{}, `{}`},
		{"null", holder{E: Null[Escalation]()}, `{"e":null}`},
		{"value", holder{E: Some(Escalation{RespondWithin: 90 * time.Second, OnNoResponse: "block"})},
			`{"e":{"respondWithinMs":90000,"onNoResponse":"block"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.in)
			noError(t, err)
			diff(t, "wire", tc.wire, string(b))
			var back holder
			noError(t, json.Unmarshal(b, &back))
			diff(t, "round trip", tc.in, back, cmp.AllowUnexported(Nullable[Escalation]{}))
			v, ok := back.E.Get()
			want, wantOK := tc.in.E.Get()
			diff(t, "Get value", want, v)
			diff(t, "Get ok", wantOK, ok)
			diff(t, "IsNull", tc.in.E.IsNull(), back.E.IsNull())
		})
	}
}

// TestTaskRoundTrip: a Task encodes back to the wire form it came from
// (epoch ms, durations in ms), so the types can serve a fake server too.
func TestTaskRoundTrip(t *testing.T) {
	in := `{"id":"t","tags":["a"],"priority":2,"status":"pending","workerId":"w","meta":{"k":"v"},` +
		`"escalation":{"respondWithinMs":1000,"onNoResponse":"allow"},"sla":{"expireAfterMs":60000,"maxRejections":2},` +
		`"schedule":{"notBefore":1763700000000,"notAfter":1763700060000},"createdAt":1763700000000}`
	var task Task
	noError(t, json.Unmarshal([]byte(in), &task))
	diff(t, "createdAt", t0, task.CreatedAt)
	diff(t, "schedule", &Schedule{NotBefore: t0, NotAfter: t0.Add(time.Minute)}, task.Schedule)
	out, err := json.Marshal(task)
	noError(t, err)
	diff(t, "round trip", jsonValue(t, []byte(in)), jsonValue(t, out))
}

func TestDecisionRoundTrip(t *testing.T) {
	in := `{"id":"d","taskId":"t","workerId":"w","mode":"best-match","candidates":[{"workerId":"w","eligible":true,` +
		`"chosen":true,"score":1,"effectivePriority":0,"reasons":[{"kind":"newKind","x":[1,2]}]}],"matchedAt":1763700000000}`
	var d Decision
	noError(t, json.Unmarshal([]byte(in), &d))
	diff(t, "kind", "newKind", d.Candidates[0].Reasons[0].Kind)
	diff(t, "matchedAt", t0, d.MatchedAt)
	out, err := json.Marshal(d)
	noError(t, err)
	diff(t, "round trip", jsonValue(t, []byte(in)), jsonValue(t, out))
}

func TestTimestampNullAndFloat(t *testing.T) {
	var task Task
	noError(t, json.Unmarshal([]byte(`{"createdAt":null}`), &task))
	if !task.CreatedAt.IsZero() {
		t.Errorf("null createdAt = %v, want zero", task.CreatedAt)
	}
	noError(t, json.Unmarshal([]byte(`{"createdAt":1.7637e12}`), &task))
	diff(t, "float ms", time.UnixMilli(1763700000000).UTC(), task.CreatedAt)
	if err := json.Unmarshal([]byte(`{"createdAt":"yesterday"}`), &task); err == nil {
		t.Error("a string timestamp must fail")
	}
}
