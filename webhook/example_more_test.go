package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// deliver sends one signed delivery to h without a socket and returns the
// status h answered with; signedAt is when the sender signed it.
func deliver(h http.Handler, secret string, signedAt time.Time, body string) int {
	req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
	req.Header.Set(webhook.SignatureHeader, webhook.Sign([]byte(body), secret, signedAt))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

func ExampleSign() {
	// The first test vector of the wire contract.
	body := []byte(`{"event":"task.matched","taskId":"task_8fk2","workerId":"agent_1"}`)
	header := webhook.Sign(body, "whsec_testsecret", time.UnixMilli(1750000000000))
	fmt.Println(header)
	// Output:
	// t=1750000000000,v1=bbb9baa2754dd71e55f126329a25fe8be7e3ec26a4858055f0964eca89680ffc
}

func ExampleNewVerifier() {
	// During a secret rotation the sender may sign with either secret for a
	// while: accept both, the new one first.
	now := time.UnixMilli(1763700000000)
	v, err := webhook.NewVerifier("whsec_new",
		webhook.WithPreviousSecrets("whsec_old"),
		webhook.WithTolerance(2*time.Minute),
		webhook.WithClock(func() time.Time { return now }), // tests only; the default is time.Now
	)
	if err != nil {
		panic(err)
	}
	body := []byte(`{"event":"task.accepted","taskId":"task_1","workerId":"agent_1"}`)

	fmt.Println(v.Verify(body, webhook.Sign(body, "whsec_new", now)))
	fmt.Println(v.Verify(body, webhook.Sign(body, "whsec_old", now)))
	err = v.Verify(body, webhook.Sign(body, "whsec_other", now))
	fmt.Println(errors.Is(err, webhook.ErrNoMatchingSignature))

	_, err = webhook.NewVerifier("")
	fmt.Println(errors.Is(err, webhook.ErrInvalidSecret))
	// Output:
	// <nil>
	// <nil>
	// true
	// true
}

func ExampleConstructEvent() {
	secret := "whsec_testsecret"
	body := []byte(`{"event":"task.completed","id":"evt_7","taskId":"task_1","workerId":"agent_1","result":{"resolved":true}}`)
	header := webhook.Sign(body, secret, time.Now()) // what the service sends

	ev, err := webhook.ConstructEvent(body, header, secret)
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Kind, ev.ID, ev.TaskID, ev.WorkerID)
	// Output:
	// task.completed evt_7 task_1 agent_1
}

// Every failure matches one sentinel with errors.Is; none of the messages
// holds a secret, a signature or body bytes, so they are safe to log.
func ExampleVerifier_Verify() {
	const secret = "whsec_testsecret"
	now := time.UnixMilli(1763700000000)
	v, err := webhook.NewVerifier(secret, webhook.WithClock(func() time.Time { return now }))
	if err != nil {
		panic(err)
	}
	body := []byte(`{"event":"task.matched","taskId":"task_1","workerId":"agent_1"}`)

	for _, header := range []string{
		webhook.Sign(body, secret, now),
		"",
		"t=1763700000000,v1=nothex",
		webhook.Sign(body, "whsec_wrong", now),
		webhook.Sign(body, secret, now.Add(-10*time.Minute)),
		webhook.Sign(body, secret, now.Add(10*time.Minute)),
	} {
		err := v.Verify(body, header)
		switch {
		case err == nil:
			fmt.Println("ok")
		case errors.Is(err, webhook.ErrMissingHeader):
			fmt.Println("missing header")
		case errors.Is(err, webhook.ErrMalformedHeader):
			fmt.Println("malformed:", err)
		case errors.Is(err, webhook.ErrNoMatchingSignature):
			fmt.Println("forged or altered")
		case errors.Is(err, webhook.ErrTimestampOutsideTolerance):
			fmt.Println("authentic but stale:", errors.Is(err, webhook.ErrTimestampTooOld), errors.Is(err, webhook.ErrTimestampTooNew))
		}
	}
	// Output:
	// ok
	// missing header
	// malformed: webhook: malformed signature header: v1= is not 64 hex digits
	// forged or altered
	// authentic but stale: true false
	// authentic but stale: false true
}

