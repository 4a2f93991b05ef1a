package taskrouting

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// learningWriteCases are the learning writes on the wire: the request each
// sends and how it decodes the platform's answer. Every request and answer
// is also held to api/openapi.json.
var learningWriteCases = []struct {
	name       string
	op         string
	call       func(ctx context.Context, c *Client) (any, error)
	wantMethod string
	wantPath   string // with the query
	wantBody   string // "" for none
	answer     string
	want       any
}{
	{"preview everyone", "learning.previewWeights", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.PreviewWeights(ctx, PreviewWeightsParams{})
	}, "GET", "/learning/weights/preview", "",
		`{"workers":[{"workerId":"ana","current":{"billing":2},"learned":{"english":1.2311}}]}`,
		[]LearnedWeights{{WorkerID: "ana", Current: map[string]float64{"billing": 2}, Learned: map[string]float64{"english": 1.2311}}}},
	{"preview one worker with both switches", "learning.previewWeights", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.PreviewWeights(ctx, PreviewWeightsParams{WorkerID: "ana b", OverrideManual: true, IncludeUnexploredTags: true})
	}, "GET", "/learning/weights/preview?includeUnexploredTags=true&overrideManual=true&workerId=ana+b", "",
		`{"workers":[]}`, []LearnedWeights{}},
	{"apply to everyone sends an empty object", "learning.applyWeights", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.ApplyWeights(ctx, ApplyWeightsParams{})
	}, "POST", "/learning/weights/apply", `{}`, `{"applied":{"ana":{"english":1.2311}}}`,
		map[string]map[string]float64{"ana": {"english": 1.2311}}},
	{"apply to named workers", "learning.applyWeights", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.ApplyWeights(ctx, ApplyWeightsParams{WorkerIDs: []string{"ana"}, OverrideManual: true})
	}, "POST", "/learning/weights/apply", `{"workerIds":["ana"],"overrideManual":true}`, `{"applied":{}}`,
		map[string]map[string]float64{}},
	{"revert", "learning.revertWeights", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.RevertWeights(ctx, []string{"ana", "ben"})
	}, "POST", "/learning/weights/revert", `{"workerIds":["ana","ben"]}`, `{"reverted":["ana"],"count":1}`,
		&RevertedWeights{Reverted: []string{"ana"}, Count: 1}},
	{"revert everyone", "learning.revertWeights", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.RevertWeights(ctx, nil)
	}, "POST", "/learning/weights/revert", `{}`, `{"reverted":[],"count":0}`,
		&RevertedWeights{Reverted: []string{}}},
	{"feedback escapes the task id", "learning.feedback", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Learning.Feedback(ctx, "task 1", map[string]float64{"csat": 0.8})
	}, "POST", "/tasks/task%201/feedback", `{"signals":{"csat":0.8}}`, `{"ok":true}`, nil},
	{"feedback without signals sends an empty object", "learning.feedback", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Learning.Feedback(ctx, "t1", nil)
	}, "POST", "/tasks/t1/feedback", `{"signals":{}}`, `{"ok":true}`, nil},
	{"reward sends a zero", "learning.reward", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Learning.Reward(ctx, "task_1", 0)
	}, "POST", "/tasks/task_1/reward", `{"reward":0}`, `{"ok":true}`, nil},
	{"feedback in bulk", "learning.feedbackBulk", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.FeedbackBulk(ctx, []FeedbackItem{{TaskID: "t1", Reward: Ptr(1.5)}, {TaskID: "t2", Signals: map[string]float64{"csat": 1}}})
	}, "POST", "/learning/feedback", `{"items":[{"taskId":"t1","reward":1.5},{"taskId":"t2","signals":{"csat":1}}]}`,
		`{"results":[{"taskId":"t1","ok":true,"error":null},{"taskId":"t2","ok":false,"error":"not_found"}]}`,
		[]FeedbackResult{{TaskID: "t1", OK: true}, {TaskID: "t2", Error: "not_found"}}},
	{"feedback in bulk of nothing sends an empty list", "learning.feedbackBulk", func(ctx context.Context, c *Client) (any, error) {
		return c.Learning.FeedbackBulk(ctx, nil)
	}, "POST", "/learning/feedback", `{"items":[]}`, `{"results":[]}`, []FeedbackResult{}},
	{"reset", "learning.reset", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Learning.Reset(ctx)
	}, "POST", "/learning/reset", "", `{"ok":true}`, nil},
}

func TestLearningWritesWire(t *testing.T) {
	for _, tc := range learningWriteCases {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, map[string]string{"Content-Type": "application/json"}, tc.answer)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))

			got, err := tc.call(context.Background(), c)
			require.NoError(t, err)

			reqs := rec.all()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.wantMethod, reqs[0].Method)
			path := reqs[0].Path
			if len(reqs[0].Query) > 0 {
				path += "?" + reqs[0].Query.Encode()
			}
			assert.Equal(t, tc.wantPath, path)
			var wantBody any
			if tc.wantBody != "" {
				wantBody = jsonValue(t, []byte(tc.wantBody))
			}
			diff(t, "request body", wantBody, jsonValue(t, reqs[0].Body))
			checkOperationReached(t, tc.op, checkRequestContract(t, reqs[0]))

			contract, err := wireContract()
			require.NoError(t, err)
			assert.NoError(t, contract.ValidateResponse(tc.op, 200, []byte(tc.answer)), "the served answer is not the platform's shape")
			if tc.want != nil {
				diff(t, "decoded answer", tc.want, got)
			}
		})
	}
}

// TestLearningWritesRefusedBeforeSending checks that input the platform
// would refuse is a *ParamError and nothing reaches the server.
func TestLearningWritesRefusedBeforeSending(t *testing.T) {
	many := make([]string, maxLearningBatch+1)
	for i := range many {
		many[i] = "w"
	}
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"feedback without task", func(ctx context.Context, c *Client) error {
			return c.Learning.Feedback(ctx, "", map[string]float64{"csat": 1})
		}, "taskID"},
		{"reward without task", func(ctx context.Context, c *Client) error {
			return c.Learning.Reward(ctx, "", 1)
		}, "taskID"},
		{"apply to too many", func(ctx context.Context, c *Client) error {
			_, err := c.Learning.ApplyWeights(ctx, ApplyWeightsParams{WorkerIDs: many})
			return err
		}, "workerIDs"},
		{"revert an empty id", func(ctx context.Context, c *Client) error {
			_, err := c.Learning.RevertWeights(ctx, []string{""})
			return err
		}, "workerIDs[0]"},
		{"bulk item without task", func(ctx context.Context, c *Client) error {
			_, err := c.Learning.FeedbackBulk(ctx, []FeedbackItem{{Reward: Ptr(1.0)}})
			return err
		}, "items[0].TaskID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{}`)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			err := tc.call(context.Background(), c)
			var pe *ParamError
			require.True(t, errors.As(err, &pe), "got %v", err)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all())
		})
	}
}
