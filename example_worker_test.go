package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// fakeWorkerPlane stands in for the worker plane of the service so the
// example runs offline; real code points the client at the API root (or at
// the mock server's URL).
func fakeWorkerPlane() *httptest.Server {
	var mu sync.Mutex
	onBreak := false
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		route := r.Method + " " + r.URL.Path
		if route != "POST /v1/worker-auth/login" && r.Header.Get("Authorization") != "Bearer wt_example" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"code":"unauthorized","message":"invalid worker token"}}`)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch route {
		case "POST /v1/worker-auth/login":
			fmt.Fprint(w, `{"token":"wt_example"}`)
		case "POST /v1/portal/me/availability":
			fmt.Fprint(w, `{"workerId":"agent_1","available":true}`)
		case "GET /v1/portal/workers/agent_1/queue":
			fmt.Fprint(w, `{"workerId":"agent_1","taskIds":["task_c3d4"]}`)
		case "POST /v1/portal/tasks/task_c3d4/accept":
			fmt.Fprint(w, `{"id":"task_c3d4","status":"accepted"}`)
		case "POST /v1/portal/tasks/task_c3d4/complete":
			fmt.Fprint(w, `{"id":"task_c3d4","status":"completed"}`)
		case "POST /v1/portal/breaks/start":
			if onBreak {
				w.WriteHeader(http.StatusConflict)
				fmt.Fprint(w, `{"error":{"code":"break_already_open","message":"a break is open"}}`)
				return
			}
			onBreak = true
			fmt.Fprint(w, `{"workerId":"agent_1","onBreak":true,"since":1763700600000}`)
		case "POST /v1/portal/breaks/end":
			if !onBreak {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			onBreak = false
			fmt.Fprint(w, `{"workerId":"agent_1","onBreak":false,"endedAt":1763701500000}`)
		case "POST /v1/worker-auth/logout":
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"no such thing"}}`)
		}
	}))
}

func ExampleNewWorkerClient() {
	srv := fakeWorkerPlane()
	defer srv.Close()
	ctx := context.Background()

	w, err := taskrouting.NewWorkerClient(srv.URL + "/v1")
	if err != nil {
		panic(err)
	}
	// The PIN was given by the workspace with Workers.SetIdentity.
	_, err = w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})
	if err != nil {
		panic(err)
	}
	fmt.Println("signed in as", w.WorkerID())

	if _, err := w.SetAvailability(ctx, true); err != nil {
		panic(err)
	}
	queue, err := w.Queue(ctx, "") // "" is the signed-in worker
	if err != nil {
		panic(err)
	}
	for _, taskID := range queue.TaskIDs {
		if _, err := w.Accept(ctx, taskID); err != nil {
			panic(err)
		}
		done, err := w.Complete(ctx, taskID, map[string]any{"resolved": true})
		if err != nil {
			panic(err)
		}
		fmt.Println(taskID, done.Status)
	}

	started, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	if err != nil {
		panic(err)
	}
	fmt.Println("on break since", started.Since.Format("15:04 UTC"))
	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{})
	fmt.Println("second start:", errors.Is(err, taskrouting.ErrBreakAlreadyOpen))

	ended, err := w.EndBreak(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("break ended at", ended.EndedAt.Format("15:04 UTC"))
	ended, err = w.EndBreak(ctx)
	fmt.Println("with none open:", ended, err)

	if err := w.Logout(ctx); err != nil {
		panic(err)
	}
	fmt.Println("signed in:", w.SignedIn())
	// Output:
	// signed in as agent_1
	// task_c3d4 completed
	// on break since 04:50 UTC
	// second start: true
	// break ended at 05:05 UTC
	// with none open: <nil> <nil>
	// signed in: false
}
