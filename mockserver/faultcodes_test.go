package mockserver

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInjectedStatusCarriesItsCode: a fault given only a status answers the platform's
// error code for it (the code a client branches on), once, and leaves state untouched.
func TestInjectedStatusCarriesItsCode(t *testing.T) {
	cases := []struct {
		status int
		code   string
	}{
		{400, CodeInvalidBody},
		{401, CodeUnauthorized},
		{402, CodePlanLimitExceeded},
		{404, CodeNotFound},
		{409, CodeInvalidState},
		{429, CodeRateLimited},
		{499, CodeInvalidBody},
		{500, CodeInternalError},
		{502, CodeInternalError},
		{503, CodeServiceUnavailable},
	}
	srv := Start(t, WithClock(NewManualClock(t0)))
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			require.NoError(t, srv.InjectFault(Fault{Method: "POST", Path: "/v1/workers", Status: tc.status, Times: 1}))
			a := api(t, srv, "POST", "/workers", map[string]any{"id": "w" + strconv.Itoa(tc.status), "tags": []string{"en"}})
			assert.Equal(t, tc.status, a.Status)
			want := `{"error":{"code":"` + tc.code + `","message":"injected fault"}}`
			assert.Empty(t, cmp.Diff(want, string(a.Body)))
			mustAPI(t, srv, http.StatusNotFound, "GET", "/workers/w"+strconv.Itoa(tc.status), nil)
		})
	}
}
