package prchannel

import (
	"context"
	"testing"

	gh "github.com/google/go-github/v60/github"
	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

// statusStore is a fake of the commit statuses part of the API
// (github.Statuses), newest first per commit, as GitHub lists them.
type statusStore struct {
	github.Statuses // any other method is a test failure (nil)
	by              map[string][]*gh.RepoStatus
	created         int
}

func (s *statusStore) CreateStatus(_ context.Context, _, _, ref string, st *gh.RepoStatus) (*gh.RepoStatus, *gh.Response, error) {
	st.Creator = &gh.User{Login: gh.String("ralph-bot")}
	s.by[ref] = append([]*gh.RepoStatus{st}, s.by[ref]...)
	s.created++
	return st, &gh.Response{}, nil
}

func (s *statusStore) ListStatuses(_ context.Context, _, _, ref string, _ *gh.ListOptions) ([]*gh.RepoStatus, *gh.Response, error) {
	return s.by[ref], &gh.Response{}, nil
}

// The channel takes the parts of the API it uses as small interfaces: a
// test plugs a fake of one of them. Gate sets the merge-gate status once,
// and writes nothing when its own newest status already says the same.
func TestGateThroughAFakeStatuses(t *testing.T) {
	store := &statusStore{by: map[string][]*gh.RepoStatus{}}
	c := &Client{api: github.Repo{Owner: "o", Name: "r", Statuses: store}, owner: "o", repo: "r", pr: 1,
		self: "ralph-bot", log: zerolog.Nop(), statuses: map[string][]*gh.RepoStatus{}}
	const sha = "0123456789abcdef0123456789abcdef01234567"
	v := gate.Verdict{State: "success", Description: "every checkpoint is approved"}
	for range 2 {
		if err := c.Gate(context.Background(), sha, DefaultGateContext, "", v); err != nil {
			t.Fatal(err)
		}
	}
	if store.created != 1 {
		t.Fatalf("Gate set %d statuses, want 1 (the second says the same)", store.created)
	}
	v.State, v.Description = "pending", "a checkpoint waits"
	if err := c.Gate(context.Background(), sha, DefaultGateContext, "", v); err != nil || store.created != 2 {
		t.Fatalf("a new verdict: %d statuses, %v", store.created, err)
	}
}
