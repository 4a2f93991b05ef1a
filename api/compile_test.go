package api_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// TestDocumentCompiles compiles every request and response schema of the document, the way
// the mock server and the tests use it.
func TestDocumentCompiles(t *testing.T) {
	c, err := contract.Compile(api.OpenAPI())
	require.NoError(t, err)
	// 167 catalogue operations: 166 operation objects plus tasks.setPriority, an alias on
	// PATCH /tasks/{id}.
	require.Len(t, c.Operations(), 167)
}
