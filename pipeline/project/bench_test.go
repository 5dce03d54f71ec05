package project

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// benchRepo writes a config and n specs with a full front matter, their
// times an hour old (as in a checked-out repository).
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	old := time.Now().Add(-time.Hour)
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	write("ralph.yaml", "agents:\n  coder: {command: [sh, -c, 'true']}\nspecs: {default_tier: auto}\n")
	for i := range n {
		write(fmt.Sprintf("specs/s%05d.spec.md", i), fmt.Sprintf(`---
id: s%[1]d
title: Spec %[1]d
completion:
  outcome: "feature %[1]d works"
  acceptance_criteria: ["feature %[1]d exists", "it is tested"]
  coder: {promise: DONE_%[1]d, description: "feature %[1]d is written", verification_method: string_match}
contracts:
  - verification: auto
    acceptance_criteria: ["feature %[1]d works"]
---
# Spec %[1]d
`, i))
	}
	return root
}

// BenchmarkLoad is a cold load (config and every front matter validated),
// as check and the start of run do; retained-KiB/spec is the heap still
// held afterwards.
func BenchmarkLoad(b *testing.B) {
	root := benchRepo(b, 200)
	for b.Loop() {
		if _, err := Load(root, ""); err != nil {
			b.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, _ := Load(root, "")
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1024/200, "retained-KiB/spec")
	runtime.KeepAlive(p)
}

// BenchmarkReload is the scan between two rotations of a run, none of
// the specs changed, at 100 and 1,000 specs: the spec folders are listed
// and every spec is stat'ed.
func BenchmarkReload(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("specs=%d", n), func(b *testing.B) {
			root := benchRepo(b, n)
			p, err := Load(root, "")
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, ps, err := p.Loader.Load(); err != nil || len(ps) > 0 {
					b.Fatal(err, ps)
				}
			}
		})
	}
}
