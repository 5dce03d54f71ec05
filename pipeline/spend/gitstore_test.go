package spend

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// TestGitRefFollowsTheDay: a run that outlasts a UTC day goes on in the
// next day's ledger (a new day, nothing spent), where it would otherwise
// write the new day into the old day's ref.
func TestGitRefFollowsTheDay(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	root := t.TempDir()
	bare, work := filepath.Join(root, "origin.git"), filepath.Join(root, "work")
	for _, args := range [][]string{{"init", "-q", "--bare", bare}, {"init", "-q", work}, {"-C", work, "remote", "add", "origin", bare}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	now := time.Date(2026, 11, 28, 23, 59, 0, 0, time.UTC)
	l := &Ledger{Store: &GitRef{Git: deliver.Git{Dir: work}, Remote: "origin", Now: func() time.Time { return now }},
		Cap: Cap{Scope: Day, USD: 1}, Owner: "job", TTL: time.Hour, Now: func() time.Time { return now }}
	ctx := context.Background()
	if _, err := l.Settle(ctx, Amount{USD: 0.75}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	spent, err := l.Settle(ctx, Amount{USD: 0.10})
	if err != nil || spent.USD != 0.10 {
		t.Fatalf("the next day's spend: %v, %v; want $0.10", spent, err)
	}
	for day, want := range map[string]string{"2026-11-28": `"usd":0.75`, "2026-11-29": `"usd":0.1`} {
		out, err := exec.Command("git", "-C", bare, "show", DayRefPrefix+day+":ledger.json").Output()
		if err != nil || !containsAll(string(out), want, `"date":"`+day+`"`) {
			t.Errorf("%s's ledger: %s %v, want %s", day, out, err, want)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
