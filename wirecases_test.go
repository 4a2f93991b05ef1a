package taskrouting

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireCase is one row of a wire test: a client call, the request it must send, the answer a
// server gives it, and what the call must decode from that answer.
type wireCase struct {
	name, op            string
	call                func(ctx context.Context, c *Client) (any, error)
	method, path, query string // query encoded (url.Values.Encode), "" for none
	body                string // JSON, "" for none
	status              int
	answer              string
	want                any // nil: the decoded answer is not compared
}

// runWireCase serves tc.answer once over loopback, makes the call, and checks the request
// (method, path, query, body, and the operation's request schema in api/openapi.json), that
// the served answer is the platform's shape (its response schema), and what the call decoded.
func runWireCase(t *testing.T, tc wireCase) {
	t.Helper()
	t.Run(tc.name, func(t *testing.T) {
		srv, rec := serveOnce(t, tc.status, map[string]string{"Content-Type": "application/json"}, tc.answer)
		c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))

		got, err := tc.call(context.Background(), c)
		require.NoError(t, err)

		reqs := rec.all()
		require.Len(t, reqs, 1)
		assert.Equal(t, tc.method, reqs[0].Method)
		assert.Equal(t, tc.path, reqs[0].Path)
		assert.Equal(t, tc.query, reqs[0].Query.Encode())
		var wantBody any
		if tc.body != "" {
			wantBody = jsonValue(t, []byte(tc.body))
		}
		diff(t, "request body", wantBody, jsonValue(t, reqs[0].Body))
		checkOperationReached(t, tc.op, checkRequestContract(t, reqs[0]))

		contract, err := wireContract()
		require.NoError(t, err)
		assert.NoError(t, contract.ValidateResponse(tc.op, tc.status, []byte(tc.answer)), "the served answer is not the platform's shape")
		if tc.want != nil {
			diff(t, "decoded answer", tc.want, ignoreRaw(got))
		}
	})
}
