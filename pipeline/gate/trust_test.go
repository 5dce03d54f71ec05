package gate_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

// tree makes the directories dirs under a temporary base, a .git in each one named
// in gits, and returns base.
func tree(t *testing.T, dirs, gits []string) string {
	t.Helper()
	base := t.TempDir()
	for _, d := range append(dirs, gits...) {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range gits {
		if err := os.MkdirAll(filepath.Join(base, g, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// TestApprovalConfig: the path cases of which config says who may
// approve on a pull request. A config of the checkout is read again from
// the base commit at its path in the repository (with the other names it
// may have had when it was discovered); a config outside the checkout, or
// in another checkout inside it, is trusted as given.
func TestApprovalConfig(t *testing.T) {
	others := []string{"ralph.cue", "ralph.yml", "ralph.json"}
	tests := []struct {
		name        string
		dirs, gits  []string
		root        string // relative to the temporary base
		config      string // relative to root unless abs
		abs         bool   // config is relative to the base, made absolute
		discovered  bool
		wantFiles   []string
		wantTrusted bool
	}{
		{name: "discovered at the repository's top", gits: []string{"repo"}, root: "repo", config: "ralph.yaml", discovered: true,
			wantFiles: append([]string{"ralph.yaml"}, others...)},
		{name: "named with --config", dirs: []string{"repo/ci"}, gits: []string{"repo"}, root: "repo", config: "ci/ralph.yaml",
			wantFiles: []string{"ci/ralph.yaml"}},
		{name: "root in a subdirectory of the repository", dirs: []string{"repo/sub/dir"}, gits: []string{"repo"}, root: "repo/sub/dir", config: "ralph.json", discovered: true,
			wantFiles: []string{"sub/dir/ralph.json", "sub/dir/ralph.cue", "sub/dir/ralph.yaml", "sub/dir/ralph.yml"}},
		{name: "a path that leaves root but stays in the repository", dirs: []string{"repo/sub"}, gits: []string{"repo"}, root: "repo/sub", config: "../ralph.yaml",
			wantFiles: []string{"ralph.yaml"}},
		{name: "outside the repository", dirs: []string{"elsewhere"}, gits: []string{"repo"}, root: "repo", config: "elsewhere/ralph.yaml", abs: true,
			wantTrusted: true},
		{name: "the base branch checked out beside the head", gits: []string{"repo", "repo/.ralph-base"}, root: "repo", config: ".ralph-base/ralph.yaml",
			wantTrusted: true},
		{name: "a directory named like a checkout without a .git", dirs: []string{"repo/.ralph-base"}, gits: []string{"repo"}, root: "repo", config: ".ralph-base/ralph.yaml",
			wantFiles: []string{".ralph-base/ralph.yaml"}},
		{name: "no repository: root is the top", dirs: []string{"plain"}, root: "plain", config: "ralph.yaml",
			wantFiles: []string{"ralph.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tree(t, tc.dirs, tc.gits)
			config := tc.config
			if tc.abs {
				config = filepath.Join(base, tc.config)
			}
			files, trusted := gate.ApprovalConfig(filepath.Join(base, tc.root), config, tc.discovered)
			if trusted != tc.wantTrusted || !slices.Equal(files, tc.wantFiles) {
				t.Errorf("ApprovalConfig = %q, trusted %t; want %q, trusted %t", files, trusted, tc.wantFiles, tc.wantTrusted)
			}
		})
	}
}

// TestRepoPrefix: where the specs' root lies in its repository, as the
// base commit's paths are named.
func TestRepoPrefix(t *testing.T) {
	tests := []struct {
		name       string
		dirs, gits []string
		root, want string
	}{
		{"the repository's top", nil, []string{"repo"}, "repo", ""},
		{"a subdirectory", []string{"repo/examples/quickstart"}, []string{"repo"}, "repo/examples/quickstart", "examples/quickstart/"},
		{"the nearest checkout wins", []string{"repo/sub/inner"}, []string{"repo", "repo/sub"}, "repo/sub/inner", "inner/"},
		{"no repository", []string{"plain"}, nil, "plain", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tree(t, tc.dirs, tc.gits)
			if got := gate.RepoPrefix(filepath.Join(base, tc.root)); got != tc.want {
				t.Errorf("RepoPrefix = %q, want %q", got, tc.want)
			}
		})
	}
}
