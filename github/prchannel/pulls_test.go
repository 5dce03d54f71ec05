package prchannel_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	gh "github.com/google/go-github/v60/github"
	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestSweeper: the open pull requests are listed oldest first; a head's
// checkpoints are its ralph-ci statuses on spec paths (other contexts and
// other files are not ralph-ci's); the specs are read at the head, a spec
// gone from it is left out, and a tier the head lowered is raised by the
// base.
func TestSweeper(t *testing.T) {
	srv := fake.New(t, "Codertocat", "Hello-World", 4, sha1, "Codertocat")
	srv.AddPull(3, sha2, "Codertocat")
	cfgSrc := "agents: {coder: {command: [\"true\"]}}\n"
	srv.SetFile(srv.BaseSHA, "ralph.yaml", cfgSrc)
	srv.SetFile(srv.BaseSHA, "specs/low.spec.md", "---\ntitle: Low\n---\n# verify by the base's default\n")
	srv.SetFile(sha1, "specs/low.spec.md", "---\ntitle: Low\ncontracts: [{name: c, verification: auto}]\n---\n# lowered\n")
	srv.SetStatus(sha1, "ralph-ci/specs/low.spec.md", "pending", "awaiting the human checkpoint")
	srv.SetStatus(sha1, "ralph-ci/specs/gone.spec.md", "pending", "awaiting the human checkpoint")
	srv.SetStatus(sha1, "ralph-ci/README.md", "pending", "not a spec")
	srv.SetStatus(sha1, "ci/build", "failure", "another tool's")
	srv.SetStatus(sha2, "ralph-ci/specs/low.spec.md", "pending", "")
	srv.SetStatus(sha2, "ralph-ci/specs/low.spec.md", "success", "approved by @alice")

	cfg, err := schema.LoadConfig("ralph.yaml", []byte(cfgSrc))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	repo := prchannel.RepoForTest(t, github.Config{APIURL: srv.URL, Token: "test-token"}, "Codertocat/Hello-World")
	sw := prchannel.NewSweeper(repo, prchannel.Options{ConfigFiles: []string{"ralph.yaml"}, Log: zerolog.New(&logs)}, cfg, "")
	ctx := context.Background()
	pulls, err := sw.OpenPulls(ctx)
	if err != nil || !slices.Equal(pulls, []gate.Pull{{Number: 3, Head: sha2}, {Number: 4, Head: sha1}}) {
		t.Fatalf("open pulls %+v, %v", pulls, err)
	}
	specs, waiting, err := sw.Checkpoints(ctx, pulls[0])
	if err != nil || !slices.Equal(specs, []string{"specs/low.spec.md"}) || waiting {
		t.Fatalf("#3: %v waiting=%v %v; want its one checkpoint, approved", specs, waiting, err)
	}
	specs, waiting, err = sw.Checkpoints(ctx, pulls[1])
	if err != nil || !slices.Equal(specs, []string{"specs/low.spec.md", "specs/gone.spec.md"}) || !waiting {
		t.Fatalf("#4: %v waiting=%v %v; want the two spec statuses, waiting", specs, waiting, err)
	}
	ch, plans, err := sw.Channel(ctx, pulls[1], specs)
	if err != nil || ch == nil {
		t.Fatal(err)
	}
	if len(plans) != 1 || plans[0].Path != "specs/low.spec.md" || plans[0].Title != "Low" || plans[0].Tier != plan.TierVerify {
		t.Fatalf("plans %+v; want specs/low.spec.md as the head has it, raised to verify", plans)
	}
	for _, want := range []string{"the spec of a checkpoint is gone from the pull request's head", "the pull request tried to lower the spec's tier"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
}

func TestRateLimited(t *testing.T) {
	resp := func(code int, header ...string) *http.Response {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return &http.Response{StatusCode: code, Header: h}
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"primary", &gh.RateLimitError{Response: resp(403)}, true},
		{"secondary", fmt.Errorf("comments: %w", &gh.AbuseRateLimitError{Response: resp(403)}), true},
		{"429", &gh.ErrorResponse{Response: resp(429)}, true},
		{"403 with Retry-After", &gh.ErrorResponse{Response: resp(403, "Retry-After", "3600")}, true},
		{"403 remaining 0", &gh.ErrorResponse{Response: resp(403, "X-RateLimit-Remaining", "0")}, true},
		{"403 saying so", &gh.ErrorResponse{Response: resp(403), Message: "You have exceeded a secondary rate limit"}, true},
		{"403 no permission", &gh.ErrorResponse{Response: resp(403), Message: "Resource not accessible by integration"}, false},
		{"404", &gh.ErrorResponse{Response: resp(404)}, false},
		{"plain", errors.New("connection refused"), false},
	} {
		if got := prchannel.RateLimited(tc.err); got != tc.want {
			t.Errorf("%s: RateLimited = %v, want %v", tc.name, got, tc.want)
		}
	}
}
