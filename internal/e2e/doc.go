// Package e2e holds the repository's cross-package reliability tests: the SDK client, the
// webhook receiver and the mock server driven together under injected faults. It has no
// non-test code; docs/reliability.md lists each claim with the test that proves it.
//
// Every test runs a small size in a plain `go test -race ./internal/e2e/` and the size that
// docs/reliability.md states with TASKROUTING_LONG=1.
package e2e
