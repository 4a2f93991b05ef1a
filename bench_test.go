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

// BenchmarkTasksCreate compares Client.Tasks.Create with the call a user
// would write by hand with net/http and encoding/json, against the same
// local server in the same run (target: client at most 1.15x nethttp).
// "client" and "nethttp" report ns/op and allocs/op of each; "interleaved"
// alternates the two call by call, so machine noise hits both alike, and
// reports their ratio as the client/nethttp metric.
func BenchmarkTasksCreate(b *testing.B) {
	answer := []byte(`{"id":"task_8fk2","status":"queued"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["X-Quota-Task-Rate-Limit"] = []string{"600"}
		h["X-Quota-Task-Rate-Remaining"] = []string{"599"}
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	params := CreateTaskParams{Tags: []string{"english", "billing"}, Priority: 90, Title: "Refund request"}
	ctx := context.Background()
	c, err := NewClient(srv.URL+"/v1", testKey, WithHTTPClient(srv.Client()))
	if err != nil {
		b.Fatal(err)
	}
	viaClient := func() error {
		ref, err := c.Tasks.Create(ctx, params)
		if err != nil {
			return err
		}
		if ref.ID != "task_8fk2" {
			return fmt.Errorf("id %q", ref.ID)
		}
		return nil
	}
	hc, url := srv.Client(), srv.URL+"/v1/tasks"
	byHand := func() error { return createByHand(ctx, hc, url, params) }

	for _, bc := range []struct {
		name string
		call func() error
	}{{"client", viaClient}, {"nethttp", byHand}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}

	b.Run("interleaved", func(b *testing.B) {
		var inClient, inHand time.Duration
		for b.Loop() {
			start := time.Now()
			if err := viaClient(); err != nil {
				b.Fatal(err)
			}
			mid := time.Now()
			if err := byHand(); err != nil {
				b.Fatal(err)
			}
			inClient += mid.Sub(start)
			inHand += time.Since(mid)
		}
		b.ReportMetric(float64(inClient)/float64(inHand), "client/nethttp")
	})
}

// createByHand is the baseline: what a careful user writes without the SDK.
func createByHand(ctx context.Context, hc *http.Client, url string, params CreateTaskParams) error {
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Idempotency-Key", "5f0c6f1e-8d7a-4c1b-9a51-2f1f3c0d9e77")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var ref TaskRef
	if err := json.NewDecoder(resp.Body).Decode(&ref); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusAccepted || ref.ID != "task_8fk2" {
		return fmt.Errorf("got %d %v", resp.StatusCode, ref)
	}
	return nil
}
