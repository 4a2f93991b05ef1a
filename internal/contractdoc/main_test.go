package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContractDocMatchesOpenAPI fails when docs/contract.md's generated operation tables
// differ from what api/openapi.json and the client's API lines give today.
func TestContractDocMatchesOpenAPI(t *testing.T) {
	root := filepath.Join("..", "..")
	page, err := os.ReadFile(pagePath(root))
	require.NoError(t, err)
	want, err := regenerate(root, page)
	require.NoError(t, err)
	if string(want) != string(page) {
		t.Fatal("docs/contract.md's operation tables are stale: run `go run ./internal/contractdoc` from the repository root")
	}
}

// TestRegenerateKeepsTheHandWrittenText proves only the marked section changes.
func TestRegenerateKeepsTheHandWrittenText(t *testing.T) {
	root := filepath.Join("..", "..")
	page := "intro\n" + beginMarker + "\nold table\n" + endMarker + "\noutro\n"
	got, err := regenerate(root, []byte(page))
	require.NoError(t, err)
	s := string(got)
	assert.True(t, strings.HasPrefix(s, "intro\n"+beginMarker+"\n"))
	assert.True(t, strings.HasSuffix(s, endMarker+"\noutro\n"))
	assert.NotContains(t, s, "old table")
	assert.Contains(t, s, "| tasks | `tasks.create` | `POST /tasks` | `TasksService.Create` | served | platform |")
	assert.Contains(t, s, "### Supervisor plane: 13 operations")

	_, err = regenerate(root, []byte("no markers"))
	assert.ErrorContains(t, err, "no "+beginMarker)
}
