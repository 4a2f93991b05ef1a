package mockserver_test

import "github.com/taskrouting/taskrouting-go"

// sessionErr keeps the error of Login, for tests that check only the error.
func sessionErr(_ *taskrouting.WorkerSession, err error) error { return err }
