package prchannel

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/github"
)

// RepoForTest is repository through a client of the GitHub port built
// with c, as the job session builds the job's one (the tests of this
// folder, both packages).
func RepoForTest(t testing.TB, c github.Config, repository string) github.Repo {
	t.Helper()
	client, err := github.New(c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := github.RepoOf(client, repository)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
