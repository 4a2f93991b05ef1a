package taskrouting

import (
	"net/http"
	"strconv"
	"sync"
)

// QuotaCounter is one quota kind as last reported by the server.
type QuotaCounter struct {
	Limit     int
	Remaining int
	// Known is false until a response has carried this kind's headers.
	Known bool
}

// Quota is a snapshot of the X-Quota-{kind}-Limit and -Remaining headers,
// merged over every response the client has seen: a kind keeps its last
// reported values until a newer response reports it again.
type Quota struct {
	TaskRate     QuotaCounter // task-rate
	QueuedTasks  QuotaCounter // queued-tasks
	Workers      QuotaCounter // workers
	Skills       QuotaCounter // skills
	WorkerSkills QuotaCounter // worker-skills
}

// quotaTracker holds the latest snapshot; safe for concurrent use.
type quotaTracker struct {
	mu   sync.Mutex
	snap Quota
}

func (t *quotaTracker) get() Quota {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snap
}

// update merges the quota headers of h and returns the merged snapshot.
// The header names are written in canonical form so lookups index the map
// directly instead of canonicalising on every response.
func (t *quotaTracker) update(h http.Header) Quota {
	t.mu.Lock()
	defer t.mu.Unlock()
	mergeCounter(h, "X-Quota-Task-Rate-Limit", "X-Quota-Task-Rate-Remaining", &t.snap.TaskRate)
	mergeCounter(h, "X-Quota-Queued-Tasks-Limit", "X-Quota-Queued-Tasks-Remaining", &t.snap.QueuedTasks)
	mergeCounter(h, "X-Quota-Workers-Limit", "X-Quota-Workers-Remaining", &t.snap.Workers)
	mergeCounter(h, "X-Quota-Skills-Limit", "X-Quota-Skills-Remaining", &t.snap.Skills)
	mergeCounter(h, "X-Quota-Worker-Skills-Limit", "X-Quota-Worker-Skills-Remaining", &t.snap.WorkerSkills)
	return t.snap
}

// mergeCounter keeps the previous value of a missing or malformed header
// rather than failing the call: quota headers are advisory.
func mergeCounter(h http.Header, limitKey, remainingKey string, dst *QuotaCounter) {
	limit, okL := headerInt(h, limitKey)
	remaining, okR := headerInt(h, remainingKey)
	if okL {
		dst.Limit = limit
	}
	if okR {
		dst.Remaining = remaining
	}
	if okL || okR {
		dst.Known = true
	}
}

func headerInt(h http.Header, canonicalKey string) (int, bool) {
	v := h[canonicalKey]
	if len(v) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(v[0])
	if err != nil {
		return 0, false
	}
	return n, true
}
