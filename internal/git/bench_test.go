package git

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkDoorway: one git command through the doorway (its git
// directory guarded, HEAD synced both ways) against the same command
// started plainly in the checkout.
func BenchmarkDoorway(b *testing.B) {
	dir := repo(b)
	ctx := context.Background()
	b.Run("doorway", func(b *testing.B) {
		for range b.N {
			if _, err := Run(ctx, dir, "rev-parse", "HEAD"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for range b.N {
			cmd := exec.Command("git", "rev-parse", "HEAD")
			cmd.Dir = dir
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSweep: what the sweep adds to one git command, in a git
// directory as a delivery run leaves it (HEAD, config, info/exclude, a
// branch, origin's branch, the state ref, FETCH_HEAD): the walk that
// checks it before the command and the one that records it after, as
// setup does.
func BenchmarkSweep(b *testing.B) {
	dir := repo(b)
	ctx := context.Background()
	head := person(b, dir, "rev-parse", "HEAD")
	for _, ref := range []string{"refs/remotes/origin/main", "refs/ralph-ci/state/main", "refs/ralph-ci/fetched/spend/2026-11-28"} {
		if _, err := Run(ctx, dir, "update-ref", ref, head); err != nil {
			b.Fatal(err)
		}
	}
	c, _ := Find(dir)
	p, err := privateFor(c)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := p.left.sweep(p.dir); err != nil {
			b.Fatal(err)
		}
		if p.left, err = scan(p.dir, p.left); err != nil {
			b.Fatal(err)
		}
	}
}
