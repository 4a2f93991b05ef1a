package main

import (
	"errors"
	"time"
)

// config says where the quickstart runs. A zero BaseURL means offline, against an in-process
// mock server.
type config struct {
	BaseURL       string
	APIKey        string
	SigningSecret string
	WebhookAddr   string        // listen address of the webhook receiver
	Timeout       time.Duration // the whole run, from the first request to the last completion
}

// configFromEnv reads the TASKROUTING_* variables through getenv, so a test can pass its own.
func configFromEnv(getenv func(string) string) (config, error) {
	cfg := config{
		BaseURL:       getenv("TASKROUTING_BASE_URL"),
		APIKey:        getenv("TASKROUTING_API_KEY"),
		SigningSecret: getenv("TASKROUTING_SIGNING_SECRET"),
		WebhookAddr:   getenv("TASKROUTING_WEBHOOK_ADDR"),
		Timeout:       30 * time.Second,
	}
	if cfg.BaseURL == "" {
		// Offline: the mock server makes its own key and secret, and webhooks stay on loopback.
		cfg.APIKey, cfg.SigningSecret, cfg.WebhookAddr = "", "", "127.0.0.1:0"
		return cfg, nil
	}
	if cfg.APIKey == "" {
		return config{}, errors.New("TASKROUTING_BASE_URL is set but TASKROUTING_API_KEY is not")
	}
	if cfg.SigningSecret == "" {
		// Without the secret no delivery can be verified, and unverified deliveries are dropped.
		return config{}, errors.New("TASKROUTING_BASE_URL is set but TASKROUTING_SIGNING_SECRET is not")
	}
	if cfg.WebhookAddr == "" {
		cfg.WebhookAddr = ":8080"
	}
	// A real deployment may take longer to deliver than the loopback mock server.
	cfg.Timeout = 2 * time.Minute
	return cfg, nil
}

// live reports whether the run goes to a real deployment.
func (c config) live() bool { return c.BaseURL != "" }
