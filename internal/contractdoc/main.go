// Command contractdoc writes the operation tables of docs/contract.md from api/openapi.json:
// per plane and group, each operation's id, method and path, the Go client method that calls
// it, whether the mock server serves it, and the rules decided here rather than taken from the
// platform. It replaces only the text between the BEGIN and END marker comments, so the rest of
// the page stays hand-written.
//
// Run it from the repository root after changing api/openapi.json or a client method's API line:
//
//	go run ./internal/contractdoc
//
// TestContractDocMatchesOpenAPI fails while the page is stale.
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), "."); err != nil {
		fmt.Fprintln(os.Stderr, "contractdoc:", err)
		os.Exit(1)
	}
}

// run regenerates the section of root/docs/contract.md. The context is unused today; it keeps
// the signature of an I/O call.
func run(_ context.Context, root string) error {
	page, err := os.ReadFile(pagePath(root))
	if err != nil {
		return err
	}
	updated, err := regenerate(root, page)
	if err != nil {
		return err
	}
	return os.WriteFile(pagePath(root), updated, 0o644)
}
