package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

type config struct {
	Addr         string
	Secret       string
	MaxBodyBytes int64
}

// parseConfig reads the flags and, where a flag is not given, the environment through getenv.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("webhook-receiver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "listen address (default $TASKROUTING_WEBHOOK_ADDR or 127.0.0.1:8081)")
	secretFile := fs.String("secret-file", "", "file holding the signing secret (default $TASKROUTING_SIGNING_SECRET)")
	maxBody := fs.Int64("max-body", 64<<10, "largest accepted delivery body, in bytes")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	cfg := config{Addr: *addr, Secret: getenv("TASKROUTING_SIGNING_SECRET"), MaxBodyBytes: *maxBody}
	if cfg.Addr == "" {
		cfg.Addr = getenv("TASKROUTING_WEBHOOK_ADDR")
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8081"
	}
	if *secretFile != "" {
		b, err := os.ReadFile(*secretFile)
		if err != nil {
			return config{}, fmt.Errorf("reading the secret file: %w", err)
		}
		cfg.Secret = strings.TrimSpace(string(b))
	}
	if cfg.Secret == "" {
		return config{}, errors.New("no signing secret: set TASKROUTING_SIGNING_SECRET or -secret-file")
	}
	if cfg.MaxBodyBytes <= 0 {
		return config{}, errors.New("-max-body must be positive")
	}
	return cfg, nil
}
