package mockserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// benchCreate drives POST /v1/tasks straight into h (no socket), one request at a time, so
// ns/op is the server's CPU per create and allocs/op its garbage. The request is built as
// net/http's server hands it to a handler, not parsed from text by httptest.NewRequest,
// whose fresh 4 KB reader per request a server does not pay (it keeps one per
// connection); the recorder copies the header at WriteHeader as net/http's writer does.
func benchCreate(b *testing.B, h http.Handler, key string) {
	b.Helper()
	b.ReportAllocs()
	auth, ct := []string{"Bearer " + key}, []string{"application/json"}
	u, err := url.Parse("/v1/tasks")
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	cpu0 := processCPU()
	for b.Loop() {
		i++
		target := *u
		req := &http.Request{
			Method: http.MethodPost, URL: &target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:        http.Header{"Authorization": auth, "Content-Type": ct, "Idempotency-Key": {"bench-" + strconv.Itoa(i)}},
			Body:          io.NopCloser(bytes.NewReader(benchBody)),
			ContentLength: int64(len(benchBody)), Host: "example.com", RemoteAddr: "192.0.2.1:1234", RequestURI: "/v1/tasks",
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusAccepted {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// processCPU is the process's user and system CPU time so far (getrusage): on a shared
// machine it counts only this process's work, where wall time counts everyone's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCreateCPU measures the server's CPU and garbage per create, beside the bare
// handler's, with the answer check off (as the library runs outside tests) and on (as the
// binary runs by default, WithStrictResponses).
//
//	go test -run '^$' -bench '^BenchmarkCreateCPU$' -benchmem ./mockserver/
func BenchmarkCreateCPU(b *testing.B) {
	b.Run("bare", func(b *testing.B) { benchCreate(b, bareHandler(), "sk_test_bench") })
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"mock", []Option{WithRequestLog(1000), withoutResponseChecks()}},
		{"mock-strict", []Option{WithRequestLog(1000), withoutResponseChecks(), WithStrictResponses()}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv, err := NewUnstarted(tc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			benchCreate(b, srv.Handler(), srv.APIKey())
		})
	}
}

// TestFormatCount holds the quota headers' unallocated Unlimited text to the constant.
func TestFormatCount(t *testing.T) {
	for _, n := range []int{0, 7, 999_999, Unlimited, Unlimited + 1} {
		if got, want := formatCount(n), strconv.Itoa(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkCreateRetained reports what each create leaves on the heap for the server's life
// (retained-B/op, retained-objects/op: the live heap after a collection, before and after
// b.N creates). The binary's collector target multiplies it: at -gc-percent 400 the heap
// grows by five times the live data, and every fresh page of it costs a page fault. The
// request header is shaped as net/http's server parses one (a fresh map and value strings
// for six headers of Go's client), since the journal keeps what it is given.
//
//	go test -run '^$' -bench '^BenchmarkCreateRetained$' -benchtime 8000x ./mockserver/
func BenchmarkCreateRetained(b *testing.B) {
	srv, err := NewUnstarted(WithRequestLog(10_000), withoutResponseChecks()) // the binary's journal size
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	h := srv.Handler()
	u, err := url.Parse("/v1/tasks")
	if err != nil {
		b.Fatal(err)
	}
	create := func(i int) {
		hdr := make(http.Header, 7)
		vals := make([]string, 6)
		for j, kv := range [...][2]string{{"User-Agent", "Go-http-client/1.1"}, {"Content-Length", strconv.Itoa(len(benchBody))},
			{"Authorization", "Bearer " + srv.APIKey()}, {"Content-Type", "application/json"},
			{"Idempotency-Key", "load-" + strconv.Itoa(i)}, {"Accept-Encoding", "gzip"}} {
			vals[j] = string([]byte(kv[1])) // a string of its own, as textproto makes
			hdr[kv[0]] = vals[j : j+1 : j+1]
		}
		target := *u
		req := &http.Request{Method: http.MethodPost, URL: &target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: hdr,
			Body: io.NopCloser(bytes.NewReader(benchBody)), ContentLength: int64(len(benchBody)), Host: "example.com",
			RemoteAddr: "192.0.2.1:1234", RequestURI: "/v1/tasks"}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusAccepted {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	for i := range 1000 { // the state log's and journal's first arrays, the contract's lazy parts
		create(-1 - i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	i := 0
	for b.Loop() {
		i++
		create(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "retained-B/op")
	b.ReportMetric(float64(after.HeapObjects-before.HeapObjects)/float64(b.N), "retained-objects/op")
}
