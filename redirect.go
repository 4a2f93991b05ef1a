package taskrouting

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrCrossOriginRedirect is returned when a response redirects a call to
// another origin (scheme, host or port) than the one it was sent to. The
// client does not follow such a redirect, so the API key, a worker's token
// or PIN, a request body and its Idempotency-Key never reach a server they
// were not meant for; see the package documentation.
var ErrCrossOriginRedirect = errors.New("taskrouting: redirect to another origin refused")

// maxRedirects is net/http's own limit, kept for redirects the client follows.
const maxRedirects = 10

// sameOriginOnly wraps a CheckRedirect (nil for net/http's default) so
// that only redirects within the first request's origin are followed.
// net/http alone would follow a redirect to the same host on another port
// or scheme with Authorization still set, and a 307 or 308 with the body.
func sameOriginOnly(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if from, to := originOf(via[0].URL), originOf(req.URL); from != to {
			return fmt.Errorf("%w: %s answered with a redirect to %s", ErrCrossOriginRedirect, from, to)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			// The wording retryablehttp recognises as not worth a retry.
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
}

// originOf returns scheme://host:port of u, lower case, with the scheme's
// default port made explicit so https://h and https://h:443 compare equal.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
