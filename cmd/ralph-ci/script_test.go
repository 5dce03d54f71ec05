package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes the test binary double as the ralph-ci binary, so the
// scripts in testdata/script run the real command line end to end.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ralph-ci": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("RUNNER_DEBUG", "")
			// The bundled example, as a user gets it.
			return os.CopyFS(filepath.Join(env.WorkDir, "quickstart"), os.DirFS("../../examples/quickstart"))
		},
	})
}
