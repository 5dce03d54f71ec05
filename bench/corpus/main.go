// Command corpus runs the labelled corpus of internal/corpus through the
// ralph-ci binary, with the real test runners, and prints per ecosystem
// the false completions caught and the honest ones rejected, labelled by
// the registry's runner that reads the tests:
//
//	go run ./bench/corpus [-only python,js,rust,...] [-parallel 2] [-preset] [-v]
//
// With -preset each spec names no test_report and runs the plain runner
// command (pytest -q, npm test, cargo test), as a user writes it when
// ralph-ci adds the runner's report itself.
//
// It builds ralph-ci from this checkout first. It exits 1 when a false
// completion a mechanical check can see was accepted, or an honest one
// rejected.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/corpus"
)

func main() {
	only := flag.String("only", "", "comma-separated ecosystems (python, pytest, js, rust, unittest, vitest, go, go-script); all when empty")
	parallel := flag.Int("parallel", 2, "cases run at a time")
	verbose := flag.Bool("v", false, "print every case")
	preset := flag.Bool("preset", false, "specs without test_report: ralph-ci's runner presets read the tests")
	flag.Parse()
	dir, err := os.MkdirTemp("", "ralph-corpus-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "ralph-ci")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/ralph-ci").CombinedOutput(); err != nil {
		fail(fmt.Errorf("go build: %v\n%s", err, out))
	}
	bad := false
	for _, eco := range corpus.All() {
		if *only != "" && !strings.Contains(","+*only+",", ","+eco.Name+",") {
			continue
		}
		if *preset {
			eco = eco.WithPresets()
		}
		results, err := corpus.Run(context.Background(), bin, dir, eco, eco.Cases, *parallel)
		if err != nil {
			fail(err)
		}
		s := corpus.Tally(eco.Name, results)
		fmt.Printf("%-28s %s\n", eco.Reads, s)
		if *verbose {
			for _, r := range results {
				fmt.Printf("  %-9s accepted=%-5v %s  %s\n", [...]string{"honest", "false", "judge"}[r.Case.Label], r.Accepted, r.Case.Name, firstLine(r.Reason))
			}
		}
		for _, m := range s.Missed {
			fmt.Println("  MISSED false completion:", m)
		}
		for _, w := range s.Wrongly {
			fmt.Println("  REJECTED honest completion:", w)
		}
		for _, f := range s.Failed {
			fmt.Println("  COULD NOT RUN:", f)
		}
		bad = bad || len(s.Missed) > 0 || len(s.Wrongly) > 0 || len(s.Failed) > 0
	}
	if bad {
		os.Exit(1)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 150 {
		s = s[:150] + "…"
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "corpus:", err)
	os.Exit(1)
}
