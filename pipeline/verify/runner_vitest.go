package verify

// vitest: one vitest invocation (vitest, vitest run, or a package.json
// script that is one) gets --reporter=json --outputFile.json=FILE beside
// its default reporter; its JSON report reads like jest's, and a test
// marked .fails, which the report calls passed, is caught by its marker.
var vitest = Runner{
	Name:     "vitest",
	Commands: []string{"a command that is one `vitest` or `vitest run` invocation (`npx vitest run`), or `npm test`, `npm run X`, `yarn X`, `pnpm X` whose package.json script is one"},
	Files:    None("recognised by the command (or the package.json script it runs) only"),
	Report:   []string{"`--reporter=default --reporter=json --outputFile.json=FILE` appended (after `--` for npm and pnpm)"},
	Env:      None("vitest reads no reporter from the environment: run it as the verification command, or as the package.json script the command runs"),
	Config: []ConfigFile{
		{"vitest.config.*", []string{"whole file", "the setup files it names (setupFiles, globalSetup)"}},
		{"vitest.workspace.*", []string{"whole file"}},
		{"vite.config.*", []string{"test", "resolve.alias"}},
		{"package.json", []string{"vitest", "scripts.test and the scripts it runs"}},
	},
	Markers:   jsMarkers,
	Detect:    []string{`process\.env\.VITEST\b`, `VITEST_WORKER_ID`, `VITEST_POOL_ID`},
	NoTests:   []string{`No test files found`, `No test suite found`},
	TestFiles: jest.TestFiles,
	TestStart: jsTestStart,

	invoked: func(c Call) bool { r, _ := jsRunner(c.Words, c.Dir); return r == "vitest" },
	preset:  jsPreset,
}
