package mockserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// soakDriver sends create → accept → complete for one task after another, each POST with an
// Idempotency-Key of its own as the SDK sends it, against one server through hc.
type soakDriver struct {
	base, key string
	hc        *http.Client
	next      atomic.Int64
}

func (d *soakDriver) post(path, body, idem string) (int, error) {
	req, err := http.NewRequest("POST", d.base+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+d.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idem)
	resp, err := d.hc.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// task runs one task's life for worker w; the error names the step that was refused.
func (d *soakDriver) task(w string) error {
	id := "t" + strconv.FormatInt(d.next.Add(1), 10)
	steps := [...]struct {
		path, body string
		want       int
	}{
		{"/tasks", `{"id":"` + id + `","tags":["` + w + `"],"title":"soak ` + id + `","meta":{"n":1}}`, http.StatusAccepted},
		{"/tasks/" + id + "/accept", `{"workerId":"` + w + `"}`, http.StatusOK},
		{"/tasks/" + id + "/complete", `{"workerId":"` + w + `","result":{"ok":true}}`, http.StatusOK},
	}
	for i, s := range steps {
		status, err := d.post(s.path, s.body, id+"-"+strconv.Itoa(i))
		if err != nil {
			return fmt.Errorf("POST %s: %w", s.path, err)
		}
		if status != s.want {
			return fmt.Errorf("POST %s: %d, want %d", s.path, status, s.want)
		}
	}
	return nil
}

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// soakOptions bound every record the server keeps small, so a short run passes all of
// them: finished tasks, events and ledgers, the request log and the state log (past 2,000
// commands it is dropped and Snapshot refused).
func soakOptions(finished int) []Option {
	return []Option{WithFinishedTasks(finished), WithRetention(1_000), WithRequestLog(1_000), WithStateLog(2_000)}
}

// TestSoakHeapFlat is the short soak: 12,000 tasks created, accepted and completed through
// the server's handler (Transport: the whole request path without a socket), then 4,000
// more; the live heap after a collection may grow by at most 2 MiB between the two
// checkpoints. The warm-up fills every bound: the matcher's decision log (10,000), the
// records (WithRetention(1,000)) and the finished tasks (WithFinishedTasks(500)). Without
// the bound on finished tasks the same run grows by about 2 KB per task (8 MB here).
func TestSoakHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s")
	}
	const warmup, more, slack = 12_000, 4_000, 2 << 20
	srv, err := NewUnstarted(soakOptions(500)...)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	d := &soakDriver{base: "http://mock.invalid" + BasePath, key: srv.APIKey(), hc: &http.Client{Transport: srv.Transport()}}
	status, err := d.post("/workers", `{"id":"w1","tags":["w1"],"available":true}`, "w1")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	run := func(n int) {
		for range n {
			require.NoError(t, d.task("w1"))
		}
	}
	run(warmup)
	first := liveHeap()
	run(more)
	second := liveHeap()
	t.Logf("live heap after %d tasks: %d KiB; after %d more: %d KiB (%+d bytes per task)",
		warmup, first>>10, more, second>>10, (int64(second)-int64(first))/more)
	assert.LessOrEqual(t, int64(second)-int64(first), int64(slack), "the heap grows with the tasks")
}

