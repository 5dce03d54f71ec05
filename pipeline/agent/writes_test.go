package agent

import (
	"slices"
	"testing"
)

// TestWritesFor: a process may change the run's paths and the folders
// its own HOME and tool variables name (absolute ones, each of GOPATH's),
// never a path that holds, is or is inside ralph-ci's git folder; without
// a limit, nothing is listed (it may change what its user may).
func TestWritesFor(t *testing.T) {
	w := &Writes{Limit: true, Paths: []string{"/work/repo", "/tmp/scratch", "/var", "/var/tmp/ralph-ci-0/x"}, Never: []string{"/var/tmp/ralph-ci-0"}}
	type testCase struct {
		name string
		env  []string
		want []string
	}
	for _, tc := range []testCase{
		{"paths alone", nil, []string{"/work/repo", "/tmp/scratch"}},
		{"home and caches", []string{"HOME=/home/agent", "GOCACHE=/cache/go/", "GOPATH=/go1:/go2", "XDG_CACHE_HOME=relative", "CODEX_HOME="},
			[]string{"/work/repo", "/tmp/scratch", "/home/agent", "/cache/go", "/go1", "/go2"}},
		{"the last of a variable set twice", []string{"HOME=/root", "HOME=/home/agent"}, []string{"/work/repo", "/tmp/scratch", "/home/agent"}},
		{"a HOME holding the git folder", []string{"HOME=/", "CARGO_HOME=/var/tmp"}, []string{"/work/repo", "/tmp/scratch"}},
		{"a tool folder already granted", []string{"HOME=/work/repo"}, []string{"/work/repo", "/tmp/scratch"}},
	} {
		if got := w.For(tc.env); !slices.Equal(got, tc.want) {
			t.Errorf("%s: For(%q) = %q, want %q", tc.name, tc.env, got, tc.want)
		}
	}
	if got := w.RuledOut(w.Paths); !slices.Equal(got, []string{"/var", "/var/tmp/ralph-ci-0/x"}) {
		t.Errorf("RuledOut = %q", got)
	}
	if got := (&Writes{Paths: []string{"/x"}}).For([]string{"HOME=/h"}); got != nil {
		t.Errorf("without a limit: %q, want nil", got)
	}
	if got := (*Writes)(nil).For(nil); got != nil {
		t.Errorf("nil: %q", got)
	}
}

// TestScratchEnv: the scratch folder is every temporary-folder variable,
// set before the agent's own env entries (which win).
func TestScratchEnv(t *testing.T) {
	h := &Host{Writes: &Writes{Scratch: "/tmp/ralph-ci-scratch-1"}}
	_, env, err := h.prepare(Invocation{Argv: []string{"true"}, Env: []string{"TMP=/mine"}})
	if err != nil {
		t.Fatal(err)
	}
	if lookup(env, "TMPDIR") != "/tmp/ralph-ci-scratch-1" || lookup(env, "TEMP") != "/tmp/ralph-ci-scratch-1" || lookup(env, "TMP") != "/mine" {
		t.Errorf("env: TMPDIR=%q TEMP=%q TMP=%q", lookup(env, "TMPDIR"), lookup(env, "TEMP"), lookup(env, "TMP"))
	}
	if (*Writes)(nil).ScratchEnv() != nil {
		t.Error("a nil Writes names a scratch folder")
	}
}
