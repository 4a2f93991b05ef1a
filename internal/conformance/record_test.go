package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecordingIsOfThePinnedEngine fails when conformance/package-lock.json pins another
// version of the engine than the one whose decisions the corpus holds: after a bump the
// replay tests would hold the go player and the server to the old engine's decisions.
func TestRecordingIsOfThePinnedEngine(t *testing.T) {
	pinned, err := PinnedEngineVersion("../../conformance/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRecordingFile("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.Engine != pinned {
			t.Fatalf("%s holds the decisions of %s %s, but conformance/package-lock.json pins %s: record the corpus again "+
				"(conform -record, conformance/README.md \"Recorded decisions\")", RecordingFile, EnginePackage, rec.Engine, pinned)
		}
	}
}

// TestRecordingCoversEveryFamily: every family the engine is compared on has scenarios in
// the corpus, each recording is the scenario Generate builds for its name (so a change to
// the generator forces a new recording), and each trace has a step per scenario step.
func TestRecordingCoversEveryFamily(t *testing.T) {
	recs, err := ReadRecordingFile("../..")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, rec := range recs {
		count[rec.Family]++
		sc, err := Generate(rec.Family, rec.Seed, rec.Index)
		if err != nil {
			t.Fatalf("%s: %v", rec.Name(), err)
		}
		if diff := cmp.Diff(sc, rec.Scenario); diff != "" {
			t.Fatalf("%s is not the scenario the generator builds now (-generated +recorded):\n%s\nrecord the corpus again (conform -record)", rec.Name(), diff)
		}
		if rec.Family != rec.Scenario.Family || rec.Seed != rec.Scenario.Seed || rec.Index != rec.Scenario.Index {
			t.Errorf("%s: the line names %s/%d/%d", rec.Name(), rec.Family, rec.Seed, rec.Index)
		}
		if len(rec.Trace) != len(rec.Scenario.Steps) {
			t.Errorf("%s: %d traced steps for %d steps", rec.Name(), len(rec.Trace), len(rec.Scenario.Steps))
		}
	}
	for _, fam := range Families {
		sc, err := Generate(fam, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if explores := sc.Options.Explores(); explores != (count[fam] == 0) {
			t.Errorf("family %s: %d recorded scenarios (exploring: %v); a family is recorded unless it explores", fam, count[fam], explores)
		}
	}
}

// TestWriteRecordingsIsDeterministic: the same recordings give the same bytes, and read back
// as written.
func TestWriteRecordingsIsDeterministic(t *testing.T) {
	sc, err := Generate("tags-only", 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	recs := []Recording{{Family: sc.Family, Seed: sc.Seed, Index: sc.Index, Engine: "1.0.0", Scenario: sc, Trace: PlayGo(sc)}}
	var a, b bytes.Buffer
	if err := WriteRecordings(&a, recs); err != nil {
		t.Fatal(err)
	}
	if err := WriteRecordings(&b, recs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same recordings differ")
	}
	got, err := ReadRecordings(&a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recs, got); diff != "" {
		t.Errorf("read back (-written +read):\n%s", diff)
	}
}

func TestPinnedEngineVersion(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, lock, want string
		wantErr          bool
	}{
		{"pinned", `{"packages":{"":{},"node_modules/assignment-user-matcher":{"version":"2.0.0"}}}`, "2.0.0", false},
		{"not pinned", `{"packages":{"node_modules/redis":{"version":"5.10.0"}}}`, "", true},
		{"not JSON", `{`, "", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, string(rune('a'+i))+".json")
			if err := os.WriteFile(path, []byte(tt.lock), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := PinnedEngineVersion(path)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("PinnedEngineVersion = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
