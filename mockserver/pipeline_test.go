package mockserver

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestReadAll holds the body read to the bytes sent whatever length the request
// announced: exact, short, long or none.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("abc", 300)
	for _, tc := range []struct {
		name      string
		announced int64
	}{
		{"exact", int64(len(body))}, {"none", -1}, {"short", 10}, {"long", int64(len(body)) + 500}, {"zero", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(io.LimitReader(strings.NewReader(body), MaxBodyBytes+1), tc.announced)
			require.NoError(t, err)
			if diff := cmp.Diff(body, string(got)); diff != "" {
				t.Error(diff)
			}
		})
	}
}
