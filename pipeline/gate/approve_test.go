package gate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestDefaultGitHub: the defaults used when the base has no usable config
// are the schema's.
func TestDefaultGitHub(t *testing.T) {
	got := gate.DefaultGitHub()
	if len(got.Approvers) != 0 || got.RequiredPermission != "write" || !got.IgnorePRAuthor {
		t.Fatalf("defaults %+v", got)
	}
	if got := gate.DefaultTier(); got != plan.TierVerify {
		t.Fatalf("default tier %q, want verify", got)
	}
}

// TestApproversWhy: who may approve, one rule for every channel.
func TestApproversWhy(t *testing.T) {
	perms := map[string]string{"writer": "write", "reader": "read", "maint": "maintain", "author": "admin", "triager": "triage"}
	base := schema.GitHub{RequiredPermission: "write", IgnorePRAuthor: true, Approvers: []string{"Carol"}}
	loose := schema.GitHub{RequiredPermission: "read", Approvers: []string{"carol", "reader"}}
	tests := []struct {
		name string
		a    gate.Approvers
		p    gate.Person
		want string // a prefix of the reason; "" counts
		asks bool   // the permission is looked up
	}{
		{"a write collaborator", gate.Approvers{Config: base}, gate.Person{Login: "writer"}, "", true},
		{"maintain ranks above write", gate.Approvers{Config: base}, gate.Person{Login: "maint"}, "", true},
		{"read is below write", gate.Approvers{Config: base}, gate.Person{Login: "reader"}, `permission "read" is below github.required_permission "write"`, true},
		{"not a collaborator", gate.Approvers{Config: base}, gate.Person{Login: "stranger"}, `permission "none" is below`, true},
		{"an approver, any case, without a permission", gate.Approvers{Config: base}, gate.Person{Login: "carol"}, "", false},
		{"a bot by type", gate.Approvers{Config: base}, gate.Person{Login: "carol", Bot: true}, "a bot", false},
		{"a bot by name", gate.Approvers{Config: base}, gate.Person{Login: "renovate[bot]"}, "a bot", false},
		{"the tool itself", gate.Approvers{Config: base, Self: "Ralph"}, gate.Person{Login: "ralph"}, "ralph-ci's own comment", false},
		{"the pull request's author", gate.Approvers{Config: base, PRAuthor: "Author"}, gate.Person{Login: "author"}, "the pull request's author (github.ignore_pr_author)", false},
		{"the author counts when not ignored", gate.Approvers{Config: schema.GitHub{RequiredPermission: "write"}, PRAuthor: "author"}, gate.Person{Login: "author"}, "", true},
		{"no required permission means write", gate.Approvers{Config: schema.GitHub{}}, gate.Person{Login: "triager"}, `permission "triage" is below github.required_permission "write"`, true},
		{"the pull request's own config is named, never used", gate.Approvers{Config: base, PROwn: &loose}, gate.Person{Login: "reader"},
			`permission "read" is below github.required_permission "write" and not in github.approvers; the pull request's own config would let it count`, true},
		{"the own config is not named when it would refuse too", gate.Approvers{Config: base, PROwn: &loose}, gate.Person{Login: "stranger"},
			`permission "none" is below github.required_permission "write" and not in github.approvers`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			perm := func(_ context.Context, login string) (string, error) {
				asked = true
				if p, ok := perms[strings.ToLower(login)]; ok {
					return p, nil
				}
				return "none", nil
			}
			got, err := tc.a.Why(context.Background(), tc.p, perm)
			if err != nil {
				t.Fatal(err)
			}
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("Why = %q, want %q", got, tc.want)
			}
			if tc.want != "" && strings.HasSuffix(tc.name, "would refuse too") && strings.Contains(got, "own config") {
				t.Errorf("Why = %q names the pull request's own config", got)
			}
			if asked != tc.asks {
				t.Errorf("permission looked up: %t, want %t", asked, tc.asks)
			}
		})
	}
	boom := errors.New("boom")
	if _, err := (gate.Approvers{Config: base}).Why(context.Background(), gate.Person{Login: "x"}, func(context.Context, string) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("a failed permission lookup: %v", err)
	}
}

func TestRank(t *testing.T) {
	order := []string{"none", "read", "triage", "write", "maintain", "admin"}
	for i := 1; i < len(order); i++ {
		if gate.Rank(order[i-1]) >= gate.Rank(order[i]) {
			t.Errorf("%s does not rank below %s", order[i-1], order[i])
		}
	}
	if gate.Rank("owner") != 0 {
		t.Error("an unknown permission ranks above none")
	}
}

func TestIgnoredSettings(t *testing.T) {
	base := schema.GitHub{Approvers: []string{"carol"}, RequiredPermission: "write", IgnorePRAuthor: true}
	if got := gate.IgnoredSettings(schema.GitHub{Approvers: []string{"Carol", "carol"}, RequiredPermission: "write", IgnorePRAuthor: true}, base); len(got) != 0 {
		t.Errorf("the same settings differ: %q", got)
	}
	got := gate.IgnoredSettings(schema.GitHub{Approvers: []string{"carol", "Codertocat"}, RequiredPermission: "read"}, base)
	want := []string{`github.approvers: [carol Codertocat] (base: [carol])`, `github.required_permission: "read" (base: "write")`, `github.ignore_pr_author: false (base: true)`}
	if !slices.Equal(got, want) {
		t.Errorf("IgnoredSettings = %q, want %q", got, want)
	}
}

// TestRaisedTier: a pull request may raise a spec's tier, never lower it;
// a base it cannot read keeps the checkpoint.
func TestRaisedTier(t *testing.T) {
	auto, verify := plan.TierAuto, plan.TierVerify
	verifyContract := []schema.Contract{{Verification: verify}}
	autoContract := []schema.Contract{{Verification: auto}}
	tests := []struct {
		name           string
		head           string
		def            string
		contracts      []schema.Contract
		wantTier       string
		wantWarning    string
		wantBaseUnread bool
	}{
		{"verify on the head needs no base", verify, "", nil, verify, "", true},
		{"auto on both", auto, auto, nil, auto, "", false},
		{"verify by the base's default", auto, verify, nil, verify, "the pull request tried to lower", false},
		{"verify by a contract on the base", auto, auto, verifyContract, verify, "the pull request tried to lower", false},
		{"auto by a contract despite the default", auto, verify, autoContract, auto, "", false},
		{"no contracts and the base's default unknown", auto, "", nil, verify, "the spec's tier on the pull request's base commit is unknown", true},
		{"contracts decide without the default", auto, "", autoContract, auto, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, why := gate.BaseTier(tc.def, tc.contracts)
			if (why != "") != tc.wantBaseUnread {
				t.Fatalf("BaseTier(%q, %v) = %q, %q", tc.def, tc.contracts, base, why)
			}
			tier, warning := gate.RaisedTier(tc.head, base, why)
			if tier != tc.wantTier || (tc.wantWarning == "") != (warning == "") || !strings.HasPrefix(warning, tc.wantWarning) {
				t.Errorf("RaisedTier(%q, %q, %q) = %q, %q; want %q, %q", tc.head, base, why, tier, warning, tc.wantTier, tc.wantWarning)
			}
		})
	}
}
