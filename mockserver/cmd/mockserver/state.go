package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/taskrouting/taskrouting-go/mockserver"
)

// loadState restores the state saved in path (-state); an error names the file and the
// member at fault.
func loadState(ctx context.Context, srv *mockserver.Server, path string) error {
	if path == "" {
		return nil
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-state: %w", err)
	}
	err = srv.Restore(ctx, doc)
	var se *mockserver.StateError
	switch {
	case errors.As(err, &se) && se.Pointer != "":
		return fmt.Errorf("-state %s: %s: %s", path, se.Pointer, se.Reason)
	case errors.As(err, &se):
		return fmt.Errorf("-state %s: %s", path, se.Reason)
	case err != nil:
		return fmt.Errorf("-state %s: %w", path, err)
	}
	return nil
}
