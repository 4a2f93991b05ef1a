package taskrouting

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkWorkerAccept compares WorkerClient.Accept (the worker plane: a
// session token read under a lock, no idempotency key, no quota) with the
// same call written by hand with net/http and encoding/json, alternating
// the two call by call against one local server, and reports their ratio
// as client/nethttp (the workspace plane's bar for Tasks.Create is 1.15).
func BenchmarkWorkerAccept(b *testing.B) {
	answer := []byte(`{"id":"task_c3d4","status":"accepted"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header()["Content-Type"] = []string{"application/json"}
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	ctx := context.Background()
	wc, err := NewWorkerClient(srv.URL+"/v1", WithHTTPClient(srv.Client()))
	if err != nil {
		b.Fatal(err)
	}
	wc.c.creds.set(testWorkerToken, "agent_1")
	hc, url := srv.Client(), srv.URL+"/v1/portal/tasks/task_c3d4/accept"

	b.ReportAllocs()
	var inClient, inHand time.Duration
	for b.Loop() {
		start := time.Now()
		ref, err := wc.Accept(ctx, "task_c3d4")
		if err != nil || ref.Status != TaskStatusAccepted {
			b.Fatalf("client: %v %v", ref, err)
		}
		mid := time.Now()
		if err := acceptByHand(ctx, hc, url); err != nil {
			b.Fatal(err)
		}
		inClient += mid.Sub(start)
		inHand += time.Since(mid)
	}
	b.ReportMetric(float64(inClient)/float64(inHand), "client/nethttp")
}

// acceptByHand is the baseline: what a careful user writes without the SDK.
func acceptByHand(ctx context.Context, hc *http.Client, url string) error {
	body, err := json.Marshal(map[string]string{"workerId": "agent_1"})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testWorkerToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var ref TaskRef
	if err := json.NewDecoder(resp.Body).Decode(&ref); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || ref.Status != TaskStatusAccepted {
		return fmt.Errorf("got %d %v", resp.StatusCode, ref)
	}
	return nil
}
