package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// pastTask is one routing decision of the old system.
type pastTask struct {
	ID           string   `json:"id"`
	Tags         []string `json:"tags"`
	Priority     float64  `json:"priority"`
	ChosenWorker string   `json:"chosenWorker"`
	Accepted     bool     `json:"accepted"`
}

// loadPastTasks reads a .csv or a .jsonl (.ndjson) file of past tasks.
func loadPastTasks(path string) ([]pastTask, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tasks []pastTask
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		tasks, err = readCSV(f)
	case ".jsonl", ".ndjson":
		tasks, err = readJSONLines(f)
	default:
		return nil, fmt.Errorf("%s: want a .csv or .jsonl file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%s: no past tasks", path)
	}
	return tasks, nil
}

var csvHeader = []string{"id", "tags", "priority", "chosen_worker", "accepted"}

func readCSV(r io.Reader) ([]pastTask, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(csvHeader)
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	for i, h := range csvHeader {
		if strings.TrimSpace(head[i]) != h {
			return nil, fmt.Errorf("header: want %s", strings.Join(csvHeader, ","))
		}
	}
	var out []pastTask
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		t := pastTask{ID: rec[0], Tags: splitTags(rec[1]), ChosenWorker: rec[3]}
		if t.Priority, err = strconv.ParseFloat(rec[2], 64); rec[2] != "" && err != nil {
			return nil, fmt.Errorf("line %d: priority %q is not a number", line, rec[2])
		}
		if t.Accepted, err = strconv.ParseBool(rec[4]); err != nil {
			return nil, fmt.Errorf("line %d: accepted %q is not true or false", line, rec[4])
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, t)
	}
}

func splitTags(s string) []string {
	var tags []string
	for _, t := range strings.Split(s, "|") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

func readJSONLines(r io.Reader) ([]pastTask, error) {
	var out []pastTask
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var t pastTask
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields() // a misspelt field would otherwise read as empty
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

func (t pastTask) check() error {
	switch {
	case len(t.Tags) == 0:
		return errors.New("no tags")
	case t.ChosenWorker == "":
		return errors.New("no chosen worker")
	}
	return nil
}

// loadWorkers reads a JSON array of workers in the shape of POST /workers.
func loadWorkers(path string) ([]taskrouting.UpsertWorkerParams, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ws []taskrouting.UpsertWorkerParams
	if err := json.Unmarshal(b, &ws); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, w := range ws {
		if w.ID == "" {
			return nil, fmt.Errorf("%s: worker %d has no id", path, i+1)
		}
	}
	return ws, nil
}