func ExampleParseEvent() {
	// Both envelope shapes read the same; only parse bytes already verified.
	for _, body := range []string{
		`{"event":"task.matched","id":"evt_1","taskId":"task_1","workerId":"agent_1"}`,
		`{"event":"task.matched","id":"evt_2","data":{"taskId":"task_2","workerId":"agent_2"}}`,
		`{"event":"worker.break_started","id":"evt_3","workerId":"agent_3"}`, // a worker event: no task
	} {
		ev, err := webhook.ParseEvent([]byte(body))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %s task=%q worker=%q\n", ev.Kind, ev.ID, ev.TaskID, ev.WorkerID)
	}
	// Output:
	// task.matched evt_1 task="task_1" worker="agent_1"
	// task.matched evt_2 task="task_2" worker="agent_2"
	// worker.break_started evt_3 task="" worker="agent_3"
}

func ExampleEvent_TaskMatched() {
	ev, err := webhook.ParseEvent([]byte(`{"event":"task.matched","id":"evt_1","createdAt":1763700000000,` +
		`"taskId":"task_1","workerId":"agent_1","decisionId":"dec_1","matchedAt":1763700000000,` +
		`"expiresAt":1763700060000,"priority":90,"tags":["english","billing"]}`))
	if err != nil {
		panic(err)
	}
	m, err := ev.TaskMatched()
	if err != nil {
		panic(err)
	}
	fmt.Println(m.TaskID, "offered to", m.WorkerID, "by", m.DecisionID, m.Tags, m.Priority)
	fmt.Println("answer within", m.ExpiresAt.Sub(m.MatchedAt))

	_, err = ev.TaskCompleted()
	fmt.Println(errors.Is(err, webhook.ErrWrongKind))
	// Output:
	// task_1 offered to agent_1 by dec_1 [english billing] 90
	// answer within 1m0s
	// true
}

func ExampleEvent_TaskReleased() {
	// The mock server sends task.released when an offer is withdrawn without
	// the worker acting; Reason says why.
	ev, err := webhook.ParseEvent([]byte(`{"event":"task.released","id":"evt_7","createdAt":1763700000000,` +
		`"taskId":"task_1","workerId":"agent_1","priority":5,"tags":["english"],"reason":"releaseBacklog"}`))
	if err != nil {
		panic(err)
	}
	r, err := ev.TaskReleased()
	if err != nil {
		panic(err)
	}
	switch r.Reason {
	case webhook.ReleaseBacklog, webhook.ReleaseWorkerRemoved:
		fmt.Println(r.TaskID, "is queued again; it left", r.WorkerID)
	case webhook.ReleaseReassigned:
		fmt.Println(r.TaskID, "was assigned to someone else; a task.matched follows")
	}
	// Output:
	// task_1 is queued again; it left agent_1
}

func ExampleEvent_WorkerBreakStarted() {
	for _, body := range []string{
		`{"event":"worker.break_started","id":"evt_8","createdAt":1763700000000,"workerId":"agent_1","reason":"lunch"}`,
		`{"event":"worker.break_ended","id":"evt_9","createdAt":1763701800000,"workerId":"agent_1","reason":"lunch"}`,
	} {
		ev, err := webhook.ParseEvent([]byte(body))
		if err != nil {
			panic(err)
		}
		switch ev.Kind {
		case webhook.KindWorkerBreakStarted:
			b, err := ev.WorkerBreakStarted()
			if err != nil {
				panic(err)
			}
			fmt.Println(b.WorkerID, "is on a break:", b.Reason, "at", ev.CreatedAt.Format(time.TimeOnly))
		case webhook.KindWorkerBreakEnded:
			b, err := ev.WorkerBreakEnded()
			if err != nil {
				panic(err)
			}
			fmt.Println(b.WorkerID, "is back from", b.Reason, "at", ev.CreatedAt.Format(time.TimeOnly))
		}
	}
	// Output:
	// agent_1 is on a break: lunch at 04:40:00
	// agent_1 is back from lunch at 05:10:00
}

