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
