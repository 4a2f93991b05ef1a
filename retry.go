package taskrouting

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// callRun is one call's go-retryablehttp client together with what its
// hooks need, so that a call with its own settings costs one allocation
// and a few method values rather than a closure per setting.
type callRun struct {
	rc            retryablehttp.Client
	c             *Client
	maxRetryAfter time.Duration
	logger        *slog.Logger
	attempts      attemptLog
	info          *CallInfo // what CallInfoFromContext reports to middlewares

	// reached is set once an attempt may have been applied by the server
	// (it got past the dial and did not come back with notApplied), so a
	// write's final transport error is marked ErrOutcomeUnknown.
	reached bool
	// repeatable is safeToRepeat of the call's request.
	repeatable bool
	// scrub, when set, rewrites an attempt's transport error before it is
	// logged or recorded (a presigned URL is a credential).
	scrub func(error) error
}

// newCallRun configures go-retryablehttp for one call, with the call's
// settings. Nothing is left at the library's defaults: its logger would
// print through the standard log package, and its error handler would hide
// the last status and body.
func (c *Client) newCallRun(cfg config, method, path string, info *CallInfo) *callRun {
	run := &callRun{
		c:             c,
		info:          info,
		maxRetryAfter: cfg.maxRetryAfter,
		logger:        cfg.logger,
		attempts:      attemptLog{method: method, path: path, maxRetries: cfg.maxRetries},
	}
	run.rc.HTTPClient = cfg.httpClient
	run.rc.RetryWaitMin, run.rc.RetryWaitMax = cfg.retryWaitMin, cfg.retryWaitMax
	run.rc.RetryMax = cfg.maxRetries
	run.rc.CheckRetry = run.checkRetry
	run.rc.Backoff = c.backoff
	run.rc.ErrorHandler = lastResponse
	run.rc.RequestLogHook = run.startAttempt
	return run
}

// checkRetry decides after each attempt. It retries connection errors, 429
// and 5xx except 501, and stops at once when the call's context is done.
// A Retry-After longer than the cap or than the time left before the
// context's deadline is not waited for: the response is handed back so the
// caller sees the 429 or 503, with RetryAfter, and can reschedule.
//
// A write that is not safe to repeat (safeToRepeat: a POST without a key,
// PATCH, DELETE) is retried only when the attempt cannot have been applied
// (notApplied): a blind repeat of an applied write would turn its success
// into a 409 or 404.
func (run *callRun) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if run.scrub != nil {
		err = run.scrub(err)
	}
	retry, stop := run.c.classify(ctx, resp, err, run.maxRetryAfter)
	applied := !notApplied(resp, err)
	if applied {
		run.reached = true
		if !run.repeatable {
			retry = false
		}
	}
	// The library asks checkRetry even after the last allowed attempt.
	retried := retry && stop == nil && run.attempts.attempt <= run.attempts.maxRetries
	run.c.logAttempt(ctx, run.logger, &run.attempts, resp, err, retried)
	if run.info != nil {
		a := Attempt{Number: run.attempts.attempt, Start: run.attempts.start, Duration: time.Since(run.attempts.start), Err: err, Retried: retried}
		if resp != nil {
			a.StatusCode = resp.StatusCode
		}
		run.info.record(a)
	}
	return retry, stop
}

// startAttempt counts the attempts, for the log and for Response.
func (run *callRun) startAttempt(_ retryablehttp.Logger, _ *http.Request, retryNumber int) {
	run.attempts.attempt = retryNumber + 1
	run.attempts.start = time.Now()
}

func (c *Client) classify(ctx context.Context, resp *http.Response, err error, maxRetryAfter time.Duration) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	if errors.Is(err, ErrCrossOriginRedirect) {
		return false, nil // the next attempt would be redirected alike
	}
	if err != nil {
		// The library's policy already knows which transport errors are
		// permanent (bad scheme, bad TLS certificate, redirect loops).
		retry, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, err)
		return retry, nil
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests,
		resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		if wait, ok := c.retryAfter(resp); ok {
			// Waiting past the cap, or past the caller's deadline, would
			// only end in a context error that hides the server's answer.
			if wait > maxRetryAfter {
				return false, nil
			}
			if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
				return false, nil
			}
		}
		return true, nil
	}
	return false, nil
}

// backoff waits the server's Retry-After when it gave one (checkRetry has
// already refused those above the cap), else an exponential step from min,
// capped at max, with full jitter so many clients do not retry in lockstep.
func (c *Client) backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if wait, ok := c.retryAfter(resp); ok {
		return wait
	}
	step := minWait
	for i := 0; i < attempt && step < maxWait; i++ {
		step *= 2
	}
	if step > maxWait {
		step = maxWait
	}
	if step <= 0 {
		return 0
	}
	// Half fixed, half random: never much shorter than the step.
	return step/2 + rand.N(step/2+1)
}

// retryAfter reads Retry-After from a 429 or 503: delay-seconds or an HTTP date.
func (c *Client) retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	return parseRetryAfter(resp.Header.Get("Retry-After"), c.retryAfterUnit, time.Now())
}

func parseRetryAfter(v string, unit time.Duration, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		// Guard the multiplication: a huge value means "a very long time".
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * unit, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// lastResponse is the ErrorHandler used once retries stop without success.
// It hands back the last response so the chokepoint turns it into an
// *APIError with status, code and Retry-After, instead of the library's
// "giving up" error that hides them. Transport errors and a done context
// are returned as errors.
func lastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if resp == nil || err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	// The context can end after the last attempt was judged retryable, and
	// then the library passes no error: return the context's, never neither.
	if resp.Request != nil {
		if ctxErr := resp.Request.Context().Err(); ctxErr != nil {
			resp.Body.Close()
			return nil, ctxErr
		}
	}
	return resp, nil
}

// attemptLog follows one call's attempts, for the log and for Response.
// A call's attempts run one after another, so it needs no lock.
type attemptLog struct {
	method, path string
	maxRetries   int
	attempt      int // 1 for the first attempt
	start        time.Time
}

// logAttempt writes one line per attempt: method, path, status, attempt,
// duration and, for transport failures, the error. Never headers or bodies,
// so never the key.
//
// The level rises with what the reader must do about it: a success is
// Debug; a 4xx other than 429 is Info (the API's answer, which the caller's
// code branches on); an attempt that will be retried is Warn; and the
// attempt that ends a call in a failure it would have retried (a transport
// error, 429 or 5xx, once retries are spent or cannot wait) is Error, above
// the retries before it, since that is where the call failed.
func (c *Client) logAttempt(ctx context.Context, logger *slog.Logger, al *attemptLog, resp *http.Response, err error, retrying bool) {
	if logger == nil {
		return
	}
	level := slog.LevelDebug
	attrs := make([]slog.Attr, 0, 7)
	attrs = append(attrs,
		slog.String("method", al.method),
		slog.String("path", al.path),
	)
	switch {
	case err != nil:
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", err.Error()))
	case resp != nil:
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		switch {
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			level = slog.LevelError
		case resp.StatusCode >= 400:
			level = slog.LevelInfo
		}
	}
	if retrying {
		level = slog.LevelWarn
	}
	attrs = append(attrs,
		slog.Int("attempt", al.attempt),
		slog.Duration("duration", time.Since(al.start)),
		slog.Bool("retrying", retrying),
	)
	logger.LogAttrs(ctx, level, "taskrouting request", attrs...)
}
