package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/hashicorp/go-retryablehttp"
)

// CodeDownloadFailed is the APIError code of an Open whose storage GET was
// answered outside 2xx; StatusCode is then the storage's status.
const CodeDownloadFailed = "download_failed"

// The operation ids CallInfo reports for the storage requests of an
// attachment, which api/openapi.json does not list: they go to the
// presigned URLs the API hands out.
const (
	opStorageUpload   = "storage.upload"
	opStorageDownload = "storage.download"
)

// presignedPath stands for a presigned URL wherever one would be shown (an
// error, a log line, CallInfo): its query is a credential.
const presignedPath = "(presigned URL)"

// errBodyNotRewindable ends an attempt that would resend a body already read.
var errBodyNotRewindable = errors.New("the upload body cannot be read again (not an io.Seeker)")

// storageCall sends one request to a presigned storage URL through the
// client's attempts: the call's HTTP client and timeout, the retry rule,
// backoff and Retry-After, the logger and the middlewares (so a tracing
// middleware covers it, as operation id storage.upload or
// storage.download). It sends none of the API's headers: no credential, no
// Idempotency-Key, no WithHeader value; only header, verbatim, since a
// presigned URL's headers are part of its signature. The URL never appears
// in an error, a log line or CallInfo.
//
// body, when not nil, is sent with size as Content-Length. Only a body
// that can be read again (an io.Seeker, rewound to where it stood) is
// retried; any other gets one attempt.
//
// A 2xx answer is returned with its body open; anything else is an
// *APIError with code, closed.
func (c *Client) storageCall(ctx context.Context, method, rawURL string, header map[string]string, body io.Reader, size int64, opID, code string, opts []RequestOption) (*http.Response, error) {
	where := "taskrouting: " + method + " " + presignedPath
	cfg, err := c.callConfig(opts)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New(where + ": the server gave no usable URL")
	}
	var raw any
	rewindable := true
	if body != nil {
		raw, rewindable = storageBody(body, size)
	}
	callCtx, info := withCallInfo(ctx, method, presignedPath)
	info.opOnce.Do(func() { info.op = operation{method: method, id: opID} })
	req, err := retryablehttp.NewRequestWithContext(callCtx, method, rawURL, raw)
	if err != nil {
		return nil, fmt.Errorf("%s: build request: %w", where, scrubURL(err))
	}
	for name, value := range header {
		req.Header[name] = []string{value} // verbatim: the names are part of the signature
	}
	if body != nil {
		req.ContentLength = size
	}
	run := c.newCallRun(cfg, method, presignedPath, info)
	run.repeatable = safeToRepeat(req.Request)
	run.scrub = scrubURL
	run.rc.ErrorHandler = func(resp *http.Response, err error, n int) (*http.Response, error) {
		return lastResponse(resp, scrubURL(err), n)
	}
	if !rewindable {
		run.rc.RetryMax = 0
	}
	resp, err := runMiddleware(cfg.middleware, req, run)
	if err != nil {
		err = scrubURL(err)
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		} else if ctxErr == nil && run.reached && writeMethod(method) {
			err = fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
		}
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		e := &APIError{
			StatusCode: resp.StatusCode,
			Code:       code,
			Message:    fmt.Sprintf("storage answered %d", resp.StatusCode),
			Method:     method,
			Path:       presignedPath,
		}
		if wait, ok := c.retryAfter(resp); ok {
			e.RetryAfter = wait
		}
		return nil, e
	}
	return resp, nil
}

// storageBody makes the request body: a reader function retryablehttp
// calls for each attempt. An io.Seeker is rewound to its first position
// each time; any other reader is handed out once and refuses a second
// read (then the call has no retries, and net/http cannot resend it).
//
// net/http may go on reading an attempt's body after RoundTrip returned,
// until it closes it, so a rewind waits for the previous attempt's body to
// be closed: two attempts never read the caller's reader at once.
func storageBody(body io.Reader, size int64) (retryablehttp.ReaderFunc, bool) {
	if s, ok := body.(io.ReadSeeker); ok {
		start, err := s.Seek(0, io.SeekCurrent)
		if err == nil {
			var prev *sizedReader
			return func() (io.Reader, error) {
				if prev != nil {
					<-prev.closed
				}
				if _, err := s.Seek(start, io.SeekStart); err != nil {
					return nil, err
				}
				prev = newSizedReader(io.LimitReader(s, size), size)
				return prev, nil
			}, true
		}
	}
	once := newSizedReader(io.LimitReader(body, size), size)
	return func() (io.Reader, error) {
		if once.read {
			return nil, errBodyNotRewindable
		}
		return once, nil
	}, false
}

// sizedReader reports its size, so retryablehttp sets Content-Length,
// remembers being read, and says when its reader is done with it.
type sizedReader struct {
	r         io.Reader
	n         int64
	read      bool
	closed    chan struct{}
	closeOnce sync.Once
}

func newSizedReader(r io.Reader, n int64) *sizedReader {
	return &sizedReader{r: r, n: n, closed: make(chan struct{})}
}

func (s *sizedReader) Read(p []byte) (int, error) {
	s.read = true
	return s.r.Read(p)
}

// Len is the body's size, for retryablehttp's Content-Length.
func (s *sizedReader) Len() int { return int(s.n) }

// Close marks the body as no longer read; net/http closes each attempt's
// body when it is done with it.
func (s *sizedReader) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

// scrubURL replaces the URL of a transport error, a presigned credential,
// with a placeholder; the error's type and cause stay as they were.
func scrubURL(err error) error {
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) {
		return err
	}
	return &url.Error{Op: ue.Op, URL: presignedPath, Err: ue.Err}
}
