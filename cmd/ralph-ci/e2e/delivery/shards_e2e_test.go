package delivery

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters/jsonreport"
)

// shardAgent notes each call as $PROMPTS/<spec>.<n>.<shard>, writes work
// in a spec's first call (in specs/b.spec.md's first two; before its
// second it waits for $SYNC/a-done, so that shard B changes files after
// shard A has verified its spec), then claims DONE with the promise.
const shardAgent = `prompt=$(cat)
slug=$(echo "$RALPH_SPEC" | tr '/.' '__')
n=$(($(ls "$PROMPTS" | grep -c "^$slug\.") + 1))
echo "$RALPH_SPEC" > "$PROMPTS/$slug.$n.$SHARD"
work=1
if [ "$slug" = specs_b_spec_md ]; then
  work=2
  if [ "$n" = 2 ]; then
    i=0; while [ ! -e "$SYNC/a-done" ]; do i=$((i + 1)); [ "$i" -gt 900 ] && exit 9; sleep 0.1; done
  fi
fi
if [ "$n" -le "$work" ]; then
  echo "$slug $n" >> "$slug.txt"
  echo "RALPH_STATUS: CONTINUE"
else
  printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
  echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
  echo "RALPH_STATUS: DONE"
fi
`

// TestShardsAcrossAMatrix: plan two shards, run them as concurrent
// processes from fresh checkouts of the pull request, then integrate.
func TestShardsAcrossAMatrix(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n" // specs/a.spec.md stays verify tier (its contracts say so)
	files["agent.sh"] = shardAgent
	files["PROMPT.md"] = "# The root prompt\n"
	files["specs/b.spec.md"] = "# B\n"
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	sync, reports := t.TempDir(), t.TempDir()

	w.Job("", "")
	stdout, _ := w.Ralph(0, "plan", "--shards", "2", "--deliver", "pr")
	var m struct{ Include []e2e.MatrixEntry }
	if err := json.Unmarshal([]byte(stdout), &m); err != nil || len(m.Include) != 2 {
		t.Fatalf("plan printed %q (%v), want a matrix of 2 shards", stdout, err)
	}
	var all []string
	var shardA, shardB e2e.MatrixEntry
	for _, e := range m.Include {
		all = append(all, strings.Split(e.Specs, ",")...)
		if strings.Contains(e.Specs, e2e.SpecA) {
			shardA = e
		} else {
			shardB = e
		}
	}
	slices.Sort(all)
	if strings.Join(all, " ") != "PROMPT.md specs/a.spec.md specs/b.spec.md" || shardA.Specs != e2e.SpecA {
		t.Fatalf("plan %+v: want every spec once, %s alone in a shard", m.Include, e2e.SpecA)
	}

	// The two shards, each a fresh checkout, run at the same time.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := func(e e2e.MatrixEntry) (wait func() (string, string)) {
		w.Job("", "")
		cmd, o, errb := w.Command(ctx, "run", "--deliver", "pr", "--shard", e.Shard, "--specs", e.Specs, "--json", filepath.Join(reports, e.Shard+".json"), "--log-format", "json")
		cmd.Env = append(cmd.Env, "SHARD="+e.Shard, "SYNC="+sync)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return func() (string, string) {
			w.Exit(0, cmd.Wait(), []string{"run --shard", e.Shard}, o, errb)
			return o.String(), errb.String()
		}
	}
	waitA, waitB := start(shardA), start(shardB)
	waitA()
	if err := os.WriteFile(filepath.Join(sync, "a-done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitB()
	if out := ghorigin.Git(t, w.Bare, "for-each-ref", "--format=%(refname)", deliver.ShardRefPrefix); len(strings.Fields(out)) != 2 {
		t.Fatalf("shard state refs on origin: %q, want one per shard", out)
	}

	// The integration, a fresh checkout: a drops to 2/3 (b changed files
	// after a was verified), is verified again on the integrated commit,
	// and its checkpoint is presented there, once.
	w.Job("", "")
	_, stderr := w.RalphEnv(6, []string{"SHARD=integration"}, "run", "--deliver", "pr", "--integrate", "--json", filepath.Join(reports, "integration.json"), "--log-format", "json")
	e2e.Contains(t, "the integration's log", stderr, "3/3 drops to 2/3")
	head := w.Rev("refs/heads/changes")
	if r := w.Record(); r.SHA != head {
		t.Fatalf("checkpoint for %s, want the integrated head %s", r.SHA, head)
	}
	if out := ghorigin.Git(t, w.Bare, "for-each-ref", "--format=%(refname)", deliver.ShardRefPrefix); out != "" {
		t.Fatalf("integrated shard states left on origin: %q", out)
	}
	if st := w.Rev(deliver.StateRef("changes")); st == "" || w.Rev(st+"^1") != head {
		t.Fatalf("the integrated state %q does not describe the head %s", st, head)
	}

	// The next workflow run plans the same shards (a spec keeps its
	// shard), and a shard starts from the integrated state: its specs are
	// verified there, so it calls no agent.
	w.Job("", "")
	again, _ := w.Ralph(0, "plan", "--shards", "2", "--deliver", "pr")
	if again != stdout {
		t.Fatalf("the next plan moved specs:\n%s\nwant:\n%s", again, stdout)
	}
	before, _ := os.ReadDir(w.Prompts)
	w.Job("", "")
	w.RalphEnv(0, []string{"SHARD=again"}, "run", "--deliver", "pr", "--shard", shardB.Shard)
	if after, _ := os.ReadDir(w.Prompts); len(after) != len(before) {
		t.Fatalf("shard %s ran %d rotations on specs the integration verified", shardB.Shard, len(after)-len(before))
	}

	// Both shards' work is on the branch; no push was lost.
	for file, want := range map[string]string{"PROMPT_md.txt": "PROMPT_md 1", "specs_a_spec_md.txt": "specs_a_spec_md 1", "specs_b_spec_md.txt": "specs_b_spec_md 1\nspecs_b_spec_md 2"} {
		if got := ghorigin.Git(t, w.Bare, "show", "changes:"+file); got != want {
			t.Errorf("%s on the branch: %q, want %q", file, got, want)
		}
	}
	trailers := strings.Fields(ghorigin.Git(t, w.Bare, "log", "--format=%(trailers:key=Ralph-Spec,valueonly,separator=)", "changes"))
	slices.Sort(trailers)
	if strings.Join(trailers, " ") != "PROMPT.md specs/a.spec.md specs/b.spec.md specs/b.spec.md" {
		t.Errorf("the branch's ralph-ci commits are for %v, want one per rotation that changed files", trailers)
	}

	// Who ran what: PROMPT.md in one shard only, a again in the integration.
	calls, _ := os.ReadDir(w.Prompts)
	ranIn := map[string][]string{}
	for _, c := range calls {
		f := strings.Split(c.Name(), ".")
		if !slices.Contains(ranIn[f[0]], f[len(f)-1]) {
			ranIn[f[0]] = append(ranIn[f[0]], f[len(f)-1])
		}
	}
	if got := ranIn["PROMPT_md"]; len(got) != 1 || got[0] != shardB.Shard {
		t.Errorf("PROMPT.md ran in %v, want %s only", got, shardB.Shard)
	}
	if got := ranIn["specs_a_spec_md"]; !slices.Equal(got, []string{shardA.Shard, "integration"}) {
		t.Errorf("specs/a.spec.md ran in %v, want %s then the integration", got, shardA.Shard)
	}

	// The merged report adds up to the agent calls counted.
	w.Ralph(0, "report", "merge", "--json", filepath.Join(reports, "merged.json"),
		filepath.Join(reports, shardA.Shard+".json"), filepath.Join(reports, shardB.Shard+".json"), filepath.Join(reports, "integration.json"))
	f, err := os.Open(filepath.Join(reports, "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	merged, err := jsonreport.Decode(f, "merged.json")
	if err != nil {
		t.Fatal(err)
	}
	if merged.Totals.Rotations != len(calls) || merged.Totals.Specs != 3 {
		t.Fatalf("merged totals %+v, want %d rotations (the agent calls) over 3 specs", merged.Totals, len(calls))
	}
	for _, s := range merged.Specs {
		if s.Path == e2e.SpecA && !slices.Equal(s.Shards, []string{shardA.Shard, "integration"}) {
			t.Errorf("%s ran in %v by the report", s.Path, s.Shards)
		}
		if s.Path == "PROMPT.md" && (!slices.Equal(s.Shards, []string{shardB.Shard}) || s.Outcome != report.SpecVerified) {
			t.Errorf("PROMPT.md in the report: shards %v, outcome %s", s.Shards, s.Outcome)
		}
	}
}