func ExampleEvent_TaskCompleted() {
	ev, err := webhook.ParseEvent([]byte(`{"event":"task.completed","id":"evt_3","taskId":"task_1","workerId":"agent_1","result":{"resolved":true}}`))
	if err != nil {
		panic(err)
	}
	done, err := ev.TaskCompleted()
	if err != nil {
		panic(err)
	}
	fmt.Println(done.TaskID, done.WorkerID, string(done.Result))
	// Output:
	// task_1 agent_1 {"resolved":true}
}

func ExampleMiddleware() {
	const secret = "whsec_testsecret"
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		panic(err)
	}
	// The next handler runs only for verified deliveries.
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, _ := webhook.EventFromContext(r.Context())
		body, _ := io.ReadAll(r.Body) // the exact verified bytes, readable again
		fmt.Println(ev.Kind, ev.TaskID, len(body) == len(ev.Raw))
		w.WriteHeader(http.StatusNoContent)
	})
	h := webhook.Middleware(v)(next)

	body := `{"event":"task.accepted","id":"evt_2","taskId":"task_1","workerId":"agent_1"}`
	fmt.Println(deliver(h, secret, time.Now(), body))
	fmt.Println(deliver(h, "whsec_forged", time.Now(), body))
	// Output:
	// task.accepted task_1 true
	// 204
	// 401
}

func ExampleWithDeduper() {
	const secret = "whsec_testsecret"
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		panic(err)
	}
	dedup, err := webhook.NewMemoryDeduper(10_000)
	if err != nil {
		panic(err)
	}
	calls := 0
	h := webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
		calls++
		if calls == 1 {
			return errors.New("database unavailable") // 500: the sender delivers again
		}
		fmt.Println("processed", ev.ID)
		return nil
	}, webhook.WithDeduper(dedup))

	body := `{"event":"task.matched","id":"evt_1","taskId":"task_1","workerId":"agent_1"}`
	for range 3 { // the service delivers at least once
		fmt.Println(deliver(h, secret, time.Now(), body))
	}
	fmt.Println("callback ran", calls, "times")
	// Output:
	// 500
	// processed evt_1
	// 204
	// 204
	// callback ran 2 times
}

func ExampleWithErrorHook() {
	const secret = "whsec_testsecret"
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		panic(err)
	}
	h := webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error { return nil },
		// The answer to the sender stays generic; the reason goes to the log.
		webhook.WithErrorHook(func(r *http.Request, err error) { fmt.Println("dropped:", err) }),
		webhook.WithMaxBodyBytes(64<<10),
	)

	body := `{"event":"task.matched","id":"evt_1","taskId":"task_1","workerId":"agent_1"}`
	fmt.Println(deliver(h, secret, time.Now().Add(-time.Hour), body))
	fmt.Println(deliver(h, secret, time.Now(), `{"event":"task.matched","note":"`+strings.Repeat("x", 70<<10)+`"}`))
	// Output:
	// dropped: webhook: timestamp outside tolerance: too old
	// 401
	// dropped: webhook: body too large
	// 413
}

func ExampleMemoryDeduper() {
	// Outside HTTP (say, events read from a queue) a Deduper brackets the
	// processing of each event id with Claim and Release.
	ctx := context.Background()
	dedup, err := webhook.NewMemoryDeduper(1000)
	if err != nil {
		panic(err)
	}
	process := func(eventID string, work func() error) {
		claim, err := dedup.Claim(ctx, eventID)
		if err != nil {
			panic(err)
		}
		if claim != webhook.ClaimAcquired {
			fmt.Println(eventID, "skipped")
			return
		}
		err = work()
		dedup.Release(ctx, eventID, err == nil)
		fmt.Println(eventID, "processed, ok:", err == nil)
	}
	process("evt_1", func() error { return nil })
	process("evt_1", func() error { return nil })
	process("evt_2", func() error { return errors.New("failed") })
	process("evt_2", func() error { return nil })
	fmt.Println("remembered:", dedup.Len())
	// Output:
	// evt_1 processed, ok: true
	// evt_1 skipped
	// evt_2 processed, ok: false
	// evt_2 processed, ok: true
	// remembered: 2
}
