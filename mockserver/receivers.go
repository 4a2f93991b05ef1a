package mockserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// AttachWebhookURL adds a webhook endpoint to a running server, as WithWebhookURL does at
// creation; events emitted from now on are POSTed to it too (earlier ones are not). It is for
// a receiver that needs the server to exist first, such as one calling back into the API.
// detach removes the endpoint: it waits for an attempt in flight to that URL, and drops the
// events still queued for it. Call detach from the test, never from inside the receiver,
// whose attempt it would wait for.
func (s *Server) AttachWebhookURL(rawURL string) (detach func(), err error) {
	if err := checkWebhookURL(rawURL); err != nil {
		return nil, err
	}
	ep := s.deliver.attach(rawURL)
	return func() { s.deliver.detach(ep) }, nil
}

// AttachWebhookHandler serves h on a loopback port of its own and attaches its URL (see
// AttachWebhookURL), so deliveries reach h over real HTTP, signed. It returns the URL and
// detach, which also stops serving h; the server's Close does not.
func (s *Server) AttachWebhookHandler(h http.Handler) (hookURL string, detach func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("mockserver: listen for the webhook handler: %w", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	hookURL = "http://" + ln.Addr().String() + "/"
	ep := s.deliver.attach(hookURL)
	return hookURL, func() {
		s.deliver.detach(ep)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			_ = hs.Close()
		}
	}, nil
}

func checkWebhookURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("mockserver: webhook url %q is not an absolute http(s) url", rawURL)
	}
	return nil
}

// attach adds an endpoint with an empty queue.
func (d *deliverer) attach(rawURL string) *endpoint {
	d.mu.Lock()
	defer d.mu.Unlock()
	ep := &endpoint{url: rawURL}
	d.endpoints = append(d.endpoints, ep)
	d.notifyLocked()
	return ep
}

// detach removes the endpoint attach returned once no attempt to it is in flight. Detaching
// twice is a no-op.
func (d *deliverer) detach(ep *endpoint) {
	_ = d.waitFor(context.Background(), func() bool {
		i := d.indexLocked(ep)
		return i < 0 || !d.endpoints[i].busy
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	if i := d.indexLocked(ep); i >= 0 {
		d.endpoints = append(d.endpoints[:i:i], d.endpoints[i+1:]...)
		d.notifyLocked()
	}
}

// indexLocked finds ep; -1 when it is gone.
func (d *deliverer) indexLocked(ep *endpoint) int {
	for i, e := range d.endpoints {
		if e == ep {
			return i
		}
	}
	return -1
}
