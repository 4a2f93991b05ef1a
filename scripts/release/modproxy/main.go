// Command modproxy writes a file-based Go module proxy holding the repository's modules at
// one version, made from the working tree, so a release can be tried by `go get` before it is
// tagged (scripts/release/rehearse.sh):
//
//	modproxy -version v0.1.0 -out DIR [-repo .] . otel dedupe/redis
//
// For each module directory it writes DIR/<module path>/@v/{list,VERSION.info,VERSION.mod,
// VERSION.zip}, the layout GOPROXY=file://DIR reads. A zip holds what git would commit (tracked
// files and untracked files that are not ignored), without the directories of other modules,
// and is checked by golang.org/x/mod/zip, the rules the go command applies to a download.
//
// It is a module of its own so that golang.org/x/mod is a dependency of this tool only, never
// of the SDK's modules.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("modproxy", flag.ContinueOnError)
	version := fs.String("version", "", "version to publish every module at (vX.Y.Z)")
	out := fs.String("out", "", "directory to write the proxy to (created)")
	repo := fs.String("repo", ".", "repository root; module directories are relative to it")
	at := fs.String("time", "", "commit time for the .info files (RFC 3339; default now)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !semver.IsValid(*version) || semver.Canonical(*version) != *version {
		return fmt.Errorf("-version %q is not a canonical semantic version (vX.Y.Z)", *version)
	}
	if *out == "" || fs.NArg() == 0 {
		return errors.New("usage: modproxy -version vX.Y.Z -out DIR [-repo DIR] MODULE_DIR...")
	}
	when := time.Now().UTC().Truncate(time.Second)
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			return fmt.Errorf("-time: %w", err)
		}
		when = t.UTC()
	}
	root, err := filepath.Abs(*repo)
	if err != nil {
		return err
	}
	files, err := gitFiles(root)
	if err != nil {
		return err
	}
	moduleDirs, err := nestedModules(files)
	if err != nil {
		return err
	}
	for _, dir := range fs.Args() {
		dir = path.Clean(filepath.ToSlash(dir))
		n, modPath, err := writeModule(root, dir, files, moduleDirs, *version, when, *out)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		fmt.Fprintf(stdout, "%s@%s: %d files\n", modPath, *version, n)
	}
	return nil
}

// gitFiles lists the working tree as git would commit it, slash-separated and relative to
// root: files a build outside the repository never sees (node_modules, built binaries) stay
// out of the zips.
func gitFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var files []string
	for _, f := range strings.Split(string(b), "\x00") {
		if f == "" {
			continue
		}
		// A file deleted in the working tree but still in the index is not released.
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
			continue
		}
		files = append(files, f)
	}
	return files, nil
}

// nestedModules is every directory holding a go.mod, "." for the root.
func nestedModules(files []string) ([]string, error) {
	var dirs []string
	for _, f := range files {
		if path.Base(f) == "go.mod" {
			dirs = append(dirs, path.Dir(f))
		}
	}
	if len(dirs) == 0 {
		return nil, errors.New("no go.mod in the repository")
	}
	return dirs, nil
}

// within reports whether file f lies in directory dir ("." holds everything).
func within(f, dir string) bool {
	return dir == "." || f == dir || strings.HasPrefix(f, dir+"/")
}

type zipFile struct {
	name string // path inside the module
	abs  string
}

func (f zipFile) Path() string { return f.name }
func (f zipFile) Lstat() (os.FileInfo, error) {
	return os.Lstat(f.abs)
}
func (f zipFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }

func writeModule(root, dir string, files, moduleDirs []string, version string, when time.Time, out string) (int, string, error) {
	gomod, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), "go.mod"))
	if err != nil {
		return 0, "", err
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		return 0, "", err
	}
	if mf.Module == nil {
		return 0, "", errors.New("go.mod names no module")
	}
	if len(mf.Replace) > 0 {
		// A replace is ignored for anyone who depends on the module: a release with one
		// builds here and fails for its users.
		return 0, "", fmt.Errorf("go.mod keeps a replace (%s): it is ignored for the module's users", mf.Replace[0].Old.Path)
	}
	mv := module.Version{Path: mf.Module.Mod.Path, Version: version}
	var zfiles []modzip.File
	for _, f := range files {
		if !within(f, dir) || inOtherModule(f, dir, moduleDirs) {
			continue
		}
		name := f
		if dir != "." {
			name = strings.TrimPrefix(f, dir+"/")
		}
		zfiles = append(zfiles, zipFile{name: name, abs: filepath.Join(root, filepath.FromSlash(f))})
	}
	escaped, err := module.EscapePath(mv.Path)
	if err != nil {
		return 0, "", err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return 0, "", err
	}
	var zbuf bytes.Buffer
	if err := modzip.Create(&zbuf, mv, zfiles); err != nil {
		return 0, "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, when})
	if err != nil {
		return 0, "", err
	}
	for name, data := range map[string][]byte{
		version + ".zip":  zbuf.Bytes(),
		version + ".mod":  gomod,
		version + ".info": info,
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return 0, "", err
		}
	}
	return len(zfiles), mv.Path, nil
}

// inOtherModule reports whether f belongs to a module nested below dir.
func inOtherModule(f, dir string, moduleDirs []string) bool {
	for _, m := range moduleDirs {
		if m != dir && within(m, dir) && within(f, m) {
			return true
		}
	}
	return false
}
