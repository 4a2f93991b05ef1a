// Command createload measures servers under the same create load, each in its own process:
// the mock server binary (and, optionally, an older build of it), a bare net/http JSON
// handler (this command, re-run as a child), and optionally stripe-mock. Rounds alternate
// between the servers, so a change in machine load weighs on all alike. For each server it
// reports the median throughput over the rounds and the server's own CPU per request (user
// plus system time of its process, from /proc/PID/stat, so other processes on a shared
// machine do not count), and their ratios to the mock server; beside them, its own CPU per
// request, which bounds what a server can be shown to do when both share the CPUs.
//
// With -server-cpu every server runs under `taskset -c CPU`; run this command itself on
// another CPU (taskset -c 1 createload ... -server-cpu 0) and each server's throughput is its
// capacity on one core instead of what is left of two cores after the load generator.
//
//	go build -o /tmp/mockserver ./mockserver/cmd/mockserver
//	go run ./internal/createload -mock /tmp/mockserver [-base /tmp/mockserver-old] [-stripe /path/to/stripe-mock]
//
// scripts/stripemock.sh builds and installs everything and runs it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// createBody is the mock server's create (the body of BenchmarkPostTasks).
const createBody = `{"tags":["english","billing"],"priority":5,"title":"Refund request","meta":{"orderId":"o_123"}}`

// stripeBody is stripe-mock's nearest create: a customer with an email and metadata.
const stripeBody = "email=a%40example.com&description=Refund+request&metadata[orderId]=o_123"

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-serve-bare" {
		serveBare(os.Args[2])
		return
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "createload:", err)
		os.Exit(1)
	}
}

// target is one server under load.
type target struct {
	name   string
	cmd    *exec.Cmd
	url    string // the create endpoint
	key    string
	body   string
	ctype  string
	status int // the status a create answers

	rates   []float64 // requests per second, per round
	cpus    []float64 // server CPU µs per request, per round
	clients []float64 // the load generator's own CPU µs per request, per round
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("createload", flag.ContinueOnError)
	mock := fs.String("mock", "", "mock server binary (required)")
	mockArgs := fs.String("mock-args", "-log-level info", "flags for the mock server binaries, space separated")
	base := fs.String("base", "", "an older mock server binary to compare with (optional)")
	baseArgs := fs.String("base-args", "-log-level info", "flags for the older mock server binary")
	stripe := fs.String("stripe", "", "stripe-mock binary (optional)")
	n := fs.Int("n", 4000, "requests per server per round")
	conns := fs.Int("conns", 8, "concurrent clients, each with its own keep-alive connection")
	rounds := fs.Int("rounds", 5, "rounds; each round loads every server once, in turn")
	serverCPU := fs.String("server-cpu", "", "run every server with `taskset -c CPU` (a CPU list), e.g. 0 while this command runs on 1")
	drive := fs.String("drive", "", "only send -n creates from -conns clients to the mock server already serving at this base URL (its start line's url) and exit; with -key")
	driveKey := fs.String("key", "", "with -drive: the server's API key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *drive != "" {
		// scripts/bininstr.sh counts a server's instructions under valgrind, where it
		// starts and ends the server itself.
		t := &target{name: "mock", url: *drive + "/tasks", key: *driveKey, body: createBody, ctype: "application/json", status: 202}
		_, _, err := load(t, *n, *conns)
		return err
	}
	if *mock == "" {
		return errors.New("-mock is required")
	}
	ctx := context.Background()
	// command builds a server's command, pinned with taskset when -server-cpu is set. taskset
	// execs the server in its own process, so the PID whose CPU is read is the server's.
	command := func(bin string, args ...string) *exec.Cmd {
		if *serverCPU == "" {
			return exec.Command(bin, args...)
		}
		return exec.Command("taskset", append([]string{"-c", *serverCPU, bin}, args...)...)
	}
	var targets []*target
	defer func() {
		for _, t := range targets {
			_ = t.cmd.Process.Kill()
			_ = t.cmd.Wait()
		}
	}()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	bare := &target{name: "bare net/http", cmd: command(self, "-serve-bare", "127.0.0.1:"+port),
		url: "http://127.0.0.1:" + port + "/v1/tasks", key: "sk_test_bare", body: createBody, ctype: "application/json", status: 202}
	if err := startAndWait(ctx, bare); err != nil {
		return fmt.Errorf("bare handler: %w", err)
	}
	targets = append(targets, bare)
	for _, m := range []struct{ name, bin, args string }{{"mock", *mock, *mockArgs}, {"mock (base)", *base, *baseArgs}} {
		if m.bin == "" {
			continue
		}
		t, err := startMock(m.name, command(m.bin, append([]string{"-addr", "127.0.0.1:0"}, strings.Fields(m.args)...)...))
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		targets = append(targets, t)
	}
	if *stripe != "" {
		port, err := freePort()
		if err != nil {
			return err
		}
		t := &target{name: "stripe-mock", cmd: command(*stripe, "-http-addr", "127.0.0.1:"+port),
			url: "http://127.0.0.1:" + port + "/v1/customers", key: "sk_test_123", body: stripeBody,
			ctype: "application/x-www-form-urlencoded", status: 200}
		if err := startAndWait(ctx, t); err != nil {
			return fmt.Errorf("stripe-mock: %w", err)
		}
		targets = append(targets, t)
	}

	for _, t := range targets { // warm up: connections, lazily compiled schemas, page faults
		if _, _, err := load(t, *n/4, *conns); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	for r := range *rounds {
		order := targets
		if r%2 == 1 {
			order = slices.Clone(targets)
			slices.Reverse(order)
		}
		for _, t := range order {
			self0, err := processCPU(os.Getpid())
			if err != nil {
				return err
			}
			wall, cpu, err := load(t, *n, *conns)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			self1, err := processCPU(os.Getpid())
			if err != nil {
				return err
			}
			t.clients = append(t.clients, float64((self1-self0).Microseconds())/float64(*n))
			t.rates = append(t.rates, float64(*n)/wall.Seconds())
			t.cpus = append(t.cpus, float64(cpu.Microseconds())/float64(*n))
		}
	}

	pinned := "unpinned: servers and load generator share every CPU"
	if *serverCPU != "" {
		pinned = "servers pinned to CPU " + *serverCPU
	}
	fmt.Fprintf(stdout, "createload: %d rounds of %d creates per server, %d clients, %s; medians (best in brackets)\n\n", *rounds, *n, *conns, pinned)
	fmt.Fprintln(stdout, "| server | creates/s | server CPU µs/create | load generator CPU µs/create | throughput vs mock | CPU vs mock |")
	fmt.Fprintln(stdout, "| --- | --- | --- | --- | --- | --- |")
	ref := targets[1] // the mock server
	for _, t := range targets {
		fmt.Fprintf(stdout, "| %s | %.0f (%.0f) | %.1f (%.1f) | %.1f | %.2f× | %.2f× |\n", t.name,
			median(t.rates), slices.Max(t.rates), median(t.cpus), slices.Min(t.cpus), median(t.clients),
			median(t.rates)/median(ref.rates), median(t.cpus)/median(ref.cpus))
	}
	return nil
}

func startMock(name string, cmd *exec.Cmd) (*target, error) {
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("no start line: %w", err)
	}
	var start struct{ URL, APIKey string }
	if err := json.Unmarshal([]byte(line), &start); err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("start line %q: %w", line, err)
	}
	return &target{name: name, cmd: cmd, url: start.URL + "/tasks", key: start.APIKey, body: createBody,
		ctype: "application/json", status: 202}, nil
}

