package actionstep_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestInstallsGoReleaserSnapshot runs the install step against a release
// GoReleaser really made from .goreleaser.yaml (`goreleaser release
// --snapshot` for this machine's target, whose dist folder
// RALPH_RELEASE_DIST names; .ci/run makes it), so the archive and checksums
// names install.sh expects are the ones the release config produces. Without
// RALPH_RELEASE_DIST it skips, except in CI, where it fails.
func TestInstallsGoReleaserSnapshot(t *testing.T) {
	dist, version := releaseDist(t)
	tag := "v" + version
	osName := map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]

	j := newJob(t, tag, arch, nil, func(string, string) *fakeRelease { return &fakeRelease{} }, func(dir string) { stubGH(t, dir, false, false) })
	// Serve dist/ as the release's download folder.
	files := http.StripPrefix("/download/"+tag+"/", http.FileServer(http.Dir(dist)))
	srv := httptest.NewServer(files)
	t.Cleanup(srv.Close)
	j.runner.Ctx["runner.os"] = osName
	j.runner.Env = append(j.runner.Env, "RALPH_RELEASE_BASE_URL="+srv.URL+"/download")

	res := j.step(t, "install")
	if res.Err != nil || res.Outputs["bin"] != j.bin {
		t.Fatalf("install: %v, outputs %v, want bin=%s\n%s", res.Err, res.Outputs, j.bin, res.Output)
	}
	want := "ralph-ci " + tag + " " + runtime.GOOS + "/" + runtime.GOARCH
	if !strings.Contains(res.Output, want) {
		t.Errorf("the installed snapshot's version line lacks %q:\n%s", want, res.Output)
	}
}

// releaseDist is the GoReleaser snapshot's dist folder that
// RALPH_RELEASE_DIST names, and the snapshot's version (without the v).
// Without RALPH_RELEASE_DIST the test skips, except in CI, where it fails.
func releaseDist(t *testing.T) (dist, version string) {
	t.Helper()
	dist = os.Getenv("RALPH_RELEASE_DIST")
	if dist == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RALPH_RELEASE_DIST is not set in CI: .ci/run makes a GoReleaser snapshot for this test")
		}
		t.Skip("RALPH_RELEASE_DIST names no GoReleaser dist folder")
	}
	data, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &meta); err != nil || meta.Version == "" {
		t.Fatalf("%s/metadata.json: version %q, %v", dist, meta.Version, err)
	}
	return dist, meta.Version
}

// TestSnapshotHasTheWindowsArchive checks the Windows archive the README
// and the release promise, in the snapshot .ci/run makes from
// .goreleaser.yaml (with its targets narrowed to this machine's and
// windows/amd64): named as action/install.sh asks for it on a Windows
// runner, listed with its SHA-256 in the checksums file, holding the
// ralph-ci.exe install.sh extracts, an amd64 Windows executable built for
// windows/amd64 without cgo, with -trimpath and the snapshot's version.
func TestSnapshotHasTheWindowsArchive(t *testing.T) {
	dist, version := releaseDist(t)
	asset := "ralph-ci_" + version + "_windows_amd64.zip"
	data, err := os.ReadFile(filepath.Join(dist, asset))
	if err != nil {
		t.Fatalf("the snapshot has no Windows archive: %v", err)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "ralph-ci_"+version+"_checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if line := hex.EncodeToString(sum[:]) + "  " + asset; !slices.Contains(strings.Split(string(sums), "\n"), line) {
		t.Errorf("the checksums file lacks %q:\n%s", line, sums)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", asset, err)
	}
	var exe []byte
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name != "ralph-ci.exe" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		exe, err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if exe == nil || !slices.Contains(names, "README.md") {
		t.Fatalf("%s holds %q: want ralph-ci.exe (what install.sh extracts) and README.md", asset, names)
	}
	pf, err := pe.NewFile(bytes.NewReader(exe))
	if err != nil {
		t.Fatalf("ralph-ci.exe is not a Windows executable: %v", err)
	}
	if pf.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("ralph-ci.exe is for machine %#x, want amd64", pf.Machine)
	}
	info, err := buildinfo.Read(bytes.NewReader(exe))
	if err != nil {
		t.Fatalf("ralph-ci.exe: %v", err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	for k, want := range map[string]string{"GOOS": "windows", "GOARCH": "amd64", "CGO_ENABLED": "0", "-trimpath": "true"} {
		if settings[k] != want {
			t.Errorf("ralph-ci.exe was built with %s=%q, want %q", k, settings[k], want)
		}
	}
	if !bytes.Contains(exe, []byte("v"+version)) {
		t.Errorf("ralph-ci.exe holds no version v%s (-X main.version)", version)
	}
}
