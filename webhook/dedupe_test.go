package webhook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMemoryDeduperClaims(t *testing.T) {
	ctx := context.Background()
	d, err := NewMemoryDeduper(2)
	if err != nil {
		t.Fatalf("NewMemoryDeduper: %v", err)
	}
	claim := func(id string) ClaimResult {
		res, err := d.Claim(ctx, id)
		if err != nil {
			t.Fatalf("Claim(%s): %v", id, err)
		}
		return res
	}
	var got []ClaimResult
	got = append(got, claim("a"), claim("a")) // acquired, then in flight
	d.Release(ctx, "a", false)                // failed: forgotten
	got = append(got, claim("a"))
	d.Release(ctx, "a", true)
	got = append(got, claim("a"))
	for _, id := range []string{"b", "c"} { // capacity 2: "a" falls out
		got = append(got, claim(id))
		d.Release(ctx, id, true)
	}
	got = append(got, claim("b"), claim("c"), claim("a"))
	d.Release(ctx, "never-claimed", true)
	want := []ClaimResult{
		ClaimAcquired, ClaimInFlight, ClaimAcquired, ClaimProcessed,
		ClaimAcquired, ClaimAcquired, ClaimProcessed, ClaimProcessed, ClaimAcquired,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	if d.Len() != 2 {
		t.Errorf("Len = %d, want 2 (bounded)", d.Len())
	}
}

func TestMemoryDeduperConcurrentClaimsAcquireOnce(t *testing.T) {
	ctx := context.Background()
	d, err := NewMemoryDeduper(1000)
	if err != nil {
		t.Fatalf("NewMemoryDeduper: %v", err)
	}
	const ids, goroutines = 100, 8
	var mu sync.Mutex
	acquired := map[string]int{}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < ids; i++ {
				id := fmt.Sprint("evt_", i)
				if res, _ := d.Claim(ctx, id); res == ClaimAcquired {
					mu.Lock()
					acquired[id]++
					mu.Unlock()
					d.Release(ctx, id, true)
				}
			}
		}()
	}
	wg.Wait()
	if len(acquired) != ids {
		t.Errorf("%d ids acquired, want %d", len(acquired), ids)
	}
	for id, n := range acquired {
		if n != 1 {
			t.Errorf("%s acquired %d times, want once", id, n)
		}
	}
}

func TestNewMemoryDeduperCapacity(t *testing.T) {
	for _, c := range []int{0, -1} {
		if _, err := NewMemoryDeduper(c); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("NewMemoryDeduper(%d) = %v, want ErrInvalidOption", c, err)
		}
	}
}

// TestMemoryDeduperForgetsTheOldestFirst: a full MemoryDeduper forgets the
// id processed longest ago, one per new id, through many rounds of its
// capacity, so it always remembers exactly the last capacity ids.
func TestMemoryDeduperForgetsTheOldestFirst(t *testing.T) {
	ctx := context.Background()
	const capacity, total = 3, 10
	d, err := NewMemoryDeduper(capacity)
	if err != nil {
		t.Fatalf("NewMemoryDeduper: %v", err)
	}
	id := func(i int) string { return fmt.Sprint("evt_", i) }
	for i := range total {
		if res, _ := d.Claim(ctx, id(i)); res != ClaimAcquired {
			t.Fatalf("Claim(%s) = %v, want acquired", id(i), res)
		}
		d.Release(ctx, id(i), true)
		var got, want []string
		for j := 0; j <= i; j++ {
			if j > i-capacity {
				want = append(want, id(j))
			}
			if res, _ := d.Claim(ctx, id(j)); res == ClaimProcessed {
				got = append(got, id(j))
			} else {
				d.Release(ctx, id(j), false) // the probe's claim, forgotten again
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("remembered after %s (-want +got):\n%s", id(i), diff)
		}
		if n := d.Len(); n != len(want) {
			t.Errorf("Len after %s = %d, want %d", id(i), n, len(want))
		}
	}
}
