package verify

import (
	"path/filepath"
	"slices"
)

// Maven and Gradle write JUnit XML reports anyway: ralph-ci reads them
// from where they write them, in the command's folder.

var maven = Runner{
	Name:     "maven",
	Commands: []string{"`mvn` or `./mvnw` with a phase that runs tests (test, verify, install, package, deploy)"},
	Files:    None("recognised by the command only"),
	Report:   []string{"the JUnit XML reports in target/surefire-reports"},
	Env:      None("behind a script, name target/surefire-reports in test_report"),
	Config:   []ConfigFile{{"pom.xml", []string{"the surefire and failsafe plugins", "skip and test properties"}}},
	Markers: Markers{
		Skip:       []string{`@Disabled\b`, `@Ignore\b`, `\bassumeTrue\(`, `\bAssumptions\.assume`},
		ExpectFail: None("JUnit has no expected-failure marker"),
		Focus:      None("JUnit has no focus marker; -Dtest selects, and the command is guarded"),
		Invert:     None("JUnit has no marker that passes a failing test"),
		Todo:       None("JUnit has no todo marker"),
	},
	Detect:    []string{`surefire\.`, `System\.getProperty\("surefire`},
	NoTests:   []string{`No tests to run`, `Tests run: 0,`},
	TestFiles: javaTests,
	TestStart: []string{`^\s*@(Test|ParameterizedTest|RepeatedTest)\b`},

	invoked: func(c Call) bool { r, _ := buildTool(c.Words, c.Dir); return r == "maven" },
	preset:  buildPreset,
}

var gradle = Runner{
	Name:     "gradle",
	Commands: []string{"`gradle` or `./gradlew` with test, check or build"},
	Files:    None("recognised by the command only"),
	Report:   []string{"the JUnit XML reports in build/test-results/test"},
	Env:      None("behind a script, name build/test-results/test in test_report"),
	Config: []ConfigFile{
		{"build.gradle", []string{"the test task's blocks"}},
		{"build.gradle.kts", []string{"the test task's blocks"}},
	},
	Markers:   maven.Markers,
	Detect:    None("Gradle sets nothing code reads that JUnit's own runner does not"),
	NoTests:   []string{`No tests found for given includes`},
	TestFiles: javaTests,
	TestStart: []string{`^\s*@(Test|ParameterizedTest|RepeatedTest)\b`},

	invoked: func(c Call) bool { r, _ := buildTool(c.Words, c.Dir); return r == "gradle" },
	preset:  buildPreset,
}

var javaTests = []string{"*Test.java", "*Tests.java", "*IT.java", "*Test.kt", "*Tests.kt"}

func buildPreset(c Call) (Preset, bool) {
	runner, report := buildTool(c.Words, c.Dir)
	return Preset{Runner: runner, Command: c.cmd, Report: report, Added: "reads " + report}, true
}

// buildTool recognises a Maven or Gradle invocation that runs tests, and
// the folder of the reports it writes.
func buildTool(words []string, dir string) (runner, report string) {
	words = withoutAssignments(words)
	if len(words) < 2 {
		return "", ""
	}
	has := func(goals ...string) bool {
		return slices.ContainsFunc(words[1:], func(w string) bool { return slices.Contains(goals, w) })
	}
	switch filepath.Base(words[0]) {
	case "mvn", "mvnw":
		if has("test", "verify", "install", "package", "deploy") {
			return "maven", filepath.Join(dir, "target", "surefire-reports")
		}
	case "gradle", "gradlew":
		if has("test", "check", "build") {
			return "gradle", filepath.Join(dir, "build", "test-results", "test")
		}
	}
	return "", ""
}
