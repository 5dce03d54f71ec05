package verify

import (
	"strings"
	"testing"
)

// go test -json events in a command's output, in chunks of any size.
func TestGoTestJSON(t *testing.T) {
	out := `building...
{"Action":"run","Package":"x/calc","Test":"TestDiv"}
{"Action":"pass","Package":"x/calc","Test":"TestDiv"}
{"Action":"skip","Package":"x/calc","Test":"TestMul"}
{"Action":"fail","Package":"x/calc","Test":"TestZero"}
{"Action":"pass","Package":"x/calc"}
`
	for _, size := range []int{1, 7, len(out)} {
		g := &goTestJSON{}
		for i := 0; i < len(out); i += size {
			_, _ = g.Write([]byte(out[i:min(i+size, len(out))]))
		}
		r := g.run()
		if !r.Found || strings.Join(r.Passed, ",") != "x/calc/TestDiv" || strings.Join(r.Skipped, ",") != "x/calc/TestMul" || strings.Join(r.Failed, ",") != "x/calc/TestZero" {
			t.Errorf("chunks of %d: %+v", size, r)
		}
	}
	if r := (&goTestJSON{}).run(); r.Found {
		t.Errorf("plain output is no report: %+v", r)
	}
}

func TestParseJUnit(t *testing.T) {
	r, err := ParseJUnit([]byte(`<testsuites><testsuite name="a"><testcase classname="A" name="ok"/><testcase classname="A" name="skip"><skipped/></testcase><testcase classname="A" name="bad"><failure message="x"/></testcase></testsuite></testsuites>`))
	if err != nil || strings.Join(r.Passed, ",") != "A/ok" || strings.Join(r.Skipped, ",") != "A/skip" || strings.Join(r.Failed, ",") != "A/bad" || r.Ran() != 2 {
		t.Errorf("ParseJUnit = %+v, %v", r, err)
	}
	if _, err := ParseJUnit([]byte("not xml")); err == nil {
		t.Error("garbage parsed")
	}
}
