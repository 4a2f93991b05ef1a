package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the command when run re-runs itself as the
// bare handler (os.Executable is the test binary here).
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "-serve-bare" {
		serveBare(os.Args[2])
		return
	}
	os.Exit(m.Run())
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{10, 10, 1, 1000, 11}, 10},
	} {
		in := append([]float64(nil), tc.in...)
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if !slicesEqual(in, tc.in) {
			t.Errorf("median sorted its argument: %v", tc.in)
		}
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestStatCPU reads user and system time (fields 14 and 15, in ticks of 10 ms) after the
// command name, which may hold spaces and parentheses of its own.
func TestStatCPU(t *testing.T) {
	tail := " S 1 2 3 4 5 6 7 8 9 10 250 75 12 13 20 0 1 0 100"
	for _, tc := range []struct {
		name, line string
		want       time.Duration
		bad        bool
	}{
		{name: "plain", line: "42 (mockserver)" + tail, want: 3250 * time.Millisecond},
		{name: "spaces and parentheses in the name", line: "42 (a) b (c)" + tail, want: 3250 * time.Millisecond},
		{name: "no name", line: "42 mockserver" + tail, bad: true},
		{name: "cut after the name", line: "42 (mockserver)", bad: true},
		{name: "short", line: "42 (mockserver) S 1 2 3", bad: true},
		{name: "not a number", line: "42 (mockserver) S 1 2 3 4 5 6 7 8 9 10 x 75 12", bad: true},
	} {
		got, err := statCPU([]byte(tc.line))
		if tc.bad {
			if err == nil {
				t.Errorf("%s: statCPU = %v, want an error", tc.name, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: statCPU = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestRunMeasuresTheMockServerBinary runs the whole command against the mock server binary
// built from this tree and the bare handler, over loopback: every create must have been
// answered 202 (load fails otherwise), and the table must carry a row per server with the
// mock server as the reference.
func TestRunMeasuresTheMockServerBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the mock server binary")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("server CPU is read from /proc")
	}
	bin := filepath.Join(t.TempDir(), "mockserver")
	build := exec.Command("go", "build", "-o", bin, "../../mockserver/cmd/mockserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out bytes.Buffer
	if err := run([]string{"-mock", bin, "-n", "40", "-rounds", "2", "-conns", "2"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	text := out.String()
	if !strings.HasPrefix(text, "createload: 2 rounds of 40 creates per server, 2 clients, unpinned") {
		t.Errorf("first line: %q", strings.SplitN(text, "\n", 2)[0])
	}
	num := `[0-9]+(\.[0-9]+)?`
	for _, row := range []string{
		`(?m)^\| bare net/http \| ` + num + ` \(` + num + `\) \| ` + num + ` \(` + num + `\) \| ` + num + ` \| ` + num + `× \| ` + num + `× \|$`,
		`(?m)^\| mock \| ` + num + ` \(` + num + `\) \| ` + num + ` \(` + num + `\) \| ` + num + ` \| 1\.00× \| 1\.00× \|$`,
	} {
		if !regexp.MustCompile(row).MatchString(text) {
			t.Errorf("no row matching %s in\n%s", row, text)
		}
	}
	if strings.Contains(text, "stripe-mock") || strings.Contains(text, "(base)") {
		t.Errorf("servers that were not asked for are in the table:\n%s", text)
	}
}

// TestRunRefusesWithoutTheMockServer: -mock is the one required flag.
func TestRunRefusesWithoutTheMockServer(t *testing.T) {
	var out bytes.Buffer
	err := run(nil, &out)
	if err == nil || !strings.Contains(err.Error(), "-mock is required") {
		t.Fatalf("run() = %v, want the -mock error", err)
	}
}

// TestDriveSendsCreatesToARunningServer: -drive sends -n creates with the key to a server it
// did not start (scripts/bininstr.sh's own, under valgrind) and fails on any other status.
func TestDriveSendsCreatesToARunningServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		wantErr bool
	}{{"accepted", http.StatusAccepted, false}, {"refused", http.StatusBadRequest, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var got atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/v1/tasks" || r.Header.Get("Authorization") != "Bearer sk_test_drive" {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				got.Add(1)
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			err := run([]string{"-drive", srv.URL + "/v1", "-key", "sk_test_drive", "-n", "20", "-conns", "3"}, io.Discard)
			if (err != nil) != tc.wantErr {
				t.Fatalf("run = %v, want an error: %v", err, tc.wantErr)
			}
			if !tc.wantErr && got.Load() != 20 {
				t.Errorf("the server got %d creates, want 20", got.Load())
			}
		})
	}
}
