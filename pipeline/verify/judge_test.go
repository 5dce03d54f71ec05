package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/schema"
)

func TestAgentJudge(t *testing.T) {
	root := t.TempDir()
	agentOf := func(shell string, timeout time.Duration) schema.Agent {
		return schema.Agent{Command: []string{"sh", "-c", shell}, Format: "text", Timeout: schema.Duration(timeout)}
	}
	j := AgentJudge{Root: root, Agents: map[string]schema.Agent{
		"ok":      agentOf(`cat >/dev/null; echo "model=$RALPH_JUDGE_MODEL"; echo VERIFIED`, time.Minute),
		"echo":    agentOf(`cat`, time.Minute),
		"fails":   agentOf(`echo VERIFIED; exit 2`, time.Minute),
		"slow":    agentOf(`sleep 5`, 200*time.Millisecond),
		"missing": {Command: []string{"/no/such/judge"}, Format: "text", Timeout: schema.Duration(time.Minute)},
	}}
	for _, tc := range []struct{ name, want, err string }{
		{"ok", "model=haiku\nVERIFIED", ""},
		{"echo", "PROMPT", ""},
		{"fails", "", "judge fails exited with 2"},
		{"slow", "", "judge slow timed out after 200ms"},
		{"missing", "", "judge missing: starting agent"},
		{"nobody", "", `judge "nobody" is not an agent of the config`},
	} {
		got, err := j.Judge(context.Background(), tc.name, "haiku", "PROMPT")
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err != nil || strings.TrimSpace(got) != tc.want {
			t.Errorf("%s: %q %v", tc.name, got, err)
		}
	}
}
