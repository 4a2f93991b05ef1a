package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadPastTasks(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		want    []pastTask
		wantErr string
	}{
		{name: "csv", file: "t.csv", content: "id,tags,priority,chosen_worker,accepted\nT-1, english | billing ,20,amy,true\nT-2,chat,,bo,false\n",
			want: []pastTask{{ID: "T-1", Tags: []string{"english", "billing"}, Priority: 20, ChosenWorker: "amy", Accepted: true},
				{ID: "T-2", Tags: []string{"chat"}, ChosenWorker: "bo"}}},
		{name: "json lines", file: "t.jsonl", content: `{"id":"T-1","tags":["english"],"priority":5,"chosenWorker":"amy","accepted":true}` + "\n\n",
			want: []pastTask{{ID: "T-1", Tags: []string{"english"}, Priority: 5, ChosenWorker: "amy", Accepted: true}}},
		{name: "csv wrong header", file: "t.csv", content: "id,tags,prio,chosen_worker,accepted\n", wantErr: "header"},
		{name: "csv bad priority", file: "t.csv", content: "id,tags,priority,chosen_worker,accepted\nT-1,a,high,amy,true\n", wantErr: "line 2: priority"},
		{name: "csv bad accepted", file: "t.csv", content: "id,tags,priority,chosen_worker,accepted\nT-1,a,1,amy,maybe\n", wantErr: "line 2: accepted"},
		{name: "csv no tags", file: "t.csv", content: "id,tags,priority,chosen_worker,accepted\nT-1,,1,amy,true\n", wantErr: "no tags"},
		{name: "json unknown field", file: "t.jsonl", content: `{"id":"T-1","tags":["a"],"chosen":"amy"}`, wantErr: "line 1"},
		{name: "json no worker", file: "t.jsonl", content: `{"id":"T-1","tags":["a"]}`, wantErr: "no chosen worker"},
		{name: "empty", file: "t.csv", content: "id,tags,priority,chosen_worker,accepted\n", wantErr: "no past tasks"},
		{name: "unknown extension", file: "t.txt", content: "x", wantErr: "want a .csv or .jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			got, err := loadPastTasks(path)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
		})
	}
}

// Both sample files hold the same history, so both give the same report.
func TestRunOnTheSamples(t *testing.T) {
	var outs []string
	for _, tasks := range []string{"testdata/past_tasks.csv", "testdata/past_tasks.jsonl"} {
		var out strings.Builder
		cfg := config{TasksPath: tasks, WorkersPath: "testdata/workers.json", Upsert: true}
		require.NoError(t, run(context.Background(), cfg, &out))
		outs = append(outs, out.String())
	}
	got := outs[0]
	for _, w := range []string{
		"old:     finn   (rejected)  not eligible: unavailable",
		"old:     eli    (rejected)  not eligible: zeroWeight billing",
		"where the service agrees:       5/6 (83%)",
		"where the service would change: 3/6 (50%)",
		"summary: 12 past tasks, agreement 6/12 (50%), old choices accepted 8/12 (67%)",
	} {
		assert.Contains(t, got, w)
	}
	assert.Equal(t, afterFirstLines(outs[0]), afterFirstLines(outs[1]))
}

// afterFirstLines drops the lines naming the server's address and the input file.
func afterFirstLines(s string) string {
	_, rest, _ := strings.Cut(s, "\ndisagreements:")
	return rest
}
