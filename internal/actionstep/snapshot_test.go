package actionstep_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
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
	dist := os.Getenv("RALPH_RELEASE_DIST")
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
	tag := "v" + meta.Version
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