// vmRSS is the process's resident set from /proc (0 where there is none).
func vmRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestSoakLong is the long soak (TASKROUTING_LONG=1): the server over loopback, 16 clients
// running create → accept → complete until TASKROUTING_SOAK_TASKS tasks (default 1,000,000)
// have finished, the live heap and the resident set sampled at each tenth of them. Every
// bound must fill in the first two tenths (the warm-up), so the retention is scaled to the
// run: each worker keeps 2N outcomes, and at the default N (100,000) 16 workers would fill
// theirs only after 3.2 million tasks; N = tasks/160 fills them in the first fifth. The
// finished-task bound and the state log (dropped at 200,000 commands) are the defaults.
// After the warm-up no sample may pass the warm-up's highest by more than 10% + 16 MiB. Give it time: TASKROUTING_LONG=1 go test -timeout 3h -run TestSoakLong
// -v ./mockserver/ (a sequential client ran 250 to 1,000 tasks a second on a shared two-core
// machine).
func TestSoakLong(t *testing.T) {
	if os.Getenv("TASKROUTING_LONG") != "1" {
		t.Skip("set TASKROUTING_LONG=1 for the long soak")
	}
	total := int64(1_000_000)
	if s := os.Getenv("TASKROUTING_SOAK_TASKS"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
		total = n
	}
	srv, err := New(WithRetention(int(max(1000, total/160))))
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	const clients = 16
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}
	t.Cleanup(tr.CloseIdleConnections)
	d := &soakDriver{base: srv.URL(), key: srv.APIKey(), hc: &http.Client{Transport: tr}}
	for c := range clients {
		w := "w" + strconv.Itoa(c)
		status, err := d.post("/workers", `{"id":"`+w+`","tags":["`+w+`"],"available":true}`, w)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status)
	}
	// A client that finishes the task ending a tenth of the run says so on tenth; the
	// samples are taken there, while the others keep going.
	tenth := make(chan int64, 10)
	var finished atomic.Int64
	var wg sync.WaitGroup
	failed := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if err := d.task("w" + strconv.Itoa(c)); err != nil {
					failed <- err
					return
				}
				n := finished.Add(1)
				if n > total {
					return
				}
				if n%(total/10) == 0 {
					tenth <- n
				}
			}
		}()
	}
	type sample struct {
		tasks     int64
		heap, rss uint64
	}
	var samples []sample
	var buf bytes.Buffer
	start := time.Now()
	for len(samples) < 10 {
		select {
		case err := <-failed:
			t.Fatalf("after %d tasks: %v\n%s", finished.Load(), err, buf.String())
		case n := <-tenth:
			s := sample{tasks: n, heap: liveHeap(), rss: vmRSS()}
			samples = append(samples, s)
			line := fmt.Sprintf("%8d tasks  %6.0fs  heap %5d MiB  rss %5d MiB", s.tasks, time.Since(start).Seconds(), s.heap>>20, s.rss>>20)
			t.Log(line) // as it comes, so a run cut short still shows its samples
			fmt.Fprintln(&buf, line)
		}
	}
	wg.Wait()
	t.Logf("soak of %d tasks, %d clients:\n%s", total, clients, buf.String())
	var warmHeap, warmRSS uint64
	for _, s := range samples[:2] {
		warmHeap, warmRSS = max(warmHeap, s.heap), max(warmRSS, s.rss)
	}
	for i, s := range samples[2:] {
		assert.LessOrEqual(t, s.heap, warmHeap+warmHeap/10+16<<20, "heap at %d tasks", s.tasks)
		if warmRSS > 0 {
			assert.LessOrEqual(t, s.rss, warmRSS+warmRSS/10+16<<20, "rss at %d tasks (sample %d)", s.tasks, i+3)
		}
	}
}

// TestSoakMeasure (TASKROUTING_LONG=1) measures what TestSoakHeapFlat asserts, against the
// baseline of the same run without the bound on finished tasks: the live heap's growth per
// task between 12,000 and 32,000 tasks, every other record bounded as in TestSoakHeapFlat.
func TestSoakMeasure(t *testing.T) {
	if os.Getenv("TASKROUTING_LONG") != "1" {
		t.Skip("set TASKROUTING_LONG=1 to measure")
	}
	const warmup, more = 12_000, 20_000
	perTask := func(finished int) float64 {
		srv, err := NewUnstarted(soakOptions(finished)...)
		require.NoError(t, err)
		defer srv.Close()
		d := &soakDriver{base: "http://mock.invalid" + BasePath, key: srv.APIKey(), hc: &http.Client{Transport: srv.Transport()}}
		_, err = d.post("/workers", `{"id":"w1","tags":["w1"],"available":true}`, "w1")
		require.NoError(t, err)
		for range warmup {
			require.NoError(t, d.task("w1"))
		}
		first := liveHeap()
		for range more {
			require.NoError(t, d.task("w1"))
		}
		return float64(int64(liveHeap())-int64(first)) / more
	}
	kept, bounded := perTask(-1), perTask(500)
	t.Logf("live heap per task after warm-up: %.0f bytes keeping every finished task, %.0f bytes with WithFinishedTasks(500)", kept, bounded)
}
