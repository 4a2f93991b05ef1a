package taskrouting_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// storageAttempts counts, per operation id, the attempts the client's
// middleware saw: the storage requests report storage.upload and
// storage.download.
type storageAttempts struct {
	mu  sync.Mutex
	ops map[string]int
}

func (s *storageAttempts) middleware(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	ci := taskrouting.CallInfoFromContext(req.Context())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ops == nil {
		s.ops = map[string]int{}
	}
	s.ops[ci.OperationID()] += len(ci.Attempts())
	return resp, err
}

func (s *storageAttempts) of(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops[op]
}

// oneShot is a reader that cannot be rewound (no Seek), like a pipe.
type oneShot struct{ r io.Reader }

func (o oneShot) Read(p []byte) (int, error) { return o.r.Read(p) }

func seededBytes(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestAttachmentStreams uploads through UploadReader and reads back with
// Open over loopback against the mock server's storage, with faults on the
// storage requests: a rewindable body's PUT is retried, a one-shot body's
// is not, a download is retried, and the bytes read match those sent.
func TestAttachmentStreams(t *testing.T) {
	data := seededBytes(1<<20 + 17)
	tests := []struct {
		name          string
		body          func() io.Reader
		fault         *mockserver.Fault
		wantPuts      int
		wantGets      int
		wantUploadErr int // storage status of a failed upload; 0: the upload succeeds
	}{
		{"seeker, no fault", func() io.Reader { return bytes.NewReader(data) }, nil, 1, 1, 0},
		{"one-shot, no fault", func() io.Reader { return oneShot{bytes.NewReader(data)} }, nil, 1, 1, 0},
		{"seeker, PUT answered 503", func() io.Reader { return bytes.NewReader(data) },
			&mockserver.Fault{Method: "PUT", Path: "/_storage/*", Status: 503, Times: 1}, 2, 1, 0},
		{"seeker, PUT answer dropped after storing", func() io.Reader { return bytes.NewReader(data) },
			&mockserver.Fault{Method: "PUT", Path: "/_storage/*", DropAfterCommit: true, Times: 1}, 2, 1, 0},
		{"seeker, PUT reset before storing", func() io.Reader { return bytes.NewReader(data) },
			&mockserver.Fault{Method: "PUT", Path: "/_storage/*", DropBeforeCommit: true, Times: 1}, 2, 1, 0},
		{"one-shot, PUT answered 503: not retried", func() io.Reader { return oneShot{bytes.NewReader(data)} },
			&mockserver.Fault{Method: "PUT", Path: "/_storage/*", Status: 503, Times: 1}, 1, 0, 503},
		{"GET answered 500", func() io.Reader { return bytes.NewReader(data) },
			&mockserver.Fault{Method: "GET", Path: "/_storage/*", Status: 500, Times: 1}, 1, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := mockserver.Start(t)
			seen := &storageAttempts{}
			c := mockClient(t, srv, taskrouting.WithMiddleware(seen.middleware))
			ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
			require.NoError(t, err)
			if tt.fault != nil {
				require.NoError(t, srv.InjectFault(*tt.fault))
			}
			att, err := c.Tasks.Attachments.UploadReader(ctx, ref.ID, tt.body(), int64(len(data)),
				taskrouting.UploadParams{Filename: "scan.bin", ContentType: "application/octet-stream"})
			assert.Equal(t, tt.wantPuts, seen.of("storage.upload"), "PUT attempts")
			if tt.wantUploadErr != 0 {
				var apiErr *taskrouting.APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, taskrouting.CodeUploadFailed, apiErr.Code)
				assert.Equal(t, tt.wantUploadErr, apiErr.StatusCode)
				list, err := c.Tasks.Attachments.List(ctx, ref.ID)
				require.NoError(t, err)
				require.Len(t, list, 1)
				assert.Equal(t, taskrouting.AttachmentPending, list[0].Status, "not confirmed")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, taskrouting.AttachmentReady, att.Status)

			content, err := c.Tasks.Attachments.Open(ctx, ref.ID, att.ID)
			require.NoError(t, err)
			got, err := io.ReadAll(content)
			require.NoError(t, err)
			require.NoError(t, content.Close())
			assert.True(t, bytes.Equal(data, got), "the bytes read back differ (%d read, %d sent)", len(got), len(data))
			assert.Equal(t, "application/octet-stream", content.ContentType)
			assert.Equal(t, int64(len(data)), content.Size)
			assert.Equal(t, tt.wantGets, seen.of("storage.download"), "GET attempts")
		})
	}
}

// TestAttachmentStorageErrorsHideTheURL: a storage host that keeps
// resetting fails the upload with a transport error that names neither the
// presigned URL nor its token, and matches ErrOutcomeUnknown only when the
// bytes may have arrived.
func TestAttachmentStorageErrorsHideTheURL(t *testing.T) {
	ctx := context.Background()
	srv := mockserver.Start(t)
	c := mockClient(t, srv)
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	require.NoError(t, err)
	created, err := c.Tasks.Attachments.Create(ctx, ref.ID, taskrouting.CreateAttachmentParams{Filename: "a.txt", ContentType: "text/plain", SizeBytes: 3})
	require.NoError(t, err)
	token := created.Upload.URL[strings.LastIndex(created.Upload.URL, "/")+1:]
	require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "PUT", Path: "/_storage/*", DropAfterCommit: true}))
	_, err = c.Tasks.Attachments.Upload(ctx, ref.ID, []byte("abc"), taskrouting.UploadParams{Filename: "a.txt", ContentType: "text/plain"})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "_storage")
	assert.NotContains(t, err.Error(), token)
	assert.True(t, errors.Is(err, taskrouting.ErrOutcomeUnknown), "%v", err)
}

// TestWorkerAttachmentStreams: the worker plane uploads from a reader and
// opens the file.
func TestWorkerAttachmentStreams(t *testing.T) {
	ctx := context.Background()
	srv := mockserver.Start(t)
	c := mockClient(t, srv)
	id := offered(t, c, "agent_1", "english")
	w := signedInWorker(t, c, srv, "agent_1")
	data := seededBytes(70_000)
	att, err := w.Attachments.UploadReader(ctx, id, oneShot{bytes.NewReader(data)}, int64(len(data)),
		taskrouting.WorkerUploadParams{Filename: "photo.jpg", ContentType: "image/jpeg"})
	require.NoError(t, err)
	content, err := w.Attachments.Open(ctx, id, att.ID)
	require.NoError(t, err)
	defer content.Close()
	got, err := io.ReadAll(content)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got))
}
