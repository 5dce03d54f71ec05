package actionstep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallStep runs action.yml's install step, as the runner would,
// against a local server holding a fake release, for each kind of ref and
// release: it installs a verified release binary (which then prints its
// version) or, when there is none or it fails a check, leaves build=true
// for the source build, never running a refused file.
func TestInstallStep(t *testing.T) {
	goSum, err := os.ReadFile(filepath.Join(repoRoot(t), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	oldGH := func(dir string) { stubGH(t, dir, false, false) }
	tests := []struct {
		name, ref, arch string
		with            map[string]string
		tampered        bool
		gh              func(dir string)
		wantInstalled   bool
		wantLog         []string
		wantRequests    []string // a prefix of each request, in order
	}{{
		name: "release tag: downloaded, checked, used", ref: "v1.2.3", arch: "X64", gh: oldGH,
		wantInstalled: true,
		wantLog: []string{
			"no GitHub CLI with attestation support: verified by checksum only",
			"installed ralph-ci_1.2.3_linux_amd64.tar.gz of release v1.2.3",
			"ralph-ci v1.2.3 fake-release",
		},
		wantRequests: []string{"GET /download/v1.2.3/ralph-ci_1.2.3_checksums.txt ", "GET /download/v1.2.3/ralph-ci_1.2.3_linux_amd64.tar.gz "},
	}, {
		name: "major tag: the release on its commit", ref: "v1", arch: "X64", gh: oldGH,
		wantInstalled: true,
		wantLog:       []string{"ralph-ci v1.2.3 fake-release"},
		wantRequests:  []string{"GET /api/repos/ralph-ci/ralph-ci/tags Bearer test-token", "GET /download/v1.2.3/ralph-ci_1.2.3_checksums.txt ", "GET /download/v1.2.3/ralph-ci_1.2.3_linux_amd64.tar.gz "},
	}, {
		name: "commit of a release", ref: releaseSHA, arch: "X64", gh: oldGH,
		wantInstalled: true,
		wantLog:       []string{"ralph-ci v1.2.3 fake-release"},
	}, {
		name: "tampered binary: refused, then the fallback", ref: "v1.2.3", arch: "X64", tampered: true, gh: oldGH,
		wantLog: []string{
			"::error title=ralph-ci install::refused ralph-ci_1.2.3_linux_amd64.tar.gz of release v1.2.3: its SHA-256 is ",
			"refused the release binary; building from source",
		},
	}, {
		name: "no asset for the platform: the fallback", ref: "v1.2.3", arch: "ARM64", gh: oldGH,
		wantLog:      []string{"no asset ralph-ci_1.2.3_linux_arm64.tar.gz in release v1.2.3; building from source"},
		wantRequests: []string{"GET /download/v1.2.3/ralph-ci_1.2.3_checksums.txt ", "GET /download/v1.2.3/ralph-ci_1.2.3_linux_arm64.tar.gz "},
	}, {
		name: "no such release: the fallback", ref: "v9.9.9", arch: "X64", gh: oldGH,
		wantLog: []string{"no checksums file ralph-ci_9.9.9_checksums.txt in release v9.9.9; building from source"},
	}, {
		name: "branch: the fallback without a request", ref: "main", arch: "X64", gh: oldGH,
		wantLog:      []string{"no release for the ref 'main'; building from source"},
		wantRequests: []string{},
	}, {
		name: "commit between releases: the fallback", ref: "3333333333333333333333333333333333333333", arch: "X64", gh: oldGH,
		wantLog:      []string{"no release for the ref '3333333333333333333333333333333333333333'; building from source"},
		wantRequests: []string{"GET /api/repos/ralph-ci/ralph-ci/tags "},
	}, {
		name: "attestation verified", ref: "v1.2.3", arch: "X64",
		gh:            func(dir string) { stubGH(t, dir, true, true) },
		wantInstalled: true,
		wantLog:       []string{"provenance attestation verified", "ralph-ci v1.2.3 fake-release"},
	}, {
		name: "attestation fails: refused", ref: "v1.2.3", arch: "X64",
		gh: func(dir string) { stubGH(t, dir, true, false) },
		wantLog: []string{
			"verification failed: no attestation matched",
			"::error title=ralph-ci install::refused ralph-ci_1.2.3_linux_amd64.tar.gz of release v1.2.3: its provenance attestation does not verify",
		},
	}, {
		name: "attestation required without a gh that can: refused", ref: "v1.2.3", arch: "X64",
		with: map[string]string{"verify-attestation": "true"}, gh: oldGH,
		wantLog: []string{"verify-attestation is true but the GitHub CLI (gh) cannot verify attestations here"},
	}, {
		name: "attestation off", ref: "v1.2.3", arch: "X64",
		with: map[string]string{"verify-attestation": "false"}, gh: func(dir string) { stubGH(t, dir, true, false) },
		wantInstalled: true,
		wantLog:       []string{"attestation check turned off", "ralph-ci v1.2.3 fake-release"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJob(t, tt.ref, tt.arch, tt.with, func(good, bad string) *fakeRelease {
				return newRelease(t, good, bad, tt.tampered)
			}, tt.gh)
			res := j.step(t, "install")
			if res.Err != nil {
				t.Fatalf("install step failed: %v\n%s", res.Err, res.Output)
			}
			for _, want := range tt.wantLog {
				if !strings.Contains(res.Output, want) {
					t.Errorf("log lacks %q:\n%s", want, res.Output)
				}
			}
			if got, want := res.Outputs["go-sum"], sha256Hex(goSum); got != want {
				t.Errorf("go-sum output = %q, want the SHA-256 of go.sum %q", got, want)
			}
			_, statErr := os.Stat(j.bin)
			if tt.wantInstalled {
				if res.Outputs["bin"] != j.bin || res.Outputs["build"] != "" {
					t.Errorf("outputs = %v, want bin=%s and no build", res.Outputs, j.bin)
				}
				if statErr != nil {
					t.Errorf("no installed binary: %v", statErr)
				}
				if _, err := os.Stat(j.goodRan); err != nil {
					t.Errorf("the installed binary did not run: %v", err)
				}
			} else {
				if res.Outputs["build"] != "true" || res.Outputs["bin"] != "" {
					t.Errorf("outputs = %v, want build=true and no bin", res.Outputs)
				}
				if statErr == nil {
					t.Errorf("a binary was installed at %s", j.bin)
				}
			}
			if _, err := os.Stat(j.badRan); err == nil {
				t.Error("the tampered binary ran")
			}
			checkRequests(t, j.rel.seen(), tt.wantRequests)
		})
	}
}

// checkRequests compares the requests made with the expected prefixes (nil:
// not checked).
func checkRequests(t *testing.T, got, want []string) {
	t.Helper()
	if want == nil {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("requests = %q, want %d like %q", got, len(want), want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("request %d = %q, want %q…", i, got[i], want[i])
		}
	}
}

// TestInstallAskedOnlyForARelease: the attestation check names the
// repository and the release workflow, so an attestation by any other
// workflow (a fork's, a pull request's) does not pass.
func TestAttestationNamesTheReleaseWorkflow(t *testing.T) {
	var ghDir string
	j := newJob(t, "v1.2.3", "X64", nil, func(good, bad string) *fakeRelease {
		return newRelease(t, good, bad, false)
	}, func(dir string) { ghDir = dir; stubGH(t, dir, true, true) })
	if res := j.step(t, "install"); res.Err != nil || res.Outputs["bin"] == "" {
		t.Fatalf("install: %v %v\n%s", res.Err, res.Outputs, res.Output)
	}
	args, err := os.ReadFile(filepath.Join(ghDir, "gh.args"))
	if err != nil {
		t.Fatal(err)
	}
	want := "ralph-ci_1.2.3_linux_amd64.tar.gz --repo ralph-ci/ralph-ci --signer-workflow ralph-ci/ralph-ci/.github/workflows/release.yml"
	if !strings.Contains(string(args), "attestation verify ") || !strings.Contains(string(args), want) {
		t.Errorf("gh was called with\n%s\nwant attestation verify …%s", args, want)
	}
}
