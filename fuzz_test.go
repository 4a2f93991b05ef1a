package taskrouting

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeResponses feeds arbitrary bytes to the response types with
// custom decoding. Decoding may fail but must not panic, and whatever
// decodes must keep its raw JSON and encode again. The normal test run
// checks the seeds (every fixture's answer); `go test -fuzz` explores.
func FuzzDecodeResponses(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "wire", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var fx wireFixture
		if err := json.Unmarshal(b, &fx); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(fx.Response.Body))
	}
	f.Add([]byte(`{"createdAt":1e300,"escalation":{"respondWithinMs":-1},"sla":null,"schedule":{"notBefore":null}}`))
	f.Add([]byte(`{"reasons":[{"kind":7}],"matchedAt":"x"}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		var task Task
		if json.Unmarshal(data, &task) == nil {
			if !bytes.Equal(task.Raw, data) {
				t.Errorf("Task.Raw differs from the input")
			}
			if _, err := json.Marshal(task); err != nil {
				t.Errorf("decoded Task does not encode: %v", err)
			}
		}
		var w WorkerDetail
		if json.Unmarshal(data, &w) == nil && !bytes.Equal(w.Raw, data) {
			t.Errorf("WorkerDetail.Raw differs from the input")
		}
		var d Decision
		if json.Unmarshal(data, &d) == nil {
			if _, err := json.Marshal(d); err != nil {
				t.Errorf("decoded Decision does not encode: %v", err)
			}
		}
		var page TaskPage
		_ = json.Unmarshal(data, &page)
	})
}
