package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
)

type config struct {
	TasksPath   string
	WorkersPath string
	BaseURL     string // empty: offline, against an in-process mock server
	APIKey      string
	Upsert      bool // upsert the workers file into the service first
}

// parseConfig reads the flags and the TASKROUTING_* variables through getenv.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("shadow-run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := sampleDir()
	tasks := fs.String("tasks", filepath.Join(dir, "past_tasks.csv"), "past tasks, .csv or .jsonl")
	workers := fs.String("workers", filepath.Join(dir, "workers.json"), "workers, a JSON array")
	upsert := fs.Bool("upsert", false, "upsert the workers file into the live service first (always done offline)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	cfg := config{TasksPath: *tasks, WorkersPath: *workers, BaseURL: getenv("TASKROUTING_BASE_URL"),
		APIKey: getenv("TASKROUTING_API_KEY"), Upsert: *upsert}
	if cfg.BaseURL == "" {
		cfg.Upsert = true // the mock server starts empty
	}
	return cfg, nil
}

// sampleDir finds the shipped sample data from the module root (go run ./examples/shadow-run)
// or from the example's own directory.
func sampleDir() string {
	const fromRoot = "examples/shadow-run/testdata"
	if _, err := os.Stat(fromRoot); err == nil {
		return fromRoot
	}
	return "testdata"
}
