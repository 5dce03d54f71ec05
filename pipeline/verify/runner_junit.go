package verify

// The generic reader of JUnit XML: any runner that writes it (jest-junit,
// pytest --junitxml, Surefire, Gradle, PHPUnit, ctest, dotnet with a
// logger), named in test_report, a file or a folder of them.
var junitXML = Runner{
	Name:     "junit xml",
	Commands: None("any command: the report is named in test_report"),
	Files:    None("the report is named in test_report"),
	Report:   []string{"the file or folder test_report names: `<testsuites>` or `<testsuite>`, each `<testcase>` named `classname/name`, `<skipped>`, `<failure>` and `<error>` read"},
	Env:      None("the command is configured to write the report"),
	Config:   []ConfigFile{{"test_report", []string{"the config key itself, guarded with the spec's front matter or the config file"}}},
	Markers: Markers{
		Skip:       None("the writer's own markers; the report's <skipped> counts as not passing"),
		ExpectFail: None("the writer's own"),
		Focus:      None("the writer's own"),
		Invert:     None("the writer's own"),
		Todo:       None("the writer's own"),
	},
	Detect:    None("the writer's own"),
	NoTests:   []string{`a report with no <testcase>`},
	TestFiles: None("the writer's own"),
	TestStart: None("the writer's own"),
}
