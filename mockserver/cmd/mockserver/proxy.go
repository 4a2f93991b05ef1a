package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/taskrouting/taskrouting-go/mockserver"
)

// proxySettings are the flags of -proxy mode.
type proxySettings struct {
	upstream, addr, adminKey, secret string
	shadow                           bool
	shadowOpts                       []mockserver.Option
	hooks                            []string
}

// runProxy serves a contract-checking proxy to a deployment instead of the mock server
// (mockserver.Proxy): the start line's apiKey is the key of /_mock/proxy/*, callers of /v1
// use the deployment's.
func runProxy(ctx context.Context, ps proxySettings, stdout io.Writer, logger *slog.Logger) error {
	p, err := mockserver.NewProxy(mockserver.ProxyConfig{Upstream: ps.upstream, AdminKey: ps.adminKey, SigningSecret: ps.secret,
		ForwardWebhooksTo: ps.hooks, Shadow: ps.shadow, ShadowOptions: ps.shadowOpts, Logger: logger})
	if err != nil {
		return err
	}
	defer p.Close()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", ps.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	root := "http://" + ln.Addr().String()
	line, _ := json.Marshal(startLine{URL: root + mockserver.BasePath, APIKey: p.AdminKey(), AdminURL: root + "/_mock"})
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	logger.Info("contract-checking proxy listening", "url", root+mockserver.BasePath, "upstream", ps.upstream,
		"shadow", ps.shadow, "webhookEndpoint", root+"/_mock/proxy/webhook")
	return mockserver.ServeProxy(ctx, p, ln)
}

// proxyFlagsUsed names the flags that mean nothing in -proxy mode, to refuse them.
func proxyFlagsUsed(set map[string]bool) string {
	var bad []string
	for _, f := range []string{"manual-clock", "clock-start", "extra-api-key", "signing-secret", "strict-responses"} {
		if set[f] {
			bad = append(bad, "-"+f)
		}
	}
	return strings.Join(bad, ", ")
}
