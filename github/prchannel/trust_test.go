package prchannel_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestBaseConfig: on a pull request, who may approve comes from the base
// commit's config; a base that cannot be read (5xx after the retries)
// fails closed, to the defaults.
func TestBaseConfig(t *testing.T) {
	const cfg = "agents: {coder: {command: [sh, a.sh]}}\n"
	prOwn := func(o *prchannel.Options) {
		o.TrustConfig, o.ConfigFiles = false, []string{"ralph.yaml"}
		o.Config = schema.GitHub{RequiredPermission: "write", Approvers: []string{"carol", "Codertocat"}}
	}
	t.Run("the base's approvers", func(t *testing.T) {
		w := newWorld(t)
		w.options = prOwn
		w.srv.SetFile(fake.BaseSHA, "ralph.yaml", cfg+"github: {approvers: [carol]}\n")
		w.sync()
		w.srv.AddComment(coder, "yes")
		if res := w.sync(); len(res.Pending) != 1 {
			t.Fatalf("the author approved their own pull request: %+v", res)
		}
		for _, want := range []string{`"ignored":["github.approvers: [carol Codertocat] (base: [carol])","github.ignore_pr_author: false (base: true)"]`,
			`"author":"Codertocat","reason":"the pull request's author (github.ignore_pr_author); the pull request's own config would let it count`} {
			if !strings.Contains(w.logs.String(), want) {
				t.Errorf("the log lacks %s:\n%s", want, w.logs)
			}
		}
		w.srv.AddComment(carol, "yes")
		if res := w.sync(); len(res.Passed) != 1 {
			t.Fatalf("the base's approver did not count: %+v\n%s", res, w.logs)
		}
	})
	t.Run("a 5xx fails closed", func(t *testing.T) {
		w := newWorld(t)
		w.options = prOwn
		w.srv.SetFile(fake.BaseSHA, "ralph.yaml", cfg+"github: {approvers: [carol]}\n")
		w.srv.Inject(fake.Fault{Method: "GET", Path: "/contents/", Code: http.StatusBadGateway, Count: 100})
		w.sync()
		w.srv.AddComment(carol, "yes")
		if res := w.sync(); len(res.Pending) != 1 {
			t.Fatalf("an approver counted though the base config could not be read: %+v", res)
		}
		if n := w.srv.Seen("GET", "/contents/ralph.yaml$"); n != 8 { // 4 tries, 2 syncs
			t.Errorf("%d reads of the base config", n)
		}
		if !strings.Contains(w.logs.String(), "cannot read the config on the pull request's base commit") {
			t.Errorf("no warning:\n%s", w.logs)
		}
	})
}
