package conformance

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RecordingFile is where the recorded corpus lives, relative to the module root: the
// engine's decisions on seeded scenarios, so `go test` can hold the go player and the mock
// server to them without Node or Redis (cmd/conform -record writes it).
const RecordingFile = "internal/conformance/testdata/engine-traces.jsonl.gz"

// EnginePackage is the npm package of the platform's engine, as conformance/package-lock.json
// names it.
const EnginePackage = "assignment-user-matcher"

// Recording is one scenario played through the engine on the pinned Redis (RedisArgs: ties
// in registration order), with what the engine decided at each step. Family, Seed and Index
// repeat the scenario's, so a line reads on its own.
type Recording struct {
	Family   string      `json:"family"`
	Seed     uint64      `json:"seed"`
	Index    int         `json:"index"`
	Engine   string      `json:"engine"` // EnginePackage's version that decided
	Scenario Scenario    `json:"scenario"`
	Trace    []StepTrace `json:"trace"`
}

// Name identifies the recording in test failures: family/seed/index.
func (rec Recording) Name() string { return rec.Scenario.Name() }

// RecordSkip says why a scenario was left out of a recording.
type RecordSkip struct {
	Name, Why string
}

// Record plays up to n scenarios of each family (from seed) through the engine and returns
// them with its traces. A family stops once its recorded scenarios hold maxSteps steps or
// more (0: no limit), so the families of hundreds of workers or tasks per scenario do not
// outweigh the rest in the replay's time; every family gets at least one. A scenario that explores is left out (the engine's draws are not the
// reference matcher's: CheckReproducible checks those), and so is one the engine decides
// differently when played a second time (its first-come claims race), since no reference
// can be held to an outcome the engine itself does not repeat; both are returned as skips.
func Record(r *Runner, version string, families []string, seed uint64, n, maxSteps int) ([]Recording, []RecordSkip, error) {
	var out []Recording
	var skips []RecordSkip
	for _, fam := range families {
		steps := 0
		for i := range n {
			if maxSteps > 0 && steps >= maxSteps {
				break
			}
			sc, err := Generate(fam, seed, i)
			if err != nil {
				return nil, nil, err
			}
			if sc.Options.Explores() {
				// A family explores as a whole; one line says so.
				skips = append(skips, RecordSkip{fam, "explores: not compared with the engine"})
				break
			}
			first, err := r.PlayEngine(sc)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", sc.Name(), err)
			}
			second, err := r.PlayEngine(sc)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", sc.Name(), err)
			}
			if d := Compare(first, second); d != nil {
				skips = append(skips, RecordSkip{sc.Name(), "the engine did not repeat itself, " + d.String()})
				continue
			}
			steps += len(sc.Steps)
			out = append(out, Recording{Family: sc.Family, Seed: sc.Seed, Index: sc.Index,
				Engine: version, Scenario: sc, Trace: first})
		}
	}
	return out, skips, nil
}

// WriteRecordings writes recordings as gzip-compressed JSON lines. The gzip header carries
// no name and no time, and encoding/json writes map keys sorted, so the same recordings give
// the same bytes.
func WriteRecordings(w io.Writer, recs []Recording) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return zw.Close()
}

// ReadRecordings reads what WriteRecordings wrote.
func ReadRecordings(r io.Reader) ([]Recording, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("conformance: recording: %w", err)
	}
	defer zr.Close()
	var out []Recording
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		var rec Recording
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("conformance: recording line %d: %w", line, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("conformance: recording: %w", err)
	}
	return out, nil
}

// ReadRecordingFile reads the recordings of the module whose root is root (RecordingFile
// under it).
func ReadRecordingFile(root string) ([]Recording, error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(RecordingFile)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRecordings(f)
}

// PinnedEngineVersion reads the version of EnginePackage that a package-lock.json (npm's
// lockfile version 2 or 3) pins.
func PinnedEngineVersion(lockfile string) (string, error) {
	b, err := os.ReadFile(lockfile)
	if err != nil {
		return "", err
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return "", fmt.Errorf("conformance: %s: %w", lockfile, err)
	}
	p, ok := lock.Packages["node_modules/"+EnginePackage]
	if !ok || p.Version == "" {
		return "", errors.New("conformance: " + lockfile + " pins no " + EnginePackage)
	}
	return p.Version, nil
}