// startAndWait starts a server that prints no start line and waits until it accepts
// connections (a tool polling, not a test).
func startAndWait(ctx context.Context, t *target) error {
	t.cmd.Stdout, t.cmd.Stderr = io.Discard, io.Discard
	if err := t.cmd.Start(); err != nil {
		return err
	}
	host := strings.TrimPrefix(t.url, "http://")
	host = host[:strings.IndexByte(host, '/')]
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", host)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("not listening after 30s")
}

// load sends total creates from conns goroutines and returns the wall time and the CPU the
// server's process used meanwhile.
func load(t *target, total, conns int) (time.Duration, time.Duration, error) {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	body := []byte(t.body)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	serverCPU := func() (time.Duration, error) {
		if t.cmd == nil { // -drive: a server this command did not start
			return 0, nil
		}
		return processCPU(t.cmd.Process.Pid)
	}
	cpu0, err := serverCPU()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(total) {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+t.key)
				req.Header.Set("Content-Type", t.ctype)
				req.Header.Set("Idempotency-Key", "load-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-"+strconv.FormatInt(i, 10))
				resp, err := hc.Do(req)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != t.status {
					failed.Store(fmt.Sprintf("status %d", resp.StatusCode))
					return
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	if msg := failed.Load(); msg != nil {
		return 0, 0, fmt.Errorf("load: %v", msg)
	}
	cpu1, err := serverCPU()
	if err != nil {
		return 0, 0, err
	}
	return wall, cpu1 - cpu0, nil
}

// processCPU reads a process's user and system time from /proc/PID/stat (fields 14 and 15,
// in clock ticks of 1/100 s on Linux).
func processCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("server CPU needs Linux's /proc: %w", err)
	}
	return statCPU(raw)
}

// statCPU is the user plus system time of a /proc/PID/stat line.
func statCPU(raw []byte) (time.Duration, error) {
	// The command name (field 2) is in parentheses and may hold spaces: count from after it.
	end := bytes.LastIndexByte(raw, ')')
	if end < 0 || end+2 > len(raw) {
		return 0, errors.New("no command name in the /proc stat line")
	}
	f := strings.Fields(string(raw[end+2:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat line")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	return port, err
}

// serveBare is the baseline server: decode the JSON body, answer 202 with an id, nothing else.
func serveBare(addr string) {
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Tags     []string       `json:"tags"`
			Priority float64        `json:"priority"`
			Title    string         `json:"title"`
			Meta     map[string]any `json:"meta"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Tags) == 0 {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(map[string]string{"id": "task_" + strconv.FormatInt(n.Add(1), 10), "status": "queued"})
	})
	if err := http.ListenAndServe(addr, h); err != nil {
		fmt.Fprintln(os.Stderr, "createload: bare:", err)
		os.Exit(1)
	}
}
