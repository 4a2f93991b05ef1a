package contract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUndeclaredMembers: an answer member the response schema does not name is reported, even
// inside an object JSON Schema would leave open; free-form objects (no properties) and objects
// that state additionalProperties stay open.
func TestUndeclaredMembers(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, op, body string
		want           []string
	}{
		{"a clean task", "tasks.get", `{"id":"t","tags":["a"],"priority":0,"status":"queued","workerId":null,"createdAt":1,"meta":{"any":1}}`, nil},
		{"free-form meta and result keep any member", "tasks.get", `{"id":"t","tags":["a"],"priority":0,"status":"completed","workerId":"w","createdAt":1,"meta":{"x":{"y":1}},"result":{"z":1}}`, nil},
		{"a member the open inline schema does not name", "workers.upsert", `{"id":"w","unmatched":{}}`, []string{"/unmatched"}},
		{"an explicitly open reason", "tasks.suggestWorkers", `{"tags":["a"],"priority":0,"workers":[{"workerId":"w","eligible":true,"score":1,"effectivePriority":0,"reasons":[{"kind":"tagWeight","tag":"a","weight":1}]}]}`, nil},
		{"a map of numbers", "learning.status", `{"enabled":true,"shadowMode":false,"autoWeights":false,"modelSize":0,"signalWeights":{"csat":1}}`, nil},
		{"an error answer is not walked", "tasks.get", `{"error":{"code":"not_found","message":"x","extra":1}}`, nil},
	}
	for _, tc := range tests {
		status := 200
		if tc.name == "an error answer is not walked" {
			status = 404
		}
		if diff := cmp.Diff(tc.want, c.UndeclaredMembers(tc.op, status, []byte(tc.body))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
