package matrix

import (
	"errors"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/shards"
)

// TestPartCheck: a job is a shard or the integration, only with delivery
// pr, and its shard is spelled K-of-N.
func TestPartCheck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		part      Part
		mode      deliver.Mode
		wantErr   string // "": valid
		wantShard string
	}{
		{"whole run", Part{}, mode("none"), "", ""},
		{"shard", Part{Shard: "2/4"}, mode("pr"), "", "2-of-4"},
		{"integration", Part{Integrate: true}, mode("pr"), "", ""},
		{"specs without a shard", Part{Specs: []string{"a"}}, mode("pr"), "--specs needs --shard K-of-N", ""},
		{"both", Part{Shard: "1-of-2", Integrate: true}, mode("pr"), "a job is a shard or the integration", ""},
		{"shard off pr", Part{Shard: "1-of-2"}, mode("commit"), "need a delivery whose state travels in git", ""},
		{"integration off pr", Part{Integrate: true}, mode("none"), "need a delivery whose state travels in git", ""},
		{"bad name", Part{Shard: "3-of-2"}, mode("pr"), "3-of-2", ""},
		{"shard on its own branch", Part{Shard: "1-of-2"}, mode("branch"), "", "1-of-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.part.Check(tc.mode)
			var ue *exitcode.UsageError
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Check: %v, want none", err)
			case tc.wantErr != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Check: %v, want a usage error saying %q", err, tc.wantErr)
			case tc.wantErr == "" && tc.part.Shard != tc.wantShard:
				t.Errorf("shard %q, want %q", tc.part.Shard, tc.wantShard)
			}
		})
	}
}

func mode(name string) deliver.Mode {
	m, err := deliver.ModeNamed(name)
	if err != nil {
		panic(err)
	}
	return m
}

// TestJSON: the plan is a strategy.matrix whose specs are one CSV record
// (a path with a comma stays one path).
func TestJSON(t *testing.T) {
	raw, err := JSON([]shards.Shard{{Name: "1-of-2", Specs: []string{"a.md", "b,c.md"}}, {Name: "2-of-2", Specs: []string{"d.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"include":[{"shard":"1-of-2","specs":"a.md,\"b,c.md\"","count":2},{"shard":"2-of-2","specs":"d.md","count":1}]}`
	if string(raw) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", raw, want)
	}
}
