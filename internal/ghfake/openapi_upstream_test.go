package ghfake

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestDescriptionIsUpstream checks that testdata/api.github.com.json.gz is
// generated/api.github.com.json of @octokit/openapi at OpenAPIVersion,
// byte for byte. .ci/run installs the package and points
// RALPH_OCTOKIT_OPENAPI at it; elsewhere the test is skipped.
func TestDescriptionIsUpstream(t *testing.T) {
	pkg := os.Getenv("RALPH_OCTOKIT_OPENAPI")
	if pkg == "" {
		t.Skip("RALPH_OCTOKIT_OPENAPI is not set (.ci/run sets it)")
	}
	var meta struct{ Version string }
	raw, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err == nil {
		err = json.Unmarshal(raw, &meta)
	}
	if err != nil || meta.Version != OpenAPIVersion {
		t.Fatalf("%s: version %q (%v), want %s", pkg, meta.Version, err, OpenAPIVersion)
	}
	upstream, err := os.ReadFile(filepath.Join(pkg, "generated", "api.github.com.json"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(describedGz))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, upstream) {
		t.Fatalf("testdata/api.github.com.json.gz is not @octokit/openapi %s's generated/api.github.com.json: refresh it with\n"+
			"  gzip -9 -n -c %s > internal/ghfake/testdata/api.github.com.json.gz", OpenAPIVersion, filepath.Join(pkg, "generated", "api.github.com.json"))
	}
}
