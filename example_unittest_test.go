package taskrouting_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// taskCreator is the one method the code under test uses. Declared where
// it is used, it is satisfied by *taskrouting.TasksService and by any fake.
type taskCreator interface {
	Create(ctx context.Context, p taskrouting.CreateTaskParams, opts ...taskrouting.RequestOption) (*taskrouting.TaskRef, error)
}

// openTicket is "your code": it turns a support ticket into a task.
func openTicket(ctx context.Context, tasks taskCreator, ticketID, language string) (string, error) {
	ref, err := tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "ticket-" + ticketID, Tags: []string{language}},
		taskrouting.WithIdempotencyKey("ticket:"+ticketID))
	if err != nil {
		return "", fmt.Errorf("open ticket %s: %w", ticketID, err)
	}
	return ref.ID, nil
}

// fakeTasks answers Create from memory: no client, no HTTP.
type fakeTasks struct {
	created []taskrouting.CreateTaskParams
}

func (f *fakeTasks) Create(_ context.Context, p taskrouting.CreateTaskParams, _ ...taskrouting.RequestOption) (*taskrouting.TaskRef, error) {
	f.created = append(f.created, p)
	return &taskrouting.TaskRef{ID: p.ID, Status: taskrouting.TaskStatusQueued}, nil
}

// Two ways to unit-test code that calls the API without opening a socket.
// A small interface declared by your code, as taskCreator here, lets a
// fake stand in for a service (the *Service types are concrete, and each
// satisfies the interfaces you cut from its methods). Or keep the real
// client and put the mock server's in-process transport under it: the
// client's own path runs (validation, retries, errors) against the mock
// server's state, with no port.
func Example_unitTestsWithoutHTTP() {
	ctx := context.Background()

	fake := &fakeTasks{}
	id, _ := openTicket(ctx, fake, "1042", "english")
	fmt.Println("fake:", id, fake.created[0].Tags)

	srv, err := mockserver.NewUnstarted() // never listens
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c, err := taskrouting.NewClient("http://mock.invalid"+mockserver.BasePath, srv.APIKey(),
		taskrouting.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
	if err != nil {
		log.Fatal(err)
	}
	id, err = openTicket(ctx, c.Tasks, "1042", "english")
	fmt.Println("in-process:", id, err)
	_, err = openTicket(ctx, c.Tasks, "1042", "english") // the same key: the first answer again
	fmt.Println("again:", err)
	fmt.Println("requests served:", len(srv.Requests()))
	// Output:
	// fake: ticket-1042 [english]
	// in-process: ticket-1042 <nil>
	// again: <nil>
	// requests served: 2
}
