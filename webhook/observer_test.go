package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// observed is what an Observer saw of one delivery, in order.
type observed struct {
	Steps     []string
	Kind      Kind
	Status    int
	Err       string
	Duplicate bool
}

type stepKey struct{}

// observing records the hooks' calls and checks that each context handed
// on is the one the previous hook returned.
func observing() (Observer, func() []observed) {
	var mu sync.Mutex
	var all []observed
	cur := map[*observed]bool{}
	o := Observer{
		Received: func(r *http.Request) context.Context {
			ob := &observed{Steps: []string{"received"}}
			mu.Lock()
			cur[ob] = true
			mu.Unlock()
			return context.WithValue(r.Context(), stepKey{}, ob)
		},
		Verified: func(ctx context.Context, ev Event, err error) context.Context {
			ob := ctx.Value(stepKey{}).(*observed)
			step := "verified"
			if err != nil {
				step = "refused: " + err.Error()
			}
			ob.Steps = append(ob.Steps, step)
			return context.WithValue(ctx, stepKey{}, ob)
		},
		Done: func(ctx context.Context, d DeliveryResult) {
			ob := ctx.Value(stepKey{}).(*observed)
			ob.Steps = append(ob.Steps, "done")
			ob.Kind, ob.Status, ob.Duplicate = d.Event.Kind, d.Status, d.Duplicate
			if d.Err != nil {
				ob.Err = d.Err.Error()
			}
			mu.Lock()
			all = append(all, *ob)
			mu.Unlock()
		},
	}
	return o, func() []observed {
		mu.Lock()
		defer mu.Unlock()
		return append([]observed(nil), all...)
	}
}

func TestObserverFollowsEachDelivery(t *testing.T) {
	good := `{"event":"task.accepted","id":"evt_1","taskId":"t1","workerId":"w1"}`
	failing := `{"event":"task.completed","id":"evt_2","taskId":"t1","workerId":"w1"}`
	obs, seen := observing()
	dedup, err := NewMemoryDeduper(10)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(testVerifier(t), func(_ context.Context, ev Event) error {
		if ev.ID == "evt_2" {
			return errors.New("database down")
		}
		return nil
	}, WithObserver(obs), WithDeduper(dedup)))
	defer srv.Close()
	for _, d := range []delivery{
		signed(good, testSecret, testNow),
		signed(good, testSecret, testNow), // a redelivery: the deduper answers
		signed(failing, testSecret, testNow),
		signed(good, "whsec_other", testNow),
		signed(good, testSecret, testNow.Add(-time.Hour)),
		{method: http.MethodGet, header: "-"},
	} {
		send(t, srv.URL, d)
	}
	want := []observed{
		{Steps: []string{"received", "verified", "done"}, Kind: KindTaskAccepted, Status: 204},
		{Steps: []string{"received", "verified", "done"}, Kind: KindTaskAccepted, Status: 204, Duplicate: true},
		{Steps: []string{"received", "verified", "done"}, Kind: KindTaskCompleted, Status: 500, Err: "database down"},
		{Steps: []string{"received", "refused: " + ErrNoMatchingSignature.Error(), "done"}, Status: 401, Err: ErrNoMatchingSignature.Error()},
		{Steps: []string{"received", "refused: " + ErrTimestampOutsideTolerance.Error() + ": too old", "done"}, Status: 401, Err: ErrTimestampOutsideTolerance.Error() + ": too old"},
		{Steps: []string{"received", "refused: webhook: method not allowed", "done"}, Status: 405, Err: "webhook: method not allowed"},
	}
	if diff := cmp.Diff(want, seen()); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
}

func TestObserverWithMiddlewareTakesNextsStatus(t *testing.T) {
	obs, seen := observing()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(stepKey{}) == nil {
			t.Error("the next handler did not get the observer's context")
		}
		w.WriteHeader(http.StatusAccepted)
	})
	srv := httptest.NewServer(Middleware(testVerifier(t), WithObserver(obs))(next))
	defer srv.Close()
	send(t, srv.URL, signed(`{"event":"task.expired","id":"evt_9","taskId":"t1","workerId":"w1"}`, testSecret, testNow))
	want := []observed{{Steps: []string{"received", "verified", "done"}, Kind: KindTaskExpired, Status: 202}}
	if diff := cmp.Diff(want, seen()); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
}

type verifiedKey struct{}

// TestObserverVerifiedContextReachesTheCallback: the context Verified returns is the one
// the callback and Done get; a nil one leaves the delivery's context as it was.
func TestObserverVerifiedContextReachesTheCallback(t *testing.T) {
	for _, tc := range []struct {
		name     string
		returned func(ctx context.Context) context.Context
		want     []string // what the callback and Done saw under verifiedKey and stepKey
	}{
		{
			name: "a new context",
			returned: func(ctx context.Context) context.Context {
				return context.WithValue(ctx, verifiedKey{}, "from Verified")
			},
			want: []string{"callback: from Verified, received", "done: from Verified, received"},
		},
		{
			name:     "nil",
			returned: func(context.Context) context.Context { return nil },
			want:     []string{"callback: <none>, received", "done: <none>, received"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			saw := func(who string, ctx context.Context) {
				v, ok := ctx.Value(verifiedKey{}).(string)
				if !ok {
					v = "<none>"
				}
				r, _ := ctx.Value(stepKey{}).(string)
				mu.Lock()
				got = append(got, who+": "+v+", "+r)
				mu.Unlock()
			}
			obs := Observer{
				Received: func(r *http.Request) context.Context { return context.WithValue(r.Context(), stepKey{}, "received") },
				Verified: func(ctx context.Context, _ Event, _ error) context.Context { return tc.returned(ctx) },
				Done:     func(ctx context.Context, _ DeliveryResult) { saw("done", ctx) },
			}
			srv := httptest.NewServer(Handler(testVerifier(t), func(ctx context.Context, _ Event) error {
				saw("callback", ctx)
				return nil
			}, WithObserver(obs)))
			defer srv.Close()
			send(t, srv.URL, signed(`{"event":"task.accepted","id":"evt_1","taskId":"t1","workerId":"w1"}`, testSecret, testNow))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("contexts seen (-want +got):\n%s", diff)
			}
		})
	}
}
