package prchannel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestEventPayloadsAreUpstream checks that the payloads in testdata/events
// are the @octokit/webhooks-examples they claim to be (NOTE.md), data
// unchanged. .ci/run installs the package and points
// RALPH_WEBHOOKS_EXAMPLES at it; elsewhere the test is skipped.
func TestEventPayloadsAreUpstream(t *testing.T) {
	pkg := os.Getenv("RALPH_WEBHOOKS_EXAMPLES")
	if pkg == "" {
		t.Skip("RALPH_WEBHOOKS_EXAMPLES is not set (.ci/run sets it)")
	}
	raw, err := os.ReadFile(filepath.Join(pkg, "api.github.com", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index []struct {
		Name     string            `json:"name"`
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	upstream := func(event string, i int) any {
		for _, e := range index {
			if e.Name == event && i < len(e.Examples) {
				var v any
				if err := json.Unmarshal(e.Examples[i], &v); err != nil {
					t.Fatal(err)
				}
				return v
			}
		}
		t.Fatalf("no example %d of %s upstream", i, event)
		return nil
	}
	for file, ref := range map[string]struct {
		event string
		index int
	}{
		"pull_request.opened.json":          {"pull_request", 0},
		"pull_request.synchronize.json":     {"pull_request", 22},
		"issue_comment.created.json":        {"issue_comment", 0},
		"push.json":                         {"push", 0},
		"workflow_dispatch.json":            {"workflow_dispatch", 0},
		"pull_request.labeled.json":         {"pull_request", 8},
		"merge_group.checks_requested.json": {"merge_group", 0},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "events", file))
		if err != nil {
			t.Fatal(err)
		}
		var ours any
		if err := json.Unmarshal(b, &ours); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ours, upstream(ref.event, ref.index)) {
			t.Errorf("%s differs from %s example %d of @octokit/webhooks-examples", file, ref.event, ref.index)
		}
	}
	// schedule.json: the objects a scheduled run's payload shares with
	// workflow_dispatch, unchanged, plus the cron line and the workflow.
	b, err := os.ReadFile(filepath.Join("testdata", "events", "schedule.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sched map[string]any
	if err := json.Unmarshal(b, &sched); err != nil {
		t.Fatal(err)
	}
	dispatch := upstream("workflow_dispatch", 0).(map[string]any)
	for _, key := range []string{"repository", "organization", "sender"} {
		if !reflect.DeepEqual(sched[key], dispatch[key]) {
			t.Errorf("schedule.json: %s differs from workflow_dispatch example 0", key)
		}
	}
	if cron, _ := sched["schedule"].(string); cron == "" || len(sched) != 5 {
		t.Errorf("schedule.json: want the keys schedule, workflow, repository, organization, sender; got %v", sched)
	}
}
