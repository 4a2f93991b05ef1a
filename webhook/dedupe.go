package webhook

import (
	"context"
	"fmt"
	"sync"
)

// ClaimResult is what a [Deduper] says about an event id.
type ClaimResult int

const (
	// ClaimAcquired: process the event, then call Release.
	ClaimAcquired ClaimResult = iota + 1
	// ClaimProcessed: the event was processed before; skip it and answer
	// success so the sender stops redelivering.
	ClaimProcessed
	// ClaimInFlight: another delivery of the same event is being processed
	// right now; answer a retryable failure, because that attempt may
	// still fail and this delivery must not be lost meanwhile.
	ClaimInFlight
)

// Deduper lets a handler process each event id once although the sender
// delivers at least once. Claim and Release bracket the processing of one
// delivery; an id is remembered as processed only when Release says so, so a
// delivery whose processing failed is processed again when it comes back.
// Implementations must be safe for concurrent use; a store shared by several
// receiver instances (a database, Redis) can implement it as well as
// [MemoryDeduper].
type Deduper interface {
	Claim(ctx context.Context, eventID string) (ClaimResult, error)
	// Release ends a claim: processed true remembers eventID, false
	// forgets the claim so that a redelivery is processed.
	Release(ctx context.Context, eventID string, processed bool)
}

// MemoryDeduper is an in-memory [Deduper] bounded to the most recent
// processed ids: when full, the oldest processed id is forgotten, so a
// redelivery older than the last capacity events is processed again. Use it
// in a single receiver process; it is safe for concurrent use.
type MemoryDeduper struct {
	mu        sync.Mutex
	capacity  int
	processed map[string]struct{}
	order     []string // ring of processed ids, oldest at next once full
	next      int
	inFlight  map[string]struct{}
}

// NewMemoryDeduper returns a [MemoryDeduper] remembering up to capacity
// processed event ids. capacity must be positive.
func NewMemoryDeduper(capacity int) (*MemoryDeduper, error) {
	if capacity <= 0 {
		return nil, fmt.Errorf("%w: deduper capacity must be positive", ErrInvalidOption)
	}
	return &MemoryDeduper{
		capacity:  capacity,
		processed: make(map[string]struct{}),
		inFlight:  make(map[string]struct{}),
	}, nil
}

// Claim implements [Deduper]; it never fails.
func (d *MemoryDeduper) Claim(_ context.Context, eventID string) (ClaimResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.processed[eventID]; ok {
		return ClaimProcessed, nil
	}
	if _, ok := d.inFlight[eventID]; ok {
		return ClaimInFlight, nil
	}
	d.inFlight[eventID] = struct{}{}
	return ClaimAcquired, nil
}

// Release implements [Deduper].
func (d *MemoryDeduper) Release(_ context.Context, eventID string, processed bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.inFlight[eventID]; !ok {
		return // not claimed: nothing to release, and nothing to remember
	}
	delete(d.inFlight, eventID)
	if !processed {
		return
	}
	if len(d.order) < d.capacity {
		d.order = append(d.order, eventID)
	} else {
		delete(d.processed, d.order[d.next])
		d.order[d.next] = eventID
		d.next = (d.next + 1) % d.capacity
	}
	d.processed[eventID] = struct{}{}
}

// Len reports how many processed ids are remembered.
func (d *MemoryDeduper) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.processed)
}
