package api_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// TestWireFixturesMatchTheFile validates the answer of every wire fixture (testdata/wire, the
// exchanges the client decodes and the mock server replays) against the document, so the
// fixtures, the client's decoding and the file cannot describe three different platforms.
func TestWireFixturesMatchTheFile(t *testing.T) {
	c, err := contract.Compile(api.OpenAPI())
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join("..", "testdata", "wire", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			require.NoError(t, err)
			var fx struct {
				Request struct {
					Method string `json:"method"`
					Path   string `json:"path"`
				} `json:"request"`
				Response struct {
					Status int             `json:"status"`
					Body   json.RawMessage `json:"body"`
				} `json:"response"`
			}
			require.NoError(t, json.Unmarshal(raw, &fx))
			op, ok := c.Operation(fx.Request.Method, strings.SplitN(fx.Request.Path, "?", 2)[0])
			require.True(t, ok, "%s %s is an operation of the file", fx.Request.Method, fx.Request.Path)
			assert.NoError(t, c.ValidateResponse(op, fx.Response.Status, fx.Response.Body), "%s answer", op)
		})
	}
}
