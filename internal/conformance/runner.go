package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Runner owns a private redis-server and a long-lived engine player (Node) talking to it.
// Start one, play any number of scenarios through it, then Close it.
type Runner struct {
	redis   *exec.Cmd
	node    *exec.Cmd
	dir     string
	stdin   io.WriteCloser
	answers *bufio.Reader
}

// RedisArgs are the redis-server settings the runner uses, beyond the port and directory:
// nothing is persisted, and the users hash stays a listpack (up to a million fields of any
// size). The engine walks its users with HSCAN, and a listpack hash scans in insertion order,
// which is also the order workers registered; once a hash outgrows the listpack limits
// (hash-max-listpack-entries 512 fields and hash-max-listpack-value 64 bytes by default on
// Redis 7.0, as measured on 7.0.15) Redis turns it into a hash table whose scan order
// depends on hashing, and ties between workers would no longer be reproducible.
//
// The price is that every hash the engine keeps (its queued, pending and owner hashes too)
// is a listpack, whose reads and writes cost O(fields): fine for scenarios, wrong for timing.
// TimingRedisArgs keep Redis's defaults for that.
var RedisArgs = append(slices.Clone(TimingRedisArgs),
	"--hash-max-listpack-entries", "1000000", "--hash-max-listpack-value", "1000000")

// TimingRedisArgs are the settings for timing the engine, and for the run on Redis's defaults
// (cmd/conform -redis-defaults): nothing persisted, hashes as Redis ships them.
var TimingRedisArgs = []string{"--save", "", "--appendonly", "no"}

// Start launches redis-server (from PATH) with redisArgs (RedisArgs or TimingRedisArgs) on a
// free loopback port in a temporary directory, and `node engine-player.mjs` from engineDir
// (the conformance directory, after `npm ci`).
func Start(ctx context.Context, engineDir string, redisArgs []string) (*Runner, error) {
	engineDir, err := filepath.Abs(engineDir)
	if err != nil {
		return nil, err
	}
	player := filepath.Join(engineDir, "engine-player.mjs")
	if _, err := os.Stat(filepath.Join(engineDir, "node_modules", "assignment-user-matcher")); err != nil {
		return nil, fmt.Errorf("conformance: the engine is not installed in %s (run `npm ci` there): %w", engineDir, err)
	}
	dir, err := os.MkdirTemp("", "conformance-redis-")
	if err != nil {
		return nil, err
	}
	r := &Runner{dir: dir}
	port, err := freePort()
	if err != nil {
		r.Close()
		return nil, err
	}
	args := append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir}, redisArgs...)
	r.redis = exec.CommandContext(ctx, "redis-server", args...)
	r.redis.Stdout, r.redis.Stderr = io.Discard, os.Stderr
	if err := r.redis.Start(); err != nil {
		r.Close()
		return nil, fmt.Errorf("conformance: starting redis-server: %w", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := waitListening(ctx, addr, 10*time.Second); err != nil {
		r.Close()
		return nil, err
	}
	r.node = exec.CommandContext(ctx, "node", player, "redis://"+addr)
	r.node.Dir = engineDir
	r.node.Stderr = os.Stderr
	if r.stdin, err = r.node.StdinPipe(); err != nil {
		r.Close()
		return nil, err
	}
	out, err := r.node.StdoutPipe()
	if err != nil {
		r.Close()
		return nil, err
	}
	r.answers = bufio.NewReaderSize(out, 1<<20)
	if err := r.node.Start(); err != nil {
		r.node = nil
		r.Close()
		return nil, fmt.Errorf("conformance: starting node: %w", err)
	}
	return r, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitListening polls until addr answers a Redis PING, or fails at the deadline.
func waitListening(ctx context.Context, addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, err = c.Write([]byte("PING\r\n"))
			buf := make([]byte, 7)
			if err == nil {
				_, err = io.ReadFull(c, buf)
			}
			c.Close()
			if err == nil && string(buf) == "+PONG\r\n" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("conformance: redis-server did not answer on %s within %s: %v", addr, within, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// request sends one line and decodes the one-line answer into out.
func (r *Runner) request(req any, out any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := r.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("conformance: engine player: %w", err)
	}
	line, err := r.answers.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("conformance: engine player closed: %w", err)
	}
	var errAnswer struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(line, &errAnswer) == nil && errAnswer.Error != "" {
		return errors.New("conformance: engine player: " + errAnswer.Error)
	}
	return json.Unmarshal(line, out)
}

// PlayEngine plays a scenario through the published engine and returns its trace.
func (r *Runner) PlayEngine(sc Scenario) ([]StepTrace, error) {
	var answer struct {
		Trace []StepTrace `json:"trace"`
	}
	sc.Options = sc.Options.Normalized() // the player needs the defaults spelled out
	if err := r.request(map[string]any{"scenario": sc}, &answer); err != nil {
		return nil, err
	}
	for i := range answer.Trace {
		answer.Trace[i] = answer.Trace[i].Canonical()
	}
	return answer.Trace, nil
}

// Close stops the engine player and the redis-server this runner started and removes the
// temporary directory.
func (r *Runner) Close() {
	if r.stdin != nil {
		r.stdin.Close()
	}
	if r.node != nil && r.node.Process != nil {
		done := make(chan struct{})
		go func() { _ = r.node.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = r.node.Process.Kill()
			<-done
		}
	}
	if r.redis != nil && r.redis.Process != nil {
		_ = r.redis.Process.Kill()
		_ = r.redis.Wait()
	}
	if r.dir != "" {
		os.RemoveAll(r.dir)
	}
}
