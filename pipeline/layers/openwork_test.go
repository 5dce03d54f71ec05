package layers

import (
	"strings"
	"testing"
)

// Admissions in seven languages and in other English words are heard;
// the same words used harmlessly are not (the honest corpus below).
func TestAdmissionFamilies(t *testing.T) {
	admits := []string{
		"I haven't gotten around to the Windows path.",
		"The retry logic is still pending.",
		"Skipped for now: the flaky network test.",
		"The README update is deferred to the docs pass.",
		"The parser is not done yet, but the lexer works.",
		"I have yet to wire the CLI flag.",
		"Für now: Die Validierung ist noch nicht fertig.",
		"Der Export steht noch aus.",
		"La validation n'est pas encore implémentée… il reste à écrire les tests.",
		"Je n'ai pas eu le temps de finir l'export.",
		"La exportación queda pendiente.",
		"No pude terminar las pruebas de integración.",
		"A exportação fica para depois.",
		"Ainda não terminei a validação.",
		"エクスポート機能は未実装です。",
		"テストはまだ完了していません。",
		"导出功能尚未完成。",
		"还没有实现导入。",
		"I temporarily disabled the cache test.",
		"You'll need to finish the migration script.",
	}
	for _, msg := range admits {
		if got := Admissions(FinalMessage(msg, nil), DefaultAdmissions()); len(got) == 0 {
			t.Errorf("not heard: %q", msg)
		}
	}
	honest := []string{
		"To use the new flag, you'll need to set RALPH_TOKEN in the environment.",
		"I temporarily disabled the cache test to bisect the failure, then restored it.",
		"Temporarily disabled the linter while reformatting, and re-enabled it afterwards.",
		"If the directory does not exist yet, it is created.",
		"Falls der Ordner noch nicht existiert, wird er angelegt.",
		"Si le fichier n'existe pas encore, il est créé.",
		"Si el archivo aún no existe, se crea.",
		"Se o arquivo ainda não existe, ele é criado.",
		"如果文件尚未存在，则创建它。",
		"手動で設定することもできます。",
		"The close is deferred to the end of the function.",
		"The job stays pending until a worker picks it up; the connection is still open while it streams.",
		"Network calls are stubbed out in the unit tests.",
		"Handles incomplete input and returns an error for a partial record.",
		"Maneja una entrada incompleta devolviendo un error.",
		"Como se explica más adelante, la caché se vacía al final.",
		"Le cache est vidé plus tard dans la requête.",
		"There is nothing left to do manually: the migration runs on start.",
		"I couldn't find any other caller of Div.",
		"No test is skipped or disabled; all 14 pass.",
	}
	for _, msg := range honest {
		if got := Admissions(FinalMessage(msg, nil), DefaultAdmissions()); len(got) > 0 {
			t.Errorf("honest sentence heard as %q: %q", got, msg)
		}
	}
}

// Headings of work left and unchecked items are open work; a heading
// that lists nothing, checked items and the criteria's own items are not.
func TestOpenWork(t *testing.T) {
	criteria := []string{"Login returns a JWT"}
	for _, tc := range []struct {
		tail, want string
	}{
		{"Done.\n\nRemaining:\n- refresh tokens\n", `heading "Remaining"`},
		{"## Known gaps\n\nThe Windows path.", `heading "Known gaps"`},
		{"**Known gap:** no retry on 503", `heading "Known gap"`},
		{"TODO: wire the flag", `heading "TODO"`},
		{"Noch offen: der Export", `heading "Noch offen"`},
		{"## 残作業\n- エクスポート", `heading "残作業"`},
		{"- [x] parser\n- [ ] writer", `unchecked item "writer"`},
		{"Remaining: none.", ""},
		{"## Known gaps\n\nNone.", ""},
		{"TODO: nothing left.", ""},
		{"- [x] parser\n- [x] writer", ""},
		{"- [ ] Login returns a JWT: the route is missing", ""}, // the criteria layer's
		{"```\nRemaining:\n- [ ] x\n```\nAll done.", ""},
		{"> Remaining: the spec's own list", ""},
		{"The remaining tests pass.", ""},
		{"To do so, run make.", ""},
	} {
		if got := strings.Join(OpenWork(tc.tail, DefaultOpenHeadings(), criteria), "|"); got != tc.want {
			t.Errorf("OpenWork(%q) = %q, want %q", tc.tail, got, tc.want)
		}
	}
}

// The agent's report of the criteria: each must be there, marked done;
// the last item of a criterion counts, and a note may follow it.
func TestCriteriaLeft(t *testing.T) {
	criteria := []string{"Login returns a JWT", "Invalid tokens return 401"}
	for _, tc := range []struct {
		tail, want string
	}{
		{"- [x] Login returns a JWT\n- [x] Invalid tokens return 401\n<promise>P</promise>", ""},
		{"* [X] **Login returns a JWT**: see auth.go\n1. [x] invalid tokens return 401.", ""},
		{"- [x] Login returns a JWT\n- [ ] Invalid tokens return 401: no middleware yet", `"Invalid tokens return 401" (not done)`},
		{"- [x] Login returns a JWT", `"Invalid tokens return 401" (missing)`},
		{"All done.", `"Login returns a JWT" (missing), "Invalid tokens return 401" (missing)`},
		{"- [ ] Login returns a JWT\n- [ ] Invalid tokens return 401\n\nDone now:\n- [x] Login returns a JWT\n- [x] Invalid tokens return 401", ""},
		{"```\n- [x] Login returns a JWT\n- [x] Invalid tokens return 401\n```", `"Login returns a JWT" (missing), "Invalid tokens return 401" (missing)`},
		{"- [x] Login returns a JWT token and more\n- [x] Invalid tokens return 401", `"Login returns a JWT" (missing)`},
	} {
		if got := strings.Join(CriteriaLeft(tc.tail, criteria), ", "); got != tc.want {
			t.Errorf("CriteriaLeft(%q) = %q, want %q", tc.tail, got, tc.want)
		}
	}
	if CriteriaLeft("anything", nil) != nil {
		t.Error("no criteria, nothing left")
	}
}

// Markers are matched as markers, not as parts of identifiers, SKUs or
// file names.
func TestMarkersAreMarkers(t *testing.T) {
	markers := []string{"TODO", "XXX", "test.todo", "todo!"}
	for line, want := range map[string]bool{
		`SKU_PATTERN = r"XXX-0000"`:     false,
		`sku = "AB-XXX"`:                false,
		`open("todo.txt")`:              false,
		`// XXX: racy`:                  true,
		`# TODO - handle 503`:           true,
		`- TODO`:                        true,
		`test.todo('refresh tokens')`:   true,
		`fn later() -> u32 { todo!() }`: true,
		`const TODO_LIST = []`:          false,
		`contest.todo = 1`:              false,
	} {
		if got := len(Unfinished(Added{"a.py": {line}}, markers)) > 0; got != want {
			t.Errorf("%q: marker found %v, want %v", line, got, want)
		}
	}
}
