package agent

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The job's credentials and files never reach a started process, whatever
// the config passes; environment.remove removes more, env_pass re-admits
// what it removed for one agent, env_remove removes more for one agent;
// the caller's entries are set as given, except Claude Code's persistent
// retry, which would keep a rate-limited agent from ever ending. The
// variables that point git at another repository never reach it either.
func TestBuildEnv(t *testing.T) {
	base := []string{
		"PATH=/bin", "HOME=/home/u", "ANTHROPIC_API_KEY=sk-1",
		"GITHUB_TOKEN=ghs_x", "GH_TOKEN=ghs_y", "ACTIONS_RUNTIME_TOKEN=r", "ACTIONS_ID_TOKEN_REQUEST_URL=u",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN=t", "ACTIONS_CACHE_URL=c", "GITHUB_ENV=/e", "GITHUB_PATH=/p",
		"GITHUB_OUTPUT=/o", "GITHUB_STEP_SUMMARY=/s", "INPUT_TOKEN=i", "RALPH_TOKEN_FD=3",
		"RALPH_TOKEN_FILE=/t", "RALPH_PUSH_TOKEN_FD=4", "RALPH_PUSH_TOKEN_FILE=/pt",
		"NPM_TOKEN=n", "AWS_SECRET_ACCESS_KEY=a", "AWS_REGION=eu",
		"CLAUDE_CODE_RETRY_WATCHDOG=1", "CLAUDE_CODE_RETRY_WATCHDOG_MAX_WAIT_MS=9",
		"GIT_DIR=/dev/repo/.git", "GIT_WORK_TREE=/dev/repo", "GIT_INDEX_FILE=/dev/repo/.git/index.lock", "GIT_COMMON_DIR=/dev/repo/.git",
	}
	for _, tc := range []struct {
		name string
		p    EnvPolicy
		want []string
	}{
		{"fixed list only", EnvPolicy{}, []string{"PATH=/bin", "HOME=/home/u", "ANTHROPIC_API_KEY=sk-1", "NPM_TOKEN=n", "AWS_SECRET_ACCESS_KEY=a", "AWS_REGION=eu"}},
		{"config removes more", EnvPolicy{Remove: []string{"NPM_TOKEN", "AWS_*"}}, []string{"PATH=/bin", "HOME=/home/u", "ANTHROPIC_API_KEY=sk-1"}},
		{"an agent passes one back", EnvPolicy{Remove: []string{"NPM_TOKEN", "AWS_*"}, AgentPass: []string{"AWS_REGION", "GITHUB_TOKEN", "INPUT_*"}},
			[]string{"PATH=/bin", "HOME=/home/u", "ANTHROPIC_API_KEY=sk-1", "AWS_REGION=eu"}},
		{"git's redirections cannot be passed", EnvPolicy{Remove: []string{"GIT_*"}, AgentPass: []string{"GIT_DIR", "GIT_INDEX_FILE"}}, []string{"PATH=/bin", "HOME=/home/u", "ANTHROPIC_API_KEY=sk-1", "NPM_TOKEN=n", "AWS_SECRET_ACCESS_KEY=a", "AWS_REGION=eu"}},
		{"the persistent retry cannot be passed", EnvPolicy{AgentPass: []string{"CLAUDE_CODE_RETRY_WATCHDOG*"}}, []string{"PATH=/bin", "HOME=/home/u", "ANTHROPIC_API_KEY=sk-1", "NPM_TOKEN=n", "AWS_SECRET_ACCESS_KEY=a", "AWS_REGION=eu"}},
		{"an agent removes more", EnvPolicy{AgentRemove: []string{"ANTHROPIC_API_KEY"}}, []string{"PATH=/bin", "HOME=/home/u", "NPM_TOKEN=n", "AWS_SECRET_ACCESS_KEY=a", "AWS_REGION=eu"}},
	} {
		got := BuildEnv(base, tc.p, []string{"RALPH_SPEC=a", "CLAUDE_CODE_RETRY_WATCHDOG=1"})
		if want := append(tc.want, "RALPH_SPEC=a"); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, want)
		}
	}
}

// A secret is masked however the output is split into chunks, and the
// text around it is kept.
func TestMaskerAcrossChunks(t *testing.T) {
	var h Host
	h.AddSecrets("ghs_0123456789abcdef", "short", "sk-ant-api03-zzzzzzzz")
	in := "token=ghs_0123456789abcdef and ghs_0123 then sk-ant-api03-zzzzzzzz! short stays\n"
	want := "token=*** and ghs_0123 then ***! short stays\n"
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		w, flush := newMaskerOf(h.list(), &out)
		for i := 0; i < len(in); i += size {
			_, _ = w.Write([]byte(in[i:min(i+size, len(in))]))
		}
		if err := flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("chunks of %d: %q, want %q", size, out.String(), want)
		}
	}
	if got := h.Mask(in); got != want {
		t.Errorf("Mask = %q", got)
	}
	if got := SecretsOf([]string{"NPM_TOKEN=n1", "MY_KEY=k", "X_SECRET=s", "PATH=/bin", "GITHUB_TOKEN=g"}); !slices.Equal(got, []string{"n1", "k", "s", "g"}) || strings.Contains(strings.Join(got, ""), "/bin") {
		t.Errorf("SecretsOf = %q", got)
	}
}

// On a fork's run only the allow-list is inherited: the basics, never a
// secret of the job, not even an agent's key (the proxy holds it), and
// the fork's env_pass cannot widen it; the caller's RALPH_* are still set.
func TestForkAllowList(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "RALPH_X=1", "ANTHROPIC_API_KEY=ak", "OPENAI_API_KEY=ok",
		"NPM_TOKEN=npm", "AWS_SECRET_ACCESS_KEY=aws", "GITHUB_TOKEN=gh"}
	p := EnvPolicy{Only: ForkAllowList(), AgentPass: []string{"NPM_TOKEN"}}
	got := BuildEnv(base, p, []string{"RALPH_SPEC=a"})
	want := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "RALPH_X=1", "RALPH_SPEC=a"}
	if !slices.Equal(got, want) {
		t.Errorf("fork env = %q, want %q", got, want)
	}
	if got := BuildEnv(base, EnvPolicy{}, nil); !slices.Contains(got, "NPM_TOKEN=npm") {
		t.Errorf("without an allow-list the job's environment is inherited: %q", got)
	}
}
