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
// decodes must encode again and keep its raw JSON as the Raw doc comments
// say: the body exactly as received when decoded as a call's answer, the
// value without the JSON whitespace around it when decoded with
// json.Unmarshal. The normal test run checks the seeds (every fixture's
// answer); `go test -fuzz` explores.
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
	f.Add([]byte("{} "))
	f.Add([]byte(" null "))
	f.Add([]byte("\r\n\t {\"id\":\"t\"}\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		value := bytes.Trim(data, " \t\r\n") // JSON's whitespace only
		var task Task
		if json.Unmarshal(data, &task) == nil {
			if !bytes.Equal(task.Raw, value) {
				t.Errorf("Task.Raw %q, want the value %q", task.Raw, value)
			}
			if _, err := json.Marshal(task); err != nil {
				t.Errorf("decoded Task does not encode: %v", err)
			}
			var answer Task
			if err := decodeAnswer(data, &answer); err != nil || !bytes.Equal(answer.Raw, data) {
				t.Errorf("Task as an answer: Raw %q (error %v), want the body as received", answer.Raw, err)
			}
		}
		var w WorkerDetail
		if json.Unmarshal(data, &w) == nil {
			if !bytes.Equal(w.Raw, value) {
				t.Errorf("WorkerDetail.Raw %q, want the value %q", w.Raw, value)
			}
			var answer WorkerDetail
			if err := decodeAnswer(data, &answer); err != nil || !bytes.Equal(answer.Raw, data) {
				t.Errorf("WorkerDetail as an answer: Raw %q (error %v), want the body as received", answer.Raw, err)
			}
		}
		var p WorkerProfile
		if json.Unmarshal(data, &p) == nil {
			var answer WorkerProfile
			if err := decodeAnswer(data, &answer); err != nil || !bytes.Equal(answer.Raw, data) {
				t.Errorf("WorkerProfile as an answer: Raw %q (error %v), want the body as received", answer.Raw, err)
			}
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
